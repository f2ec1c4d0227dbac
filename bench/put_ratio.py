"""File-backed PutItem against its two floors, wall clock, in one short run (issue 20, point 3).

    python3 bench/put_ratio.py [--puts 3000] [--rounds 3]

Alternates, round by round: bench/floor.py's SQL-only PutItem transaction, its engine minimum (that SQL plus
what DynamoDB requires of every PutItem, see ``floor.engine_minimum_put``), and the Engine's PutItem on a
file, all on bench/run.py's items built before the clock; prints the best round of each and the ratios. A
quick check of the point-3 ratio without the whole of bench/run.py; on a shared machine take the benchmark
lock and note the load average beside the figures.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def engine_put(puts: int) -> float:
    """Microseconds per Engine PutItem on a file (bench/run.py's table and items, built beforehand)."""
    from run import TABLE, TABLE_SPEC, item
    from singletable.engine import Engine

    items = [item(i) for i in range(puts)]
    with tempfile.TemporaryDirectory() as tmp, Engine(os.path.join(tmp, "put.sqlite3")) as engine:
        engine.create_table(**TABLE_SPEC)
        began = time.perf_counter()
        for it in items:
            engine.put_item(TableName=TABLE, Item=it)
        spent = time.perf_counter() - began
    return spent / puts * 1e6


def main(argv: list[str] | None = None) -> tuple[float, float, float]:
    import floor

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--puts", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    sql, minimum, engine = [], [], []
    for _ in range(args.rounds):
        sql.append(floor.put_floor(args.puts))
        minimum.append(floor.engine_minimum(args.puts))
        engine.append(engine_put(args.puts))
    sql_us, minimum_us, engine_us = min(sql), min(minimum), min(engine)
    print(f"  SQL-only PutItem transaction:   {sql_us:6.1f} µs")
    print(f"  PutItem engine minimum:         {minimum_us:6.1f} µs = {minimum_us / sql_us:.2f}x the SQL")
    print(f"  Engine PutItem (file):          {engine_us:6.1f} µs = {engine_us / sql_us:.2f}x the SQL,")
    print(f"{'':34}{engine_us / minimum_us:.2f}x the engine minimum")
    return sql_us, minimum_us, engine_us


if __name__ == "__main__":
    main()
