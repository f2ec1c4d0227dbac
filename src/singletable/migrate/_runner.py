"""Running migrations: each unapplied one in id order, step by step, page by page, from its checkpoint.

After every page the checkpoint (the Scan's LastEvaluatedKey) is written to the table's record item; a run
that stops -- a crash, kill -9, Ctrl-C, a refused write -- starts again at the page it was in. Redoing that
page is harmless because every write is conditioned on the image it was computed from (or on its new key
being free), and an item already in its new shape needs no write.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from singletable.migrate._calls import Caller, Limiter
from singletable.migrate._copy import CopyFrom, copy_item
from singletable.migrate._items import Item, key_text, primary_key, same_item
from singletable.migrate._migration import Migration
from singletable.migrate._record import Applied, Checkpoint, Record, Segment, is_record
from singletable.migrate._steps import MigrationError, Step, Write, writes_for
from singletable.model import DB, RequestError, Table

CONFLICTS = frozenset({"ConditionalCheckFailedException", "TransactionCanceledException"})
MAX_ATTEMPTS = 5


class MigrationChanged(MigrationError):
    """An applied (or half-applied) migration whose code is no longer the code that ran."""


@dataclass(slots=True)
class Result:
    """What ``up`` did to one migration."""

    id: str
    state: str  # "applied", "already applied"
    scanned: int = 0
    written: int = 0
    resumed: bool = False
    read_units: float = 0.0  # consumed by this run (as DynamoDB reported it), the record's own included
    write_units: float = 0.0
    throttled: int = 0  # requests refused for throughput and sent again


@dataclass(slots=True)
class Progress:
    """Passed to ``on_page`` after each checkpoint: tests interrupt a run here; the CLI reports."""

    migration: str
    step: int  # the step (0-based) whose page was just done
    pages: int
    scanned: int
    written: int
    examined: int = 0  # items this run's scans read, of every type (DynamoDB's ScannedCount)
    read_units: float = 0.0  # consumed by this run so far
    write_units: float = 0.0


@dataclass(slots=True)
class _Counts:
    scanned: int = 0
    written: int = 0
    pages: int = 0
    extra: dict[str, int] = field(default_factory=dict)


def check_checksums(
    migrations: list[Migration], applied: dict[str, Applied], running: dict[str, Checkpoint]
) -> None:
    """Refuse a migration whose recorded checksum differs from its code's, naming both."""
    for migration in migrations:
        recorded = applied.get(migration.id) or running.get(migration.id)
        if recorded is not None and recorded.checksum != migration.checksum:
            state = "was applied" if migration.id in applied else "is half applied"
            raise MigrationChanged(
                f"migration {migration.id} {state} with checksum {recorded.checksum[:12]}, but its code now "
                f"has checksum {migration.checksum[:12]}: an applied migration must not change; "
                "write a new migration instead"
            )


def up(
    migrations: list[Migration] | Migration,
    db: DB,
    *,
    max_rcu: float | None = None,
    max_wcu: float | None = None,
    page_size: int = 100,
    segments: int = 1,
    on_page: Callable[[Progress], None] | None = None,
    limiter: Limiter | None = None,
) -> list[Result]:
    """Apply every migration not yet applied to ``db``'s table, in id order; see the module docstring.
    ``segments`` > 1 scans each step in that many parallel-scan segments at once."""
    if not 1 <= segments <= 1000000:
        raise ValueError(f"segments must be from 1 to 1000000, not {segments}")
    todo = [migrations] if isinstance(migrations, Migration) else list(migrations)
    call = Caller(db, limiter or Limiter(max_rcu, max_wcu))
    record = Record(call, db.table)
    applied, running = record.read()
    check_checksums(todo, applied, running)
    results = []
    for migration in sorted(todo, key=lambda m: m.id):
        if migration.id in applied:
            results.append(Result(migration.id, "already applied"))
            continue
        scan = _Scan(page_size, segments, on_page)
        before = (call.usage.read_units, call.usage.write_units, call.usage.throttled)
        result = _run(migration, call, record, running.get(migration.id), db.table, scan)
        result.read_units = call.usage.read_units - before[0]
        result.write_units = call.usage.write_units - before[1]
        result.throttled = call.usage.throttled - before[2]
        results.append(result)
    return results


