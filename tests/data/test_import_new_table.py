"""Importing into a table the import creates: built CREATING, checked, then ACTIVE.

The same source imported this way and the way an existing table is loaded (``sorted_build=False``: chunks
through PutItem's write path) must leave the same rows -- items and index entries, byte for byte -- and
refuse the same lines with the same file, line, key and reason. Meanwhile the table is CREATING to every
other client (engine, ``serve``), and a process killed mid-import leaves it CREATING, never usable, until
the import runs again or DeleteTable removes it.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.config import Config
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from draws import examples
from serving import ServerProcess
from singletable.data import TransferError, import_table
from singletable.data._import_reader import BATCH_ITEMS, QUEUED
from singletable.data._json_items import item_to_json
from singletable.data._writers import S3LayoutWriter
from singletable.engine import DynamoDBError, Engine
from singletable.engine.shared import (
    ImportCatalog,
    ImportUnverified,
    abandon_import,
    begin_import,
    finish_import,
    staged_rows,
)

ROOT = Path(__file__).resolve().parents[2]

SCHEMA: dict[str, Any] = {
    "Table": {
        "TableName": "orders",
        "KeySchema": [
            {"AttributeName": "PK", "KeyType": "HASH"},
            {"AttributeName": "SK", "KeyType": "RANGE"},
        ],
        "AttributeDefinitions": [
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "S"},
            {"AttributeName": "G1", "AttributeType": "S"},
            {"AttributeName": "G1S", "AttributeType": "N"},
            {"AttributeName": "G2", "AttributeType": "B"},
        ],
        "BillingModeSummary": {"BillingMode": "PAY_PER_REQUEST"},
        "GlobalSecondaryIndexes": [
            {
                "IndexName": "byG1",
                "KeySchema": [
                    {"AttributeName": "G1", "KeyType": "HASH"},
                    {"AttributeName": "G1S", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            },
            {
                "IndexName": "byG2",
                "KeySchema": [{"AttributeName": "G2", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            },
            {
                "IndexName": "byG1Include",
                "KeySchema": [{"AttributeName": "G1", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["m"]},
            },
        ],
    }
}
TABLE = "orders"
PARAMS = {
    "TableName": TABLE,
    "KeySchema": SCHEMA["Table"]["KeySchema"],
    "AttributeDefinitions": SCHEMA["Table"]["AttributeDefinitions"],
    "GlobalSecondaryIndexes": SCHEMA["Table"]["GlobalSecondaryIndexes"],
    "BillingMode": "PAY_PER_REQUEST",
}


def rows(db: Path) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Every stored item and index entry of the file's one table, byte for byte (table ids aside)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        items = conn.execute("SELECT hash, pk, sk, size, item FROM st_items ORDER BY hash, pk, sk").fetchall()
        entries = conn.execute(
            "SELECT index_id, hash, pk, sk, tpk, tsk, thash, size, item FROM st_index_entries"
            " ORDER BY index_id, hash, pk, sk, tpk, tsk"
        ).fetchall()
    finally:
        conn.close()
    return items, entries


def refusals(path: Path) -> list[tuple[str, int, str, str]]:
    if not path.exists():
        return []
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return sorted((r["file"], r["line"], r["key"], r["error"]) for r in lines)


def write_jsonl(path: Path, items: list[Any]) -> Path:
    with path.open("w") as out:
        for item in items:
            out.write((item if isinstance(item, str) else json.dumps(item_to_json(item))) + "\n")
    return path


def both_ways(tmp: Path, source: Path, fmt: str, on_error: str = "reject") -> tuple[Any, Any]:
    """Import ``source`` built CREATING and loaded in chunks; each side's summary, rows and refusals."""
    sides = []
    for sorted_build in (True, False):
        name = "built" if sorted_build else "chunked"
        db, rejected = tmp / f"{name}.db", tmp / f"{name}.rejects.jsonl"
        summary = import_table(
            str(db),
            TABLE,
            source,
            format=fmt,
            schema=SCHEMA,
            on_error=on_error,
            reject_file=rejected,
            checkpoint=tmp / f"{name}.checkpoint",
            sorted_build=sorted_build,
        )
        counts = (summary.items, summary.rejected, summary.read, summary.overwritten)
        sides.append((counts, rows(db), refusals(rejected)))
    return sides[0], sides[1]


