"""Durability: the engine's file survives reopening and a killed process keeps every acknowledged write."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from tables import create

from backends import expect_error
from singletable.engine import Engine
from singletable.engine._storage import ItemRow

WRITER = textwrap.dedent(
    """
    import sys
    from singletable.engine import Engine
    engine = Engine(sys.argv[1])
    i = 0
    while True:
        item = {"PK": {"S": f"k{i}"}, "SK": {"S": "x"}, "n": {"N": str(i)}}
        engine.put_item(TableName="t_durable", Item=item)
        print(i, flush=True)  # acknowledged
        i += 1
    """
)


class _Native:
    """Adapter so the shared table helper can create tables on a bare Engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def create_table(self, **params):
        return self.engine.create_table(**params)


def test_reopen_keeps_tables_and_items(tmp_path: Path):
    path = str(tmp_path / "db.sqlite3")
    with Engine(path) as engine:
        create(_Native(engine), "t_reopen", gsi=True)
        engine.put_item(TableName="t_reopen", Item={"PK": {"S": "a"}, "SK": {"S": "b"}, "G2PK": {"S": "g"}})
    with Engine(path) as engine:
        assert engine.list_tables()["TableNames"] == ["t_reopen"]
        assert engine.get_item(TableName="t_reopen", Key={"PK": {"S": "a"}, "SK": {"S": "b"}})["Item"][
            "G2PK"
        ] == {"S": "g"}
        found = engine.query(
            TableName="t_reopen",
            IndexName="GSI2",
            KeyConditionExpression="G2PK = :g",
            ExpressionAttributeValues={":g": {"S": "g"}},
        )
        assert found["Count"] == 1


def test_killed_writer_loses_no_acknowledged_write(tmp_path: Path):
    path = str(tmp_path / "db.sqlite3")
    with Engine(path) as engine:
        create(_Native(engine), "t_durable")
    child = subprocess.Popen(
        [sys.executable, "-c", WRITER, path], stdout=subprocess.PIPE, text=True, env={**os.environ}
    )
    acknowledged = -1
    deadline = time.monotonic() + 30
    assert child.stdout is not None
    while acknowledged < 300 and time.monotonic() < deadline:
        line = child.stdout.readline()
        if line:
            acknowledged = int(line)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert acknowledged >= 300
    with Engine(path) as engine:
        for i in range(acknowledged + 1):
            assert "Item" in engine.get_item(
                TableName="t_durable", Key={"PK": {"S": f"k{i}"}, "SK": {"S": "x"}}
            )


def test_failed_write_changes_nothing(tmp_path: Path):
    with Engine(str(tmp_path / "db.sqlite3")) as engine:
        create(_Native(engine), "t_atomic", gsi=True)
        key = {"PK": {"S": "a"}, "SK": {"S": "1"}}
        engine.put_item(
            TableName="t_atomic", Item={**key, "G1PK": {"S": "g"}, "G1SK": {"N": "1"}, "v": {"N": "1"}}
        )
        with expect_error("ValidationException"):
            # The update would make the item too large: nothing may change, the index included.
            engine.update_item(
                TableName="t_atomic",
                Key=key,
                UpdateExpression="SET G1PK = :new, big = :big",
                ExpressionAttributeValues={":new": {"S": "h"}, ":big": {"S": "x" * 410_000}},
            )
        assert engine.get_item(TableName="t_atomic", Key=key)["Item"]["G1PK"] == {"S": "g"}
        old = engine.query(
            TableName="t_atomic",
            IndexName="GSI1",
            KeyConditionExpression="G1PK = :g",
            ExpressionAttributeValues={":g": {"S": "g"}},
        )
        assert old["Count"] == 1


def _wal_salts(path: str) -> bytes:
    """The WAL header's salts: SQLite changes them exactly when it starts the WAL over."""
    with open(path + "-wal", "rb") as wal:
        return wal.read(24)[16:24]


def test_a_write_asked_to_restart_the_wal_does(tmp_path: Path):
    """When the checkpointer finds a large WAL it sets ``restart_wal``; the next write then checkpoints
    the rest and starts the WAL over (under sustained writes a background checkpoint alone never catches
    up, and the WAL grew without bound)."""
    from singletable.engine._storage import Storage

    path = str(tmp_path / "db.sqlite3")
    storage = Storage(path)
    storage._checkpointer.stop()  # no background rounds: only the flag may restart the WAL
    storage._checkpointer = None

    def put(i: int) -> None:
        with storage.write():
            storage.write_rows([ItemRow(1, f"k{i}".encode(), b"x", b"{}", 2)], [], [], [])

    for i in range(50):
        put(i)
    salts = _wal_salts(path)
    put(50)
    assert _wal_salts(path) == salts  # nothing checkpointed: the WAL just grows
    storage.restart_wal = True
    put(51)
    assert not storage.restart_wal
    assert _wal_salts(path) != salts  # checkpointed, then started over
    for i in range(52):
        assert storage.get_item(1, f"k{i}".encode(), b"x") == (b"{}", 2)
    storage.close()


def _quiet_storage(path: str):
    """A Storage with no background checkpoint rounds: only what a test does checkpoints its WAL."""
    from singletable.engine._storage import Storage

    storage = Storage(path)
    storage._checkpointer.stop()
    storage._checkpointer = None
    return storage


def _put(storage, key: str) -> None:
    with storage.write():
        storage.write_rows([ItemRow(1, key.encode(), b"x", b"{}", 2)], [], [], [])


