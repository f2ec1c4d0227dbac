"""``st_items_json``: every table's items as DynamoDB JSON text, readable by SQLite alone (docs/data.md).

The file is written by the engine; it is read back with Python's ``sqlite3`` module and with the ``sqlite3``
command-line shell (when installed), never through singletable, and compared with what GetItem returns.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from singletable.data import item_to_json
from singletable.engine import Engine

ITEM = {
    "PK": {"S": "USER#1"},
    "SK": {"N": "10.50"},
    "name": {"S": "Ada — ünïcode"},
    "big": {"N": "12345678901234567890123456789012345678"},
    "tiny": {"N": "-1E-130"},
    "blob": {"B": b"\x00\x01\xfe\xff"},
    "ok": {"BOOL": True},
    "nothing": {"NULL": True},
    "tags": {"SS": ["b", "a"]},
    "scores": {"NS": ["3", "1.5"]},
    "blobs": {"BS": [b"\x01", b"\x02"]},
    "nested": {"M": {"list": {"L": [{"N": "1"}, {"B": b"\xff"}, {"M": {"deep": {"S": "x"}}}]}}},
}


def _create(engine: Engine, name: str, sort: tuple[str, str] | None) -> None:
    keys = [{"AttributeName": "PK", "KeyType": "HASH"}]
    definitions = [{"AttributeName": "PK", "AttributeType": "S"}]
    if sort:
        keys.append({"AttributeName": sort[0], "KeyType": "RANGE"})
        definitions.append({"AttributeName": sort[0], "AttributeType": sort[1]})
    engine.create_table(
        TableName=name, KeySchema=keys, AttributeDefinitions=definitions, BillingMode="PAY_PER_REQUEST"
    )


@pytest.fixture
def written(tmp_path: Path) -> tuple[Path, dict]:
    """A file with two tables, written and closed by the engine; returns it and GetItem's view of ITEM."""
    path = tmp_path / "app.db"
    with Engine(str(path)) as engine:
        _create(engine, "Numbers", ("SK", "N"))
        _create(engine, "Plain", None)
        engine.put_item(TableName="Numbers", Item=ITEM)
        engine.put_item(TableName="Plain", Item={"PK": {"S": "p"}, "v": {"S": "text"}})
        stored = engine.get_item(TableName="Numbers", Key={"PK": ITEM["PK"], "SK": ITEM["SK"]})["Item"]
    return path, stored


def _rows(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute(
            "SELECT table_name, partition_key, sort_key, size, item FROM st_items_json ORDER BY table_name"
        ).fetchall()


def test_the_view_shows_every_item_as_dynamodb_json(written):
    path, stored = written
    (numbers, plain) = _rows(path)
    assert numbers[:3] == ("Numbers", "USER#1", "10.5")
    assert numbers[3] > 0
    assert json.loads(numbers[4]) == item_to_json(stored)
    assert json.loads(numbers[4])["blob"] == {"B": "AAH+/w=="}
    assert json.loads(numbers[4])["big"] == {"N": "12345678901234567890123456789012345678"}
    assert plain[:3] == ("Plain", "p", None)
    assert json.loads(plain[4]) == {"PK": {"S": "p"}, "v": {"S": "text"}}


def test_sqlite_json_functions_reach_into_items(written):
    path, _ = written
    with sqlite3.connect(path) as conn:
        found = conn.execute(
            "SELECT json_extract(item, '$.nested.M.list.L[2].M.deep.S'), json_extract(item, '$.blob.B') "
            "FROM st_items_json WHERE table_name = 'Numbers' AND partition_key = 'USER#1'"
        ).fetchone()
    assert found == ("x", "AAH+/w==")


def test_the_view_is_read_only(written):
    path, _ = written
    with sqlite3.connect(path) as conn, pytest.raises(sqlite3.OperationalError) as caught:
        conn.execute("DELETE FROM st_items_json")
    assert str(caught.value) == "cannot modify st_items_json because it is a view"


def test_the_view_follows_tables_created_and_deleted(written):
    path, _ = written
    with Engine(str(path)) as engine:
        engine.delete_table(TableName="Numbers")
        _create(engine, "Binary", ("SK", "B"))
        engine.put_item(TableName="Binary", Item={"PK": {"S": "k"}, "SK": {"B": b"\x00\xff"}})
    assert [row[:3] for row in _rows(path)] == [("Binary", "k", "AP8="), ("Plain", "p", None)]


def test_a_key_name_with_a_double_quote_leaves_its_key_column_empty(tmp_path):
    path = tmp_path / "quote.db"
    with Engine(str(path)) as engine:
        engine.create_table(
            TableName="Quoted",
            KeySchema=[{"AttributeName": 'we"ird', "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": 'we"ird', "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        engine.put_item(TableName="Quoted", Item={'we"ird': {"S": "v"}})
    ((table, pk, sk, _, item),) = _rows(path)
    assert (table, pk, sk, json.loads(item)) == ("Quoted", None, None, {'we"ird': {"S": "v"}})


def test_an_outdated_view_is_replaced_when_the_engine_opens_the_file(written):
    path, _ = written
    with sqlite3.connect(path) as conn:
        conn.execute("DROP VIEW st_items_json")
        conn.execute("CREATE VIEW st_items_json AS SELECT 1 AS stale")
    Engine(str(path)).close()
    assert [row[0] for row in _rows(path)] == ["Numbers", "Plain"]


@pytest.mark.skipif(shutil.which("sqlite3") is None, reason="the sqlite3 command-line shell is not installed")
def test_the_sqlite3_shell_reads_the_view(written):
    path, stored = written
    select = "SELECT table_name, partition_key, sort_key, item FROM st_items_json"
    shell = subprocess.run(
        ["sqlite3", "-json", str(path), select],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    rows = {row["table_name"]: row for row in json.loads(shell.stdout)}
    assert json.loads(rows["Numbers"]["item"]) == item_to_json(stored)
    assert (rows["Numbers"]["partition_key"], rows["Numbers"]["sort_key"]) == ("USER#1", "10.5")
    assert rows["Plain"]["sort_key"] is None
    refused = subprocess.run(
        ["sqlite3", str(path), "INSERT INTO st_items_json VALUES ('a', 'b', 'c', 1, '{}')"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert refused.returncode == 1
    assert "cannot modify st_items_json because it is a view" in refused.stderr