# -- the same rows as the chunked load ----------------------------------------------------------------------

_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_number = st.integers(-(10**6), 10**6).map(lambda n: {"N": str(n)}) | st.sampled_from(
    [{"N": "1.50"}, {"N": "-0"}, {"N": "1e3"}, {"N": "not a number"}, {"N": "1" * 39}]
)
_scalar = st.one_of(
    _text.map(lambda s: {"S": s}),
    _number,
    st.binary(max_size=6).map(lambda b: {"B": b}),
    st.booleans().map(lambda b: {"BOOL": b}),
    st.just({"NULL": True}),
    st.lists(_text, min_size=1, max_size=3, unique=True).map(lambda s: {"SS": s}),
    st.lists(st.binary(min_size=1, max_size=3), min_size=1, max_size=3, unique=True).map(lambda b: {"BS": b}),
)
_value = st.recursive(
    _scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda v: {"L": v}),
        st.dictionaries(_text, inner, max_size=3).map(lambda m: {"M": m}),
    ),
    max_leaves=6,
)
# Index key attributes: right types, wrong types, empty strings and binaries, or absent.
_g1 = st.one_of(st.none(), st.just({"S": ""}), _text.map(lambda s: {"S": s}), _number)
_g1s = st.one_of(st.none(), _number, st.just({"S": "5"}))
_g2 = st.one_of(
    st.none(), st.just({"B": b""}), st.binary(max_size=4).map(lambda b: {"B": b}), st.just({"S": "x"})
)


@st.composite
def _item(draw: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "PK": draw(st.sampled_from([{"S": "a"}, {"S": "b"}, {"S": ""}, {"N": "1"}, {"S": "c" * 3000}])),
        "SK": {"S": draw(st.sampled_from(["1", "2", "3", "é"]))},  # few keys: replaced items
    }
    for name, strategy in (("G1", _g1), ("G1S", _g1s), ("G2", _g2)):
        value = draw(strategy)
        if value is not None:
            item[name] = value
    item.update(draw(st.dictionaries(st.sampled_from(["m", "x", "y"]), _value, max_size=2)))
    if draw(st.booleans()) and draw(st.booleans()):
        item["big"] = {"S": "z" * 400_000}  # over the item size limit
    return item


_line = st.one_of(
    _item(),
    _item(),
    _item(),
    st.sampled_from(
        [
            '{"PK": {"S": "a"}',
            "[1, 2]",
            '{"PK": "plain", "SK": {"S": "1"}}',
            "",
            '{"PK": {"S": "a"}, "SK": {"S": "9"}, "b": {"\\u0042": "AAE="}, "G2": {"B" : "AQ=="}}',
            '{"Item": {"PK": {"S": "b"}, "SK": {"S": "9"}, "n": {"N": "01.50"}}}',
            '{"PK": {"S": "b"}, "SK": {"S": "8"}, "z": {"NULL": false}}',
            '{"PK": {"S": "b"}, "SK": {"S": "7"}, "s": {"SS": ["a", "a"]}}',
        ]
    ),
)


@settings(max_examples=examples(12), deadline=None, suppress_health_check=list(HealthCheck))
@given(lines=st.lists(_line, min_size=1, max_size=25))
def test_built_table_holds_what_the_chunked_load_leaves(tmp_path_factory: Any, lines: list[Any]) -> None:
    tmp = tmp_path_factory.mktemp("same")
    source = write_jsonl(tmp / "source.jsonl", lines)
    built, chunked = both_ways(tmp, source, "jsonl")
    assert built == chunked


