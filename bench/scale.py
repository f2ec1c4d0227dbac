"""Benchmark: GetItem and a 20-item GSI Query as one file-backed table grows ("flat at scale").

    python3 bench/scale.py [--sizes 10000,1000000,10000000] [--ops 2000] [--dir DIR] [--chunk 50000]

One table with PK/SK and one GSI (ALL projection), in a database file, ~250-byte items (the shape of
``bench/run.py``'s). At each size -- the *same* table, grown through the engine's bulk entry point
(``engine/_bulk_load.py``) between measurements -- it measures GetItem of a random existing item and a Query
of 20 items on a random GSI partition from a random starting sort key (so neither repeats the same pages),
p50 and p99 over ``--ops`` calls each, and prints each size's latencies as ratios to the first size's. The
items' table keys are spread by their partition hash, so a GSI partition's entries sit together in the index
while the items they belong to are scattered through the table: the case a growing file makes slow when an
index entry must be joined back to its item.

It also prints the file's bytes per item beside what DynamoDB bills for the same data: each item's size plus
100 bytes, in the table and again in the index (the ALL projection copies the whole item), as
https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html and the
secondary-index storage rules describe.

Not a CI test: ten million items take minutes to load. ``--sizes 10000,100000`` tries it quickly (bench/run.py
does that); ``--dir`` keeps the database (default: a temporary directory, deleted at the end).
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

from run import TABLE_SPEC as RUN_TABLE_SPEC

TABLE = "scale"
INDEX = "GSI1"
# GSI partitions: 40 entries each at 10,000 items, so a 20-item page always fits from the first size on.
GSI_PARTITIONS = 250
QUERY_LIMIT = 20
# bench/run.py's table (PK/SK, one GSI1 with ALL projection) under this benchmark's own name.
TABLE_SPEC: dict[str, Any] = dict(RUN_TABLE_SPEC, TableName=TABLE)


def item(i: int) -> dict[str, Any]:
    """Item ``i``: four items per table partition; GSI partition ``i % 250``, sorted by ``i``."""
    return {
        "PK": {"S": f"USER#{i // 4:09d}"},
        "SK": {"S": f"ORDER#{i:010d}"},
        "GSI1PK": {"S": f"DAY#{i % GSI_PARTITIONS}"},
        "GSI1SK": {"S": f"{i:010d}"},
        "total": {"N": str(i * 3 + 0.25)},
        "status": {"S": "SHIPPED"},
        "note": {"S": "x" * 80},
        "lines": {"L": [{"M": {"sku": {"S": f"SKU{i}"}, "qty": {"N": "2"}}}]},
    }


def grow(engine: Any, start: int, end: int, chunk: int) -> tuple[float, float]:
    """Bulk-load items ``start..end-1``; returns (items/s wall, items per CPU second)."""
    from singletable.engine._bulk_load import bulk_put

    wall, cpu = time.perf_counter(), time.process_time()
    for first in range(start, end, chunk):
        result = bulk_put(engine, TABLE, [item(i) for i in range(first, min(end, first + chunk))])
        if result.errors:
            raise RuntimeError(f"bulk load refused items: {result.errors[:3]}")
    n = end - start
    return n / (time.perf_counter() - wall), n / (time.process_time() - cpu)


def percentiles(call: Callable[[], Any], ops: int) -> tuple[float, float]:
    """(p50, p99) in µs over ``ops`` calls."""
    samples = []
    for _ in range(ops):
        t0 = time.perf_counter_ns()
        call()
        samples.append(time.perf_counter_ns() - t0)
    samples.sort()
    return samples[len(samples) // 2] / 1000, samples[int(len(samples) * 0.99)] / 1000


def measure(engine: Any, n: int, ops: int, rng: random.Random) -> dict[str, tuple[float, float]]:
    def get() -> None:
        i = rng.randrange(n)
        response = engine.get_item(
            TableName=TABLE, Key={"PK": {"S": f"USER#{i // 4:09d}"}, "SK": {"S": f"ORDER#{i:010d}"}}
        )
        assert "Item" in response

    def query() -> None:
        # Start anywhere that leaves at least 20 entries of every partition after it.
        start = rng.randrange(n - (QUERY_LIMIT + 1) * GSI_PARTITIONS)
        response = engine.query(
            TableName=TABLE,
            IndexName=INDEX,
            KeyConditionExpression="GSI1PK = :p AND GSI1SK >= :s",
            ExpressionAttributeValues={
                ":p": {"S": f"DAY#{rng.randrange(GSI_PARTITIONS)}"},
                ":s": {"S": f"{start:010d}"},
            },
            Limit=QUERY_LIMIT,
        )
        assert response["Count"] == QUERY_LIMIT, response["Count"]

    gc.collect()
    return {"GetItem": percentiles(get, ops), f"GSI Query ({QUERY_LIMIT} items)": percentiles(query, ops)}


def storage_report(engine: Any, n: int) -> tuple[float, float]:
    """(database bytes per item, DynamoDB's billed bytes per item). The database's size is its pages (what
    the file holds once the WAL is checkpointed into it), so a checkpoint still under way does not count.

    The WAL is checkpointed first, so that the reads measured next find the steady state, not a WAL of
    hundreds of megabytes that every page read must look up first (right after a bulk load, until the
    background checkpointer has caught up, reads are slower)."""
    storage = engine.storage
    with storage.lock:
        storage._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        pages = storage._conn.execute("PRAGMA page_count").fetchone()[0]
        page_size = storage._conn.execute("PRAGMA page_size").fetchone()[0]
    schema = engine.table(TABLE)
    count, item_bytes = storage.table_stats(schema.table_id)
    entries, entry_bytes = storage.index_stats(schema.table_id, schema.indexes[INDEX].index_id)
    assert count == n and entries == n, (count, entries, n)
    billed = item_bytes + 100 * count + entry_bytes + 100 * entries
    return pages * page_size / n, billed / n


def run(sizes: list[int], ops: int, directory: str, chunk: int) -> list[tuple[int, dict[str, Any]]]:
    from singletable.engine import Engine

    path = os.path.join(directory, "scale.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    engine = Engine(path)
    engine.create_table(**TABLE_SPEC)
    rng = random.Random(20)
    results = []
    loaded = 0
    try:
        for size in sizes:
            rates = grow(engine, loaded, size, chunk)
            loaded = size
            per_item, billed = storage_report(engine, size)
            row: dict[str, Any] = dict(measure(engine, size, ops, rng))
            row["load"] = rates
            row["bytes"] = (per_item, billed)
            results.append((size, row))
            _print_size(size, row, results[0][1])
    finally:
        engine.close()
    return results


def _print_size(size: int, row: dict[str, Any], first: dict[str, Any]) -> None:
    wall, cpu = row["load"]
    per_item, billed = row["bytes"]
    print(
        f"{size:>12,} items  (grown at {wall:,.0f} items/s, {cpu:,.0f} per CPU second;"
        f" file {per_item:,.0f} B/item, DynamoDB bills {billed:,.0f} B/item: {per_item / billed:.2f}x)"
    )
    for name in ("GetItem", f"GSI Query ({QUERY_LIMIT} items)"):
        p50, p99 = row[name]
        base50, base99 = first[name]
        ratios = f"p50 {p50:>8.1f} µs (x{p50 / base50:.2f})   p99 {p99:>8.1f} µs (x{p99 / base99:.2f})"
        print(f"    {name:<22} {ratios}")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> list[tuple[int, dict[str, Any]]]:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="10000,1000000,10000000", help="table sizes, comma-separated")
    parser.add_argument("--ops", type=int, default=2000, help="calls per operation and size")
    parser.add_argument("--dir", help="where the database goes (default: a temporary directory)")
    parser.add_argument("--chunk", type=int, default=50_000, help="items per bulk-load transaction")
    args = parser.parse_args(argv)
    sizes = [int(size) for size in args.sizes.split(",")]
    if sizes != sorted(sizes) or sizes[0] < 10_000:
        parser.error("sizes must grow and start at 10000 or more")
    print(f"scale: one table with a GSI (ALL), {args.ops} calls per operation and size")
    if args.dir:
        return run(sizes, args.ops, args.dir, args.chunk)
    with tempfile.TemporaryDirectory() as directory:
        return run(sizes, args.ops, directory, args.chunk)


if __name__ == "__main__":
    main()
