"""Server processes: start on loopback, SIGTERM without losing acknowledged writes, workers sharing a file."""

from __future__ import annotations

import os
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


def _listening_addresses(port: int) -> set[str]:
    """The local IPv4/IPv6 addresses (hex, as the kernel writes them) with a socket listening on ``port``."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as rows:
            for row in list(rows)[1:]:
                local, state = row.split()[1], row.split()[3]
                address, hex_port = local.split(":")
                if state == "0A" and int(hex_port, 16) == port:  # 0A = LISTEN
                    found.add(address)
    return found


@pytest.mark.skipif(not os.path.exists("/proc/net/tcp"), reason="reads Linux's socket table")
def test_starts_and_binds_loopback_only(http_server):
    # Start-up time is a benchmark (bench/server.py, docs/performance.md), not a timed test: ServerProcess
    # waits (generously) for the first answered GET / and fails if the server never answers. The session's
    # server is started with serve's defaults but its port: it shows what serve binds by default.
    assert http_server.ready_after > 0
    assert _listening_addresses(http_server.port) == {"0100007F"}  # 127.0.0.1, and nothing else


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


def test_workers_share_one_database(tmp_path):
    server = ServerProcess(tmp_path / "workers.sqlite3", args=("--workers", "2"))
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