def test_lines_read_as_parsed_or_converted_give_the_same_rows(tmp_path: Path) -> None:
    """Binary spelled with a \\u escape, the Item wrapper, numbers to normalize, refusals of every layer."""
    lines = [
        '{"PK": {"S": "a"}, "SK": {"S": "1"}, "b": {"\\u0042": "AAE="}, "G2": {"B" : "AQ=="}}',
        '{"PK": {"S": "a"}, "SK": {"S": "2"}, "m": {"M": {"x": {"BS": ["AQ==", "Ag=="]}}}}',
        '{"Item": {"PK": {"S": "b"}, "SK": {"S": "1"}, "n": {"N": "01.50"}, "G1S": {"N": "-0"}}}',
        '{"PK": {"S": "b"}, "SK": {"S": "2"}, "z": {"NULL": false}}',
        '{"PK": {"S": "b"}, "SK": {"S": "3"}, "s": {"SS": ["a", "a"]}}',
        '{"PK": {"S": "b"}, "SK": {"S": "4"}, "s": {"X": "a"}}',
        '{"PK": {"S": "b"}, "SK": {"S": "5"}, "s": {"N": 5}}',
        '{"PK": {"S": "b"}, "SK": {"S": "6"}, "G2": {"S": "not binary"}}',
        '{"PK": {"S": "\\u00e9"}, "SK": {"S": "7"}, "BOOL": {"BOOL": true}}',
    ]
    built, chunked = both_ways(tmp_path, write_jsonl(tmp_path / "s.jsonl", lines), "jsonl")
    assert built == chunked
    (items, rejected, _read, _overwritten), (stored, _entries), _refused = built
    assert (items, rejected) == (4, 5)
    assert [row[4] for row in stored if row[1] == b"a" and row[2] == b"1"] == [
        b'\x01{"PK":{"S":"a"},"SK":{"S":"1"},"b":{"B":"AAE="},"G2":{"B":"AQ=="}}'
    ]


@pytest.mark.parametrize("fmt", ["dynamodb", "csv", "jsonl"])
def test_every_format_builds_what_the_chunked_load_leaves(tmp_path: Path, fmt: str) -> None:
    items = [
        {
            "PK": {"S": f"user#{i % 7}"},
            "SK": {"S": f"{i:04d}"},
            "G1": {"S": f"day#{i % 3}"},
            "G1S": {"N": str(i)},
            "G2": {"B": bytes([i % 5])},
            "m": {"M": {"n": {"M": {"deep": {"NS": ["0.5", str(i)]}}}, "s": {"SS": ["x", "y"]}}},
        }
        for i in range(300)
    ]
    items += [dict(items[3], m={"S": "replaced"}), {"PK": {"S": "x"}, "SK": {"S": "1"}, "G1": {"N": "7"}}]
    if fmt == "dynamodb":
        writer = S3LayoutWriter(tmp_path / "export", {"TableName": TABLE}, items_per_file=100)
        for item in items:
            writer.write(item)
        source = writer.close()
    elif fmt == "csv":
        names = sorted({name for item in items for name in item})
        with (tmp_path / "source.csv").open("w", newline="") as out:
            import csv

            csv_out = csv.writer(out)
            csv_out.writerow(names)
            for item in items:
                value_json = item_to_json(item)
                csv_out.writerow([json.dumps(value_json[n]) if n in item else "" for n in names])
        source = tmp_path / "source.csv"
    else:
        source = write_jsonl(tmp_path / "source.jsonl", items)
    built, chunked = both_ways(tmp_path, source, fmt)
    assert built == chunked
    (items_, rejected, read, overwritten), (stored, entries), refused = built
    assert (items_, rejected, read, overwritten) == (301, 1, 302, 1)
    assert len(stored) == 300 and len(entries) == 300 * 3
    assert [r[2] for r in refused] == ['(key PK="x", SK="1")']
    assert "Type mismatch for Index Key G1 Expected: S Actual: N IndexName: byG1" in refused[0][3]


# -- refusals: file, line, key ------------------------------------------------------------------------------


