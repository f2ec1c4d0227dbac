"""How far a run of ``up`` is and when it should end: the items its scans will read, and an ETA from the
rate they have been read at so far.

Each scanning step reads the whole table (its filter keeps its entity types, but DynamoDB reads every item),
so a run reads about the table's item count once per scanning step still to run. The item count is
DescribeTable's ``ItemCount`` -- an estimate DynamoDB refreshes about every six hours -- or a count the caller
knows (``migrate plan`` reads the whole table). The ETA is the items left divided by the items read per
second since the run started; it is None until something has been read, or without a count.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from singletable.migrate._calls import Caller
from singletable.migrate._migration import Migration
from singletable.migrate._record import Record
from singletable.migrate._runner import Progress
from singletable.model import DB


def expected_reads(migrations: list[Migration], db: DB, item_count: int | None = None) -> int | None:
    """Items the pending migrations' scans will read: ``item_count`` (default: DescribeTable's ItemCount)
    times the scanning steps not yet done (a running migration from its current step). None when the count
    is unknown (DynamoDB reports 0 for a table it has not counted yet)."""
    call = Caller(db, read_only=True)
    if item_count is None:
        item_count = int(call("DescribeTable", {})["Table"].get("ItemCount", 0))
    if item_count <= 0:
        return None
    applied, running = Record(call, db.table).read()
    steps = 0
    for migration in migrations:
        if migration.id in applied:
            continue
        start = running[migration.id].step if migration.id in running else 0
        steps += sum(1 for step in migration.steps[start:] if step.scans)
    return item_count * steps


@dataclass(slots=True)
class Eta:
    """The ETA of a run that started at ``started`` (seconds, monotonic) and will read ``total`` items."""

    total: int | None
    started: float

    def remaining(self, progress: Progress, now: float) -> float | None:
        """Seconds left at the rate read so far; None without a total or before anything was read."""
        elapsed = now - self.started
        if self.total is None or progress.examined <= 0 or elapsed <= 0:
            return None
        rate = progress.examined / elapsed
        return max(0.0, (self.total - progress.examined) / rate)

    def line(self, progress: Progress, now: float) -> str:
        """One plain line for a log: migration, step, items read (of the total), written, units, ETA."""
        read = f"{progress.examined:,} items read"
        if self.total:  # 0 when only index steps are left: nothing to read
            share = min(100, progress.examined * 100 // self.total)
            read = f"{progress.examined:,} of ~{self.total:,} items read ({share}%)"
        left = self.remaining(progress, now)
        eta = "" if left is None else f", ETA {self.clock(left)}"
        return (
            f"{progress.migration}: step {progress.step + 1}: {read}, {progress.written:,} written, "
            f"{progress.read_units:,.1f} read units, {progress.write_units:,.1f} write units{eta}"
        )

    @staticmethod
    def clock(seconds: float) -> str:
        """``0:01:05``: seconds as hours, minutes and seconds."""
        return str(datetime.timedelta(seconds=round(seconds)))
