"""``plan``: what a migration would do, counted on the table (or a sample of it) without writing anything.

The table is scanned once per migration and each item carried through its steps in memory, so a step is
planned on what the steps before it would leave (a backfill after a rekey sees the moved item).
For each: items scanned and touched per entity type, the read units the scan
consumed, the write units its writes would consume (the table's and each index's share, estimated from item
sizes by DynamoDB's rules), their on-demand price, the indexes touched, and index-key violations -- new
index-key values of the wrong type, empty, or too long, which DynamoDB refuses on a write and leaves out of a
newly built index.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from singletable.design import Prices, load_prices
from singletable.migrate._calls import Caller, Limiter
from singletable.migrate._copy import CopyFrom
from singletable.migrate._items import Item, item_size, key_text, value_size, write_units
from singletable.migrate._migration import Migration
from singletable.migrate._record import Record, is_record
from singletable.migrate._runner import _scan_params, check_checksums
from singletable.migrate._steps import AddIndex, DropIndex, MigrationError, Step, Write, writes_for
from singletable.model import DB, Index, Table

KEY_LIMITS = {"HASH": 2048, "RANGE": 1024}
MAX_VIOLATIONS = 20


@dataclass(slots=True)
class Violation:
    key: str
    index: str
    attribute: str
    problem: str


@dataclass(slots=True)
class StepPlan:
    migration: str
    step: str
    scanned: Counter[str] = field(default_factory=Counter)
    touched: Counter[str] = field(default_factory=Counter)
    read_units: float = 0.0
    write_units: float = 0.0
    indexes: set[str] = field(default_factory=set)
    violations: list[Violation] = field(default_factory=list)
    violation_count: int = 0
    problems: list[str] = field(default_factory=list)  # items the step refuses (up would stop at the first)
    problem_count: int = 0
    skipped: str = ""  # why ``up`` would skip the step (an index already there, or already gone): costs 0


@dataclass(slots=True)
class Plan:
    steps: list[StepPlan]
    prices: Prices
    applied: list[str]
    sampled: int | None = None  # items read when a sample was asked for
    item_count: int = 0  # DescribeTable's (approximate) item count

    @property
    def read_units(self) -> float:
        return sum(s.read_units for s in self.steps)

    @property
    def write_units(self) -> float:
        return sum(s.write_units for s in self.steps)

    @property
    def scale(self) -> float:
        """How many times the sample the whole table is (1 without a sample)."""
        if self.sampled is None or not self.sampled or self.item_count <= self.sampled:
            return 1.0
        return self.item_count / self.sampled

    @property
    def price(self) -> float:
        p = self.prices
        reads = self.read_units * p.read_request_units_per_million
        writes = self.write_units * p.write_request_units_per_million
        return (reads + writes) * self.scale / 1e6


def plan(
    migrations: list[Migration] | Migration,
    db: DB,
    *,
    sample: int | None = None,
    prices: Prices | None = None,
    max_rcu: float | None = None,
) -> Plan:
    """Plan every migration not yet applied to ``db``'s table; read-only (see the module docstring).
    ``max_rcu`` keeps the scan at or under that many read units a second."""
    todo = [migrations] if isinstance(migrations, Migration) else list(migrations)
    call = Caller(db, Limiter(max_rcu=max_rcu), read_only=True)
    applied, running = Record(call, db.table).read()
    check_checksums(todo, applied, running)
    described = call("DescribeTable", {})["Table"]
    global_indexes = {g["IndexName"] for g in described.get("GlobalSecondaryIndexes", [])}
    existing = global_indexes | {i["IndexName"] for i in described.get("LocalSecondaryIndexes", [])}
    indexes = [i for i in db.table.indexes if i.name in existing]
    result = Plan([], prices or load_prices(), sorted(m.id for m in todo if m.id in applied))
    result.item_count = int(described.get("ItemCount", 0))
    if sample is not None:
        result.sampled = 0
    record_key = Record(call, db.table).key
    for migration in sorted(todo, key=lambda m: m.id):
        if migration.id in applied:
            continue
        steps: list[tuple[Step, StepPlan, list[Index]]] = []
        for step in migration.steps:
            one = StepPlan(migration.id, step.describe())
            one.skipped = _skipped(step, global_indexes)
            if isinstance(step, AddIndex):
                indexes = [*(i for i in indexes if i.name != step.index.name), step.index]
                global_indexes = global_indexes | {step.index.name}
            elif isinstance(step, DropIndex):
                indexes = [i for i in indexes if i.name != step.name]
                global_indexes = global_indexes - {step.name}
            steps.append((step, one, indexes))
        _scan(call, steps, db.table, sample, record_key, result)
        _plan_copies(call, steps, db.table, sample, result)
        result.steps += [one for _, one, _ in steps]
    return result


def _skipped(step: Step, global_indexes: set[str]) -> str:
    """Why ``up`` would skip ``step`` on a table with ``global_indexes`` (as the steps before it leave them):
    ``add_index`` of an index already there, ``drop_index`` of one that is not; empty when it would not."""
    if isinstance(step, AddIndex) and step.index.name in global_indexes:
        return f"index {step.index.name} already exists: up skips this step"
    if isinstance(step, DropIndex) and step.name not in global_indexes:
        return f"index {step.name} does not exist: up skips this step"
    return ""


def _scan(
    call: Caller,
    steps: list[tuple[Step, StepPlan, list[Index]]],
    table: Table,
    sample: int | None,
    record_key: Item,
    result: Plan,
) -> None:
    """One Scan of the table, each item carried through the steps in order (a step sees what the steps
    before it would leave); the read units are the scan's, once per step that scans (as ``up`` does)."""
    start: Item | None = None
    seen = 0
    read_units = 0.0
    while True:
        limit = 100 if sample is None else max(1, min(100, sample - seen))
        response = call("Scan", _scan_params(Step(), table, limit, start))
        read_units += _read_units(response)
        seen += response.get("ScannedCount", 0)
        for item in response.get("Items", []):
            if not is_record(item, record_key):
                _carry(item, steps, table)
        start = response.get("LastEvaluatedKey")
        if not start or (sample is not None and seen >= sample):
            break
    for step, one, _ in steps:
        if one.skipped:
            continue  # up sends nothing for it
        if isinstance(step, DropIndex):
            one.indexes.add(step.name)
        else:
            one.read_units = read_units
    if result.sampled is not None:
        result.sampled = max(result.sampled, seen)


