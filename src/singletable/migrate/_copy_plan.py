"""What a ``copy_from`` step would do, counted on its source without writing: the source items read, the
target items each entity type would get, the units and the index-key violations, as ``plan`` counts them
for the steps that read the migration's own table."""

from __future__ import annotations

from singletable.migrate._calls import Caller
from singletable.migrate._copy import CopyFrom
from singletable.migrate._items import Item
from singletable.migrate._plan import MAX_VIOLATIONS, StepPlan, _read_units, _units, _violations
from singletable.migrate._runner import _scan_params
from singletable.migrate._steps import MigrationError
from singletable.model import Index, Table


def plan_copy(
    call: Caller, step: CopyFrom, one: StepPlan, table: Table, indexes: list[Index], sample: int | None
) -> int:
    """Fill ``one`` for ``step`` from a read-only scan of its source (at most ``sample`` items); returns the
    source items read."""
    read = step.reader(call)
    start: Item | None = None
    seen = 0
    one.read_units = 0.0
    source = f"source {step.name()}"
    while True:
        limit = 100 if sample is None else max(1, min(100, sample - seen))
        response = read("Scan", _scan_params(step, table, limit, start))
        one.read_units += _read_units(response)
        seen += response.get("ScannedCount", 0)
        for item in response.get("Items", []):
            one.scanned[source] += 1
            try:
                writes = step.writes(item, table)
            except (MigrationError, ValueError, TypeError, KeyError) as problem:
                one.problem_count += 1
                if len(one.problems) < MAX_VIOLATIONS:
                    one.problems.append(f"{step.describe()}: {type(problem).__name__}: {problem}")
                continue
            if writes:
                one.touched[source] += 1  # source items that lead to writes
            for write in writes:
                one.write_units += _units(write, table, indexes, one)
                for new in write.new:
                    one.touched[new.get(table.type_attribute, {}).get("S", "(no type)")] += 1
                    _violations(new, table, indexes, one)
        start = response.get("LastEvaluatedKey")
        if not start or (sample is not None and seen >= sample):
            return seen
