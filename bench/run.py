"""Benchmark: our engine side by side with moto (and DynamoDB Local when available), in one run.

    python3 bench/run.py [--n 2000] [--no-reference] [--no-server]

Workload: a table with PK/SK and one GSI (ALL). PutItem of ~200-byte items, GetItem by key, and a Query that
returns 40 items. Our engine is called natively (file-backed, WAL, and in memory); moto through its
in-process boto3 mock; DynamoDB Local through boto3 over HTTP on 127.0.0.1. Prints ops/s, p50 latency, and
ratios to moto; then
runs bench/server.py (HTTP) and bench/http_floor.py (the same load against a server doing only the SQL),
bench/batch.py (batches, transactions), bench/bulk_load.py (the bulk load of
import and copy), bench/scale.py from 10,000 to 100,000 items (reads as a table grows), bench/floor.py (the
same writes as bare SQL: the most any engine on this storage could do) and bench/model_overhead.py; last, the
embedded engine's figures: in-memory PutItem and GetItem per second, and the file-backed
PutItem's time over the SQL-only floor's, both from this run.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

TABLE = "bench"
TABLE_SPEC: dict[str, Any] = dict(
    TableName=TABLE,
    KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
    AttributeDefinitions=[
        {"AttributeName": "PK", "AttributeType": "S"},
        {"AttributeName": "SK", "AttributeType": "S"},
        {"AttributeName": "GSI1PK", "AttributeType": "S"},
        {"AttributeName": "GSI1SK", "AttributeType": "S"},
    ],
    GlobalSecondaryIndexes=[
        {
            "IndexName": "GSI1",
            "KeySchema": [
                {"AttributeName": "GSI1PK", "KeyType": "HASH"},
                {"AttributeName": "GSI1SK", "KeyType": "RANGE"},
            ],
            "Projection": {"ProjectionType": "ALL"},
        }
    ],
    BillingMode="PAY_PER_REQUEST",
)


def item(i: int) -> dict[str, Any]:
    return {
        "PK": {"S": f"USER#{i % 50}"},
        "SK": {"S": f"ORDER#{i:08d}"},
        "GSI1PK": {"S": f"STATUS#{i % 7}"},
        "GSI1SK": {"S": f"2026-11-{i % 28 + 1:02d}T{i:08d}"},
        "total": {"N": str(i * 3 + 0.25)},
        "status": {"S": "SHIPPED"},
        "note": {"S": "x" * 80},
        "lines": {"L": [{"M": {"sku": {"S": f"SKU{i}"}, "qty": {"N": "2"}}}]},
    }


def measure(call: Callable[[int], Any], n: int) -> tuple[float, float, float]:
    """(ops/s, p50 µs, p99 µs) over n calls."""
    samples = []
    start = time.perf_counter()
    for i in range(n):
        t0 = time.perf_counter_ns()
        call(i)
        samples.append(time.perf_counter_ns() - t0)
    elapsed = time.perf_counter() - start
    samples.sort()
    return n / elapsed, samples[len(samples) // 2] / 1000, samples[int(len(samples) * 0.99)] / 1000


def workload(client: Any, n: int) -> dict[str, tuple[float, float, float]]:
    client.create_table(**TABLE_SPEC)
    # Each request is built before the clock starts, as bench/floor.py builds its rows: building an item
    # here took ~27,000 instructions, a tenth of a PutItem, and is the benchmark's work, not the engine's.
    items = [item(i) for i in range(n)]
    results = {"PutItem": measure(lambda i: client.put_item(TableName=TABLE, Item=items[i]), n)}
    keys = [{"PK": item(i)["PK"], "SK": item(i)["SK"]} for i in range(n)]
    results["GetItem"] = measure(lambda i: client.get_item(TableName=TABLE, Key=keys[i]), n)
    query_n = max(50, n // 10)
    results["Query (40 items)"] = measure(
        lambda i: client.query(
            TableName=TABLE,
            KeyConditionExpression="PK = :p",
            ExpressionAttributeValues={":p": {"S": f"USER#{i % 50}"}},
            Limit=40,
        ),
        query_n,
    )
    return results


def boto3_client(endpoint: str | None = None) -> Any:
    import boto3

    return boto3.client(
        "dynamodb",
        region_name="us-east-1",
        endpoint_url=endpoint,
        aws_access_key_id="bench",
        aws_secret_access_key="bench",
    )


Runs = dict[str, dict[str, tuple[float, float, float]]]


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=2000, help="calls per operation")
    parser.add_argument("--no-reference", action="store_true", help="skip DynamoDB Local")
    parser.add_argument(
        "--no-server", action="store_true", help="skip the HTTP server benchmark (bench/server.py)"
    )
    return parser.parse_args()


def _run_ours(runs: Runs, n: int) -> None:
    """The native engine and the in-process boto3 client, each on a file-backed database."""
    import singletable
    from singletable._client import close_engine
    from singletable.engine import Engine

    with tempfile.TemporaryDirectory() as tmp:
        engine = Engine(os.path.join(tmp, "bench.sqlite3"))
        runs["singletable (native, file)"] = workload(engine, n)
        engine.close()
        with Engine(":memory:") as memory:
            runs["singletable (native, memory)"] = workload(memory, n)
        path = os.path.join(tmp, "client.sqlite3")
        runs["singletable.client (boto3, file)"] = workload(singletable.client(path), n)
        close_engine(path)


def _run_moto(runs: Runs, n: int) -> None:
    from moto import mock_aws

    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        runs["moto (boto3, in-process)"] = workload(boto3_client(), n)


def _run_reference(runs: Runs, n: int) -> None:
    """DynamoDB Local over HTTP, after a JIT warm-up; skipped with the reason when it cannot start."""
    from reference import DynamoDBLocal, ReferenceUnavailable

    try:
        server = DynamoDBLocal()
    except ReferenceUnavailable as why:
        print(f"DynamoDB Local skipped: {why}")
        return
    try:
        client = boto3_client(server.endpoint)
        workload(client, 200)  # JIT warm-up
        client.delete_table(TableName=TABLE)
        runs["DynamoDB Local (boto3, HTTP)"] = workload(client, n)
    finally:
        server.stop()


def _print_ratios(runs: Runs) -> None:
    ours = runs["singletable (native, file)"]
    moto = runs["moto (boto3, in-process)"]
    print(f"\n{'operation':<18} {'backend':<32} {'ops/s':>10} {'p50 µs':>9} {'p99 µs':>9} {'vs moto':>8}")
    for operation in ours:
        for name, result in runs.items():
            rate, p50, p99 = result[operation]
            ratio = rate / moto[operation][0]
            print(f"{operation:<18} {name:<32} {rate:>10,.0f} {p50:>9.1f} {p99:>9.1f} {ratio:>7.1f}x")


def _print_embedded(
    runs: Runs, floor_put_us: float, minimum_us: float, grown_us: float, minimum_grown_us: float
) -> None:
    """The embedded engine where tests run, against its goals, from this run's figures."""
    memory = runs["singletable (native, memory)"]
    file_put_us = 1e6 / runs["singletable (native, file)"]["PutItem"][0]
    print("\nEmbedded engine (this run):")
    print(f"  in-memory PutItem:  {memory['PutItem'][0]:>9,.0f}/s  (goal >= 30,000/s)")
    print(f"  in-memory GetItem:  {memory['GetItem'][0]:>9,.0f}/s  (goal >= 60,000/s)")
    ratio = file_put_us / floor_put_us
    print(
        f"  file PutItem:  {file_put_us:9.1f} µs = {ratio:.2f}x the SQL-only floor's {floor_put_us:.1f} µs"
        "  (goal <= 1.5x)"
    )
    print(
        f"  ... and {file_put_us / minimum_us:.2f}x the engine minimum's {minimum_us:.1f} µs"
        f" (the SQL plus the checks every PutItem needs: {minimum_us / floor_put_us:.2f}x the floor)"
    )
    print(
        f"  ... and {file_put_us / grown_us:.2f}x the same SQL with its WAL growing, as the engine's does in"
        f" this run ({grown_us:.1f} µs; bench/put_ratio.py compares each in the other's WAL regime)"
    )
    print(
        f"  the ceiling in the engine's WAL regime: the engine minimum with its WAL growing is"
        f" {minimum_grown_us / floor_put_us:.2f}x the floor ({minimum_grown_us:.1f} µs), with no engine"
        f" code beyond the checks; the engine is {file_put_us / minimum_grown_us:.2f}x that"
    )


