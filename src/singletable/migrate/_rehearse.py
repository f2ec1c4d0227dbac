"""``rehearse``: run migrations on a fresh local copy of a table, then check the result item by item.

The copy is made by the data tools (:mod:`._rehearse_copy`): ``copy_table`` from a database file or an
endpoint (which opens the source read-only: a file's bytes stay as they were, an endpoint gets only reads), or
``import_table`` from a DynamoDB export to S3 (a directory), with every table a ``copy_from`` reads beside the
migrations' table. It goes into a *new* database file, so nothing but that file is ever written. The
migrations then run on the copy with ``up``, and one more Scan of the copy verifies what they leave:

- every item of an entity the migrations leave declared has the keys its templates compute now -- primary,
  index keys and type attribute -- and validates as that entity;
- no item is left of a type a ``split`` or ``merge`` retired;
- each unique field's guard is stored and names its owner, and each stored guard's owner is there and holds
  it; each owner's derived items are stored, and each stored item of a derived type is one a stored
  owner's declaration calls for now (:mod:`._rehearse_derived`);
- no index-key value has a type, length or emptiness DynamoDB would leave out of an index;
- each table a ``copy_from`` read holds the items it held before the migrations ran.

Verification reads one item at a time (a guard, an owner, a derived item by its key), so it holds no more
than a page and the bounded list of problems, whatever the table's size. Which derived items no owner calls
for is known only at the end of the Scan: their keys and those owners call for wait in a temporary SQLite
file (memory: its page cache; disk: the derived items' keys), then one query names the orphans.
"""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from singletable._words import counted
from singletable.data import Target, TransferSummary, open_target
from singletable.migrate._calls import Caller
from singletable.migrate._items import Item, canonical, key_text, primary_key, same_item
from singletable.migrate._migration import Migration, one_table
from singletable.migrate._plan import key_violations
from singletable.migrate._record import Record, is_record
from singletable.migrate._rehearse_copy import SourceTable, check_new, fingerprint, make_copy
from singletable.migrate._rehearse_derived import DerivedLedger, derived_types, report_orphans
from singletable.migrate._runner import Result, _scan_params, up
from singletable.migrate._split import Retype, _guard_of
from singletable.migrate._steps import MigrationError, Step
from singletable.model import DB, EntityMeta, Index, ModelError, Table, connect

MAX_PROBLEMS = 20
Report = Callable[[Item, str, str], None]
GUARD = "(guard)"
UNTYPED = "(no type)"


@dataclass(slots=True)
class Problem:
    """One item the verification refuses: its key, which check, and what is wrong."""

    key: str
    check: str  # "keys", "entity", "retired type", "guard", "derived", "index key"
    detail: str


@dataclass(slots=True)
class EntityCount:
    type: str
    before: int = 0
    after: int = 0


@dataclass(slots=True)
class Rehearsal:
    """What a rehearsal did and found. ``copy`` is the database file it ran on (deleted unless kept)."""

    copy: str
    kept: bool
    table: str
    transfer: TransferSummary
    results: list[Result]
    counts: list[EntityCount]
    problems: list[Problem] = field(default_factory=list)  # the first MAX_PROBLEMS
    problem_count: int = 0
    checked: int = 0  # items verified against a declaration
    unverified: dict[str, int] = field(default_factory=dict)  # types no migration's design declares
    created: bool = False  # the table was not in the source: created empty from the design
    sources: list[SourceTable] = field(default_factory=list)  # the tables copy_from steps read

    @property
    def ok(self) -> bool:
        return self.problem_count == 0