@pytest.mark.parametrize("held_up", [False, True])
def test_a_held_up_ask_checkpoints_the_backlog_holding_other_writers_off(tmp_path: Path, held_up: bool):
    """A PASSIVE backlog checkpoint lets another process keep committing while it copies, and the WAL,
    never fully checkpointed at a quiet instant, is never started over (two ``serve`` workers: ~900 MB in
    30 s). Once an ask was held up, the write checkpoints with RESTART, which holds writers off meanwhile
    and leaves the WAL to be started over by the next write; every item stays readable either way."""
    path = str(tmp_path / "db.sqlite3")
    ours, other = _quiet_storage(path), _quiet_storage(path)
    for i in range(50):
        _put(ours, f"k{i}")
    statements: list[str] = []
    ours._conn.set_trace_callback(statements.append)
    ours._want_wal_restart(held_up)
    salts = _wal_salts(path)
    _put(ours, "ours")
    ours._conn.set_trace_callback(None)
    assert not ours.restart_wal
    mode = "RESTART" if held_up else "PASSIVE"
    assert statements[:2] == [f"PRAGMA wal_checkpoint({mode})", "BEGIN IMMEDIATE"]
    assert _wal_salts(path) != salts  # nobody else wrote meanwhile: our write started the WAL over
    _put(other, "theirs")
    for key in [*(f"k{i}" for i in range(50)), "ours", "theirs"]:
        assert other.get_item(1, key.encode(), b"x") == (b"{}", 2)
    other.close()
    ours.close()


def test_the_checkpointer_says_when_its_last_ask_did_not_restart_the_wal(tmp_path: Path):
    """It compares the WAL's salts with those it saw when it last asked: the same salts mean the WAL was
    never started over, and the next ask must use the checkpoint that holds other writers off."""
    import sqlite3

    from singletable.engine._storage.connection import Checkpointer

    path = str(tmp_path / "db.sqlite3")
    storage = _quiet_storage(path)
    asks: list[bool] = []
    # Rounds run here, one at a time, on a connection of the test's: its thread waits past the test.
    checkpointer = Checkpointer(path, asks.append, interval=3600, restart_frames=5)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        checkpointer.round(conn)
        assert asks == []  # a small WAL: nothing to ask
        for i in range(20):  # more than restart_frames
            _put(storage, f"k{i}")
        checkpointer.round(conn)
        checkpointer.round(conn)  # nobody wrote, nobody restarted the WAL since the first ask
        assert asks == [False, True]
        storage._want_wal_restart(True)
        for i in range(20):  # the first of them checkpoints the backlog and starts the WAL over
            _put(storage, f"again{i}")
        checkpointer.round(conn)
        assert asks == [False, True, False]
    finally:
        conn.close()
        checkpointer.stop()
        storage.close()


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="SCHED_IDLE is Linux's; elsewhere: as before")
def test_the_checkpointer_runs_only_on_time_nothing_else_wants(tmp_path: Path):
    """Its rounds took a core from the request thread or its clients: the tail of HTTP latency."""
    from singletable.engine._storage import Storage

    storage = Storage(str(tmp_path / "db.sqlite3"))
    thread = storage._checkpointer.thread
    deadline = time.monotonic() + 5
    while os.sched_getscheduler(thread.native_id) != os.SCHED_IDLE and time.monotonic() < deadline:
        time.sleep(0.01)
    assert os.sched_getscheduler(thread.native_id) == os.SCHED_IDLE
    assert os.sched_getscheduler(0) != os.SCHED_IDLE  # the caller's thread keeps its priority
    with storage.write():
        storage.write_rows([ItemRow(1, b"k", b"x", b"{}", 2)], [], [], [])
    storage.close()
    reopened = Storage(str(tmp_path / "db.sqlite3"))
    assert reopened.get_item(1, b"k", b"x") == (b"{}", 2)
    reopened.close()


def test_a_read_page_that_stops_early_holds_no_snapshot_after_it(tmp_path: Path):
    """A Query or Scan is one statement read without BEGIN/COMMIT around it: its snapshot must still end
    when the call returns, even when the page stopped at Limit with rows left, or no checkpoint could ever
    restart the WAL past it. On the table and on an index, for the Python API and for the wire."""
    import sqlite3

    path = str(tmp_path / "db.sqlite3")
    with Engine(path) as engine:
        create(_Native(engine), "t_queried", gsi=True)
        for i in range(20):
            item = {"PK": {"S": "p"}, "SK": {"S": f"{i:02d}"}, "G1PK": {"S": "g"}, "G1SK": {"N": str(i)}}
            engine.execute("PutItem", {"TableName": "t_queried", "Item": item})
        for operation, index, key in (("Query", None, "PK"), ("Query", "GSI1", "G1PK"), ("Scan", None, "")):
            request: dict = {"TableName": "t_queried", "Limit": 5}
            if operation == "Query":
                request["KeyConditionExpression"] = f"{key} = :p"
                request["ExpressionAttributeValues"] = {":p": {"S": "p" if index is None else "g"}}
            if index is not None:
                request["IndexName"] = index
            for for_wire in (False, True):
                page = engine.execute(operation, dict(request), for_wire=for_wire)
                assert page["Count"] == 5 and "LastEvaluatedKey" in page
                other = sqlite3.connect(path, isolation_level=None, timeout=0.5)
                busy, _, _ = other.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
                other.close()
                assert busy == 0  # no reader left holding a snapshot
