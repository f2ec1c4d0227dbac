"""Running one parsed statement the way ExecuteStatement does, through the item operations' own code.

A statement's plan is an ordinary request (a Query, Scan, PutItem, UpdateItem or DeleteItem), run by
``engine.invoke`` through the operation registry, so it is validated and answered exactly as that request
would be.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, overload

import orjson

from singletable.engine._interfaces import OperationEngine

from .. import _attribute_values as codec
from .._errors import DynamoDBError, validation
from .._numbers import OVERFLOW, UNDERFLOW, normalize_number
from . import ast
from .errors import DUPLICATE_ITEM, INVALID_TOKEN, PARAMETER_COUNT
from .parser import parse_statement
from .plan import ReadPlan, WritePlan, plan_select, plan_write
from .translate import AV, strip_kind

_TOKEN_VERSION = 1


def parse(
    text: Any, parameters: Any, batch: bool = False, prefix: str = ""
) -> tuple[ast.Statement, list[AV]]:
    """Parse a statement and check its Parameters: one per ``?``, each a valid AttributeValue.

    ``prefix`` goes before the statement's own refusals (ExecuteTransaction names the failing member);
    the Parameters' errors are worded alike on every operation."""
    try:
        statement, count = parse_statement(text, batch)
    except DynamoDBError as error:
        if not prefix:
            raise
        raise DynamoDBError(error.code, prefix + error.message) from None
    supplied = list(parameters or ())
    if count > len(supplied):
        raise validation(PARAMETER_COUNT)
    checked = []
    for value in supplied:
        try:
            checked.append(codec.validate_value(value, context=codec.ValueContext.ITEM, name=""))
        except DynamoDBError as error:
            raise _parameter_error(value, error) from None
    return statement, checked


def _parameter_error(value: Any, error: DynamoDBError) -> DynamoDBError:
    """A parameter's number out of range is refused in PartiQL's words (an unreadable one already is: the
    older layer's ``The parameter cannot be converted to a numeric value: TEXT``).

    DynamoDB computes a parameter's magnitude in 32-bit arithmetic, so a number whose leading digit sits
    beyond 2**31 places wraps around: ``1e2147483647`` is refused as an underflow, not an overflow."""
    if error.message != OVERFLOW:
        return error
    text = _first_number(value, error.message)
    if text is None:
        return error
    return validation(UNDERFLOW) if _leading_digit_wraps(text) else error


def _first_number(value: Any, message: str) -> str | None:
    """The first number (in document order, set members included) that ``normalize_number`` refuses with
    ``message``."""
    pending = [value]
    while pending:
        av = pending.pop()
        if not isinstance(av, dict):
            continue
        for kind, inner in av.items():
            if kind == "N":
                candidates = [inner]
            elif kind == "NS" and isinstance(inner, list):
                candidates = inner
            else:
                if kind == "L" and isinstance(inner, list):
                    pending.extend(reversed(inner))
                elif kind == "M" and isinstance(inner, dict):
                    pending.extend(reversed(list(inner.values())))
                continue
            for text in candidates:
                if not isinstance(text, str):
                    continue
                try:
                    normalize_number(text)
                except DynamoDBError as error:
                    if error.message == message:
                        return text
    return None


def _leading_digit_wraps(text: str) -> bool:
    """Whether the number's precision less its scale (Java's BigDecimal terms) overflows a 32-bit int."""
    mantissa, _, exponent = text.lower().partition("e")
    whole, _, fraction = mantissa.lstrip("+-").partition(".")
    precision = max(len((whole + fraction).lstrip("0")), 1)
    scale = len(fraction) - int(exponent or 0)
    return precision - scale > 2**31 - 1


# -- NextToken ----------------------------------------------------------------------------------------------


def _plain(av: AV) -> AV:
    ((kind, value),) = av.items()
    if kind == "B":
        return {"B": base64.b64encode(bytes(value)).decode()}
    return {kind: value}


def encode_token(partition: int, key: dict[str, AV] | None, source: str = "") -> str:
    """A NextToken: the partition reached and the last key read there, bound to the table and index read
    (``source``), so a token replayed against another index is refused rather than misread."""
    body = {
        "v": _TOKEN_VERSION,
        "s": source,
        "p": partition,
        "k": {name: _plain(av) for name, av in key.items()} if key else None,
    }
    return base64.b64encode(orjson.dumps(body)).decode()


def decode_token(token: Any, partitions: int, source: str = "") -> tuple[int, dict[str, AV] | None]:
    try:
        body = orjson.loads(base64.b64decode(token, validate=True))
        partition, key = body["p"], body["k"]
        if body.get("v") != _TOKEN_VERSION or body.get("s") != source or not isinstance(partition, int):
            raise ValueError(token)
        if not 0 <= partition < partitions:
            raise ValueError(token)
        if key is not None:
            key = {name: ({"B": base64.b64decode(av["B"])} if "B" in av else av) for name, av in key.items()}
        return partition, key
    except (ValueError, TypeError, KeyError, AttributeError, binascii.Error, orjson.JSONDecodeError):
        raise validation(INVALID_TOKEN) from None


