"""The dual-write window's two ends on the migration side: the copy that keeps the old shape
(``rekey(Old, to=New, keep_old=True)``) and ``finish``, which verifies the new shapes and removes the old.

While an application writes both shapes (``connect(..., migrating={New: Old})``, model/_window.py), a re-key
must not delete the old items: code not yet redeployed still reads them. The copy step puts each item's new
shape -- on condition that the old one is still the image read and that the new key is free or already holds
exactly that item -- and leaves the old one. ``finish`` then proves that every old-shape item has its
new-shape twin, equal attribute for attribute (else it refuses, naming the keys, and deletes nothing), deletes
each old item on condition that it is still the image verified and that its twin is still there, moves the
uniqueness guards to name the new keys and deletes the derived items only the old declaration calls for in the
same transaction, and records the finish in the migrations' record item. The copy writes each new shape's
derived items with it; the old shape's stay for the window (an item both declarations derive under one key
is written once, as the new declaration has it), and ``finish`` requires the new shape's to be stored. Each
deletion is idempotent, so a finish stopped anywhere is simply run again.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from singletable.migrate._calls import Caller, Limiter
from singletable.migrate._items import Item, key_text, primary_key, same_item, unchanged
from singletable.migrate._migration import Migration
from singletable.migrate._owned import DerivedMove, derived_move
from singletable.migrate._record import APPLIED, Record, is_record
from singletable.migrate._steps import (
    MigrationError,
    Rekey,
    Write,
    _carried,
    _convert,
    _meta,
    one_transaction,
)
from singletable.model import DB, EntityMeta, RequestError, Table, upgraded_item

FINISHED = "finishedAt"
# Keys named in a refusal; the rest are counted.
SHOWN_KEYS = 20
CONFLICTS = frozenset({"ConditionalCheckFailedException", "TransactionCanceledException"})
ATTEMPTS = 5


@dataclass(slots=True)
class RekeyKeepingOld(Rekey):
    """Copy each stored ``entity`` item to the key ``to`` computes, keeping the old item; see
    :func:`~singletable.migrate.rekey` (``keep_old=True``)."""

    kind = "rekey"

    def writes(self, item: Item, table: Table) -> list[Write]:
        """A move's writes, made a copy: the new shape put (its key free or holding exactly it) with the
        derived items its declaration calls for, while the old item is the image read; the old item stays,
        and so do its guards and its derived items (but one the new declaration rewrites under its key)."""
        move = self.moved(item, table)
        if move.old_key == move.new_key:
            return Rekey.writes(self, item, table)  # the item is rewritten in place: no old shape to keep
        parts = [
            {"ConditionCheck": {"Key": move.old_key, **unchanged(item)}},
            {"Put": {"Item": move.new, **_free_or_equal(move.new, move.new_key)}},
            *move.derived.puts,
        ]
        parts = one_transaction("rekey", move.of.type, move.old_key, parts)
        return [Write("TransactWriteItems", {"TransactItems": parts}, item, [move.new, *move.derived.items])]

    def describe(self) -> str:
        return f"{Rekey.describe(self)} (keeping the old items until migrate finish)"


def twin_of(old: EntityMeta, new: EntityMeta, item: Item) -> Item:
    """The new-shape item of a stored old-shape ``item``, as a re-key writes it."""
    values = old.decode(item)
    return _carried(upgraded_item(old, item), _convert(new, values, item, "rekey"), new)


def _free_or_equal(new: Item, key: Item) -> dict[str, Any]:
    """The condition that nothing is stored under ``key``, or exactly ``new`` (its every attribute)."""
    same = unchanged(new)
    names = {**same["ExpressionAttributeNames"], "#free": next(iter(key))}
    return {
        "ConditionExpression": f"attribute_not_exists(#free) OR ({same['ConditionExpression']})",
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": same["ExpressionAttributeValues"],
    }


@dataclass(slots=True)
class Finished:
    """What ``finish`` did for one migration: the old-shape items it verified and deleted."""

    id: str
    verified: int = 0
    deleted: int = 0
    pairs: list[str] = field(default_factory=list)


def finish(
    migrations: list[Migration] | Migration,
    db: DB,
    *,
    max_rcu: float | None = None,
    max_wcu: float | None = None,
    page_size: int = 100,
    limiter: Limiter | None = None,
) -> list[Finished]:
    """Close the dual-write window of each migration's ``rekey(..., keep_old=True)`` steps: verify that every
    old-shape item has its new-shape twin (else :class:`MigrationError` naming the keys, nothing deleted),
    delete the old items (conditioned on the image verified), move their guards to the new keys, and record
    the finish. The migrations must be applied (``up``); running ``finish`` again is harmless."""
    todo = sorted([migrations] if isinstance(migrations, Migration) else migrations, key=lambda m: m.id)
    for migration in todo:
        if not any(isinstance(s, RekeyKeepingOld) for s in migration.steps):
            raise MigrationError(
                f"finish {migration.id}: it has no rekey(..., keep_old=True) step, so no window to close"
            )
    call = Caller(db, limiter or Limiter(max_rcu, max_wcu))
    record = Record(call, db.table)
    applied, _ = record.read()
    out = []
    for migration in todo:
        steps = [s for s in migration.steps if isinstance(s, RekeyKeepingOld)]
        if migration.id not in applied:
            raise MigrationError(
                f"finish {migration.id}: the migration is not applied yet; run migrate up first"
            )
        if applied[migration.id].checksum != migration.checksum:
            raise MigrationError(
                f"finish {migration.id}: its code changed since it was applied (checksum "
                f"{applied[migration.id].checksum[:12]}…, now {migration.checksum[:12]}…)"
            )
        done = Finished(migration.id)
        for step in steps:
            old, new = _meta(step.entity), _meta(step.to or step.entity)
            done.pairs.append(f"{old.cls.__name__} -> {new.cls.__name__}")
            done.verified += _verify(call, db.table, old, new, page_size, migration.id)
            done.deleted += sum(_retire(call, db.table, old, new, item, migration.id) for item in
                                _old_shapes(call, db.table, old, new, page_size))  # fmt: skip
        _record_finish(call, record, migration.id)
        out.append(done)
    return out


def _old_shapes(
    call: Caller, table: Table, old: EntityMeta, new: EntityMeta, page_size: int
) -> Iterator[Item]:
    """Every stored item of the entity whose key is its old shape's (not the new shape's), page by page."""
    params: dict[str, Any] = {
        "ConsistentRead": True,
        "Limit": page_size,
        "FilterExpression": "#t = :t",
        "ExpressionAttributeNames": {"#t": table.type_attribute},
        "ExpressionAttributeValues": {":t": {"S": old.type}},
    }
    record = Record(call, table).key
    while True:
        page = call("Scan", params)
        for item in page.get("Items", []):
            if is_record(item, record):
                continue
            try:
                values = old.decode(item)
                if old.primary_key(values) == primary_key(item, table) != new.primary_key(values):
                    yield item
            except Exception:
                continue  # not an item of the old shape (another entity's key, or another tool's item)
        if "LastEvaluatedKey" not in page:
            return
        params["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def _verify(call: Caller, table: Table, old: EntityMeta, new: EntityMeta, page_size: int, mid: str) -> int:
    """How many old-shape items have an equal new-shape twin; MigrationError naming those that do not."""
    verified, missing, differ, underived = 0, [], [], []
    for item in _old_shapes(call, table, old, new, page_size):
        expected = twin_of(old, new, item)
        there = call("GetItem", {"Key": primary_key(expected, table), "ConsistentRead": True}).get("Item")
        if there is None:
            missing.append(key_text(primary_key(item, table)))
        elif not same_item(there, expected):
            differ.append(key_text(primary_key(item, table)))
        elif not _derived_stored(call, new, _derived(old, new, item, expected)):
            underived.append(key_text(primary_key(item, table)))
        else:
            verified += 1
    if missing or differ or underived:
        problems = []
        if missing:
            problems.append(f"{len(missing)} without a new-shape item ({_shown(missing)})")
        if differ:
            problems.append(f"{len(differ)} whose new-shape item differs ({_shown(differ)})")
        if underived:
            problems.append(
                f"{len(underived)} whose new-shape item lacks derived items ({_shown(underived)})"
            )
        raise MigrationError(
            f"finish {mid}: {old.type} old-shape items {'; '.join(problems)}; nothing was deleted -- run "
            "migrate up (or let the dual-writing application write them) and finish again"
        )
    return verified


def _derived(old: EntityMeta, new: EntityMeta, item: Item, twin: Item) -> DerivedMove:
    """What the window's copy did, and ``finish`` completes, to an old-shape item's derived items."""
    return derived_move(old, old.decode(item), new, new.decode(twin))


def _derived_stored(call: Caller, new: EntityMeta, move: DerivedMove) -> bool:
    """Whether every derived item the new declaration calls for is stored (as an item of its type)."""
    kind = new.table.type_attribute
    for wanted in move.wanted:
        there = call("GetItem", {"Key": primary_key(wanted, new.table), "ConsistentRead": True}).get("Item")
        if there is None or there.get(kind) != wanted[kind]:
            return False
    return True


def _shown(keys: list[str]) -> str:
    shown = "; ".join(keys[:SHOWN_KEYS])
    return shown if len(keys) <= SHOWN_KEYS else f"{shown}; and {len(keys) - SHOWN_KEYS} more"


def _retire(call: Caller, table: Table, old: EntityMeta, new: EntityMeta, item: Item, mid: str) -> int:
    """Delete one old-shape item while it is the image read and its twin is stored equal; its guards then
    name the new key, and the derived items only its declaration called for go with it. Returns 1 if it
    deleted."""
    for _ in range(ATTEMPTS):
        expected = twin_of(old, new, item)
        new_key, old_key = primary_key(expected, table), primary_key(item, table)
        values = old.decode(item)
        parts: list[dict[str, Any]] = [
            {"Delete": {"Key": old_key, **unchanged(item)}},
            {"ConditionCheck": {"Key": new_key, **unchanged(expected)}},
        ]
        parts += Rekey(old.cls, new.cls).guard_parts(old, new, item, values, new_key)
        parts += _derived(old, new, item, expected).deletes
        parts = one_transaction("finish", old.type, old_key, parts)
        try:
            call("TransactWriteItems", {"TransactItems": parts})
            return 1
        except RequestError as error:
            if error.code not in CONFLICTS:
                raise MigrationError(
                    f"finish {mid}: item {key_text(old_key)}: {error.code}: {error.message}"
                ) from None
        now = call("GetItem", {"Key": old_key, "ConsistentRead": True}).get("Item")
        if now is None:
            return 0  # deleted meanwhile (a writer, or a finish before this one)
        there = call("GetItem", {"Key": new_key, "ConsistentRead": True}).get("Item")
        if there is None or not same_item(there, twin_of(old, new, now)):
            raise MigrationError(
                f"finish {mid}: item {key_text(old_key)} changed and its new-shape twin "
                f"{key_text(new_key)} {'is missing' if there is None else 'differs'}; nothing more was "
                "deleted -- is an application still writing only the old shape?"
            )
        item = now
    raise MigrationError(
        f"finish {mid}: item {key_text(primary_key(item, table))} kept changing; run finish again"
    )


def _record_finish(call: Caller, record: Record, migration_id: str) -> None:
    """The finish, recorded beside the migration's entry in the record item."""
    call(
        "UpdateItem",
        {
            "Key": record.key,
            "UpdateExpression": "SET #a.#id.#f = :t",
            "ConditionExpression": "attribute_exists(#a.#id)",
            "ExpressionAttributeNames": {"#a": APPLIED, "#id": migration_id, "#f": FINISHED},
            "ExpressionAttributeValues": {
                ":t": {"S": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")}
            },
        },
    )


def finished_at(db: DB, migration_id: str) -> str | None:
    """When ``migration_id``'s window was closed by ``finish`` (ISO 8601), or None."""
    call = Caller(db)
    item = call("GetItem", {"Key": Record(call, db.table).key, "ConsistentRead": True}).get("Item", {})
    entry = item.get(APPLIED, {}).get("M", {}).get(migration_id, {}).get("M", {})
    return entry.get(FINISHED, {}).get("S")
