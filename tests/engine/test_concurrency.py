"""Concurrent writers on one database file: threads sharing an Engine, and separate processes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from pk_sk_table import pk_sk_table
from singletable.engine import Engine
from singletable.engine._errors import DynamoDBError

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
        engine.create_table(**pk_sk_table("t_conc"))


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


def _recreate(engine: Engine, *, hash_type: str, gsi: bool) -> None:
    """Drop t_conc and create it again with another key type and, optionally, a GSI on G."""
    engine.delete_table(TableName="t_conc")
    spec: dict = {
        "TableName": "t_conc",
        "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": hash_type}],
        "BillingMode": "PAY_PER_REQUEST",
    }
    if gsi:
        spec["AttributeDefinitions"].append({"AttributeName": "G", "AttributeType": "S"})
        spec["GlobalSecondaryIndexes"] = [
            {
                "IndexName": "byG",
                "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
            }
        ]
    engine.create_table(**spec)


def test_item_writes_see_a_catalog_changed_by_another_connection(tmp_path: Path):
    """Item writes check the catalog inside their transaction: a table another connection dropped and
    re-created differently must be written (and rejected) by its new definition, never the cached one."""
    path = str(tmp_path / "db.sqlite3")
    _make(path)
    with Engine(path) as writer, Engine(path) as other:
        writer.put_item(TableName="t_conc", Item={**COUNTER, "n": {"N": "1"}})  # caches the old catalog
        _recreate(other, hash_type="N", gsi=True)
        # Valid for the cached definition, invalid for the current one: the current one answers.
        with pytest.raises(DynamoDBError) as caught:
            writer.put_item(TableName="t_conc", Item={"PK": {"S": "a"}, "G": {"S": "g"}})
        assert caught.value.code == "ValidationException"
        # Valid only for the current definition: stored in the new table, with its GSI entry.
        writer.put_item(TableName="t_conc", Item={"PK": {"N": "7"}, "G": {"S": "g"}})
        found = other.query(
            TableName="t_conc",
            IndexName="byG",
            KeyConditionExpression="G = :g",
            ExpressionAttributeValues={":g": {"S": "g"}},
        )["Items"]
        assert found == [{"PK": {"N": "7"}, "G": {"S": "g"}}]
        writer.batch_write_item(RequestItems={"t_conc": [{"PutRequest": {"Item": {"PK": {"N": "8"}}}}]})
        assert other.get_item(TableName="t_conc", Key={"PK": {"N": "8"}})["Item"] == {"PK": {"N": "8"}}
        other.delete_table(TableName="t_conc")
        for call in (
            lambda: writer.put_item(TableName="t_conc", Item={"PK": {"N": "9"}}),
            lambda: writer.delete_item(TableName="t_conc", Key={"PK": {"N": "7"}}),
            lambda: writer.transact_write_items(
                TransactItems=[{"Put": {"TableName": "t_conc", "Item": {"PK": {"N": "9"}}}}]
            ),
        ):
            with pytest.raises(DynamoDBError) as caught:
                call()
            assert caught.value.code == "ResourceNotFoundException"
