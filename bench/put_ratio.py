"""File-backed PutItem against its two floors, wall clock, in one short run.

    python3 bench/put_ratio.py [--puts 3000] [--rounds 3]

Alternates, round by round: bench/floor.py's SQL-only PutItem transaction, its engine minimum (that SQL plus
what DynamoDB requires of every PutItem, see ``floor.engine_minimum_put``), and the Engine's PutItem on a
file, all on bench/run.py's items built before the clock; prints the best round of each and the ratios. A
quick check of the file PutItem ratio without the whole of bench/run.py; on a shared machine take the
benchmark lock and note the load average beside the figures.

Then the same three in each other's WAL regime, since the regimes differ: the floor and the minimum
checkpoint off the clock every 500 puts, so their WAL starts over and its pages are overwritten, while a
fresh Engine's WAL grows by appending (each new page costs the filesystem) until its checkpointer's first
round, 0.2 s in -- longer than this run. "WAL growing" runs the floor and the minimum without those
checkpoints; "WAL restarted" runs the Engine with its checkpointer stopped and the floor's off-clock
checkpoints. Same regime against same regime is the Engine's own cost.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def engine_put(puts: int, *, restart_wal: bool = False) -> float:
    """Microseconds per Engine PutItem on a file (bench/run.py's table and items, built beforehand).

    ``restart_wal``: the floor's WAL regime instead of the Engine's (see the module's docstring)."""
    from run import TABLE, TABLE_SPEC, item
    from singletable.engine import Engine

    items = [item(i) for i in range(puts)]
    step = 500 if restart_wal else puts
    with tempfile.TemporaryDirectory() as tmp, Engine(os.path.join(tmp, "put.sqlite3")) as engine:
        engine.create_table(**TABLE_SPEC)
        storage = engine.storage
        checkpointer = storage._checkpointer
        if restart_wal and checkpointer is not None:
            checkpointer.stop()  # started again by nothing: the engine closes without it
            storage._checkpointer = None
        spent = 0.0
        for start in range(0, puts, step):
            began = time.perf_counter()
            for it in items[start : start + step]:
                engine.put_item(TableName=TABLE, Item=it)
            spent += time.perf_counter() - began
            if restart_wal:
                with storage.lock:
                    storage.checkpoint_backlog()
    return spent / puts * 1e6


def main(argv: list[str] | None = None) -> tuple[float, float, float]:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--puts", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    runs: dict[str, list[float]] = {name: [] for name in _RUNS}
    for _ in range(args.rounds):
        for name, run in _RUNS.items():
            runs[name].append(run(args.puts))
    best = {name: min(times) for name, times in runs.items()}
    sql_us, minimum_us, engine_us = best["sql"], best["minimum"], best["engine"]
    print(f"  SQL-only PutItem transaction:   {sql_us:6.1f} µs")
    print(f"  PutItem engine minimum:         {minimum_us:6.1f} µs = {minimum_us / sql_us:.2f}x the SQL")
    print(f"  Engine PutItem (file):          {engine_us:6.1f} µs = {engine_us / sql_us:.2f}x the SQL,")
    print(f"{'':34}{engine_us / minimum_us:.2f}x the engine minimum")
    grown_sql, grown_minimum, restarted = best["sql grown"], best["minimum grown"], best["engine restarted"]
    print("  each in the other's WAL regime:")
    print(f"  SQL-only, WAL growing:          {grown_sql:6.1f} µs (Engine: {engine_us / grown_sql:.2f}x)")
    print(f"  engine minimum, WAL growing:    {grown_minimum:6.1f} µs = {grown_minimum / sql_us:.2f}x SQL")
    print(
        f"  Engine, WAL restarted:          {restarted:6.1f} µs = {restarted / sql_us:.2f}x the SQL,"
        f" {restarted / minimum_us:.2f}x the minimum"
    )
    return sql_us, minimum_us, engine_us


def _runs() -> dict[str, Callable[[int], float]]:
    import floor

    return {
        "sql": floor.put_floor,
        "minimum": floor.engine_minimum,
        "engine": engine_put,
        "sql grown": lambda puts: floor.put_floor(puts, restart_wal=False),
        "minimum grown": lambda puts: floor.engine_minimum(puts, restart_wal=False),
        "engine restarted": lambda puts: engine_put(puts, restart_wal=True),
    }


_RUNS = _runs()


if __name__ == "__main__":
    main()