def rehearse(
    migrations: list[Migration] | Migration,
    source: str,
    *,
    table_name: str | None = None,
    copy_to: str | Path | None = None,
    schema: str | dict[str, Any] | None = None,
    page_size: int = 100,
    segments: int = 1,
    copy_sources: Mapping[str, str] | None = None,
) -> Rehearsal:
    """Copy ``source`` (a database file, an endpoint URL, or a directory holding a DynamoDB export to S3)
    into a new database file, run ``migrations`` there and verify the result; see the module docstring.

    ``copy_to`` names the new file and keeps it (it must not exist); by default the copy goes to a temporary
    directory removed at the end. ``schema`` creates the table an export is imported into (a DescribeTable
    JSON file or a design module, as ``singletable import`` takes; default: the migrations' table as
    declared). ``copy_sources`` maps a table a ``copy_from`` reads to where it is, when not in ``source``
    (a file, an endpoint or an export directory); see :mod:`._rehearse_copy`."""
    todo = [migrations] if isinstance(migrations, Migration) else list(migrations)
    if not todo:
        raise MigrationError("rehearse: no migration to rehearse")
    table = one_table(todo, "rehearse")
    name = table_name or table.resolved_name()
    elsewhere = dict(copy_sources or {})
    scratch = None
    if copy_to is None:
        scratch = Path(tempfile.mkdtemp(prefix="singletable-rehearse-"))
        path = scratch / "rehearsal.db"
    else:
        path = Path(copy_to)
        check_new(path, source, elsewhere)
    try:
        local = make_copy(todo, source, path, name, table, schema, elsewhere)
        with open_target(str(path), create=False) as copy:
            assert copy.engine is not None  # a database file opens on the embedded engine
            db = connect(table, copy.engine, name=name)
            before = _count(db)
            for one in local.sources:
                one.fingerprint = fingerprint(copy, one.name)
            results = up(todo, db, page_size=page_size, segments=segments)
            found = Rehearsal(str(path), scratch is None, name, local.transfer, results, [])
            found.created, found.sources = local.created, local.sources
            after = _verify(db, todo, found)
            _check_sources(copy, found)
        found.counts = [
            EntityCount(kind, before.get(kind, 0), after.get(kind, 0)) for kind in sorted({*before, *after})
        ]
        return found
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def _check_sources(copy: Target, found: Rehearsal) -> None:
    """Each ``copy_from`` source table as it was copied: its items and their digest the same after the
    migrations as before (the source is read through a caller that refuses writes; this proves it)."""
    for one in found.sources:
        now = fingerprint(copy, one.name)
        one.unchanged = now == one.fingerprint
        if not one.unchanged:
            found.problem_count += 1
            if len(found.problems) < MAX_PROBLEMS:
                was, count = counted(one.fingerprint[0], "item"), counted(now[0], "item")
                detail = f"the migrations changed it: {was} before, {count} after"
                found.problems.append(Problem(f"table {one.name}", "copy_from source", detail))


def _count(db: DB) -> Counter[str]:
    counts: Counter[str] = Counter()
    for item in _items(Caller(db, read_only=True), db.table):
        counts[_kind(item, db.table)] += 1
    return counts


def _items(call: Caller, table: Table) -> Iterator[Item]:
    """Every item but the migrations' record, a page at a time."""
    record = Record(call, table).key
    start: Item | None = None
    while True:
        page = call("Scan", _scan_params(Step(), table, 500, start))
        for item in page.get("Items", []):
            if not is_record(item, record):
                yield item
        start = page.get("LastEvaluatedKey")
        if not start:
            return


def _kind(item: Item, table: Table) -> str:
    kind = item.get(table.type_attribute, {}).get("S")
    if kind is not None:
        return str(kind)
    return GUARD if "owner" in item else UNTYPED


@dataclass(slots=True)
class _Design:
    """The entities the migrations leave declared, by type, and the types they retire."""

    entities: dict[str, EntityMeta]
    retired: dict[str, str]  # retired type -> what it became
    indexes: list[Index]
    derived: set[str]  # the types a declaration before or after the migrations derives


def design_after(migrations: list[Migration]) -> _Design:
    """Each type's declaration after the migrations: the tables their steps write to, in order, a later
    declaration of a type replacing an earlier one; minus the types a split or merge turns into others."""
    entities: dict[str, EntityMeta] = {}
    produced: list[EntityMeta] = []
    sources: dict[str, str] = {}
    seen: list[EntityMeta] = []
    for migration in migrations:
        assert migration.table is not None
        entities.update(migration.table.entities)
        seen += migration.table.entities.values()
        for step in migration.steps:
            made = _produced(step)
            for meta in made:
                entities.update(meta.table.entities)
            produced += made
            if isinstance(step, Retype):
                for cls in step.sources():
                    sources[cls.model_entity().type] = step.describe()
    for meta in produced:
        entities[meta.type] = meta
        for derived in meta.derived:  # what a produced item derives is declared by its owner
            target = derived.target.model_entity()
            entities[target.type] = target
    made_types = {m.type for m in produced}
    retired = {kind: how for kind, how in sources.items() if kind not in made_types}
    for kind in retired:
        entities.pop(kind, None)
    last = produced[-1].table if produced else migrations[-1].table
    assert last is not None
    return _Design(entities, retired, list(last.indexes), derived_types([*seen, *produced]))


def _produced(step: Step) -> list[EntityMeta]:
    """The entity classes a step writes items of."""
    into = getattr(step, "into", None)
    if isinstance(into, dict):
        return [cls.model_entity() for cls in into.values()]
    cls = getattr(step, "to", None) or getattr(step, "entity", None)
    return [cls.model_entity()] if cls is not None else []


