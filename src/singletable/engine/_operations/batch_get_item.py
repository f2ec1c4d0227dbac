"""BatchGetItem: up to 100 keys across tables, each table with its own projection and consistency.

Every key is prepared by GetItem's own code (:func:`item_reads.prepare_get`: same key and expression errors).
Items come back in request order per table; once the response would pass 16 MB, the remaining keys go to
UnprocessedKeys with their table's ProjectionExpression, ExpressionAttributeNames and ConsistentRead, ready to
resend as they are.
"""

from __future__ import annotations

from typing import Any

from singletable.engine import _legacy as legacy
from singletable.engine._capacity import Capacity, read_units
from singletable.engine._errors import validation
from singletable.engine._interfaces import OperationEngine
from singletable.engine._item_reads import prepare_get

MAX_KEYS = 100
RESPONSE_LIMIT = 16 * 1024 * 1024
TOO_MANY = "Too many items requested for the BatchGetItem call"
DUPLICATES = "Provided list of item keys contains duplicates"
NO_KEYS = "The list of keys in RequestItems for BatchGetItem is required: {table} has empty list"
NULL_KEY = (
    "The list of keys in RequestItems for BatchGetItem may not contain null or empty values: "
    "{table} has one or more empty keys"
)
_PER_TABLE = ("ProjectionExpression", "ExpressionAttributeNames", "AttributesToGet")


def _reject_mixed_across_tables(request: dict[str, Any]) -> None:
    """AWS refuses expression and legacy projection parameters in one request even when each table's block
    uses only one kind (the Parity Suite's capture): the rule is the single-table one, over the request."""
    used: dict[str, Any] = {}
    for spec in request.values():
        for member in _PER_TABLE:
            if isinstance(spec, dict) and spec.get(member) is not None:
                used.setdefault(member, spec[member])
    legacy.reject_mixed(used, ("AttributesToGet",), ("ProjectionExpression",))


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    request = params["RequestItems"]
    for name, spec in request.items():
        if spec is None:  # DynamoDB Local's words
            raise validation(NO_KEYS.format(table=name))
    if sum(len(spec["Keys"]) for spec in request.values()) > MAX_KEYS:
        raise validation(TOO_MANY)
    _reject_mixed_across_tables(request)
    tables: list[tuple[str, dict[str, Any], list[tuple[dict[str, Any], Any]]]] = []
    for name, spec in request.items():
        shared = {member: spec[member] for member in _PER_TABLE if spec.get(member) is not None}
        gets = []
        seen: set[tuple[bytes, bytes]] = set()
        if None in spec["Keys"]:
            raise validation(NULL_KEY.format(table=name))
        for key in spec["Keys"]:
            get = prepare_get(engine, {"TableName": name, "Key": key, **shared})
            if (get.pk, get.sk) in seen:
                raise validation(DUPLICATES)
            seen.add((get.pk, get.sk))
            gets.append((key, get))
        tables.append((name, spec, gets))

    responses: dict[str, list[dict[str, Any]]] = {}
    unprocessed: dict[str, dict[str, Any]] = {}
    capacities: list[Capacity] = []
    total = 0
    storage = engine.storage
    with storage.read():
        for name, spec, gets in tables:
            consistent = bool(spec.get("ConsistentRead"))
            capacity = Capacity(name)
            items = responses[name] = []
            left: list[dict[str, Any]] = []
            for key, get in gets:
                if left or total >= RESPONSE_LIMIT:
                    left.append(key)
                    continue
                item, size = get.read(storage)
                if item is None:
                    continue
                if total + size > RESPONSE_LIMIT:
                    left.append(key)
                    continue
                total += size
                capacity.table += read_units(size, consistent)
                items.append(item)
            if left:
                unprocessed[name] = {**{k: v for k, v in spec.items() if k != "Keys"}, "Keys": left}
            capacities.append(capacity)

    response: dict[str, Any] = {"Responses": responses, "UnprocessedKeys": unprocessed}
    mode = params.get("ReturnConsumedCapacity")
    if mode is not None and mode != "NONE":
        response["ConsumedCapacity"] = [capacity.render(mode) for capacity in capacities]
    return response