def test_a_bad_line_stops_the_import_after_the_lines_before_it(tmp_path: Path) -> None:
    """As an import into an existing table does: committed up to the line, resumable from a checkpoint."""
    source = write_jsonl(
        tmp_path / "s.jsonl",
        [{"PK": {"S": "a"}, "SK": {"S": "1"}}, {"PK": {"S": "a"}, "SK": {"S": "2"}, "G1S": {"S": "x"}}],
    )
    db = tmp_path / "t.db"
    with pytest.raises(TransferError) as raised:
        import_table(str(db), TABLE, source, format="jsonl", schema=SCHEMA)
    assert str(raised.value) == (
        f'{source} line 2 (key PK="a", SK="2"): ValidationException: One or more parameter values were '
        "invalid: Type mismatch for Index Key G1S Expected: N Actual: S IndexName: byG1"
    )
    assert raised.value.summary.items == 1
    with Engine(str(db)) as engine:
        assert engine.describe_table(TableName=TABLE)["Table"]["TableStatus"] == "ACTIVE"
        assert engine.scan(TableName=TABLE)["Items"] == [{"PK": {"S": "a"}, "SK": {"S": "1"}}]
    assert raised.value.checkpoint is not None and raised.value.checkpoint.exists()  # resumable, as in chunks


def test_a_line_that_is_not_json_is_named_and_rejected(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "s.jsonl", [{"PK": {"S": "a"}, "SK": {"S": "1"}}, "{oops"])
    summary = import_table(
        str(tmp_path / "t.db"), TABLE, source, format="jsonl", schema=SCHEMA, on_error="reject"
    )
    assert (summary.items, summary.rejected, summary.read) == (1, 1, 2)
    (rejected,) = [
        json.loads(line) for line in Path(f"{source}.{TABLE}.rejects.jsonl").read_text().splitlines()
    ]
    assert (rejected["file"], rejected["line"], rejected["key"], rejected["text"]) == (
        str(source),
        2,
        "",
        "{oops",
    )
    assert rejected["error"].startswith("not JSON")


# -- CREATING to every other client -------------------------------------------------------------------------


def _expect(code: str, call: Any, **params: Any) -> DynamoDBError:
    with pytest.raises(DynamoDBError) as raised:
        call(**params)
    assert raised.value.code == code, raised.value
    return raised.value


def test_a_table_being_imported_is_creating_and_unusable(tmp_path: Path) -> None:
    db = str(tmp_path / "t.db")
    with Engine(db) as importer, Engine(db) as other:
        begin_import(importer, dict(PARAMS))
        assert other.describe_table(TableName=TABLE)["Table"]["TableStatus"] == "CREATING"
        assert other.list_tables()["TableNames"] == [TABLE]
        key = {"PK": {"S": "a"}, "SK": {"S": "1"}}
        _expect("ResourceNotFoundException", other.get_item, TableName=TABLE, Key=key)
        _expect("ResourceNotFoundException", other.put_item, TableName=TABLE, Item=key)
        _expect("ResourceNotFoundException", other.scan, TableName=TABLE)
        error = _expect("ResourceInUseException", other.delete_table, TableName=TABLE)
        assert (
            error.message
            == f"Attempt to change a resource which is still in use: Table is being created: {TABLE}"
        )
        _expect("ResourceInUseException", other.update_table, TableName=TABLE, BillingMode="PROVISIONED")
        _expect("ResourceInUseException", other.create_table, **PARAMS)
        finish_import(importer, TABLE)
        assert other.describe_table(TableName=TABLE)["Table"]["TableStatus"] == "ACTIVE"
        other.put_item(TableName=TABLE, Item=key)
        assert other.get_item(TableName=TABLE, Key=key)["Item"] == key


