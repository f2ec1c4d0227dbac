"""Index entries carry their projected item: reads of an index, every write that must keep entries in step,
and the upgrade of a file whose entries held only keys (storage schema version 1).

The behaviour tests run on every backend (DynamoDB Local is the oracle for what an index returns); the
storage tests read the SQLite file directly and check that every entry holds exactly what its index projects
of its item, after every kind of write: PutItem, UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems,
the bulk load, TTL deletes and the backfill of a new index.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import orjson
import pytest

from backends import Backend
from singletable.engine import Engine
from singletable.engine import _attribute_values as codec
from singletable.engine._bulk_load import bulk_put
from singletable.engine._schema import TableSchema
from singletable.engine._storage.migration import UnsupportedSchemaVersion
from singletable.engine._write_path import index_entry


def _key(name: str, kind: str) -> dict[str, str]:
    return {"AttributeName": name, "KeyType": kind}


def _attr(name: str) -> dict[str, str]:
    return {"AttributeName": name, "AttributeType": "S"}


def _index(name: str, hash_name: str, range_name: str | None, projection: dict[str, Any]) -> dict[str, Any]:
    keys = [_key(hash_name, "HASH")] + ([_key(range_name, "RANGE")] if range_name else [])
    return {"IndexName": name, "KeySchema": keys, "Projection": projection}


INCLUDE_A = {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["a"]}


def create(ddb: Any, name: str, **extra: Any) -> None:
    """PK/SK with an ALL, an INCLUDE (a) and a KEYS_ONLY GSI and an INCLUDE (a) LSI."""
    ddb.create_table(
        TableName=name,
        KeySchema=[_key("PK", "HASH"), _key("SK", "RANGE")],
        AttributeDefinitions=[_attr(n) for n in ("PK", "SK", "G", "GS", "L")],
        GlobalSecondaryIndexes=[
            _index("all", "G", "GS", {"ProjectionType": "ALL"}),
            _index("inc", "G", None, INCLUDE_A),
            _index("keys", "G", "GS", {"ProjectionType": "KEYS_ONLY"}),
        ],
        LocalSecondaryIndexes=[_index("loc", "PK", "L", INCLUDE_A)],
        BillingMode="PAY_PER_REQUEST",
        **extra,
    )


def item(key: str, **attrs: str) -> dict[str, Any]:
    return {"PK": {"S": "p"}, "SK": {"S": key}, **{name: {"S": value} for name, value in attrs.items()}}


def on_index(ddb: Any, table: str, index: str, **params: Any) -> list[dict[str, Any]]:
    if index == "loc":
        condition, values = "PK = :v", {":v": {"S": "p"}}
    else:
        condition, values = "G = :v", {":v": {"S": "g"}}
    response = ddb.query(
        TableName=table,
        IndexName=index,
        KeyConditionExpression=condition,
        ExpressionAttributeValues=values,
        **params,
    )
    return sorted(response["Items"], key=lambda found: found.get("SK", {}).get("S", ""))


def test_an_update_of_a_projected_attribute_rewrites_the_entries(ddb: Backend, table_name: str) -> None:
    create(ddb, table_name)
    ddb.put_item(TableName=table_name, Item=item("1", G="g", GS="s", L="l", a="old", b="b"))
    key = {"PK": {"S": "p"}, "SK": {"S": "1"}}
    ddb.update_item(
        TableName=table_name,
        Key=key,
        UpdateExpression="SET a = :a, b = :b",
        ExpressionAttributeValues={":a": {"S": "new"}, ":b": {"S": "b2"}},
    )
    assert on_index(ddb, table_name, "all") == [item("1", G="g", GS="s", L="l", a="new", b="b2")]
    assert on_index(ddb, table_name, "inc") == [item("1", G="g", a="new")]
    assert on_index(ddb, table_name, "keys") == [item("1", G="g", GS="s")]
    assert on_index(ddb, table_name, "loc") == [item("1", L="l", a="new")]
    ddb.update_item(TableName=table_name, Key=key, UpdateExpression="REMOVE a")
    assert on_index(ddb, table_name, "inc") == [item("1", G="g")]
    assert on_index(ddb, table_name, "loc") == [item("1", L="l")]


def test_an_update_in_a_transaction_rewrites_the_entries(ddb: Backend, table_name: str) -> None:
    create(ddb, table_name)
    ddb.put_item(TableName=table_name, Item=item("1", G="g", L="l", a="old"))
    ddb.transact_write_items(
        TransactItems=[
            {
                "Update": {
                    "TableName": table_name,
                    "Key": {"PK": {"S": "p"}, "SK": {"S": "1"}},
                    "UpdateExpression": "SET a = :a",
                    "ExpressionAttributeValues": {":a": {"S": "new"}},
                }
            },
            {"Put": {"TableName": table_name, "Item": item("2", G="g", L="m", a="two", b="b")}},
        ]
    )
    assert on_index(ddb, table_name, "inc") == [item("1", G="g", a="new"), item("2", G="g", a="two")]
    assert on_index(ddb, table_name, "loc") == [item("1", L="l", a="new"), item("2", L="m", a="two")]


def test_a_local_index_fetches_what_it_does_not_project(ddb: Backend, table_name: str) -> None:
    create(ddb, table_name)
    whole = item("1", G="g", L="l", a="a", b="b")
    ddb.put_item(TableName=table_name, Item=whole)
    assert on_index(ddb, table_name, "loc") == [item("1", L="l", a="a")]
    assert on_index(ddb, table_name, "loc", Select="ALL_PROJECTED_ATTRIBUTES") == [item("1", L="l", a="a")]
    assert on_index(ddb, table_name, "loc", Select="ALL_ATTRIBUTES") == [whole]
    assert on_index(ddb, table_name, "loc", ProjectionExpression="b, a") == [
        {"b": {"S": "b"}, "a": {"S": "a"}}
    ]
    scanned = ddb.scan(TableName=table_name, IndexName="loc", Select="ALL_ATTRIBUTES")["Items"]
    assert scanned == [whole]
    assert ddb.scan(TableName=table_name, IndexName="inc")["Items"] == [item("1", G="g", a="a")]


# -- storage: every entry holds its index's projection of its item ---------------------------------------


def _expected_entries(conn: sqlite3.Connection) -> dict[tuple, tuple[int, dict[str, Any]]]:
    """What st_index_entries must hold, computed from st_items and the catalog."""
    expected = {}
    for table_id, description in conn.execute("SELECT table_id, description FROM st_tables"):
        schema = TableSchema.from_description(table_id, orjson.loads(description))
        rows = conn.execute("SELECT pk, sk, item FROM st_items WHERE table_id = ?", (table_id,)).fetchall()
        for pk, sk, data in rows:
            stored = codec.loads_item(data)
            for index in schema.indexes.values():
                entry = index_entry(schema, index, stored)
                if entry is None:
                    continue
                projected = schema.project_for_index(index, stored)
                expected[(table_id, index.index_id, *entry, pk, sk)] = (codec.item_size(projected), projected)
    return expected


def assert_entries_agree(path: str) -> int:
    with sqlite3.connect(path) as conn:
        actual = {
            (table_id, index_id, ipk, isk, tpk, tsk): (size, codec.loads_item(data))
            for table_id, index_id, ipk, isk, tpk, tsk, size, data in conn.execute(
                "SELECT table_id, index_id, pk, sk, tpk, tsk, size, item FROM st_index_entries"
            )
        }
        expected = _expected_entries(conn)
    assert actual == expected
    return len(actual)


def test_every_kind_of_write_keeps_the_entries_in_step(tmp_path: Path, monkeypatch) -> None:
    from singletable.engine import _backfill as backfill

    monkeypatch.setattr(backfill, "AUTO_START", False)
    clock = [1_800_000_000.0]
    path = str(tmp_path / "db.sqlite3")
    with Engine(path, clock=lambda: clock[0], ttl_sweep_interval=3600) as engine:
        create(
            engine, "tbl", StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
        )
        engine.update_time_to_live(
            TableName="tbl", TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"}
        )
        for n in range(6):
            engine.put_item(TableName="tbl", Item=item(str(n), G="g", GS=str(n), L=str(n), a="a", b="b"))
        key = {"PK": {"S": "p"}, "SK": {"S": "1"}}
        engine.update_item(
            TableName="tbl",
            Key=key,
            UpdateExpression="SET a = :v, GS = :v",
            ExpressionAttributeValues={":v": {"S": "x"}},
        )
        engine.update_item(TableName="tbl", Key=key, UpdateExpression="REMOVE G")  # leaves the GSIs
        engine.delete_item(TableName="tbl", Key={"PK": {"S": "p"}, "SK": {"S": "2"}})
        engine.batch_write_item(
            RequestItems={
                "tbl": [
                    {"PutRequest": {"Item": item("7", G="h", a="c")}},
                    {"DeleteRequest": {"Key": {"PK": {"S": "p"}, "SK": {"S": "3"}}}},
                ]
            }
        )
        engine.transact_write_items(
            TransactItems=[
                {
                    "Update": {
                        "TableName": "tbl",
                        "Key": {"PK": {"S": "p"}, "SK": {"S": "4"}},
                        "UpdateExpression": "SET a = :v",
                        "ExpressionAttributeValues": {":v": {"S": "t"}},
                    }
                },
                {"Delete": {"TableName": "tbl", "Key": {"PK": {"S": "p"}, "SK": {"S": "5"}}}},
            ]
        )
        assert (
            bulk_put(
                engine, "tbl", [item(f"b{n}", G="g", GS="s", L="l", a=str(n)) for n in range(50)]
            ).written
            == 50
        )
        engine.put_item(
            TableName="tbl", Item={**item("e", G="g", L="e", a="a"), "exp": {"N": str(int(clock[0]) - 5)}}
        )
        assert_entries_agree(path)
        assert engine.expire_items() == 1
        engine.update_table(
            TableName="tbl",
            AttributeDefinitions=[_attr("a")],
            GlobalSecondaryIndexUpdates=[
                {
                    "Create": _index(
                        "by_a", "a", None, {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["b"]}
                    )
                }
            ],
        )
        engine.put_item(TableName="tbl", Item=item("late", a="z", b="late"))  # indexed during the backfill
        engine.background.run_backfills()
        assert engine.query(
            TableName="tbl",
            IndexName="by_a",
            KeyConditionExpression="a = :a",
            ExpressionAttributeValues={":a": {"S": "z"}},
        )["Items"] == [item("late", a="z", b="late")]
    assert assert_entries_agree(path) > 150


# -- upgrading a file written with storage schema version 1 ----------------------------------------------

_VERSION_1_ENTRIES = """CREATE TABLE st_index_entries (
    table_id INTEGER NOT NULL,
    index_id INTEGER NOT NULL,
    hash INTEGER NOT NULL,
    pk BLOB NOT NULL,
    sk BLOB NOT NULL,
    tpk BLOB NOT NULL,
    tsk BLOB NOT NULL,
    thash INTEGER NOT NULL,
    size INTEGER NOT NULL,
    PRIMARY KEY (table_id, index_id, hash, pk, sk, tpk, tsk)
) WITHOUT ROWID"""


def _as_version_1(path: str) -> None:
    """Rewrite a closed file's index entries the way singletable's first storage schema held them."""
    with sqlite3.connect(path) as conn:
        conn.execute("ALTER TABLE st_index_entries RENAME TO current")
        conn.execute(_VERSION_1_ENTRIES)
        conn.execute(
            "INSERT INTO st_index_entries SELECT table_id, index_id, hash, pk, sk, tpk, tsk, thash, size"
            " FROM current"
        )
        conn.execute("DROP TABLE current")
        conn.execute("UPDATE st_meta SET value = '1' WHERE key = 'schema_version'")


def _every_index(engine: Engine) -> list[list[dict[str, Any]]]:
    return [on_index(engine, "tbl", index) for index in ("all", "inc", "keys", "loc")]


def test_a_version_1_file_is_upgraded_when_opened(tmp_path: Path) -> None:
    path = str(tmp_path / "v1.db")
    with Engine(path) as engine:
        create(engine, "tbl")
        for n in range(30):
            engine.put_item(
                TableName="tbl", Item=item(f"{n:02}", G="g", GS=str(n), L=str(n), a=str(n), b="b")
            )
        before = _every_index(engine)
    _as_version_1(path)
    with sqlite3.connect(path) as conn:
        assert [c[1] for c in conn.execute("PRAGMA table_info(st_index_entries)")][-1] == "size"
    with Engine(path) as engine:
        assert _every_index(engine) == before
        engine.put_item(TableName="tbl", Item=item("new", G="g", L="new", a="new"))
        assert item("new", G="g", a="new") in on_index(engine, "tbl", "inc")
    assert assert_entries_agree(path) == 4 * 30 + 2  # the new item has no GS: in "inc" and "loc" only
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT value FROM st_meta WHERE key = 'schema_version'").fetchone() == ("2",)
        with pytest.raises(sqlite3.IntegrityError, match="NOT NULL"):  # an older writer fails loudly
            conn.execute("INSERT INTO st_index_entries VALUES (9, 9, 0, x'', x'', x'', x'', 0, 0, NULL)")


def test_a_file_from_a_newer_singletable_is_refused(tmp_path: Path) -> None:
    path = str(tmp_path / "future.db")
    with Engine(path) as engine:
        create(engine, "tbl")
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE st_meta SET value = '3' WHERE key = 'schema_version'")
    message = (
        "this database has storage schema version 3, written by a newer singletable; "
        "this singletable reads versions up to 2. Upgrade singletable to open it."
    )
    with pytest.raises(UnsupportedSchemaVersion) as raised:
        Engine(path)
    assert str(raised.value) == message
    assert (raised.value.path, raised.value.version) == (path, 3)
    with sqlite3.connect(path) as conn:  # refused, not touched
        assert conn.execute("SELECT value FROM st_meta WHERE key = 'schema_version'").fetchone() == ("3",)
