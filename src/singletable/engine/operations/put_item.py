"""PutItem: create or replace one item, optionally only if a condition holds."""

from __future__ import annotations

from typing import Any

from singletable.engine import codec
from singletable.engine.capacity import Capacity
from singletable.engine.expressions import RequestExpressions
from singletable.engine.operations import common
from singletable.engine.operations.shapes import check_shape

RETURN_VALUES = ("NONE", "ALL_OLD")
LEGACY = ("Expected", "ConditionalOperator")


def run(engine: Any, params: dict[str, Any]) -> dict[str, Any]:
    check_shape("PutItem", params)
    common.reject_mixed(params, LEGACY, ("ConditionExpression",))
    common.unsupported_legacy(params, LEGACY)
    schema = engine.table(params["TableName"])
    return_values = common.check_return_values(params.get("ReturnValues"), RETURN_VALUES)
    item = codec.validate_item(params["Item"])
    size = codec.item_size(item)
    common.check_item_size(size)
    pk, sk = common.key_from_item(schema, item)
    common.check_index_keys(schema, item)
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
        common.write_item(storage, schema, pk, sk, old, old_size, item, size, capacity)
        metrics = common.item_collection_metrics(
            storage, schema, pk, item, params.get("ReturnItemCollectionMetrics")
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