def test_serve_answers_for_a_table_being_imported_as_dynamodb_does(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    with Engine(str(db)) as importer:
        begin_import(importer, dict(PARAMS))
        server = ServerProcess(db)
        try:
            client = boto3.client(
                "dynamodb",
                endpoint_url=server.endpoint,
                region_name="us-east-1",
                aws_access_key_id="x",
                aws_secret_access_key="x",
                config=Config(retries={"max_attempts": 1}),
            )
            assert client.describe_table(TableName=TABLE)["Table"]["TableStatus"] == "CREATING"
            with pytest.raises(client.exceptions.ResourceNotFoundException):
                client.get_item(TableName=TABLE, Key={"PK": {"S": "a"}, "SK": {"S": "1"}})
            abandon_import(importer, TABLE)
            with pytest.raises(client.exceptions.ResourceNotFoundException):
                client.describe_table(TableName=TABLE)
        finally:
            server.stop()


def test_a_build_that_does_not_hold_what_was_staged_is_not_activated(tmp_path: Path) -> None:
    """A stray entry in the new table's index (written behind the import's back) fails the check: nothing
    of the build is committed and the table stays CREATING."""
    db = tmp_path / "t.db"
    with Engine(str(db)) as importer:
        description, _ = begin_import(importer, dict(PARAMS))
        catalog = ImportCatalog(description)
        item, entries = staged_rows(catalog, 0, {"PK": {"S": "a"}, "SK": {"S": "1"}, "G1": {"S": "g"}})
        importer.storage.stage_import_rows([item], entries)
        table_id, index_id = _ids(db)
        stray = sqlite3.connect(db)
        stray.execute(
            "INSERT INTO st_index_entries VALUES (?, ?, 1, x'00', x'00', x'00', x'00', 1, 1, x'7b7d')",
            (table_id, index_id),
        )
        stray.commit()
        stray.close()
        with pytest.raises(ImportUnverified) as raised:
            finish_import(importer, TABLE)
        assert str(raised.value) == (
            f"the import of {TABLE} did not build what it staged (index byG1Include: staged Tally(rows=1, "
            f"hashes={item[1]}, sizes=9, bytes=46), built Tally(rows=2, hashes={item[1] + 1}, sizes=10, "
            "bytes=48))"
        )
        assert importer.describe_table(TableName=TABLE)["Table"]["TableStatus"] == "CREATING"
        assert rows(db)[0] == []


def _ids(db: Path) -> tuple[int, int]:
    conn = sqlite3.connect(db)
    try:
        (description,) = conn.execute("SELECT description FROM st_tables").fetchone()
        table_id = conn.execute("SELECT table_id FROM st_tables").fetchone()[0]
    finally:
        conn.close()
    indexes = json.loads(description)["GlobalSecondaryIndexes"]
    return table_id, next(i["_IndexId"] for i in indexes if i["IndexName"] == "byG1Include")


# -- killed mid-import --------------------------------------------------------------------------------------


def _status(db: Path) -> str | None:
    with Engine(str(db)) as engine:
        try:
            return engine.describe_table(TableName=TABLE)["Table"]["TableStatus"]
        except DynamoDBError:
            return None


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


def _a_reader_is_reading(pid: int) -> bool:
    """Whether a process ``pid`` forked (still running its program: an import's reader) has read 64 KiB of
    its source (``rchar`` in /proc/PID/io): it is past its start, into the lines."""
    with open(f"/proc/{pid}/cmdline", "rb") as own:
        program = own.read()
    for entry in os.scandir("/proc"):
        try:
            with open(f"/proc/{entry.name}/stat") as stat, open(f"/proc/{entry.name}/cmdline", "rb") as line:
                if int(stat.read().rsplit(")", 1)[1].split()[1]) != pid or line.read() != program:
                    continue
            with open(f"/proc/{entry.name}/io") as io:
                read = next(int(row.split()[1]) for row in io if row.startswith("rchar:"))
        except (OSError, ValueError, IndexError, StopIteration):
            continue  # not a process, or gone meanwhile
        if read >= 64 * 1024:
            return True
    return False


def _many_lines(path: Path, count: int, *, sort_key_number: bool) -> Path:
    """``count`` items in DynamoDB JSON lines, spread over 500 partitions, written as text (quick)."""
    with path.open("w") as out:
        for i in range(count):
            number = f', "G1S": {{"N": "{i}"}}' if sort_key_number else ""
            out.write(f'{{"PK": {{"S": "p{i % 500}"}}, "SK": {{"S": "{i}"}}, "G1": {{"S": "g"}}{number}}}\n')
    return path


def test_a_killed_import_leaves_the_table_creating_and_a_rerun_replaces_it(tmp_path: Path) -> None:
    # Twelve of the reader's batches more than its queue holds: when the import dies as its reader begins on
    # the lines, the reader still has more to send than fits, so it waits on the full queue and must notice
    # alone.
    count = (QUEUED + 12) * BATCH_ITEMS
    source = _many_lines(tmp_path / "s.jsonl", count, sort_key_number=True)
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    db = tmp_path / "t.db"
    command = [sys.executable, "-m", "singletable", "import", str(db), TABLE, str(source)]
    command += ["--schema", str(tmp_path / "schema.json")]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    process = subprocess.Popen(command, env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while db.exists() is False or _status(db) != "CREATING":
            assert time.monotonic() < deadline and process.poll() is None, "the import never showed CREATING"
            time.sleep(0.05)
        while not _a_reader_is_reading(process.pid):
            assert time.monotonic() < deadline and process.poll() is None, "the import's reader never read"
            time.sleep(0.01)
        os.kill(process.pid, signal.SIGKILL)  # the importing process alone: its reader must go by itself
        process.wait()
        deadline = time.monotonic() + 30
        while _group_alive(process.pid):
            assert time.monotonic() < deadline, "the reader outlived its killed import"
            time.sleep(0.1)
    finally:
        if _group_alive(process.pid):
            os.killpg(process.pid, signal.SIGKILL)
    assert _status(db) == "CREATING"
    with Engine(str(db)) as engine:
        _expect("ResourceNotFoundException", engine.scan, TableName=TABLE)
    summary = import_table(str(db), TABLE, source, format="jsonl", schema=SCHEMA)
    assert summary.items == count
    assert summary.warnings == [
        f"{TABLE} was left CREATING by an import that stopped: imported again from the start"
    ]
    with Engine(str(db)) as engine:
        table = engine.describe_table(TableName=TABLE)["Table"]
        counts = {index["IndexName"]: index["ItemCount"] for index in table["GlobalSecondaryIndexes"]}
        assert (table["TableStatus"], table["ItemCount"]) == ("ACTIVE", count)
        assert counts == {"byG1": count, "byG2": 0, "byG1Include": count}


def test_ctrl_c_removes_the_table_and_says_nothing_was_imported(tmp_path: Path) -> None:
    source = _many_lines(tmp_path / "s.jsonl", 60_000, sort_key_number=False)
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    db = tmp_path / "t.db"
    command = [sys.executable, "-m", "singletable", "import", str(db), TABLE, str(source)]
    command += ["--schema", str(tmp_path / "schema.json")]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    process = subprocess.Popen(command, env=env, start_new_session=True, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while db.exists() is False or _status(db) != "CREATING":
            assert time.monotonic() < deadline and process.poll() is None, "the import never showed CREATING"
            time.sleep(0.05)
        os.killpg(process.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole group
        _, stderr = process.communicate(timeout=60)
    finally:
        if _group_alive(process.pid):
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130, stderr
    assert "nothing was imported: the import removed the table it was creating" in stderr
    assert _status(db) is None


def test_a_table_left_creating_by_a_dead_import_can_be_deleted(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    code = (
        "import sys, os; from singletable.engine import Engine;"
        "from singletable.engine.shared import begin_import;"
        f"e = Engine({str(db)!r}); begin_import(e, {PARAMS!r}); os._exit(0)"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    assert _status(db) == "CREATING"
    with Engine(str(db)) as engine:
        engine.delete_table(TableName=TABLE)
        assert engine.list_tables()["TableNames"] == []
