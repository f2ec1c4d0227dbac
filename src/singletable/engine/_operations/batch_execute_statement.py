"""BatchExecuteStatement: up to 25 single-item PartiQL reads, or up to 25 writes, each answered on its own.

A statement that fails gets an ``Error`` entry in its slot; only request-level problems (mixing reads and
writes, two statements on one item) fail the whole call, as in DynamoDB.

Capacity: one entry per table, the sum of what each statement's item operation consumed (index arms
included). A write that failed on its condition, or an INSERT of an existing item, was still attempted:
DynamoDB bills it as a write of the larger of the stored item and the item it carried, on its table's
line -- a line that exists only if some statement on that table succeeded (measured on DynamoDB;
docs/compatibility.md).
"""

from __future__ import annotations

from typing import Any

import orjson

from singletable.engine import _attribute_values as codec
from singletable.engine._capacity import write_units
from singletable.engine._errors import DynamoDBError, validation
from singletable.engine._interfaces import OperationEngine
from singletable.engine._partiql import ast
from singletable.engine._partiql import run as partiql
from singletable.engine._partiql.plan import WritePlan, plan_get, plan_write
from singletable.engine._partiql.translate import strip_kind
from singletable.engine._write_path import key_from_request

# BatchStatementError codes are the exception names without their "Exception" suffix.
ERROR_CODES = {
    "ValidationException": "ValidationError",
    "ResourceNotFoundException": "ResourceNotFound",
    "ConditionalCheckFailedException": "ConditionalCheckFailed",
    "DuplicateItemException": "DuplicateItem",
}
MIXED = "Read and write requests together in the same batch is not supported."
DUPLICATES = "Provided list of item keys contains duplicates"
EXISTS_OUTSIDE = "EXISTS can only be used in ExecuteTransaction write requests."
BATCH_SELECT_KEY = (
    "Select statements within BatchExecuteStatement must specify the primary key in the where clause."
)
# The failures of a write that was attempted against the item, and so billed.
ATTEMPTED = ("ConditionalCheckFailedException", "DuplicateItemException")


def _error(error: DynamoDBError, table: str | None = None) -> dict[str, Any]:
    error = strip_kind(error)
    body: dict[str, Any] = {"Code": ERROR_CODES.get(error.code, error.code), "Message": error.message}
    if error.item is not None:
        body["Item"] = error.item
    out: dict[str, Any] = {"Error": body}
    if table is not None:
        out["TableName"] = table
    return out


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    requests = params["Statements"]
    responses: list[dict[str, Any] | None] = [None] * len(requests)
    parsed = _parse(requests, responses)
    plans = _plan(engine, parsed, responses)
    mode = params.get("ReturnConsumedCapacity")
    capacity: dict[str, dict[str, Any]] = {}
    attempted: dict[str, float] = {}
    for position, plan in plans:
        entry, result, failed_units = _execute(engine, requests[position], plan, mode)
        if result is not None:
            consumed = result.get("ConsumedCapacity")
            if consumed is not None:
                table = entry["TableName"]
                capacity[table] = partiql.merge_capacity(capacity.get(table), consumed)
        elif failed_units:
            table = plan.params["TableName"]
            attempted[table] = attempted.get(table, 0.0) + failed_units
        responses[position] = entry
    for table, units in attempted.items():
        if table in capacity:
            _add_table_units(capacity[table], units)
    out: dict[str, Any] = {"Responses": responses}
    if capacity:
        out["ConsumedCapacity"] = list(capacity.values())
    return out


def _add_table_units(consumed: dict[str, Any], units: float) -> None:
    consumed["CapacityUnits"] += units
    if "Table" in consumed:
        consumed["Table"] = {"CapacityUnits": consumed["Table"]["CapacityUnits"] + units}