def _plan_copies(
    call: Caller,
    steps: list[tuple[Step, StepPlan, list[Index]]],
    table: Table,
    sample: int | None,
    result: Plan,
) -> None:
    """Steps that read another table (``copy_from``) are counted on that table."""
    from singletable.migrate._copy_plan import plan_copy  # it builds on this module

    for step, one, indexes in steps:
        if isinstance(step, CopyFrom):
            seen = plan_copy(call, step, one, table, indexes, sample)
            if result.sampled is not None:
                result.sampled = max(result.sampled, seen)


def _carry(item: Item, steps: list[tuple[Step, StepPlan, list[Index]]], table: Table) -> None:
    image: Item | None = item
    for step, one, indexes in steps:
        if image is None or isinstance(step, CopyFrom):
            return
        kind = image.get(table.type_attribute, {}).get("S", "(no type)")
        if isinstance(step, AddIndex):
            if one.skipped:
                continue
            one.scanned[kind] += 1
            _index_item(image, step.index, table, one)
            continue
        types = step.types()
        if not step.scans or (types is not None and kind not in types):
            continue
        one.scanned[kind] += 1
        try:
            writes = writes_for(step, image, table)
        except MigrationError as problem:
            one.problem_count += 1
            if len(one.problems) < MAX_VIOLATIONS:
                one.problems.append(str(problem))
            return
        if writes:
            one.touched[kind] += 1
        for write in writes:
            one.write_units += _units(write, table, indexes, one)
            for new in write.new:
                _violations(new, table, indexes, one)
        image = _after(image, writes, step, table)


def _after(image: Item, writes: list[Write], step: Step, table: Table) -> Item | None:
    """The item as ``writes`` leave it: moved, rewritten or deleted (``each``'s other items aside)."""
    key_names = [n for n in (table.pk_name, table.sk_name) if n]
    key = {n: image[n] for n in key_names}
    for write in writes:
        if step.kind != "each" and write.new:
            image = write.new[0]
            key = {n: image[n] for n in key_names}
            continue
        for new in write.new:
            if {n: new.get(n) for n in key_names} == key:
                image = new
        if key in write.deletes:
            return None
    return image


