"""What the seed migrations' tests share: each seed's table as it was before its migration, the application
writing during the run, and the check that the table ends in the state the new design describes.

*Before*: the design's table without the indexes the migration adds, loaded with the seed's sample
(through its service) and some more items of the migrated entity, then aged: items a ``rekey`` moves are
written back in their old shape, and the key attributes of an added index that no other
index uses are removed.

*During*: :class:`Writers` is the application, running the new code in a thread while the migration runs:
it creates entities in the new shape and edits (or deletes) existing ones, finding an item not yet moved
under its old key, and records every write that was acknowledged.

*After* (:func:`verify`): every item's key attributes are exactly what the new templates compute, each
uniqueness guard and derived item matches its owner, the counts per entity type are those before plus what
the writers created, minus what they deleted, and every acknowledged write is there.
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from background import Background
from every_item import every_item_of
from singletable.migrate import Migration, load_migrations
from singletable.model import DB, Entity, EntityMeta, NotFound, RequestError, Table, guard_key

EXAMPLES = Path(__file__).parents[2] / "src" / "singletable" / "examples"
RECORD = "_singletable#migrations"
# Answers that acknowledge nothing (DynamoDB Local gives InternalFailure to a write racing an index build).
SERVER_ERRORS = frozenset({"InternalFailure", "InternalServerError", "ServiceUnavailable"})


def migration_of(seed: str) -> Migration:
    [migration] = load_migrations(str(EXAMPLES / seed / "migrations"))
    return migration


def moves(migration: Migration) -> list[tuple[type[Entity], type[Entity]]]:
    """(old, new) entity of each rekey step."""
    return [(s.entity, s.to or s.entity) for s in migration.steps if s.kind == "rekey"]  # type: ignore[attr-defined]


def added_indexes(migration: Migration) -> list[str]:
    return [s.index.name for s in migration.steps if s.kind == "add_index"]  # type: ignore[attr-defined]


def after_entities(migration: Migration) -> dict[str, EntityMeta]:
    """The design as the migration leaves it: the table's entities, each re-keyed one as it becomes."""
    assert migration.table is not None
    entities = dict(migration.table.entities)
    for _, new in moves(migration):
        entities[new.model_entity().type] = new.model_entity()
    return entities


def scan(db: DB) -> list[dict[str, Any]]:
    return [i for i in every_item_of(db) if i.get("PK") != {"S": RECORD}]


def counts(db: DB) -> Counter[str]:
    return Counter(i.get(db.table.type_attribute, {}).get("S", "(guard)") for i in scan(db))


# -- before ---------------------------------------------------------------------------------------------


def create_old_table(db: DB, migration: Migration) -> None:
    """The design's table without the indexes the migration adds."""
    params = db.table.create_table_params(db.table_name)
    added = set(added_indexes(migration))
    kept = [g for g in params.get("GlobalSecondaryIndexes", []) if g["IndexName"] not in added]
    if kept:
        params["GlobalSecondaryIndexes"] = kept
    else:
        params.pop("GlobalSecondaryIndexes", None)
    used = {k["AttributeName"] for k in params["KeySchema"]}
    used |= {k["AttributeName"] for g in kept for k in g["KeySchema"]}
    params["AttributeDefinitions"] = [a for a in params["AttributeDefinitions"] if a["AttributeName"] in used]
    db.call("CreateTable", params)


