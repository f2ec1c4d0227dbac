"""Benchmark: ``singletable import`` of an S3 export into a new table in a file: built CREATING, or in chunks.

    python3 bench/import_new_table.py [--items 200000] [--rounds 3] [--shapes all-keys,all-all]

Writes an S3 export (DYNAMODB_JSON, gzipped data files of 100,000 items) of realistic order items -- each
with a nested address map (holding a nested map), a string set, numbers, a boolean and a note of 0-60
characters: 150-400 bytes as DynamoDB sizes them -- then runs the whole command,
``python3 -m singletable import DB orders EXPORT --schema SCHEMA``, in a fresh database each time, into a
table with two GSIs: ``all-keys`` (one ALL, one KEYS_ONLY) and ``all-all`` (both ALL). Each shape is imported
both ways: the default (the table CREATING until it is built and checked) and ``--chunked`` (the load into
an existing table: committed chunks, checkpoints). Rounds alternate the runs, so a noisy neighbour spreads
over all of them.

Prints, per run, items/s by the wall clock and per CPU second (user + system time of the command and its
reader process: on a shared machine the CPU rate says what the code does with a core to itself), then the
min and median of each.

    python3 bench/import_new_table.py --instructions [--n1 2000] [--n2 6000]

counts instructions per item under valgrind's callgrind (repeatable under any load), in one process and from
a JSON Lines file of the same items into the ``all-keys`` table: the reader's work alone (read, parse,
check, the staged rows, each batch pickled and read back as the queue carries it), the whole build (that,
staging, the sorted passes and their check), and the chunked load; each figure is
(Ir(n2) - Ir(n1)) / (n2 - n1), which cancels start-up and imports.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
STATUSES = ("pending", "paid", "shipped", "delivered", "returned")
CITIES = ("Lisbon", "Porto", "Braga", "Faro", "Coimbra", "Aveiro", "Évora")
TAGS = ("gift", "express", "fragile", "bulk", "promo")


def order(n: int) -> dict[str, Any]:
    """Order ``n``: ten orders per customer, GSI1 by status and time, GSI2 by product and quantity."""
    r = random.Random(n)
    day = f"2024-{1 + n % 12:02d}-{1 + n % 28:02d}"
    return {
        "PK": {"S": f"CUSTOMER#{n // 10:07d}"},
        "SK": {"S": f"ORDER#{day}#{n:08d}"},
        "GSI1PK": {"S": f"STATUS#{STATUSES[n % 5]}"},
        "GSI1SK": {"S": f"{day}T{n % 24:02d}:{n % 60:02d}:00Z"},
        "GSI2PK": {"S": f"PRODUCT#{r.randint(1, 5000):05d}"},
        "GSI2SK": {"N": str(r.randint(1, 100000))},
        "type": {"S": "order"},
        "total": {"N": f"{r.randint(100, 99999) / 100}"},
        "quantity": {"N": str(r.randint(1, 9))},
        "address": {
            "M": {
                "street": {"S": f"{r.randint(1, 300)} Rua das Flores"},
                "city": {"S": r.choice(CITIES)},
                "zip": {"S": f"{r.randint(1000, 9999)}-{r.randint(100, 999)}"},
                "geo": {
                    "M": {"lat": {"N": f"{r.uniform(37, 42):.5f}"}, "lon": {"N": f"{r.uniform(-9, -6):.5f}"}}
                },
            }
        },
        "tags": {"SS": sorted({r.choice(TAGS) for _ in range(2)})},
        "note": {"S": "".join(r.choice("abcdefghij klmnopqrstuvwxyz") for _ in range(r.randint(0, 60)))},
        "paid": {"BOOL": n % 3 == 0},
    }


def description(shape: str) -> dict[str, Any]:
    """The table's DescribeTable JSON (the --schema): two GSIs, the second KEYS_ONLY or ALL."""
    second = "KEYS_ONLY" if shape == "all-keys" else "ALL"

    def gsi(name: str, hash_key: str, range_key: str, projection: str) -> dict[str, Any]:
        keys = [
            {"AttributeName": hash_key, "KeyType": "HASH"},
            {"AttributeName": range_key, "KeyType": "RANGE"},
        ]
        return {"IndexName": name, "KeySchema": keys, "Projection": {"ProjectionType": projection}}

    types = {"PK": "S", "SK": "S", "GSI1PK": "S", "GSI1SK": "S", "GSI2PK": "S", "GSI2SK": "N"}
    return {
        "Table": {
            "TableName": "orders",
            "KeySchema": [
                {"AttributeName": "PK", "KeyType": "HASH"},
                {"AttributeName": "SK", "KeyType": "RANGE"},
            ],
            "AttributeDefinitions": [{"AttributeName": a, "AttributeType": t} for a, t in types.items()],
            "BillingModeSummary": {"BillingMode": "PAY_PER_REQUEST"},
            "GlobalSecondaryIndexes": [
                gsi("byStatus", "GSI1PK", "GSI1SK", "ALL"),
                gsi("byProduct", "GSI2PK", "GSI2SK", second),
            ],
        }
    }


