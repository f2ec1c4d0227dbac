"""Benchmark: the bulk load (import, copy) against BatchWriteItem, the same items into the same table.

    python3 bench/bulk_load.py [--items 100000] [--rounds 3] [--chunk 10000]

A file-backed table (WAL) with two GSIs (one ALL, one KEYS_ONLY), loaded with ``bench/batch.py``'s
~150-byte items: once through 25-item BatchWriteItem calls (what a client loop does), once through
``singletable.data.import_table`` from a JSON Lines file (the whole command: read, parse, validate, write in
chunked transactions, checkpoint) and once through the engine's bulk entry point alone (items already in
memory, as ``copy`` hands them over). Each round uses fresh databases; rounds alternate the three so a noisy
neighbour spreads over all of them. Prints items/s per round and the best of each.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "engine"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from batch import bulk_item  # noqa: E402

TABLE = "bulk"


def items(n: int) -> list[dict[str, Any]]:
    return [bulk_item(i // 25, i % 25) for i in range(n)]


def _engine(directory: str, name: str) -> Any:
    from tables import create

    from singletable.engine import Engine

    engine = Engine(os.path.join(directory, name))
    create(engine, TABLE, gsi=True)
    return engine


class _Clock:
    """Wall time and this process's CPU time (SQLite runs in-process, so CPU time counts its work too):
    on a shared machine the CPU-time rate says what the code does when it has a core to itself."""

    def __init__(self) -> None:
        self.wall = time.perf_counter()
        self.cpu = time.process_time()

    def rates(self, n: int) -> tuple[float, float]:
        return n / (time.perf_counter() - self.wall), n / (time.process_time() - self.cpu)


def batch_write(directory: str, data: list[dict[str, Any]]) -> tuple[float, float]:
    engine = _engine(directory, "batch.db")
    requests = [
        {TABLE: [{"PutRequest": {"Item": item}} for item in data[i : i + 25]]}
        for i in range(0, len(data), 25)
    ]
    gc.collect()
    clock = _Clock()
    for request in requests:
        engine.batch_write_item(RequestItems=request)
    rates = clock.rates(len(data))
    engine.close()
    return rates


def bulk_entry(directory: str, data: list[dict[str, Any]], chunk: int) -> tuple[float, float]:
    from singletable.engine._bulk_load import bulk_put

    engine = _engine(directory, "bulk.db")
    chunks = [data[i : i + chunk] for i in range(0, len(data), chunk)]
    gc.collect()
    clock = _Clock()
    for part in chunks:
        bulk_put(engine, TABLE, part)
    rates = clock.rates(len(data))
    engine.close()
    return rates


def import_command(directory: str, source: str, n: int, chunk: int) -> tuple[float, float]:
    from singletable.data import import_table, open_target

    engine = _engine(directory, "import.db")
    engine.close()
    gc.collect()
    clock = _Clock()
    with open_target(os.path.join(directory, "import.db"), durable=True) as target:
        summary = import_table(
            target, TABLE, source, format="jsonl", chunk_size=chunk, checkpoint=os.path.join(directory, "ck")
        )
    rates = clock.rates(n)
    assert summary.items == n, summary
    return rates


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--chunk", type=int, default=10_000)
    args = parser.parse_args(argv)
    data = items(args.items)
    best: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as shared:
        source = os.path.join(shared, "items.jsonl")
        with open(source, "w") as handle:
            for item in data:
                handle.write(json.dumps(item) + "\n")
        for round_ in range(args.rounds):
            results = {}
            with tempfile.TemporaryDirectory() as directory:
                results["BatchWriteItem (25 per call)"] = batch_write(directory, data)
            with tempfile.TemporaryDirectory() as directory:
                results["bulk entry point (chunks)"] = bulk_entry(directory, data, args.chunk)
            with tempfile.TemporaryDirectory() as directory:
                results["import_table from JSON Lines"] = import_command(
                    directory, source, args.items, args.chunk
                )
            for name, (wall, cpu) in results.items():
                old = best.get(name, (0.0, 0.0))
                best[name] = (max(old[0], wall), max(old[1], cpu))
                print(f"round {round_ + 1}: {name:30} {wall:>9,.0f} items/s ({cpu:>9,.0f} per CPU second)")
    print(f"\nbulk load, {args.items:,} items, two GSIs, best of {args.rounds}:")
    for name, (wall, cpu) in best.items():
        print(f"  {name:30} {wall:>9,.0f} items/s ({cpu:>9,.0f} per CPU second)")


if __name__ == "__main__":
    main()
