"""Server processes: start-up time, SIGTERM without losing acknowledged writes, workers sharing a file."""

from __future__ import annotations

import signal
from concurrent.futures import ThreadPoolExecutor

import pytest

from serving import ServerProcess
from singletable.engine import Engine

KEYS = dict(
    KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
    AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
    BillingMode="PAY_PER_REQUEST",
)


def test_starts_quickly_and_binds_loopback(tmp_path):
    server = ServerProcess(tmp_path / "s.sqlite3")
    try:
        # Typically ~0.25 s from process start to first answered request (docs/performance.md); the bound
        # here is loose only because CI machines are noisy.
        assert server.ready_after < 1.5
    finally:
        server.stop()


def test_sigterm_keeps_every_acknowledged_write(tmp_path):
    db = tmp_path / "durable.sqlite3"
    server = ServerProcess(db)
    client = server.client()
    client.create_table(TableName="acked", **KEYS)
    acknowledged = []

    def write(i: int) -> None:
        client.put_item(TableName="acked", Item={"k": {"S": f"item{i}"}})
        acknowledged.append(i)

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(write, range(200)))
    assert server.stop(signal.SIGTERM) == 0
    with Engine(str(db)) as engine:
        count = engine.scan(TableName="acked", Select="COUNT")["Count"]
    assert count == len(acknowledged) == 200


@pytest.mark.parametrize("server_name", ["uvicorn", "granian"])
def test_workers_share_one_database(tmp_path, server_name):
    server = ServerProcess(tmp_path / "workers.sqlite3", args=("--workers", "2", "--server", server_name))
    try:
        client = server.client(max_pool_connections=8)
        client.create_table(TableName="shared", **KEYS)

        def write(i: int) -> None:
            client.put_item(TableName="shared", Item={"k": {"S": f"k{i}"}})

        with ThreadPoolExecutor(8) as pool:
            list(pool.map(write, range(100)))
        # Whichever worker answers, it sees the table and every write.
        for _ in range(4):
            assert client.scan(TableName="shared", Select="COUNT")["Count"] == 100
    finally:
        server.stop()


def test_in_memory_refuses_several_workers():
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "singletable", "serve", "--workers", "2"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2
    assert "--workers > 1 needs --db FILE" in result.stderr
