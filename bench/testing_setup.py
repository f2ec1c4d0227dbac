"""Per-test setup of the pytest plugin's ``dynamodb`` fixture: 5 tables with GSIs, 1,000 seed items.

    python3 bench/testing_setup.py [--tests 200]

Writes a CloudFormation template (5 tables, 2 GSIs each) and a 1,000-item JSON Lines seed into a temporary
project, runs pytest on it with ``--tests`` tests that each take the ``dynamodb`` fixture (and write one
item, so the copies are really used), and reports the setup phase pytest itself timed for each test
(``report.duration`` of the ``setup`` phase: the fixture's copy of the session's database, the mock's
start, pytest's own fixture machinery), and the CPU time the test's thread spent in that phase. The first test
also builds the session template (schema and seed); it is reported apart. The target is p50 <= 2 ms.

Wall time and CPU time part ways on a loaded machine: with more runnable processes than cores, a setup of a
millisecond now and then waits out other processes' time slices (tens of milliseconds) and lands in the wall
clock's tail, while its CPU time does not move. The CPU percentiles are the fixture's own cost; the wall
percentiles are what the machine made of it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TABLES = 5
ITEMS = 1_000

CONFTEST = """
import json, os, time
import pytest

CPU = {}

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    started = time.thread_time()
    yield
    CPU[item.nodeid] = time.thread_time() - started

def pytest_runtest_logreport(report):
    if report.when == "setup":
        with open(os.environ["SETUP_TIMES"], "a") as out:
            out.write(json.dumps([report.nodeid, report.duration, CPU.get(report.nodeid, 0.0)]) + "\\n")
"""


TESTS = """
import pytest

@pytest.fixture
def nothing():
    return None

@pytest.mark.parametrize("n", range({tests}))
def test_one(dynamodb, n):
    dynamodb.engine.put_item(TableName="table0", Item={{"pk": {{"S": f"new{{n}}"}}, "sk": {{"S": "x"}}}})

@pytest.mark.parametrize("n", range({tests}))
def test_baseline(nothing, n):
    pass
"""


def template() -> str:
    resources = {}
    for t in range(TABLES):
        resources[f"Table{t}"] = {
            "Type": "AWS::DynamoDB::Table",
            "Properties": {
                "TableName": {"Fn::Sub": f"table{t}"},
                "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [
                    {"AttributeName": a, "AttributeType": "S"} for a in ("pk", "sk", "gsi1pk", "gsi2pk")
                ],
                "KeySchema": [
                    {"AttributeName": "pk", "KeyType": "HASH"},
                    {"AttributeName": "sk", "KeyType": "RANGE"},
                ],
                "GlobalSecondaryIndexes": [
                    {
                        "IndexName": f"GSI{i}",
                        "KeySchema": [
                            {"AttributeName": f"gsi{i}pk", "KeyType": "HASH"},
                            {"AttributeName": "sk", "KeyType": "RANGE"},
                        ],
                        "Projection": {"ProjectionType": "ALL"},
                    }
                    for i in (1, 2)
                ],
            },
        }
    return json.dumps({"Resources": resources})


def seed(directory: Path) -> list[str]:
    """1,000 items spread over the five tables: one JSON Lines file per table."""
    specs = []
    for t in range(TABLES):
        path = directory / f"table{t}.jsonl"
        with path.open("w") as out:
            for i in range(t, ITEMS, TABLES):
                item = {
                    "pk": {"S": f"user#{i}"},
                    "sk": {"S": f"order#{i:05d}"},
                    "gsi1pk": {"S": f"status#{i % 7}"},
                    "gsi2pk": {"S": f"day#{i % 31}"},
                    "total": {"N": str(i * 3)},
                    "note": {"S": "x" * 120},
                }
                out.write(json.dumps(item) + "\n")
        specs.append(f"table{t}={path.name}")
    return specs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        (root / "template.json").write_text(template())
        specs = seed(root)
        (root / "pytest.ini").write_text(
            "[pytest]\nsingletable_tables = template.json\nsingletable_seed =\n"
            + "".join(f"    {s}\n" for s in specs)
        )
        (root / "conftest.py").write_text(CONFTEST)
        (root / "test_setup.py").write_text(TESTS.format(tests=args.tests))
        times = root / "times.jsonl"
        env = dict(os.environ, SETUP_TIMES=str(times), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
        src = str(Path(__file__).resolve().parents[1] / "src")
        env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
        command = [sys.executable, "-m", "pytest", "-q", "-p", "singletable_pytest", "-p", "no:cacheprovider"]
        subprocess.run(command, cwd=root, env=env, check=True, stdout=subprocess.DEVNULL)
        records = [json.loads(line) for line in times.read_text().splitlines()]
        fixture_work = direct(root, specs, args.tests)
    durations = [d for node, d, _ in records if "test_one" in node]
    cpu = sorted(c for node, _, c in records if "test_one" in node)[1:]
    baseline = sorted(d for node, d, _ in records if "test_baseline" in node)
    first, rest = durations[0], sorted(durations[1:])
    print(f"{TABLES} tables x 2 GSIs, {ITEMS} seed items, {len(durations)} tests")
    print(f"first test (builds the session template): {first * 1000:.1f} ms")
    print(f"per-test setup, as pytest times it:   {summary(rest)}  (target p50 <= 2 ms)")
    print(f"  its CPU time (the test's thread):   {summary(cpu)}")
    print(f"pytest's own setup (a no-op fixture): {summary(baseline)}")
    print(f"the fixture's work alone (copy + mock start, in-process): {summary(fixture_work[0])}")
    print(f"  its CPU time:                                         {summary(fixture_work[1])}")


def summary(samples: list[float]) -> str:
    samples = sorted(samples)
    p50 = statistics.median(samples) * 1000
    p95 = samples[int(len(samples) * 0.95) - 1] * 1000
    return f"p50 {p50:.2f} ms, p95 {p95:.2f} ms"


def direct(root: Path, specs: list[str], n: int) -> tuple[list[float], list[float]]:
    """What the ``dynamodb`` fixture does per test, timed without pytest around it: (wall, CPU) samples."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from singletable.engine import Engine
    from singletable.testing import MockDynamoDB
    from singletable.testing._sources import create_tables, seed, table_definitions

    template = Engine(":memory:")
    definitions = table_definitions(root / "template.json")
    create_tables(template, definitions)
    cwd = os.getcwd()
    os.chdir(root)
    try:
        for spec in specs:
            seed(template, spec, [d["TableName"] for d in definitions])
    finally:
        os.chdir(cwd)
    samples, cpu = [], []
    for _ in range(n):
        started, cpu_started = time.perf_counter(), time.thread_time()
        engine = template.copy()
        mock = MockDynamoDB(engine).start()
        samples.append(time.perf_counter() - started)
        cpu.append(time.thread_time() - cpu_started)
        mock.stop()
        engine.close()
    template.close()
    return samples, cpu


if __name__ == "__main__":
    main()