# -- reads --------------------------------------------------------------------------------------------------


@overload
def merge_capacity(total: dict[str, Any] | None, more: dict[str, Any]) -> dict[str, Any]: ...
@overload
def merge_capacity(total: dict[str, Any] | None, more: dict[str, Any] | None) -> dict[str, Any] | None: ...
def merge_capacity(total: dict[str, Any] | None, more: dict[str, Any] | None) -> dict[str, Any] | None:
    if total is None or more is None:
        return total or more
    out = dict(total)
    out["CapacityUnits"] = total["CapacityUnits"] + more["CapacityUnits"]
    if "Table" in more:
        out["Table"] = {
            "CapacityUnits": total.get("Table", {}).get("CapacityUnits", 0.0) + more["Table"]["CapacityUnits"]
        }
    for group in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        if group in more:
            merged = {name: dict(units) for name, units in total.get(group, {}).items()}
            for name, units in more[group].items():
                before = merged.get(name, {"CapacityUnits": 0.0})["CapacityUnits"]
                merged[name] = {"CapacityUnits": before + units["CapacityUnits"]}
            out[group] = merged
    return out


def read(engine: OperationEngine, plan: ReadPlan, request: dict[str, Any]) -> dict[str, Any]:
    """Run a SELECT's plan for one page: Limit counts items read across all pinned partitions."""
    partitions = len(plan.hash_values) if plan.hash_values is not None else 1
    source = orjson.dumps([plan.table, plan.index]).decode()
    partition, start = 0, None
    if request.get("NextToken") is not None:
        partition, start = decode_token(request["NextToken"], partitions, source)
    limit = request.get("Limit")
    items: list[AV] = []
    capacity = None
    next_token = None
    while partition < partitions:
        params = plan.request(partition)
        for name in ("ConsistentRead", "ReturnConsumedCapacity"):
            if request.get(name) is not None:
                params[name] = request[name]
        if limit is not None:
            params["Limit"] = limit
        if start is not None:
            params["ExclusiveStartKey"] = start
        try:
            if plan.hash_values is None:
                response = engine.invoke("Scan", params)
            else:
                response = engine.invoke("Query", params, key_filter=True)
        except DynamoDBError as error:
            raise strip_kind(error) from None
        items.extend(plan.reshape(item) for item in response.get("Items", ()))
        capacity = merge_capacity(capacity, response.get("ConsumedCapacity"))
        last = response.get("LastEvaluatedKey")
        if last is not None:
            next_token = encode_token(partition, last, source)
            break
        partition += 1
        start = None
        if limit is not None:
            limit -= response["ScannedCount"]
            if limit <= 0:
                if partition < partitions:
                    next_token = encode_token(partition, None, source)
                break
    out: dict[str, Any] = {"Items": items}
    if next_token is not None:
        out["NextToken"] = next_token
    if capacity is not None:
        out["ConsumedCapacity"] = capacity
    return out


# -- writes -------------------------------------------------------------------------------------------------

# A write plan's kind -> the item operation that runs it.
_OPERATIONS = {"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem"}


def write(engine: OperationEngine, plan: WritePlan, request: dict[str, Any]) -> dict[str, Any]:
    params = dict(plan.params)
    if plan.returning is not None:
        params["ReturnValues"] = plan.returning
    for name in ("ReturnConsumedCapacity", "ReturnValuesOnConditionCheckFailure"):
        if request.get(name) is not None:
            params[name] = request[name]
    if plan.is_insert:
        params.pop("ReturnValuesOnConditionCheckFailure", None)
    try:
        options = {"statement": True} if plan.kind == "Update" else {}
        response = engine.invoke(_OPERATIONS[plan.kind], params, **options)
    except DynamoDBError as error:
        if plan.is_insert and error.code == "ConditionalCheckFailedException":
            raise DynamoDBError("DuplicateItemException", DUPLICATE_ITEM) from None
        raise strip_kind(error) from None
    out: dict[str, Any] = {"Items": [response["Attributes"]] if "Attributes" in response else []}
    if "ConsumedCapacity" in response:
        out["ConsumedCapacity"] = response["ConsumedCapacity"]
    return out


def execute(
    engine: OperationEngine, statement: ast.Statement, parameters: list[AV], request: dict[str, Any]
) -> dict[str, Any]:
    if isinstance(statement, ast.Select):
        consistent = bool(request.get("ConsistentRead"))
        return read(engine, plan_select(engine, statement, parameters, consistent), request)
    if isinstance(statement, ast.Exists):
        raise validation("EXISTS can only be used in ExecuteTransaction write requests.")
    return write(engine, plan_write(engine, statement, parameters), request)
