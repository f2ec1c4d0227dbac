"""TransactWriteItems: up to 100 Put/Update/Delete/ConditionCheck actions, all applied or none.

Each action is prepared by the same code as its single-item operation (:mod:`item_writes`), so it is
rejected with the same ValidationException before anything is read. Then, inside ONE SQLite write
transaction: every item is read, every condition evaluated (any failure cancels the transaction with a
``ConditionalCheckFailed`` reason for each failing action and ``None`` for the others), every new item
computed (errors that need the stored item become ``ValidationError`` reasons), and only then is anything
written. The ClientRequestToken is looked up and recorded in that same transaction, in the database, so a
retry from another process sharing the file is recognised too; with it is recorded the size each action
was billed on, because a replay is billed as reads of those (a deleted item is gone by then). How
concurrent clients interact, and the capacity rules, are described in :mod:`transactions`.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import orjson

from singletable.engine import _attribute_values as codec
from singletable.engine._errors import DynamoDBError
from singletable.engine._interfaces import OperationEngine
from singletable.engine._item_writes import prepare_check, prepare_delete, prepare_put, prepare_update
from singletable.engine._keys import KeyTypeMismatch
from singletable.engine._storage import Storage
from singletable.engine._transactions import (
    NO_REASON,
    cancelled,
    check_distinct,
    conflicted,
    render_usages,
    usage_for,
)
from singletable.engine._write_path import (
    CHECK,
    DELETE,
    PUT,
    UPDATE,
    EmptyIndexKeyUpdate,
    PreparedWrite,
    WriteRows,
    item_collection_metrics,
)

NO_ACTION = "Invalid Request: TransactWriteRequest should contain Delete or Put or Update request"
TWO_ACTIONS = "TransactItems can only contain one of Check, Put, Update or Delete"
PAYLOAD_TOO_LARGE = "Transaction payload size cannot exceed 4MB. Payload Size: {size}"
MAX_PAYLOAD = 4 * 1024 * 1024
TOKEN_SECONDS = 600.0
RETURN_ON_FAILURE = ("NONE", "ALL_OLD")


_PREPARE = {
    CHECK: prepare_check,
    PUT: prepare_put,
    DELETE: prepare_delete,
    UPDATE: prepare_update,
}


def prepare_all(engine: OperationEngine, actions: list[dict[str, Any]]) -> list[PreparedWrite]:
    """Every action's up-front checks; any failure fails the request, except a key attribute of the wrong
    type (a Put item's table or index key, another action's Key), which AWS reports as that action's
    ``ValidationError`` cancellation reason once every action has passed its other checks. A missing table
    is reported only after every action's checks that need no table (AWS's order)."""
    writes: list[PreparedWrite] = []
    mismatches: dict[int, str] = {}
    missing: DynamoDBError | None = None
    payload = 0
    for position, action in enumerate(actions):
        kinds = [kind for kind in _PREPARE if action.get(kind) is not None]
        if not kinds:
            raise DynamoDBError("ValidationException", NO_ACTION)
        if len(kinds) > 1:
            raise DynamoDBError("ValidationException", TWO_ACTIONS)
        try:
            write = _PREPARE[kinds[0]](engine, action[kinds[0]])
        except KeyTypeMismatch as error:
            mismatches[position] = error.message
            continue
        except DynamoDBError as error:
            if error.code != "ResourceNotFoundException":
                raise
            missing = missing or error
            continue
        writes.append(write)
        payload += write.size if write.action == PUT else codec.item_size(write.key)
    check_distinct([write.identity for write in writes])
    if payload > MAX_PAYLOAD:
        raise DynamoDBError("ValidationException", PAYLOAD_TOO_LARGE.format(size=payload))
    if missing is not None:
        raise missing
    if mismatches:
        raise cancelled(
            [
                {"Code": "ValidationError", "Message": mismatches[position]}
                if position in mismatches
                else NO_REASON
                for position in range(len(actions))
            ]
        )
    return writes


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    actions = params["TransactItems"]
    writes = prepare_all(engine, actions)
    token = params.get("ClientRequestToken")
    digest = _digest(actions) if token is not None else b""
    mode = params.get("ReturnConsumedCapacity")
    storage = engine.storage
    usages: dict[str, Any] = {}
    metrics: dict[str, list[dict[str, Any]]] = {}
    try:
        with storage.write(_busy):
            now = engine.clock()
            if token is not None:
                seen = storage.client_token(token, now - TOKEN_SECONDS)
                if seen is not None:
                    if seen[: len(digest)] != digest:
                        raise DynamoDBError("IdempotentParameterMismatchException", "")
                    return _replay(storage, writes, seen[len(digest) :], mode)
            billed = _execute(storage, writes, usages)
            if params.get("ReturnItemCollectionMetrics") == "SIZE":
                for write in writes:
                    if write.action != CHECK:
                        found = item_collection_metrics(storage, write.schema, write.pk, write.key, "SIZE")
                        if found is not None:
                            metrics.setdefault(write.schema.name, []).append(found)
            if token is not None:
                # The digest, then the sizes billed: what a replay within the window is billed on.
                storage.remember_client_token(token, digest + orjson.dumps(billed), now, now - TOKEN_SECONDS)
    except _Busy:  # another process held the write lock throughout: every action conflicted
        raise conflicted(len(writes)) from None
    response: dict[str, Any] = {}
    consumed = render_usages(usages, mode)
    if consumed is not None:
        response["ConsumedCapacity"] = consumed
    if metrics:
        response["ItemCollectionMetrics"] = metrics
    return response


class _Busy(Exception):
    pass


def _busy() -> DynamoDBError:
    raise _Busy


def _execute(storage: Storage, writes: list[PreparedWrite], usages: dict[str, Any]) -> list[int]:
    """Read, check and evaluate every action, then write: nothing is written unless every action can be.

    Each action gets its own reason -- its condition's failure, else an error computing its new item --
    so one cancellation reports every problem, in request order. Returns the size each action was billed
    on: the larger of its item's old and new images (a ConditionCheck's: the image it read).
    """
    loaded = [write.load(storage) for write in writes]
    failed = False
    reasons: list[dict[str, Any]] = []
    evaluated: list[tuple[Any, int]] = []
    for write, (old, old_size) in zip(writes, loaded, strict=True):
        evaluated.append((None, 0))
        if not write.passes(old):
            failed = True
            reasons.append(_condition_reason(write, old))
            continue
        try:
            evaluated[-1] = write.evaluate(old, old_size)
        except EmptyIndexKeyUpdate:
            raise
        except DynamoDBError as error:
            if error.code != "ValidationException":
                raise
            failed = True
            reasons.append({"Code": "ValidationError", "Message": error.message})
            continue
        reasons.append(NO_REASON)
    if failed:
        raise cancelled(reasons)
    # The actions are of distinct items (check_distinct), so their rows can be stored together.
    rows = WriteRows()
    billed: list[int] = []
    for write, (old, old_size), (new, new_size) in zip(writes, loaded, evaluated, strict=True):
        usage = usage_for(usages, write.schema.name)
        if write.action == CHECK:
            usage.check(old_size)
        else:
            write.store(storage, old, old_size, new, new_size, usage.writes, rows)
        billed.append(max(old_size, new_size))
    rows.flush(storage)
    return billed


def _condition_reason(write: PreparedWrite, old: Any) -> dict[str, Any]:
    error = write.failure(old)
    # DynamoDB's text for a failed ConditionCheck ends with a period, unlike the writes' (as observed).
    message = error.message + "." if write.action == CHECK else error.message
    reason: dict[str, Any] = {"Code": "ConditionalCheckFailed", "Message": message}
    if error.item is not None:
        reason["Item"] = error.item
    return reason


def _replay(storage: Storage, writes: list[PreparedWrite], record: bytes, mode: str | None) -> dict[str, Any]:
    """A repeated token: nothing runs again; the response is billed as transactional reads (AWS's rule) of
    the sizes the first call was billed on, recorded with its token."""
    sizes = orjson.loads(record) if record else None
    if not isinstance(sizes, list) or len(sizes) != len(writes):  # a token recorded without its sizes
        sizes = [write.load(storage)[1] for write in writes]
    usages: dict[str, Any] = {}
    for write, size in zip(writes, sizes, strict=True):
        usage_for(usages, write.schema.name).read(size)
    consumed = render_usages(usages, mode)
    return {} if consumed is None else {"ConsumedCapacity": consumed}


def _digest(actions: list[dict[str, Any]]) -> bytes:
    """Same parameters in any member order give the same digest (AWS ignores JSON member order)."""
    text = orjson.dumps(actions, option=orjson.OPT_SORT_KEYS, default=_plain)
    return hashlib.sha256(text).digest()


def _plain(value: Any) -> Any:
    if isinstance(value, bytes | bytearray | memoryview):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, set | frozenset | tuple):
        return sorted(value, key=repr) if isinstance(value, set | frozenset) else list(value)
    raise TypeError(type(value).__name__)
