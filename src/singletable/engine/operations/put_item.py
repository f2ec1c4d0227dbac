"""PutItem: create or replace one item, optionally only if a condition holds."""

from __future__ import annotations

from typing import Any

from singletable.engine import codec
from singletable.engine.expressions import RequestExpressions
from singletable.engine.operations import common, legacy
from singletable.engine.operations.shapes import check_shape
from singletable.engine.operations.writes import PUT, PreparedWrite, old_if_all_old, run_single

RETURN_VALUES = ("NONE", "ALL_OLD")
LEGACY = ("Expected", "ConditionalOperator")


def prepare(engine: Any, params: dict[str, Any]) -> PreparedWrite:
    """Every check PutItem makes before reading the item; also BatchWriteItem's PutRequest and
    TransactWriteItems' Put, so all three answer with the same errors."""
    get = params.get
    # Without any condition parameter (every BatchWriteItem put, most PutItems) neither the mixing rule
    # nor the expression checks can fail, and there is nothing to compile.
    plain = (
        get("ConditionExpression") is None
        and get("Expected") is None
        and get("ConditionalOperator") is None
        and get("ExpressionAttributeNames") is None
        and get("ExpressionAttributeValues") is None
    )
    if not plain:
        common.reject_mixed(params, LEGACY, ("ConditionExpression",))
    schema = engine.table(params["TableName"])
    common.check_return_values(get("ReturnValues"), RETURN_VALUES)
    item, size = codec.validate_item_sized(params["Item"])
    common.check_item_size(size)
    pk, sk = common.key_from_item(schema, item)
    if schema.index_key_checks:
        common.check_index_keys(schema, item)
    condition = None if plain else _condition(params)
    return PreparedWrite(
        PUT,
        schema,
        pk,
        sk,
        item,
        item=item,
        size=size,
        condition=condition,
        return_on_failure=get("ReturnValuesOnConditionCheckFailure"),
    )


def _condition(params: dict[str, Any]) -> Any:
    """The request's ConditionExpression (or legacy Expected), with the expression parameters' checks."""
    text = params.get("ConditionExpression")
    expressions = RequestExpressions(
        params.get("ExpressionAttributeNames"),
        params.get("ExpressionAttributeValues"),
        uses_expressions=text is not None,
        absent="ConditionExpression is null",
    )
    condition = expressions.condition(text) if text is not None else legacy.expected(params)
    expressions.finish()
    return condition


def run(engine: Any, params: dict[str, Any]) -> dict[str, Any]:
    check_shape("PutItem", params)
    return run_single(engine, prepare(engine, params), params, old_if_all_old(params))