def age(db: DB, migration: Migration) -> None:
    """Bring the loaded items back to their shape before the migration (see the module docstring)."""
    for old, new in moves(migration):
        old_meta, new_meta = old.model_entity(), new.model_entity()
        for item in scan(db):
            if item.get(db.table.type_attribute) != {"S": new_meta.type}:
                continue
            values = new_meta.decode(item)
            before = old_meta.to_item(values)
            db.call("PutItem", {"TableName": db.table_name, "Item": before})
            key = {n: item[n] for n in (db.table.pk_name, db.table.sk_name)}
            if key != {n: before[n] for n in key}:
                db.call("DeleteItem", {"TableName": db.table_name, "Key": key})
    params = db.table.create_table_params(db.table_name)
    kept = {
        k["AttributeName"]
        for g in params.get("GlobalSecondaryIndexes", [])
        if g["IndexName"] not in added_indexes(migration)
        for k in g["KeySchema"]
    }
    stale = {
        k["AttributeName"]
        for g in params.get("GlobalSecondaryIndexes", [])
        if g["IndexName"] in added_indexes(migration)
        for k in g["KeySchema"]
    } - kept
    for item in scan(db):
        there = sorted(stale & item.keys())
        if there:
            names = {f"#a{n}": a for n, a in enumerate(there)}
            db.call(
                "UpdateItem",
                {
                    "TableName": db.table_name,
                    "Key": {n: item[n] for n in (db.table.pk_name, db.table.sk_name)},
                    "UpdateExpression": "REMOVE " + ", ".join(names),
                    "ExpressionAttributeNames": names,
                },
            )


# -- during ---------------------------------------------------------------------------------------------


@dataclass(slots=True)
class Ack:
    """One acknowledged write: the item under ``key`` (its key after the migration) holds ``values`` (stored
    attributes), or -- ``deleted`` -- is gone."""

    key: dict[str, Any]
    values: dict[str, Any] = field(default_factory=dict)
    deleted: bool = False
    kind: str = ""  # the entity type of a deleted item


@dataclass
class Writers:
    """The application on the new code, writing in a thread while the migration runs; see the module
    docstring. ``make(n)`` is the nth new entity (created with ``db.create``); ``edit(db, old_values, n)``
    changes one existing entity (given by its field values as read before the run) and returns what it
    acknowledged, or None when the entity is not there yet (it is edited again later)."""

    db: DB
    make: Callable[[int], Entity]
    edit: Callable[[DB, dict[str, Any], int], Ack | None]
    existing: list[dict[str, Any]]
    seed: int = 0
    most: int = 200  # writes at most, so a slow backend's run is not outgrown by the writers
    pause: float = 0.005  # seconds between writes
    acks: list[Ack] = field(default_factory=list)
    created: Counter[str] = field(default_factory=Counter)
    deleted: Counter[str] = field(default_factory=Counter)
    _thread: Background | None = None

    def start(self) -> Writers:
        self._thread = Background(self._run, "seed-writers").start()
        return self

    def stop(self) -> None:
        assert self._thread is not None
        self._thread.stop()

    def _run(self, stopping: threading.Event) -> None:
        rng = random.Random(self.seed)
        edits = list(self.existing)
        rng.shuffle(edits)
        n = 0
        while not stopping.is_set() and n < self.most:
            n += 1
            if n % 2 or not edits:
                self._create(n)
            else:
                values = edits.pop()
                try:
                    ack = self.edit(self.db, values, n)
                except RequestError as error:
                    if error.code not in SERVER_ERRORS:
                        raise
                    edits.insert(0, values)  # not acknowledged: edited again later
                    continue
                if ack is None:  # the item is not there yet (a copy has not reached it)
                    edits.insert(0, values)
                else:
                    self.acks = [a for a in self.acks if a.key != ack.key] + [ack]
                    if ack.deleted:
                        self.deleted[ack.kind] += 1
            stopping.wait(self.pause)

    def _create(self, n: int) -> None:
        """One new entity. A server error acknowledges nothing, yet the write may have happened: the item
        is then read back, and counted (and checked) only if it is there."""
        entity = self.make(n)
        meta = entity.model_entity()
        try:
            entity = self.db.create(entity)  # as stored (timestamps set)
            stored = meta.to_item(meta.values(entity))
        except RequestError as error:
            if error.code not in SERVER_ERRORS:
                raise
            key = meta.primary_key(meta.values(entity))
            read = self.db.call(
                "GetItem", {"TableName": self.db.table_name, "Key": key, "ConsistentRead": True}
            )
            if "Item" not in read:
                return
            stored = read["Item"]
        values = meta.decode(stored)
        self.acks.append(Ack(meta.primary_key(values), stored))
        self.created[meta.type] += 1
        self.created["(guard)"] += sum(1 for name in meta.unique if values.get(name) is not None)


