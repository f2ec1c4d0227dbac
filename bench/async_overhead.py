"""AsyncDB's cost per call against DB, on the native engine and over HTTP to ``singletable serve``.

    python3 bench/async_overhead.py [--n 2000] [--endpoint http://127.0.0.1:8000]

The same workload as bench/model_overhead.py (its ``Order`` entity, ~200-byte items). Each operation is
awaited one at a time (p50 per call), then ``asyncio.gather`` of n gets (total time / n). On the engine,
AsyncDB hands each request to its worker thread (two thread switches per call); on an endpoint it uses
aiobotocore where DB uses boto3.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from model_overhead import Order, order, p50, table
from singletable.engine import Engine
from singletable.model import connect, connect_async


async def p50_async(call: Callable[[int], Awaitable[Any]], n: int) -> float:
    samples = []
    for i in range(n):
        t0 = time.perf_counter_ns()
        await call(i)
        samples.append(time.perf_counter_ns() - t0)
    return statistics.median(samples) / 1000


def sync_side(target: Any, n: int, name: str) -> dict[str, float]:
    db = connect(table, target, name=name)
    db.ensure_table()
    orders = [order(i) for i in range(n)]
    query = Order.of_user(user=1)
    out = {
        "put": p50(lambda i: db.put(orders[i]), n),
        "get": p50(lambda i: db.get(Order, user=i % 50, order=i), n),
        "page4": p50(lambda i: db.page(query, size=4), n // 5),
    }
    db.delete_table()
    return out


async def async_side(target: Any, n: int, name: str) -> dict[str, float]:
    db = await connect_async(table, target, name=name)
    await db.ensure_table()
    orders = [order(i) for i in range(n)]
    query = Order.of_user(user=1)
    out = {
        "put": await p50_async(lambda i: db.put(orders[i]), n),
        "get": await p50_async(lambda i: db.get(Order, user=i % 50, order=i), n),
        "page4": await p50_async(lambda i: db.page(query, size=4), n // 5),
    }
    started = time.perf_counter_ns()
    await asyncio.gather(*(db.get(Order, user=i % 50, order=i) for i in range(n)))
    out["get gathered"] = (time.perf_counter_ns() - started) / n / 1000
    await db.delete_table()
    await db.close()
    return out


def report(label: str, sync: dict[str, float], asynchronous: dict[str, float]) -> None:
    print(f"  {label}")
    for name, value in sync.items():
        print(
            f"    {name:14} DB {value:8.1f} us   AsyncDB {asynchronous[name]:8.1f} us   "
            f"ratio {asynchronous[name] / value:4.2f}x"
        )
    print(f"    {'get gathered':14} AsyncDB {asynchronous['get gathered']:8.1f} us per call")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--endpoint", help="also measure against this URL (e.g. a singletable serve)")
    options = parser.parse_args(argv)
    n = options.n
    print(f"AsyncDB vs DB, p50 over {n} calls ({datetime.now(UTC):%Y-%m-%d})")
    with tempfile.TemporaryDirectory() as tmp:
        engine = Engine(str(Path(tmp) / "bench.db"))
        report(
            "native engine",
            sync_side(engine, n, "bench_sync"),
            asyncio.run(async_side(engine, n, "bench_async")),
        )
        engine.close()
    if options.endpoint:
        report(
            f"endpoint {options.endpoint} (boto3 vs aiobotocore)",
            sync_side(options.endpoint, n, "bench_sync"),
            asyncio.run(async_side(options.endpoint, n, "bench_async")),
        )


if __name__ == "__main__":
    main()
