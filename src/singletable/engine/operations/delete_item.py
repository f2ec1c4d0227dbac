"""DeleteItem: remove one item by its key, optionally only if a condition holds."""

from __future__ import annotations

from typing import Any

from singletable.engine.capacity import Capacity
from singletable.engine.expressions import RequestExpressions
from singletable.engine.operations import common
from singletable.engine.operations.shapes import check_shape

RETURN_VALUES = ("NONE", "ALL_OLD")
LEGACY = ("Expected", "ConditionalOperator")


def run(engine: Any, params: dict[str, Any]) -> dict[str, Any]:
    check_shape("DeleteItem", params)
    common.reject_mixed(params, LEGACY, ("ConditionExpression",))
    common.unsupported_legacy(params, LEGACY)
    schema = engine.table(params["TableName"])
    return_values = common.check_return_values(params.get("ReturnValues"), RETURN_VALUES)
    key = params["Key"]
    pk, sk = common.key_from_request(schema, key)
    text = params.get("ConditionExpression")
    expressions = RequestExpressions(
        params.get("ExpressionAttributeNames"),
        params.get("ExpressionAttributeValues"),
        uses_expressions=text is not None,
    )
    condition = expressions.condition(text) if text is not None else None
    expressions.finish()

    capacity = Capacity(schema.name)
    storage = engine.storage
    with storage.write():
        found = common.load_item(storage, schema, pk, sk)
        old, old_size = found if found is not None else (None, 0)
        if condition is not None and not condition(old):
            raise common.condition_failed(old, params.get("ReturnValuesOnConditionCheckFailure"))
        if old is not None:
            common.write_item(storage, schema, pk, sk, old, old_size, None, 0, capacity)
        else:
            capacity.table += 1.0
        metrics = common.item_collection_metrics(
            storage, schema, pk, key, params.get("ReturnItemCollectionMetrics")
        )

    response: dict[str, Any] = {}
    if return_values == "ALL_OLD" and old is not None:
        response["Attributes"] = old
    consumed = capacity.render(params.get("ReturnConsumedCapacity"))
    if consumed is not None:
        response["ConsumedCapacity"] = consumed
    if metrics is not None:
        response["ItemCollectionMetrics"] = metrics
    return response