def _run(
    migration: Migration,
    call: Caller,
    record: Record,
    checkpoint: Checkpoint | None,
    table: Table,
    scan: _Scan,
) -> Result:
    resumed = checkpoint is not None
    point = checkpoint or Checkpoint(migration.checksum)
    while point.step < len(migration.steps):
        step = migration.steps[point.step]
        if not step.scans:
            step.apply(call)
        else:
            _scan_step(migration.id, step, call, record, point, table, scan)
        point.step += 1
        point.segments = []
        record.save(migration.id, point)
        if scan.on_page is not None:
            scan.on_page(scan.progress(migration.id, point.step - 1, 0, point, call))
    record.finish(migration.id, migration.checksum, migration.description, point.written)
    return Result(migration.id, "applied", point.scanned, point.written, resumed)


@dataclass(slots=True)
class _Scan:
    """How a run reads: items per page, parallel-scan segments, what to call after each page."""

    page_size: int
    segments: int
    on_page: Callable[[Progress], None] | None
    examined: int = 0

    def progress(self, migration: str, step: int, pages: int, point: Checkpoint, call: Caller) -> Progress:
        usage = call.usage
        return Progress(
            migration,
            step,
            pages,
            point.scanned,
            point.written,
            self.examined,
            usage.read_units,
            usage.write_units,
        )


def _scan_step(
    migration_id: str, step: Step, call: Caller, record: Record, point: Checkpoint, table: Table, scan: _Scan
) -> None:
    """Every page of ``step``'s scan, ``scan.segments`` segments at once (a resumed step keeps the segments
    it started with), the checkpoint saved after each page of any segment."""
    if not point.segments:
        point.segments = [Segment() for _ in range(scan.segments)]
    total = len(point.segments)
    lock = threading.Lock()
    stop = threading.Event()
    pages = [0]
    read, handle = call, _migrate_item
    if isinstance(step, CopyFrom):  # reads another table: its source, never written
        read, handle = step.reader(call), copy_item  # type: ignore[assignment]

    def run_segment(number: int) -> None:
        segment = point.segments[number]
        while not segment.done and not stop.is_set():
            params = _scan_params(step, table, scan.page_size, segment.last_key)
            if total > 1:
                params.update(Segment=number, TotalSegments=total)
            response = read("Scan", params)
            scanned = written = 0
            for item in response.get("Items", []):
                if not is_record(item, record.key):
                    scanned += 1
                    written += handle(call, step, item, table)
            with lock:
                point.scanned += scanned
                point.written += written
                segment.last_key = response.get("LastEvaluatedKey")
                segment.done = not segment.last_key
                record.save(migration_id, point)
                pages[0] += 1
                scan.examined += response.get("ScannedCount", len(response.get("Items", [])))
                if scan.on_page is not None:
                    scan.on_page(scan.progress(migration_id, point.step, pages[0], point, call))

    if total == 1:
        run_segment(0)
        return
    pool = ThreadPoolExecutor(max_workers=total, thread_name_prefix="singletable-migrate")
    try:
        for future in [pool.submit(run_segment, n) for n in range(total)]:
            future.result()
    except BaseException:
        stop.set()  # the other segments end after their page in flight; the checkpoint holds them
        raise
    finally:
        pool.shutdown(wait=True)


def _scan_params(step: Step, table: Table, page_size: int, start: Item | None) -> dict[str, Any]:
    params: dict[str, Any] = {"Limit": page_size, "ConsistentRead": True}
    types = step.types()
    if types is not None:
        names = sorted(types)
        params["FilterExpression"] = f"#t IN ({', '.join(f':t{n}' for n in range(len(names)))})"
        params["ExpressionAttributeNames"] = {"#t": table.type_attribute}
        params["ExpressionAttributeValues"] = {f":t{n}": {"S": t} for n, t in enumerate(names)}
    if start:
        params["ExclusiveStartKey"] = start
    return params