def write_export(directory: Path, items: int) -> Path:
    sys.path.insert(0, str(ROOT / "src"))
    from singletable.data._writers import S3LayoutWriter

    writer = S3LayoutWriter(directory, {"TableName": "orders", "ItemCount": items}, items_per_file=100_000)
    for n in range(items):
        writer.write(order(n))
    return writer.close()


def run_import(directory: Path, export: Path, schema: Path, chunked: bool, items: int) -> tuple[float, float]:
    """(items/s by the wall clock, items per CPU second of the command and its reader)."""
    database = directory / "import.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{database}{suffix}").unlink(missing_ok=True)
    command = [sys.executable, "-m", "singletable", "import", str(database), "orders", str(export)]
    command += ["--schema", str(schema), "--json"] + (["--chunked"] if chunked else [])
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=directory, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"import failed: {done.stderr}")
    summary = json.loads(done.stdout)
    assert summary["items"] == items, summary
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return items / wall, items / cpu


_COUNTED = """
import json, os, sys
from singletable.data import import_table
from singletable.data._formats import source_files
from singletable.data._import_reader import Batch, read_source, received
from singletable.data._settings import TableSettings
from singletable.engine import Engine
from singletable.engine.shared import begin_import, finish_import

mode, source, schema, db = sys.argv[1:5]
if mode == "chunked":
    import_table(
        db, "orders", source, format="jsonl", schema=schema, sorted_build=False, checkpoint=db + ".ck"
    )
    sys.exit(0)
engine = Engine(db)
params = TableSettings.from_json(json.load(open(schema))).create_params("orders")
description, _ = begin_import(engine, params)
batches = []

class Queue:
    def put(self, message, timeout=None):
        message = received(message)
        if isinstance(message, Batch):
            batches.append(message)

files = list(enumerate(source_files(source, "jsonl")))
read_source(files, "jsonl", False, description, ["PK", "SK"], False, Queue(), os.getppid())
if mode == "build":
    for batch in batches:
        engine.storage.stage_import_rows(batch.items, batch.entries)
    finish_import(engine, "orders")
engine.close()
"""


def instructions(n1: int, n2: int) -> None:
    """Instructions per item of the reader, the whole build and the chunked load (see the docstring)."""
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary)
        schema = directory / "all-keys.json"
        schema.write_text(json.dumps(description("all-keys")))
        (directory / "counted.py").write_text(_COUNTED)
        for n in (n1, n2):
            with (directory / f"{n}.jsonl").open("w") as out:
                out.writelines(json.dumps(order(i), ensure_ascii=False) + "\n" for i in range(n))
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONHASHSEED": "0"}
        for mode in ("reader", "build", "chunked"):
            counts = []
            for n in (n1, n2):
                out = directory / f"{mode}.{n}.cg"
                database = directory / f"{mode}.{n}.db"
                command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable]
                command += [str(directory / "counted.py"), mode, str(directory / f"{n}.jsonl"), str(schema)]
                done = subprocess.run([*command, str(database)], env=env, capture_output=True, text=True)
                counts.append(int(done.stderr.split("Collected : ")[1].split()[0]))
            print(f"{mode:8} {(counts[1] - counts[0]) / (n2 - n1):>10,.0f} instructions per item")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--shapes", default="all-keys,all-all")
    parser.add_argument("--instructions", action="store_true")
    parser.add_argument("--n1", type=int, default=2000)
    parser.add_argument("--n2", type=int, default=6000)
    args = parser.parse_args(argv)
    if args.instructions:
        instructions(args.n1, args.n2)
        return
    shapes = args.shapes.split(",")
    results: dict[str, list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary)
        export = write_export(directory / "export", args.items)
        for shape in shapes:
            (directory / f"{shape}.json").write_text(json.dumps(description(shape)))
        for round_ in range(args.rounds):
            for shape in shapes:
                for chunked in (False, True):
                    name = f"{shape:8} {'--chunked (old path)' if chunked else 'built CREATING (new)'}"
                    rates = run_import(directory, export, directory / f"{shape}.json", chunked, args.items)
                    results.setdefault(name, []).append(rates)
                    print(
                        f"round {round_ + 1}: {name} {rates[0]:>9,.0f} items/s ({rates[1]:>9,.0f} per CPU s)"
                    )
    print(f"\nsingletable import of an S3 export, {args.items:,} items, two GSIs, {args.rounds} rounds")
    print("(min / median of items/s by the wall clock, then per CPU second):")
    for name, rates in results.items():
        walls, cpus = [r[0] for r in rates], [r[1] for r in rates]
        print(
            f"  {name}  {min(walls):>9,.0f} / {statistics.median(walls):>9,.0f} items/s   "
            f"{min(cpus):>9,.0f} / {statistics.median(cpus):>9,.0f} per CPU s"
        )


if __name__ == "__main__":
    main()
