"""``Engine(path, read_only=True)``: reading a database file never changes it.

Every test hashes the file (bytes and modification time) before and after, on real SQLite files: the reads
all work, every write is refused with AccessDeniedException naming the file, no background work starts (an
expired item stays readable), no schema is created or upgraded, no file is created for a missing name, and
a file that cannot be written -- read-only directory, immutable file -- can still be read.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from draws import examples
from singletable.engine import DynamoDBError, Engine
from singletable.engine._storage.migration import (
    NotASingletableDatabase,
    UnsupportedSchemaVersion,
    UpgradeNeeded,
)

TABLE = "things"
NOW = int(time.time())


def _key(name: str, kind: str) -> dict[str, str]:
    return {"AttributeName": name, "KeyType": kind}


def make_database(path: Path, *, items: int = 50, expired: int = 5) -> Path:
    """A closed file: a table with a GSI, an INCLUDE LSI, a stream, tags and TTL on ``exp``; ``expired`` of
    its items expired long ago (never swept: the writer's sweeper is kept from running)."""
    with Engine(str(path), ttl_sweep_interval=3600) as engine:
        engine.create_table(
            TableName=TABLE,
            KeySchema=[_key("PK", "HASH"), _key("SK", "RANGE")],
            AttributeDefinitions=[
                {"AttributeName": n, "AttributeType": t} for n, t in (("PK", "S"), ("SK", "S"), ("G", "S"))
            ]
            + [{"AttributeName": "L", "AttributeType": "N"}],
            BillingMode="PAY_PER_REQUEST",
            GlobalSecondaryIndexes=[
                {
                    "IndexName": "byG",
                    "KeySchema": [_key("G", "HASH")],
                    "Projection": {"ProjectionType": "ALL"},
                }
            ],
            LocalSecondaryIndexes=[
                {
                    "IndexName": "byL",
                    "KeySchema": [_key("PK", "HASH"), _key("L", "RANGE")],
                    "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["v"]},
                }
            ],
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"},
            Tags=[{"Key": "team", "Value": "core"}],
        )
        for n in range(items):
            engine.put_item(TableName=TABLE, Item=item(n, expired=n < expired))
        engine.update_time_to_live(
            TableName=TABLE, TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"}
        )
    return path


def item(n: int, *, expired: bool = False) -> dict[str, Any]:
    return {
        "PK": {"S": f"p{n % 5}"},
        "SK": {"S": f"s{n:04}"},
        "G": {"S": "g"},
        "L": {"N": str(n)},
        "v": {"S": f"value {n}"},
        "exp": {"N": str(NOW - 86400 if expired else NOW + 86400)},
    }


def fingerprint(path: Path) -> tuple[str, int, list[str]]:
    """The file's hash and mtime, and which files sit beside it."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return digest, path.stat().st_mtime_ns, sorted(os.listdir(path.parent))


@pytest.fixture
def database(tmp_path: Path) -> Path:
    return make_database(tmp_path / "app.db")


def read_everything(engine: Engine) -> dict[str, Any]:
    """Every kind of read an engine answers, on the test table."""
    key = {"PK": {"S": "p0"}, "SK": {"S": "s0000"}}
    description = engine.describe_table(TableName=TABLE)["Table"]
    stream = engine.describe_stream(StreamArn=description["LatestStreamArn"])["StreamDescription"]
    iterator = engine.get_shard_iterator(
        StreamArn=description["LatestStreamArn"],
        ShardId=stream["Shards"][0]["ShardId"],
        ShardIteratorType="TRIM_HORIZON",
    )["ShardIterator"]
    return {
        "tables": engine.list_tables()["TableNames"],
        "get": engine.get_item(TableName=TABLE, Key=key)["Item"],
        "scan": engine.scan(TableName=TABLE)["Count"],
        "gsi": engine.query(
            TableName=TABLE,
            IndexName="byG",
            KeyConditionExpression="G = :g",
            ExpressionAttributeValues={":g": {"S": "g"}},
        )["Count"],
        "lsi": engine.query(
            TableName=TABLE,
            IndexName="byL",
            KeyConditionExpression="PK = :p",
            ExpressionAttributeValues={":p": {"S": "p0"}},
        )["Items"][0],
        "batch": len(engine.batch_get_item(RequestItems={TABLE: {"Keys": [key]}})["Responses"][TABLE]),
        "transact": engine.transact_get_items(TransactItems=[{"Get": {"TableName": TABLE, "Key": key}}]),
        "partiql": engine.execute_statement(Statement=f"SELECT * FROM \"{TABLE}\" WHERE PK = 'p1'")["Items"],
        "ttl": engine.describe_time_to_live(TableName=TABLE)["TimeToLiveDescription"],
        "tags": engine.list_tags_of_resource(ResourceArn=description["TableArn"])["Tags"],
        "records": len(engine.get_records(ShardIterator=iterator)["Records"]),
    }


def test_every_read_works_and_the_file_is_unchanged(database: Path) -> None:
    with Engine(str(database)) as writer:
        writer.background.stop()  # the writer's sweeper would delete the expired items
        expected = read_everything(writer)
    before = fingerprint(database)
    with Engine(str(database), read_only=True) as engine:
        assert read_everything(engine) == expected
        assert expected["scan"] == 50  # the 5 expired items are still there, as DynamoDB shows them
    assert fingerprint(database) == before


def test_no_background_work_starts_and_expired_items_stay(database: Path) -> None:
    before = fingerprint(database)
    running = set(threading.enumerate())  # other engines of this process (other tests) may have theirs
    with Engine(str(database), read_only=True, ttl_sweep_interval=0.01) as engine:
        time.sleep(0.2)  # ten sweeps' worth, had a sweeper started
        names = {thread.name for thread in set(threading.enumerate()) - running}
        assert not {n for n in names if n.startswith(("singletable-ttl", "singletable-checkpoint"))}
        assert engine.scan(TableName=TABLE)["Count"] == 50
    assert fingerprint(database) == before


WRITES: list[tuple[str, dict[str, Any]]] = [
    ("PutItem", {"TableName": TABLE, "Item": item(999)}),
    (
        "UpdateItem",
        {
            "TableName": TABLE,
            "Key": {"PK": {"S": "p0"}, "SK": {"S": "s0000"}},
            "UpdateExpression": "SET v = :v",
            "ExpressionAttributeValues": {":v": {"S": "x"}},
        },
    ),
    ("DeleteItem", {"TableName": TABLE, "Key": {"PK": {"S": "p0"}, "SK": {"S": "s0000"}}}),
    ("BatchWriteItem", {"RequestItems": {TABLE: [{"PutRequest": {"Item": item(998)}}]}}),
    ("TransactWriteItems", {"TransactItems": [{"Put": {"TableName": TABLE, "Item": item(997)}}]}),
    (
        "CreateTable",
        {
            "TableName": "other",
            "KeySchema": [_key("K", "HASH")],
            "AttributeDefinitions": [{"AttributeName": "K", "AttributeType": "S"}],
            "BillingMode": "PAY_PER_REQUEST",
        },
    ),
    ("DeleteTable", {"TableName": TABLE}),
    (
        "UpdateTable",
        {
            "TableName": TABLE,
            "BillingMode": "PROVISIONED",
            "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
        },
    ),
    (
        "UpdateTimeToLive",
        {"TableName": TABLE, "TimeToLiveSpecification": {"Enabled": False, "AttributeName": "exp"}},
    ),
    (
        "TagResource",
        {
            "ResourceArn": f"arn:aws:dynamodb:us-east-1:123456789012:table/{TABLE}",
            "Tags": [{"Key": "a", "Value": "b"}],
        },
    ),
    (
        "UntagResource",
        {"ResourceArn": f"arn:aws:dynamodb:us-east-1:123456789012:table/{TABLE}", "TagKeys": ["team"]},
    ),
    ("ExecuteStatement", {"Statement": f"INSERT INTO \"{TABLE}\" VALUE {{'PK': 'x', 'SK': 'y'}}"}),
    ("ExecuteStatement", {"Statement": f"DELETE FROM \"{TABLE}\" WHERE PK = 'p0' AND SK = 's0000'"}),
    (
        "BatchExecuteStatement",
        {"Statements": [{"Statement": f"UPDATE \"{TABLE}\" SET v = 'x' WHERE PK = 'p0' AND SK = 's0000'"}]},
    ),
    (
        "ExecuteTransaction",
        {"TransactStatements": [{"Statement": f"DELETE FROM \"{TABLE}\" WHERE PK = 'p0' AND SK = 's0000'"}]},
    ),
]


@pytest.mark.parametrize(("operation", "params"), WRITES, ids=[f"{o}-{i}" for i, (o, _) in enumerate(WRITES)])
def test_every_write_is_refused_with_a_clear_error(database: Path, operation: str, params: dict) -> None:
    before = fingerprint(database)
    with Engine(str(database), read_only=True) as engine:
        answer: Any = None
        try:
            answer = engine.execute(operation, params)
        except DynamoDBError as error:
            assert error.code == "AccessDeniedException"
            assert error.message.endswith(
                f"refused: the database {database} is opened read-only, so nothing can be written to it"
            )
        if answer is not None:  # BatchExecuteStatement answers each statement's error in its list
            assert answer["Responses"][0]["Error"]["Code"] == "AccessDeniedException"
        assert engine.scan(TableName=TABLE)["Count"] == 50
    assert fingerprint(database) == before


def test_a_ttl_sweep_is_refused(database: Path) -> None:
    with Engine(str(database), read_only=True) as engine, pytest.raises(DynamoDBError) as refused:
        engine.expire_items()
    assert refused.value.code == "AccessDeniedException"
    assert refused.value.message.startswith("A TTL sweep refused: the database")


def test_a_missing_file_is_not_created(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no such database file"):
        Engine(str(tmp_path / "typo.db"), read_only=True)
    assert os.listdir(tmp_path) == []
    with pytest.raises(ValueError, match="an existing database file"):
        Engine(":memory:", read_only=True)
    with pytest.raises(IsADirectoryError):
        Engine(str(tmp_path), read_only=True)


def test_a_sqlite_file_singletable_did_not_write(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (a)")
    before = fingerprint(path)
    with pytest.raises(NotASingletableDatabase, match="not a singletable database"):
        Engine(str(path), read_only=True)
    empty = tmp_path / "empty.db"
    empty.touch()
    with pytest.raises(NotASingletableDatabase):
        Engine(str(empty), read_only=True)
    assert empty.stat().st_size == 0
    assert fingerprint(path)[:2] == before[:2]


def _set_version(path: Path, version: str) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE st_meta SET value = ? WHERE key = 'schema_version'", (version,))
    conn.close()


@pytest.mark.parametrize(
    ("version", "error", "words"),
    [
        (
            "1",
            UpgradeNeeded,
            "version 1, written by an older singletable; reading it needs a one-time upgrade",
        ),
        ("3", UnsupportedSchemaVersion, "version 3, written by a newer singletable"),
    ],
)
def test_another_layout_is_never_upgraded(database: Path, version: str, error: type, words: str) -> None:
    _set_version(database, version)
    before = fingerprint(database)
    with pytest.raises(error, match=words):
        Engine(str(database), read_only=True)
    assert fingerprint(database) == before


def _chattr(flag: str, *paths: Path) -> bool:
    """``chattr flag`` (+i / -i): True when it took (root, on a filesystem that keeps the attribute)."""
    if os.geteuid() != 0 or shutil.which("chattr") is None:
        return False
    done = subprocess.run(["chattr", flag, *map(str, paths)], capture_output=True)
    return done.returncode == 0


@pytest.fixture
def locked_directory(tmp_path: Path):
    """A database in a directory nothing can create files in: 0555, and immutable when we are root (root
    ignores permissions). Skipped where neither holds."""
    directory = tmp_path / "locked"
    directory.mkdir()
    path = make_database(directory / "app.db")
    path.chmod(0o444)
    directory.chmod(0o555)
    immutable = _chattr("+i", path, directory)
    try:
        if not immutable and os.access(directory, os.W_OK):
            pytest.skip("cannot make a directory read-only here (root without chattr)")
        yield path
    finally:
        if immutable:
            _chattr("-i", path, directory)
        directory.chmod(0o755)
        path.chmod(0o644)


def test_a_file_in_a_read_only_directory_can_be_read(locked_directory: Path) -> None:
    before = fingerprint(locked_directory)
    with Engine(str(locked_directory), read_only=True) as engine:
        assert engine.storage._opening.immutable  # no -shm can be made: read without locks
        assert engine.scan(TableName=TABLE)["Count"] == 50
        with pytest.raises(DynamoDBError, match="opened read-only"):
            engine.put_item(TableName=TABLE, Item=item(1000))
    assert fingerprint(locked_directory) == before


def test_an_immutable_file_in_a_writable_directory_can_be_read(database: Path) -> None:
    if not _chattr("+i", database):
        pytest.skip("chattr +i needs root and a filesystem that keeps it")
    try:
        before = hashlib.sha256(database.read_bytes()).hexdigest()
        with Engine(str(database), read_only=True) as engine:
            assert engine.scan(TableName=TABLE)["Count"] == 50
        assert hashlib.sha256(database.read_bytes()).hexdigest() == before
    finally:
        _chattr("-i", database)


def test_a_wal_holding_changes_in_a_locked_directory_is_an_error_not_a_stale_read(tmp_path: Path) -> None:
    directory = tmp_path / "locked"
    directory.mkdir()
    path = make_database(directory / "app.db")
    conn = sqlite3.connect(path, isolation_level=None)  # a writer killed before its WAL was checkpointed
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute("INSERT INTO st_meta (key, value) VALUES ('note', 'a change still in the WAL')")
    shutil.copy(path.with_name("app.db-wal"), tmp_path / "wal")
    conn.close()
    shutil.copy(tmp_path / "wal", path.with_name("app.db-wal"))
    assert path.with_name("app.db-wal").stat().st_size > 0
    assert not path.with_name("app.db-shm").exists()
    directory.chmod(0o555)
    immutable = _chattr("+i", directory)
    try:
        if not immutable and os.access(directory, os.W_OK):
            pytest.skip("cannot make a directory read-only here (root without chattr)")
        with pytest.raises(sqlite3.OperationalError, match="holds changes not yet in the file"):
            Engine(str(path), read_only=True)
    finally:
        if immutable:
            _chattr("-i", directory)
        directory.chmod(0o755)


def test_reading_beside_a_live_writer_sees_its_commits(database: Path) -> None:
    with Engine(str(database), ttl_sweep_interval=3600) as writer:
        writer.put_item(TableName=TABLE, Item=item(500))
        with Engine(str(database), read_only=True) as reader:
            assert reader.scan(TableName=TABLE)["Count"] == 51
            writer.put_item(TableName=TABLE, Item=item(501))
            assert reader.scan(TableName=TABLE)["Count"] == 52
        writer.put_item(TableName=TABLE, Item=item(502))  # the writer goes on, its side files intact
        assert writer.scan(TableName=TABLE)["Count"] == 53


def test_side_files_it_made_are_removed(database: Path) -> None:
    assert sorted(os.listdir(database.parent)) == ["app.db"]
    with Engine(str(database), read_only=True) as engine:
        engine.scan(TableName=TABLE)
    assert sorted(os.listdir(database.parent)) == ["app.db"]


OPERATIONS = st.sampled_from([w for w in WRITES] + [("Scan", {"TableName": TABLE})])


@settings(
    max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(OPERATIONS, min_size=1, max_size=8), st.booleans())
def test_any_sequence_of_requests_leaves_the_file_as_it_was(
    database: Path, calls: list, consistent: bool
) -> None:
    """Whatever mix of reads and writes arrives, in whatever order: reads answer, writes are refused, the
    file is byte for byte what it was."""
    before = fingerprint(database)
    with Engine(str(database), read_only=True) as engine:
        for operation, params in calls:
            if operation == "Scan":
                assert engine.scan(**params, ConsistentRead=consistent)["Count"] == 50
                continue
            try:
                answer = engine.execute(operation, params)
            except DynamoDBError as error:
                assert error.code == "AccessDeniedException"
            else:
                assert answer["Responses"][0]["Error"]["Code"] == "AccessDeniedException"
    assert fingerprint(database) == before
