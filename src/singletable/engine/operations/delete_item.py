"""DeleteItem: remove one item by its key, optionally only if a condition holds."""

from __future__ import annotations

from typing import Any

from singletable.engine.expressions import RequestExpressions
from singletable.engine.operations import common, legacy
from singletable.engine.operations.shapes import check_shape
from singletable.engine.operations.writes import DELETE, PreparedWrite, old_if_all_old, run_single

RETURN_VALUES = ("NONE", "ALL_OLD")
LEGACY = ("Expected", "ConditionalOperator")


def prepare(engine: Any, params: dict[str, Any]) -> PreparedWrite:
    """Every check DeleteItem makes before reading the item; also BatchWriteItem's DeleteRequest and
    TransactWriteItems' Delete."""
    common.reject_mixed(params, LEGACY, ("ConditionExpression",))
    schema = engine.table(params["TableName"])
    legacy_condition = legacy.expected(params)  # DynamoDB checks Expected before ReturnValues and Key
    common.check_return_values(params.get("ReturnValues"), RETURN_VALUES)
    key = params["Key"]
    pk, sk = common.key_from_request(schema, key)
    text = params.get("ConditionExpression")
    expressions = RequestExpressions(
        params.get("ExpressionAttributeNames"),
        params.get("ExpressionAttributeValues"),
        uses_expressions=text is not None,
        absent="ConditionExpression is null",
    )
    condition = expressions.condition(text) if text is not None else legacy_condition
    expressions.finish()
    return PreparedWrite(
        DELETE,
        schema,
        pk,
        sk,
        key,
        condition=condition,
        return_on_failure=params.get("ReturnValuesOnConditionCheckFailure"),
    )


def run(engine: Any, params: dict[str, Any]) -> dict[str, Any]:
    check_shape("DeleteItem", params)
    return run_single(engine, prepare(engine, params), params, old_if_all_old(params))
