"""Benchmark: BatchWriteItem bulk load and 100-action TransactWriteItems on our engine (file-backed, WAL).

    python3 bench/batch.py [--items 50000]

Bulk load: 25-item BatchWriteItem calls (each one SQLite transaction) of ~150-byte items into a table with
two GSIs (one ALL, one KEYS_ONLY); reports items/s. Transactions: TransactWriteItems of 100 Puts, then of
100 conditional Updates (``SET v = v + :one`` under ``v >= :one``) on the same items; reports ms per call.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "engine"))


def _s(value: str) -> dict[str, str]:
    return {"S": value}


def bulk_item(b: int, i: int) -> dict[str, Any]:
    """Item ``i`` of batch ``b``: one partition per batch, 25 GSI1 partitions, 7 GSI2 partitions."""
    return {
        "PK": _s(f"user#{b}"),
        "SK": _s(f"order#{i:03d}"),
        "G1PK": _s(f"day#{i}"),
        "G1SK": {"N": str(b)},
        "G2PK": _s(f"status#{b % 7}"),
        "name": _s("a customer name"),
        "total": {"N": "42.50"},
    }


def bulk_load(engine: Any, items: int) -> float:
    from tables import create

    create(engine, "bulk", gsi=True)
    batches = [
        {"bulk": [{"PutRequest": {"Item": bulk_item(b, i)}} for i in range(25)]} for b in range(items // 25)
    ]
    gc.collect()  # the requests built above are the harness's garbage, not the engine's: collect it now
    start = time.perf_counter()
    for request in batches:
        engine.batch_write_item(RequestItems=request)
    return len(batches) * 25 / (time.perf_counter() - start)


def transactions(engine: Any, calls: int) -> tuple[float, float]:
    from tables import create

    create(engine, "txbench", gsi=True)
    puts = [
        [
            {
                "Put": {
                    "TableName": "txbench",
                    "Item": {
                        "PK": _s(f"p{c}-{i}"),
                        "SK": _s("x"),
                        "G1PK": _s("g"),
                        "G1SK": {"N": str(i)},
                        "v": {"N": "1"},
                    },
                }
            }
            for i in range(100)
        ]
        for c in range(calls)
    ]
    updates = [
        [
            {
                "Update": {
                    "TableName": "txbench",
                    "Key": {"PK": _s(f"p{c}-{i}"), "SK": _s("x")},
                    "UpdateExpression": "SET v = v + :one",
                    "ConditionExpression": "v >= :one",
                    "ExpressionAttributeValues": {":one": {"N": "1"}},
                }
            }
            for i in range(100)
        ]
        for c in range(calls)
    ]
    gc.collect()  # as in bulk_load: otherwise a full collection of the bulk load's requests lands here
    start = time.perf_counter()
    for actions in puts:
        engine.transact_write_items(TransactItems=actions)
    put_ms = (time.perf_counter() - start) / calls * 1000
    start = time.perf_counter()
    for actions in updates:
        engine.transact_write_items(TransactItems=actions)
    return put_ms, (time.perf_counter() - start) / calls * 1000


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--items", type=int, default=50000, help="items to bulk load")
    parser.add_argument("--calls", type=int, default=50, help="100-action transactions per kind")
    args = parser.parse_args(argv)

    from singletable.engine import Engine

    with tempfile.TemporaryDirectory() as tmp:
        engine = Engine(os.path.join(tmp, "batch.sqlite3"))
        rate = bulk_load(engine, args.items)
        put_ms, update_ms = transactions(engine, args.calls)
        engine.close()
    print(f"\nBatchWriteItem bulk load, 2 GSIs:          {rate:>10,.0f} items/s")
    print(f"TransactWriteItems, 100 Puts:              {put_ms:>10.2f} ms/call")
    print(f"TransactWriteItems, 100 conditional Updates: {update_ms:>8.2f} ms/call")


if __name__ == "__main__":
    main()
