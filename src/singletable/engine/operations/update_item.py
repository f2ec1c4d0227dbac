"""UpdateItem: edit one item's attributes in place (creating it if absent), optionally under a condition."""

from __future__ import annotations

from typing import Any

from singletable.engine import codec
from singletable.engine.capacity import Capacity
from singletable.engine.errors import validation
from singletable.engine.expressions import RequestExpressions
from singletable.engine.operations import common
from singletable.engine.operations.shapes import check_shape

RETURN_VALUES = ("NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW")
LEGACY = ("AttributeUpdates", "Expected", "ConditionalOperator")
MODERN = ("UpdateExpression", "ConditionExpression")


def run(engine: Any, params: dict[str, Any]) -> dict[str, Any]:
    check_shape("UpdateItem", params)
    common.reject_mixed(params, LEGACY, MODERN)
    common.unsupported_legacy(params, LEGACY)
    schema = engine.table(params["TableName"])
    return_values = common.check_return_values(params.get("ReturnValues"), RETURN_VALUES)
    key = params["Key"]
    pk, sk = common.key_from_request(schema, key)
    update_text = params.get("UpdateExpression")
    condition_text = params.get("ConditionExpression")
    expressions = RequestExpressions(
        params.get("ExpressionAttributeNames"),
        params.get("ExpressionAttributeValues"),
        uses_expressions=update_text is not None or condition_text is not None,
    )
    update = expressions.update(update_text) if update_text is not None else None
    condition = expressions.condition(condition_text) if condition_text is not None else None
    expressions.finish()
    if update is not None:
        for name in schema.key_names:
            if name in update.top_level_names:
                raise validation(
                    f"One or more parameter values were invalid: Cannot update attribute {name}. "
                    "This attribute is part of the key"
                )

    capacity = Capacity(schema.name)
    storage = engine.storage
    with storage.write():
        found = common.load_item(storage, schema, pk, sk)
        old, old_size = found if found is not None else (None, 0)
        if condition is not None and not condition(old):
            raise common.condition_failed(old, params.get("ReturnValuesOnConditionCheckFailure"))
        base = old if old is not None else {name: key[name] for name in schema.key_names}
        new = update.apply(base) if update is not None else base
        common.check_index_keys(schema, new, from_update=True)
        new_size = codec.item_size(new)
        common.check_item_size(new_size)
        common.write_item(storage, schema, pk, sk, old, old_size, new, new_size, capacity)
        metrics = common.item_collection_metrics(
            storage, schema, pk, key, params.get("ReturnItemCollectionMetrics")
        )

    response: dict[str, Any] = {}
    attributes = _returned(return_values, old, new, update)
    if attributes:
        response["Attributes"] = attributes
    consumed = capacity.render(params.get("ReturnConsumedCapacity"))
    if consumed is not None:
        response["ConsumedCapacity"] = consumed
    if metrics is not None:
        response["ItemCollectionMetrics"] = metrics
    return response


def _returned(mode: str, old: dict[str, Any] | None, new: dict[str, Any], update: Any) -> dict[str, Any] | None:
    if mode == "NONE":
        return None
    if mode == "ALL_OLD":
        return old
    if mode == "ALL_NEW":
        return new
    if update is None:
        return None
    source = old if mode == "UPDATED_OLD" else new
    if source is None:
        return None
    return update.project_updated(source)