def _migrate_item(call: Caller, step: Step, item: Item, table: Table) -> int:
    """Send the writes ``step`` asks for ``item``; on a refused condition read the item again and ask again
    (another writer changed it, or this very write was done before a crash). Returns 1 if it wrote."""
    for _ in range(MAX_ATTEMPTS):
        writes = writes_for(step, item, table)
        if not writes:
            return 0
        try:
            for write in writes:
                call(write.operation, write.params)
            return 1
        except RequestError as error:
            if error.code not in CONFLICTS:
                raise MigrationError(
                    f"{step.describe()}: item {key_text(primary_key(item, table))}: "
                    f"{error.code}: {error.message}"
                ) from None
            refused = error
        key = primary_key(item, table)
        now = call("GetItem", {"Key": key, "ConsistentRead": True}).get("Item")
        if now is None:
            return 0  # deleted (or moved) meanwhile: nothing left to migrate
        if same_item(now, item):
            return _blocked(call, step, item, writes, table, refused)
        item = now
    raise MigrationError(
        f"{step.describe()}: item {key_text(primary_key(item, table))} kept changing; run again"
    )


def _blocked(
    call: Caller, step: Step, item: Item, writes: list[Write], table: Table, refused: RequestError
) -> int:
    """The item is as read, yet its write was refused: a re-key whose new key is taken. When the new key
    already holds exactly the item this one becomes (a writer wrote both shapes), only the old one is
    deleted; anything else stops the run rather than overwrite another item."""
    for write in writes:
        for new in write.new[:1]:  # the item itself; the rest are its derived items
            new_key = primary_key(new, table)
            if new_key == primary_key(item, table):
                continue
            there = call("GetItem", {"Key": new_key, "ConsistentRead": True}).get("Item")
            parts = write.params.get("TransactItems", [])
            delete = next((p["Delete"] for p in parts if "Delete" in p), None)
            if there is not None and same_item(there, new) and delete is not None:
                if write.owned:  # its derived items move as the move would have moved them
                    _delete_moving_derived(call, step, item, delete, write.owned, table)
                    return 1
                try:
                    call("DeleteItem", delete)
                except RequestError as error:
                    if error.code not in CONFLICTS:
                        raise
                return 1
            if there is not None and same_item(there, new):
                break  # a copy (keep_old) whose item is there: what refused it was a derived item
            holder = (
                "another item"
                if there is not None
                else "nothing, but a uniqueness guard was missing or a derived item's key holds another item"
            )
            old_key = key_text(primary_key(item, table))
            raise MigrationError(
                f"{step.describe()}: cannot move {old_key} to {key_text(new_key)}: the new key holds {holder}"
            )
    raise MigrationError(
        f"{step.describe()}: item {key_text(primary_key(item, table))}: write refused ({refused.message})"
    )


def _delete_moving_derived(
    call: Caller, step: Step, item: Item, delete: dict[str, Any], owned: list[dict[str, Any]], table: Table
) -> None:
    """Delete the old item whose new shape is already stored, moving its derived items in the same
    transaction; a refusal (the old item changed, or a derived item's key holds another item) stops the
    run naming the item -- a rerun reads it again."""
    try:
        call("TransactWriteItems", {"TransactItems": [{"Delete": delete}, *owned]})
    except RequestError as error:
        raise MigrationError(
            f"{step.describe()}: item {key_text(primary_key(item, table))}: its new shape is stored, but "
            f"deleting it with its derived items was refused ({error.code}: {error.message})"
        ) from None


@dataclass(slots=True)
class Status:
    id: str
    description: str
    state: str  # "applied", "running", "pending", "changed"
    applied_at: str | None = None
    step: int | None = None
    scanned: int = 0
    written: int = 0
    segments: int = 0  # the running step's parallel-scan segments (0: between steps)


def status(migrations: list[Migration], db: DB) -> list[Status]:
    """Each migration's state on ``db``'s table (read only), plus recorded ones the list does not hold."""
    call = Caller(db, read_only=True)
    applied, running = Record(call, db.table).read()
    out = []
    known = set()
    for m in sorted(migrations, key=lambda m: m.id):
        known.add(m.id)
        a, r = applied.get(m.id), running.get(m.id)
        recorded = a or r
        changed = recorded is not None and recorded.checksum != m.checksum
        if a is not None:
            out.append(
                Status(
                    m.id, m.description, "changed" if changed else "applied", a.applied_at, None, 0, a.written
                )
            )
        elif r is not None:
            out.append(
                Status(
                    m.id,
                    m.description,
                    "changed" if changed else "running",
                    None,
                    r.step,
                    r.scanned,
                    r.written,
                    len(r.segments),
                )
            )
        else:
            out.append(Status(m.id, m.description, "pending"))
    for mid, a in sorted(applied.items()):
        if mid not in known:
            out.append(Status(mid, a.description, "applied", a.applied_at, None, 0, a.written))
    return out