def _verify(db: DB, migrations: list[Migration], found: Rehearsal) -> Counter[str]:
    """One Scan of the migrated copy, each item checked (module docstring); returns the counts by type."""
    call = Caller(db, read_only=True)
    design = design_after(migrations)
    counts: Counter[str] = Counter()
    unverified: Counter[str] = Counter()

    def problem(item: Item, check: str, detail: str) -> None:
        found.problem_count += 1
        if len(found.problems) < MAX_PROBLEMS:
            found.problems.append(Problem(key_text(primary_key(item, db.table)), check, detail))

    with DerivedLedger(design.entities.values()) as ledger:
        for item in _items(call, db.table):
            kind = _kind(item, db.table)
            counts[kind] += 1
            for violation in key_violations(item, db.table, design.indexes):
                where = f"{violation.attribute} for index {violation.index}"
                problem(item, "index key", f"{where} {violation.problem}")
            if kind in design.derived:
                ledger.stored(primary_key(item, db.table), kind)
            if kind in design.retired:
                problem(item, "retired type", f"still a {kind}, which {design.retired[kind]} converts")
            elif kind == GUARD:
                _check_guard(call, item, design, problem, unverified)
            elif kind in design.entities:
                found.checked += 1
                _check_entity(call, item, design.entities[kind], problem, ledger)
            else:
                unverified[kind] += 1
        listing = lambda: len(found.problems) < MAX_PROBLEMS  # noqa: E731
        report_orphans(call, ledger, lambda key, why: problem(key, "derived", why), listing)
    found.unverified = dict(sorted(unverified.items()))
    return counts


def _check_entity(call: Caller, item: Item, meta: EntityMeta, problem: Report, ledger: DerivedLedger) -> None:
    try:
        values = meta.decode(item)
        computed = meta.to_item(values)
    except (ModelError, ValueError, TypeError) as error:
        problem(item, "entity", f"not a valid {meta.type}: {str(error).splitlines()[0]}")
        return
    table = meta.table
    for attribute in [*table.key_types, table.type_attribute]:
        stored, wanted = item.get(attribute), computed.get(attribute)
        if (stored is None) != (wanted is None) or (
            stored is not None and wanted is not None and canonical(stored) != canonical(wanted)
        ):
            problem(
                item,
                "keys",
                f"{attribute} is {_shown(stored)}, the {meta.type} templates give {_shown(wanted)}",
            )
    owner = primary_key(item, table)
    for name in meta.unique:
        key = _guard_of(meta, name, values)
        if key is None:
            continue
        guard = call("GetItem", {"Key": key, "ConsistentRead": True}).get("Item")
        if guard is None:
            problem(item, "guard", f"the guard of {name} ({key_text(key)}) is missing")
        elif not same_item(guard.get("owner", {}).get("M", {}), owner):
            problem(item, "guard", f"the guard of {name} ({key_text(key)}) names another owner")
    for derived in meta.derived:
        for entity in derived.items(values):
            target = entity.model_entity()
            key = target.primary_key(target.values(entity))
            ledger.called_for(key, target.type)
            stored = call("GetItem", {"Key": key, "ConsistentRead": True}).get("Item")
            if stored is None or stored.get(table.type_attribute) != target.type_av:
                problem(item, "derived", f"its {derived.name} item {key_text(key)} is missing")


def _check_guard(
    call: Caller, item: Item, design: _Design, problem: Report, unverified: Counter[str]
) -> None:
    owner_key = item["owner"].get("M")
    if not isinstance(owner_key, dict) or not owner_key:
        problem(item, "guard", "its owner attribute is not a key")
        return
    owner = call("GetItem", {"Key": owner_key, "ConsistentRead": True}).get("Item")
    if owner is None:
        problem(item, "guard", f"its owner {key_text(owner_key)} is not stored")
        return
    meta = design.entities.get(owner.get(call.db.table.type_attribute, {}).get("S", ""))
    if meta is None:
        unverified[GUARD] += 1
        return
    try:
        values = meta.decode(owner)
        keys = [_guard_of(meta, name, values) for name in meta.unique]
    except (ModelError, ValueError, TypeError):
        return  # the owner's own check names it
    here = primary_key(item, meta.table)
    if not any(key is not None and same_item(key, here) for key in keys):
        problem(item, "guard", f"its owner {key_text(owner_key)} ({meta.type}) holds no such unique value")


def _shown(av: dict[str, Any] | None) -> str:
    if av is None:
        return "absent"
    (kind, value), *_ = av.items()
    return f"{value!r} ({kind})"