def _read_units(response: dict[str, Any]) -> float:
    consumed = response.get("ConsumedCapacity")
    if consumed is not None:
        return float(consumed.get("CapacityUnits", 0.0))
    size = sum(item_size(i) for i in response.get("Items", []))
    return max(1.0, -(-size // 4096))


def _index_item(item: Item, index: Index, table: Table, one: StepPlan) -> None:
    """An existing item as a new index would see it: counted if it has the index's key, checked for values
    DynamoDB would leave out of the index."""
    if index.pk in item:
        one.touched["indexed by " + index.name] += 1
        one.write_units += write_units(item_size(_projected(item, index, table)))
        one.indexes.add(index.name)
    _violations(item, table, [index], one)


def _in_index(item: Item, index: Index) -> bool:
    return index.pk in item and (index.sk is None or index.sk in item)


def _projected(item: Item, index: Index, table: Table) -> Item:
    if index.projection == "ALL":
        return item
    keep = set(table.key_attributes(index))
    if not isinstance(index.projection, str):
        keep |= set(index.projection)
    return {n: av for n, av in item.items() if n in keep}


def _units(write: Write, table: Table, indexes: list[Index], one: StepPlan) -> float:
    """Write units of one write: the table's (larger of old and new image; a move writes the new item and
    deletes the old), and each index's whose entry is put, replaced or removed; a transaction costs twice."""
    old = write.old or {}
    if write.operation == "DeleteItem":
        return float(write_units(item_size(old)) + _index_units(old, {}, table, indexes, one))
    units = 0
    moved = write.operation == "TransactWriteItems"
    for new in write.new:
        units += write_units(item_size(new) if moved else max(item_size(new), item_size(old)))
        units += _index_units({} if moved else old, new, table, indexes, one)
    if moved:
        units += write_units(item_size(old)) + _index_units(old, {}, table, indexes, one)
        units *= 2
    return float(units)


def _index_units(old: Item, new: Item, table: Table, indexes: list[Index], one: StepPlan) -> int:
    units = 0
    for index in indexes:
        was, now = _in_index(old, index), _in_index(new, index)
        if not (was or now):
            continue
        keys = [a for a in (index.pk, index.sk) if a]
        if was and now and all(old[a] == new[a] for a in keys):
            if _projected(old, index, table) == _projected(new, index, table):
                continue
            count = 1
        else:
            count = 2 if was and now else 1
        one.indexes.add(index.name)
        units += count * write_units(item_size(_projected(new or old, index, table)))
    return units


def _violations(item: Item, table: Table, indexes: list[Index], one: StepPlan) -> None:
    for violation in key_violations(item, table, indexes):
        one.violation_count += 1
        if len(one.violations) < MAX_VIOLATIONS:
            one.violations.append(violation)


def key_violations(item: Item, table: Table, indexes: list[Index]) -> list[Violation]:
    """The index-key values of ``item`` DynamoDB would refuse on a write and leave out of a newly built
    index: of another type than the index key's, empty, or too long."""
    found = []
    for index in indexes:
        for attribute, kind, role in ((index.pk, index.pk_type, "HASH"), (index.sk, index.sk_type, "RANGE")):
            if attribute is None or attribute not in item:
                continue
            av = item[attribute]
            (stored, value), *_ = av.items()
            problem = None
            if stored != kind:
                problem = f"is {stored}, the index key is {kind}"
            elif stored in ("S", "B") and not value:
                problem = "is empty"
            elif value_size(av) > KEY_LIMITS[role]:
                which = "partition" if role == "HASH" else "sort"
                problem = (
                    f"is {value_size(av)} bytes, over the {KEY_LIMITS[role]}-byte limit of a {which} key"
                )
            if problem is not None:
                key = key_text({n: item[n] for n in (table.pk_name, table.sk_name) if n and n in item})
                found.append(Violation(key, index.name, attribute, problem))
    return found


__all__ = ["MigrationError", "Plan", "StepPlan", "Violation", "plan"]