def _run_the_other_benchmarks(
    args: argparse.Namespace, moto_puts_per_second: float
) -> tuple[float, float, float, float]:
    """Runs the other benchmarks; returns floor.py's µs per PutItem transaction, per engine minimum, per
    PutItem transaction with the WAL growing and per engine minimum with the WAL growing."""
    if not args.no_server:
        import server

        server.main(["--no-reference"] if args.no_reference else [])
        import http_floor  # the same load against a server doing only the SQL (bench/http_floor.py)

        print()
        http_floor.main(["--runs", "1", "--floor-only"])

    import batch  # BatchWriteItem bulk load and TransactWriteItems (bench/batch.py)

    batch.main([])

    import bulk_load  # the bulk load of import and copy against BatchWriteItem (bench/bulk_load.py)

    print()
    bulk_load.main(["--rounds", "1"])

    import scale  # GetItem and a GSI Query as one table grows (bench/scale.py; 10M items: run it alone)

    print()
    scale.main(["--sizes", "10000,100000", "--ops", "1000"])

    import floor  # the same writes as bare SQL: the ceiling for any engine on this storage (bench/floor.py)

    put_us, _, minimum_us, grown_us, minimum_grown_us = floor.main(["--grown-puts", str(args.n)])
    print(f"  PutItem ceiling vs moto's PutItem: {1e6 / put_us / moto_puts_per_second:.1f}x")

    import model_overhead  # the modeling layer vs the raw engine calls it makes (bench/model_overhead.py)

    print()
    model_overhead.main([])
    return put_us, minimum_us, grown_us, minimum_grown_us


def main() -> None:
    args = _arguments()
    runs: Runs = {}
    _run_ours(runs, args.n)
    _run_moto(runs, args.n)
    if not args.no_reference:
        _run_reference(runs, args.n)
    _print_ratios(runs)
    moto_puts = runs["moto (boto3, in-process)"]["PutItem"][0]
    floors = _run_the_other_benchmarks(args, moto_puts)
    _print_embedded(runs, *floors)


if __name__ == "__main__":
    main()
