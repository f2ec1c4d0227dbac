"""Concurrent writers on one database file: threads sharing an Engine, and separate processes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from pathlib import Path

from singletable.engine import Engine

COUNTER = {"PK": {"S": "counter"}, "SK": {"S": "x"}}

INCREMENTER = textwrap.dedent(
    """
    import sys
    from singletable.engine import Engine
    engine = Engine(sys.argv[1])
    for _ in range(int(sys.argv[2])):
        engine.update_item(TableName="t_conc", Key={"PK": {"S": "counter"}, "SK": {"S": "x"}},
                           UpdateExpression="ADD n :one", ExpressionAttributeValues={":one": {"N": "1"}})
    engine.close()
    """
)


def _make(path: str) -> None:
    with Engine(path) as engine:
        engine.create_table(
            TableName="t_conc",
            KeySchema=[
                {"AttributeName": "PK", "KeyType": "HASH"},
                {"AttributeName": "SK", "KeyType": "RANGE"},
            ],
            AttributeDefinitions=[
                {"AttributeName": "PK", "AttributeType": "S"},
                {"AttributeName": "SK", "AttributeType": "S"},
            ],
            BillingMode="PAY_PER_REQUEST",
        )


def _count(path: str) -> int:
    with Engine(path) as engine:
        return int(engine.get_item(TableName="t_conc", Key=COUNTER)["Item"]["n"]["N"])


def test_threads_sharing_an_engine_lose_no_increment(tmp_path: Path):
    path = str(tmp_path / "db.sqlite3")
    _make(path)
    engine = Engine(path)

    def work() -> None:
        for _ in range(200):
            engine.update_item(
                TableName="t_conc",
                Key=COUNTER,
                UpdateExpression="ADD n :one",
                ExpressionAttributeValues={":one": {"N": "1"}},
            )

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    engine.close()
    assert _count(path) == 800


def test_processes_on_one_file_lose_no_increment(tmp_path: Path):
    path = str(tmp_path / "db.sqlite3")
    _make(path)
    children = [subprocess.Popen([sys.executable, "-c", INCREMENTER, path, "150"]) for _ in range(3)]
    for child in children:
        assert child.wait(timeout=120) == 0
    assert _count(path) == 450


def test_table_created_by_another_process_is_seen(tmp_path: Path):
    path = str(tmp_path / "db.sqlite3")
    with Engine(path) as watcher:
        assert watcher.list_tables()["TableNames"] == []
        _make(path)
        assert watcher.list_tables()["TableNames"] == ["t_conc"]
