"""ExecuteTransaction: up to 100 PartiQL statements, all or nothing, as one TransactWriteItems or
TransactGetItems request.

Each statement is planned into the action shape TransactWriteItems takes (INSERT -> Put with
``attribute_not_exists``, UPDATE -> Update, DELETE -> Delete, EXISTS -> ConditionCheck) or a Get, and the
whole list goes through the transaction operations, so there is exactly one transaction engine -- and
one capacity rule: the response carries TransactWriteItems' (or TransactGetItems') ConsumedCapacity.
"""

from __future__ import annotations

from typing import Any

from singletable.engine._errors import DynamoDBError, validation
from singletable.engine._interfaces import OperationEngine
from singletable.engine._partiql import ast
from singletable.engine._partiql import run as partiql
from singletable.engine._partiql.errors import DUPLICATE_ITEM
from singletable.engine._partiql.plan import plan_get, plan_write
from singletable.engine._partiql.translate import strip_kind
from singletable.engine._transactions import cancelled

MIXED = "ExecuteTransaction API does not support both read and write operations in the same request."
NOT_FOUND = "Requested resource not found"
MEMBER = "Validation failed in TransactStatements[{position}]: "
SELECT_KEY = MEMBER + (
    "Select statements within ExecuteTransaction must specify the primary key in the where clause."
)
INDEX_READ = "Reads on indices are not supported within transactions."
RETURNING = "RETURNING clause is not supported in ExecuteTransaction."


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    requests = params["TransactStatements"]
    parsed = []
    for position, request in enumerate(requests):
        prefix = MEMBER.format(position=position)
        text, values = request.get("Statement"), request.get("Parameters")
        statement, parameters = partiql.parse(text, values, prefix=prefix)
        if isinstance(statement, ast.Select) and statement.index is not None:
            raise validation(prefix + INDEX_READ)
        if isinstance(statement, ast.Update | ast.Delete) and statement.returning is not None:
            raise validation(prefix + RETURNING)
        parsed.append((statement, parameters, request))
    reads = sum(isinstance(statement, ast.Select) for statement, _, _ in parsed)
    if reads and reads != len(parsed):
        raise validation(MIXED)
    mode = params.get("ReturnConsumedCapacity")
    try:
        if reads:
            gets = []
            for position, (statement, parameters, _) in enumerate(parsed):
                assert isinstance(statement, ast.Select)
                get = plan_get(
                    engine,
                    statement,
                    parameters,
                    missing=NOT_FOUND,
                    not_single=SELECT_KEY.format(position=position),
                )
                gets.append({"Get": get})
            return engine.invoke("TransactGetItems", {"TransactItems": gets, "ReturnConsumedCapacity": mode})
        actions = []
        inserts = []
        for position, (statement, parameters, request) in enumerate(parsed):
            plan = plan_write(
                engine, statement, parameters, missing=NOT_FOUND, prefix=MEMBER.format(position=position)
            )
            action = dict(plan.params)
            on_failure = request.get("ReturnValuesOnConditionCheckFailure")
            if on_failure is not None and not plan.is_insert:
                action["ReturnValuesOnConditionCheckFailure"] = on_failure
            if plan.is_insert:
                inserts.append(position)
            actions.append({plan.kind: action})
        write = {
            "TransactItems": actions,
            "ReturnConsumedCapacity": mode,
            "ClientRequestToken": params.get("ClientRequestToken"),
        }
        try:
            result = engine.invoke("TransactWriteItems", write)
        except DynamoDBError as error:
            reasons = error.extra.get("CancellationReasons")
            if error.code != "TransactionCanceledException" or reasons is None:
                raise
            reasons = [dict(reason) for reason in reasons]
            for position in inserts:
                if reasons[position].get("Code") == "ConditionalCheckFailed":
                    reasons[position] = {"Code": "ValidationError", "Message": DUPLICATE_ITEM}
            raise cancelled(reasons) from None
        response: dict[str, Any] = {"Responses": []}
        if "ConsumedCapacity" in result:
            response["ConsumedCapacity"] = result["ConsumedCapacity"]
        return response
    except DynamoDBError as error:
        raise strip_kind(error) from None