def edit_field(
    new: type[Entity], old: type[Entity], name: str, value: Callable[[int], Any]
) -> Callable[..., Any]:
    """An edit that sets one field: by the new key, else (not moved yet) by the old key, else (moved in
    between) by the new key again. Returns the acknowledged write."""

    def edit(db: DB, values: dict[str, Any], n: int) -> Ack:
        new_meta = new.model_entity()
        wanted = value(n)
        for attempt in range(6):
            entity = new if attempt % 2 == 0 else old
            try:
                db.update(
                    entity.key(**{f: values[f] for f in entity.model_entity().primary_fields}),
                    **{name: wanted},
                )
            except NotFound:
                continue
            stored = new_meta.fields[name].codec.dump(wanted)
            return Ack(new_meta.primary_key(values), {new_meta.attribute_of[name]: stored})
        raise AssertionError(f"{new_meta.type} {values} was under neither key six times")

    assert old.model_entity().type == new.model_entity().type
    return edit


# -- after ----------------------------------------------------------------------------------------------


def verify(db: DB, migration: Migration, expected: Counter[str], acks: list[Ack]) -> None:
    """The table is in the state the migration's new design describes (see the module docstring)."""
    entities = after_entities(migration)
    table = db.table
    items = scan(db)
    by_key = {_key(item, table): item for item in items}
    derived: dict[str, set[tuple[str, ...]]] = {}
    owned_guards: set[tuple[str, ...]] = set()
    key_attributes = set(table.key_types)
    for item in items:
        kind = item.get(table.type_attribute, {}).get("S")
        if kind is None:
            continue
        meta = entities[kind]
        values = meta.decode(item)
        want = meta.to_item(values)
        for attribute in key_attributes | {k.attribute for k in meta.keys.values()}:
            assert item.get(attribute) == want.get(attribute), (
                f"{kind} {_key(item, table)}: {attribute} is {item.get(attribute)}, the design computes "
                f"{want.get(attribute)}"
            )
        for name in meta.unique:
            if values.get(name) is None:
                continue
            scope = {f: values[f] for f in meta.guard_fields[name] if f != name}
            guard = _key(guard_key(meta, name, values[name], **scope), table)
            assert guard in by_key, f"{kind} {_key(item, table)}: no guard for {name}={values[name]!r}"
            assert by_key[guard]["owner"]["M"] == meta.primary_key(values), (
                f"guard {guard} names another owner"
            )
            owned_guards.add(guard)
        for declared in meta.derived:
            for one in declared.items(values):
                target = one.model_entity()
                derived.setdefault(target.type, set()).add(
                    _key(target.primary_key(target.values(one)), table)
                )
    for item in items:  # every guard has its owner; every derived item is some owner's
        key = _key(item, table)
        kind = item.get(table.type_attribute, {}).get("S")
        if kind is None:
            assert key in owned_guards, f"guard {key} has no owner naming it"
    for kind, keys in derived.items():
        stored = {_key(i, table) for i in items if i.get(table.type_attribute) == {"S": kind}}
        assert stored == keys, f"{kind} items differ from their owners': {sorted(stored ^ keys)}"
    assert counts(db) == +expected, f"counts {counts(db)} != expected {+expected}"
    for ack in acks:
        key = _key(ack.key, table)
        if ack.deleted:
            assert key not in by_key, f"{key} was deleted (acknowledged) yet is there"
            continue
        assert key in by_key, f"acknowledged write {key} is missing"
        for name, av in ack.values.items():
            assert by_key[key].get(name) == av, f"{key}: {name} is {by_key[key].get(name)}, acknowledged {av}"


def _key(item: dict[str, Any], table: Table) -> tuple[str, ...]:
    return tuple(str(next(iter(item[n].values()))) for n in (table.pk_name, table.sk_name) if n)
