"""UpdateItem: edit one item's attributes in place (creating it if absent), optionally under a condition."""

from __future__ import annotations

from typing import Any

from singletable.engine.expressions import RequestExpressions
from singletable.engine.operations import common, legacy
from singletable.engine.operations.shapes import check_shape
from singletable.engine.operations.writes import UPDATE, PreparedWrite, run_single

RETURN_VALUES = ("NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW")
LEGACY = ("AttributeUpdates", "Expected", "ConditionalOperator")
MODERN = ("UpdateExpression", "ConditionExpression")


def prepare(engine: Any, params: dict[str, Any]) -> PreparedWrite:
    """Every check UpdateItem makes before reading the item; also TransactWriteItems' Update. Checks that
    need the item (key attributes, the new item's size) run in ``PreparedWrite.evaluate``."""
    common.reject_mixed(params, LEGACY, MODERN)
    schema = engine.table(params["TableName"])
    legacy_condition = legacy.expected(params)  # DynamoDB checks Expected before ReturnValues and Key
    common.check_return_values(params.get("ReturnValues"), RETURN_VALUES)
    key = params["Key"]
    pk, sk = common.key_from_request(schema, key)
    update_text = params.get("UpdateExpression")
    condition_text = params.get("ConditionExpression")
    expressions = RequestExpressions(
        params.get("ExpressionAttributeNames"),
        params.get("ExpressionAttributeValues"),
        uses_expressions=update_text is not None or condition_text is not None,
        absent="UpdateExpression and ConditionExpression are null",
    )
    update: Any = expressions.update(update_text) if update_text is not None else None
    condition = expressions.condition(condition_text) if condition_text is not None else legacy_condition
    expressions.finish()
    if update is None:
        update = legacy.attribute_updates(params, schema.key_names)
    return PreparedWrite(
        UPDATE,
        schema,
        pk,
        sk,
        key,
        update=update,
        condition=condition,
        return_on_failure=params.get("ReturnValuesOnConditionCheckFailure"),
    )


def run(engine: Any, params: dict[str, Any]) -> dict[str, Any]:
    check_shape("UpdateItem", params)
    write = prepare(engine, params)
    mode = params.get("ReturnValues") or "NONE"
    return run_single(engine, write, params, lambda old, new: _returned(mode, old, new, write.update))


def _returned(
    mode: str, old: dict[str, Any] | None, new: dict[str, Any] | None, update: Any
) -> dict[str, Any] | None:
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