def _parse(
    requests: list[dict[str, Any]], responses: list[dict[str, Any] | None]
) -> list[tuple[int, ast.Statement, list[Any]]]:
    """Parse every statement; one that fails gets its Error entry. Reads and writes must not mix."""
    parsed: list[tuple[int, ast.Statement, list[Any]]] = []
    for position, request in enumerate(requests):
        try:
            text, values = request.get("Statement"), request.get("Parameters")
            statement, parameters = partiql.parse(text, values, batch=True)
        except DynamoDBError as error:
            responses[position] = _error(error)
            continue
        if isinstance(statement, ast.Exists):
            responses[position] = _error(validation(EXISTS_OUTSIDE))
            continue
        parsed.append((position, statement, parameters))
    reads = [entry for entry in parsed if isinstance(entry[1], ast.Select)]
    if reads and len(reads) != len(parsed):
        raise validation(MIXED)
    return parsed


def _plan(
    engine: OperationEngine,
    parsed: list[tuple[int, ast.Statement, list[Any]]],
    responses: list[dict[str, Any] | None],
) -> list[tuple[int, Any]]:
    """Plan every parsed statement (a GetItem request or a WritePlan); no two may touch one item."""
    plans: list[tuple[int, Any]] = []
    seen: set[bytes] = set()
    for position, statement, parameters in parsed:
        try:
            if isinstance(statement, ast.Select):
                plan: Any = plan_get(engine, statement, parameters, not_key=BATCH_SELECT_KEY)
                table, key = plan["TableName"], plan["Key"]
            else:
                plan = plan_write(engine, statement, parameters)
                table = plan.params["TableName"]
                key = plan.params.get("Key") or _item_key(engine, table, plan.params["Item"])
        except DynamoDBError as error:
            responses[position] = _error(error)
            continue
        identity = orjson.dumps([table, key], option=orjson.OPT_SORT_KEYS, default=str)
        if identity in seen:
            raise validation(DUPLICATES)
        seen.add(identity)
        plans.append((position, plan))
    return plans


def _execute(
    engine: OperationEngine, request: dict[str, Any], plan: Any, mode: str | None
) -> tuple[dict[str, Any], dict[str, Any] | None, float]:
    """Run one planned statement: (its response entry, the operation's result or None if it failed, the
    write units a failed but attempted write is billed)."""
    if isinstance(plan, WritePlan):
        table = plan.params["TableName"]
        on_failure = request.get("ReturnValuesOnConditionCheckFailure")
        options = {"ReturnConsumedCapacity": mode, "ReturnValuesOnConditionCheckFailure": on_failure}
        try:
            result = partiql.write(engine, plan, options)
        except DynamoDBError as error:
            if error.code not in ATTEMPTED:
                return _error(error), None, 0.0
            billed = _attempted_units(engine, plan) if mode not in (None, "NONE") else 0.0
            return _error(error, table), None, billed
        entry: dict[str, Any] = {"TableName": table}
        if result["Items"]:
            entry["Item"] = result["Items"][0]
        return entry, result, 0.0
    table = plan["TableName"]
    read_params = dict(plan, ReturnConsumedCapacity=mode, ConsistentRead=request.get("ConsistentRead"))
    try:
        result = engine.invoke("GetItem", read_params)
    except DynamoDBError as error:
        return _error(error), None, 0.0
    entry = {"TableName": table}
    if "Item" in result:
        entry["Item"] = result["Item"]
    return entry, result, 0.0


def _attempted_units(engine: OperationEngine, plan: WritePlan) -> float:
    """A failed write's bill: the larger of the stored item and the item the statement carried."""
    schema = engine.table(plan.params["TableName"])
    carried = plan.params.get("Item")
    # A write plan carries its Key, or (an INSERT) the Item
    key = plan.params.get("Key") or {name: carried[name] for name in schema.key_names}  # type: ignore[index]
    found = engine.storage.get_item(schema.table_id, *key_from_request(schema, key))
    stored = found[1] if found is not None else 0  # (stored bytes, size): the size is all a bill needs
    return write_units(max(stored, codec.item_size(carried) if carried is not None else 0))


def _item_key(engine: OperationEngine, table: str, item: dict[str, Any]) -> dict[str, Any]:
    schema = engine.table(table)
    return {name: item[name] for name in schema.key_names}
