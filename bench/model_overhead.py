"""Model-layer overhead on the native engine: entity get, put and a 40-item query vs the raw engine calls.

    python3 bench/model_overhead.py [--n 3000]

Same workload as bench/run.py (PK/SK + one GSI, ~200-byte items). The raw side sends hand-built
AttributeValue requests to ``Engine.execute``; the model side goes through ``connect(table, engine)``.
Target: each model operation within 2x its raw equivalent.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel

from singletable.engine import Engine
from singletable.model import GSI, Entity, Keys, Pattern, Table, connect

table = Table(name="bench", indexes=[GSI("GSI1", pk="GSI1PK", sk="GSI1SK")])


class Line(BaseModel):
    sku: str
    qty: int


class Order(Entity, table=table, type="ORDER", timestamps=False):
    user: int
    order: int
    status: str
    placed: str
    total: float
    note: str
    lines: list[Line]

    keys = Keys(PK="USER#{user}", SK="ORDER#{order:08d}", GSI1PK="STATUS#{status}", GSI1SK="{placed}")
    of_user = Pattern()


def order(i: int) -> Order:
    return Order(
        user=i % 50,
        order=i,
        status="SHIPPED",
        placed=f"2026-11-{i % 28 + 1:02d}T{i:08d}",
        total=i * 3 + 0.25,
        note="x" * 80,
        lines=[Line(sku=f"SKU{i}", qty=2)],
    )


def raw_item(i: int) -> dict:
    return {
        "PK": {"S": f"USER#{i % 50}"},
        "SK": {"S": f"ORDER#{i:08d}"},
        "GSI1PK": {"S": "STATUS#SHIPPED"},
        "GSI1SK": {"S": f"2026-11-{i % 28 + 1:02d}T{i:08d}"},
        "total": {"N": str(i * 3 + 0.25)},
        "status": {"S": "SHIPPED"},
        "note": {"S": "x" * 80},
        "user": {"N": str(i % 50)},
        "order": {"N": str(i)},
        "placed": {"S": f"2026-11-{i % 28 + 1:02d}T{i:08d}"},
        "entityType": {"S": "ORDER"},
        "lines": {"L": [{"M": {"sku": {"S": f"SKU{i}"}, "qty": {"N": "2"}}}]},
    }


def p50(call: Callable[[int], object], n: int) -> float:
    samples = []
    for i in range(n):
        t0 = time.perf_counter_ns()
        call(i)
        samples.append(time.perf_counter_ns() - t0)
    return statistics.median(samples) / 1000


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=3000)
    n = parser.parse_args(argv).n
    with tempfile.TemporaryDirectory() as tmp:
        engine = Engine(str(Path(tmp) / "bench.db"))
        db = connect(table, engine)
        db.create_table()
        execute = engine.execute
        orders = [order(i) for i in range(n)]
        raws = [raw_item(i) for i in range(n)]
        results = {
            "put": (
                p50(lambda i: execute("PutItem", {"TableName": "bench", "Item": raws[i]}), n),
                p50(lambda i: db.put(orders[i]), n),
            ),
            "get": (
                p50(
                    lambda i: execute(
                        "GetItem",
                        {
                            "TableName": "bench",
                            "Key": {"PK": {"S": f"USER#{i % 50}"}, "SK": {"S": f"ORDER#{i:08d}"}},
                        },
                    ),
                    n,
                ),
                p50(lambda i: db.get(Order, user=i % 50, order=i), n),
            ),
            "query40": (
                p50(
                    lambda i: execute(
                        "Query",
                        {
                            "TableName": "bench",
                            "KeyConditionExpression": "PK = :p AND begins_with(SK, :s)",
                            "ExpressionAttributeValues": {
                                ":p": {"S": f"USER#{i % 50}"},
                                ":s": {"S": "ORDER#"},
                            },
                            "Limit": 40,
                        },
                    ),
                    n // 5,
                ),
                p50(lambda i: list(db.query(Order.of_user(user=i % 50), limit=40, page_size=40)), n // 5),
            ),
        }
        print(f"model overhead on the native engine, p50 over {n} calls ({datetime.now(UTC):%Y-%m-%d})")
        for name, (raw, model) in results.items():
            print(f"  {name:8} raw {raw:8.1f} us   model {model:8.1f} us   ratio {model / raw:4.2f}x")
        engine.close()


if __name__ == "__main__":
    main()
