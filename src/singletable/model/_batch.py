"""Running writes: single requests, transactions, and batches with chunking and retry.

Failures are translated by what the failed part *meant*: a guard item's failed "not exists" is a
:class:`UniqueViolation` naming the field and value, the entity's own is :class:`AlreadyExists`, a version
check a :class:`VersionConflict` -- whichever transport reported it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from singletable.model._entity import Entity, KeyRef
from singletable.model._errors import (
    AlreadyExists,
    ConditionFailed,
    ModelError,
    NotFound,
    RequestError,
    TransactionFailed,
    UniqueViolation,
    VersionConflict,
)
from singletable.model._expr import Action, Cond
from singletable.model._ops import Op, _stamp
from singletable.model._writes import plan_check, plan_create, plan_delete, plan_put, plan_update

if TYPE_CHECKING:
    from singletable.model._db import DB

SINGLE = {"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem"}
MAX_ATTEMPTS = 8


def _meaning(op: Op, error: RequestError, item: Any) -> ModelError:
    kind = op.label[0]
    if kind == "unique":
        return UniqueViolation(op.label[1], op.label[2], op.label[3])
    if kind == "create":
        return AlreadyExists(error.code, f"{op.label[1]} already exists", item=item)
    if kind in ("version", "update") and item is None and op.kind == "Update":
        return NotFound(f"{op.label[1]} {op.params.get('Key')} does not exist")
    if kind == "version":
        return VersionConflict(error.code, f"{op.label[1]} was changed by someone else (version)", item=item)
    return ConditionFailed(error.code, error.message, item=item)


def run_ops(
    db: DB, ops: list[Op], *, single_params: dict[str, Any] | None = None, transaction: bool = False
) -> dict[str, Any]:
    if len(ops) == 1 and not transaction and ops[0].kind in SINGLE:
        op = ops[0]
        params = single_params or op.params
        if op.label[0] in ("update", "version") and "ReturnValuesOnConditionCheckFailure" not in params:
            params = dict(params, ReturnValuesOnConditionCheckFailure="ALL_OLD")
        try:
            return db.call(SINGLE[op.kind], params)
        except ConditionFailed as error:
            raise _meaning(op, error, error.item) from None
    items = []
    for op in ops:
        params = op.params
        if op.kind == "Update" and op.label[0] in ("update", "version"):
            params = dict(params, ReturnValuesOnConditionCheckFailure="ALL_OLD")
        items.append({op.kind: params})
    try:
        return db.call("TransactWriteItems", {"TransactItems": items})
    except RequestError as error:
        if error.code != "TransactionCanceledException":
            raise
        reasons = error.extra.get("CancellationReasons") or _reasons_from_message(error.message)
        for op, reason in zip(ops, reasons, strict=False):
            if reason.get("Code") == "ConditionalCheckFailed":
                raise _meaning(op, error, reason.get("Item")) from None
        raise TransactionFailed(error.code, error.message, reasons, [str(op.label) for op in ops]) from None


def _reasons_from_message(message: str) -> list[dict[str, Any]]:
    found = re.search(r"\[([^\]]*)\]\s*$", message)
    if not found:
        return []
    return [{"Code": part.strip()} for part in found[1].split(",")]


class Transaction:
    """Gathers entity writes, checks and raw requests; sent as one TransactWriteItems on exit."""

    def __init__(self, db: DB) -> None:
        self.db = db
        self.ops: list[Op] = []

    def create(self, entity: Entity) -> Entity:
        ops, result = plan_create(self.db, entity)
        self.ops += ops
        return result

    def put(self, entity: Entity, *, condition: Cond | None = None) -> Entity:
        ops, result = plan_put(self.db, entity, condition, read=True)  # no retry inside a transaction
        self.ops += ops
        return result

    def update(
        self,
        target: Any,
        /,
        *actions: Action,
        condition: Cond | None = None,
        upsert: bool = False,
        **sets: Any,
    ) -> None:
        ops, _, _ = plan_update(self.db, target, actions, condition, sets, upsert)
        self.ops += ops

    def delete(self, target: Any, /, *, condition: Cond | None = None, **key: Any) -> None:
        if isinstance(target, type):
            target = target.key(**key)
        self.ops += plan_delete(self.db, target, condition)[0]

    def check(self, target: KeyRef | Entity, condition: Cond) -> None:
        """Fail the whole transaction unless ``condition`` holds on that item."""
        self.ops.append(plan_check(self.db, target, condition))

    def raw(self, request: dict[str, Any]) -> None:
        """A TransactWriteItems element written by hand: ``{"Put": {"Item": {...}}}`` (TableName optional)."""
        ((kind, params),) = request.items()
        self.ops.append(Op(kind, {"TableName": self.db.table_name, **params}, ("raw",)))

    def commit(self) -> None:
        if self.ops:
            run_ops(self.db, self.ops, transaction=len(self.ops) > 1 or self.ops[0].kind not in SINGLE)
            self.ops = []

    def __enter__(self) -> Transaction:
        return self

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        if kind is None:
            self.commit()


def _chunks(items: list[Any], size: int) -> Iterable[list[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _backoff(attempt: int) -> None:
    if attempt >= MAX_ATTEMPTS:
        raise RequestError(
            "ProvisionedThroughputExceededException", f"items still unprocessed after {MAX_ATTEMPTS} attempts"
        )
    time.sleep(min(0.025 * 2**attempt, 1.0))


def _frozen(key: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(sorted((k, next(iter(v.values()))) for k, v in key.items()))


def batch_get(db: DB, targets: list[Any], *, consistent: bool = False, raw: bool = False) -> list[Any]:
    wanted: list[tuple[Any, dict[str, Any]]] = []
    for target in targets:
        if raw:
            wanted.append((None, target))
        elif isinstance(target, KeyRef):
            wanted.append((target.meta, target.item_key()))
        else:
            meta = type(target).model_entity()
            wanted.append((meta, meta.primary_key(target.__dict__)))
    unique = list({_frozen(k): k for _, k in wanted}.values())
    found: dict[tuple[Any, ...], dict[str, Any]] = {}
    for chunk in _chunks(unique, 100):
        request: dict[str, Any] = {db.table_name: {"Keys": chunk}}
        if consistent:
            request[db.table_name]["ConsistentRead"] = True
        attempt = 0
        while request:
            response = db.call("BatchGetItem", {"RequestItems": request})
            for item in response.get("Responses", {}).get(db.table_name, []):
                found[_frozen({k: item[k] for k in chunk[0]})] = item
            request = response.get("UnprocessedKeys") or {}
            if request:
                _backoff(attempt)
                attempt += 1
    out = []
    for meta, key in wanted:
        item = found.get(_frozen(key))
        if item is not None:
            out.append(item if meta is None else meta.from_item(item))
    return out


def batch_write(db: DB, puts: list[Entity], deletes: list[Any]) -> None:
    requests: list[dict[str, Any]] = []
    for entity in puts:
        meta = type(entity).model_entity()
        if meta.unique or meta.derived:
            raise ModelError(
                f"{meta.type} has unique fields or derived items, which need transactions: "
                "use db.put/db.create (or db.transaction()) instead of batch_write"
            )
        values = meta.values(entity)
        _stamp(db, meta, values, creating=values.get(meta.created) is None if meta.created else False)
        if meta.version and values.get(meta.version) is None:
            values[meta.version] = 1
        requests.append({"PutRequest": {"Item": meta.to_item(values)}})
    for target in deletes:
        if isinstance(target, Entity):
            target = target.key()
        if target.meta.unique or target.meta.derived:
            raise ModelError(f"{target.meta.type} has unique fields or derived items: use db.delete instead")
        requests.append({"DeleteRequest": {"Key": target.item_key()}})
    for chunk in _chunks(requests, 25):
        pending: dict[str, Any] = {db.table_name: chunk}
        attempt = 0
        while pending:
            response = db.call("BatchWriteItem", {"RequestItems": pending})
            pending = response.get("UnprocessedItems") or {}
            if pending:
                _backoff(attempt)
                attempt += 1
