"""A command that reads a database file never changes it, never creates one, and reads one it cannot write.

The source file has TTL on with items expired long ago (a writable open's sweeper would delete them) and
lacks the ``st_items_json`` view (a writable open recreates it, as for a file from another version): any
command that opened it for writing would change its bytes. Each read-only command is run on it, and the
file's hash, modification time and side files are compared before and after.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.data.look_support import run

from pk_sk_table import pk_sk_table
from singletable.data import TableSettings, open_target
from singletable.engine import Engine

TABLE = "orders"
NOW = int(time.time())


def make_source(path: Path, items: int, expired: int) -> Path:
    with Engine(str(path), ttl_sweep_interval=3600) as engine:
        engine.create_table(**pk_sk_table(TABLE, "N"))
        rows = [
            {
                "PK": {"S": f"user#{n % 40}"},
                "SK": {"N": str(n)},
                "exp": {"N": str(NOW - 3600 if n < expired else NOW + 86400)},
                "note": {"S": f"item {n}"},
            }
            for n in range(items)
        ]
        for start in range(0, items, 25):
            chunk = [{"PutRequest": {"Item": row}} for row in rows[start : start + 25]]
            engine.batch_write_item(RequestItems={TABLE: chunk})
        engine.update_time_to_live(
            TableName=TABLE, TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"}
        )
    with sqlite3.connect(path) as conn:  # as a file from another version: a writable open rewrites it
        conn.execute("DROP VIEW st_items_json")
    conn.close()
    return path


def fingerprint(path: Path) -> tuple[str, int, list[str]]:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return (
        digest,
        path.stat().st_mtime_ns,
        sorted(p for p in os.listdir(path.parent) if p.startswith(path.name)),
    )


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> Callable[[int], Path]:
    """A source of so many items (10 of them expired), built once for the module, as ``make_source`` builds
    one (which takes longer than most tests here): each test reads its own copy."""
    made: dict[int, Path] = {}

    def built(items: int) -> Path:
        if items not in made:
            made[items] = make_source(tmp_path_factory.mktemp("original") / "app.db", items, 10)
            assert os.listdir(made[items].parent) == ["app.db"]  # all of it in the file: a copy is whole
        return made[items]

    return built


def copy_of(original: Path, directory: Path) -> Path:
    directory.mkdir(exist_ok=True)
    return Path(shutil.copy2(original, directory / original.name))


@pytest.fixture
def source(original: Callable[[int], Path], tmp_path: Path) -> Path:
    return copy_of(original(300), tmp_path / "source")


READS = [
    ("tables", "{db}"),
    ("describe", "{db}", TABLE),
    ("describe", "{db}", TABLE, "--settings"),
    ("get", "{db}", TABLE, "PK=user#1", "SK=1"),
    ("query", "{db}", TABLE, "PK=user#1", "--json"),
    ("scan", "{db}", TABLE, "--jsonl"),
    ("count", "{db}", TABLE),
    ("export", "{db}", TABLE, "{out}/items.jsonl"),
    ("export", "{db}", TABLE, "{out}/items.csv"),
    ("export", "{db}", TABLE, "{out}/dump", "--segments", "3"),
    ("copy", "{db}", "{out}/copy.db"),
    ("diff", "singletable.examples.wavyblog.design", "{db}", "--table", TABLE),
]


@pytest.mark.parametrize("command", READS, ids=lambda c: " ".join(c[:1] + c[3:4]))
def test_a_reading_command_leaves_the_file_as_it_was(source: Path, tmp_path: Path, command) -> None:
    before = fingerprint(source)
    result = run(*(part.format(db=source, out=tmp_path) for part in command))
    assert result.exit_code in (0, 1) if command[0] == "diff" else result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    assert fingerprint(source) == before


def test_a_copy_carries_expired_items_it_has_not_deleted(
    original: Callable[[int], Path], tmp_path: Path
) -> None:
    """3,000 items, 10 of them expired: all 3,000 are copied and both sides count 3,000 -- DynamoDB returns
    an expired item until its TTL process deletes it, and reading never deletes. The destination gets the
    TTL at the end, and from then on expires the 10 as the source's own writer would."""
    db = copy_of(original(3000), tmp_path)
    before = fingerprint(db)
    result = run("copy", str(db), str(tmp_path / "copy.db"), "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert (summary["items"], summary["source_count"], summary["destination_count"]) == (3000, 3000, 3000)
    assert summary["counts_match"] is True and summary["warnings"] == []
    assert fingerprint(db) == before
    with open_target(str(tmp_path / "copy.db")) as copied:
        ttl = copied.call("DescribeTimeToLive", TableName=TABLE)["TimeToLiveDescription"]
        assert ttl == {"TimeToLiveStatus": "ENABLED", "AttributeName": "exp"}


MISTYPED = [
    ("tables", "{typo}"),
    ("describe", "{typo}", TABLE),
    ("get", "{typo}", TABLE, "PK=a", "SK=1"),
    ("query", "{typo}", TABLE, "PK=a"),
    ("scan", "{typo}", TABLE),
    ("count", "{typo}", TABLE),
    ("put", "{typo}", TABLE, '{{"PK": {{"S": "a"}}, "SK": {{"N": "1"}}}}'),
    ("delete", "{typo}", TABLE, "PK=a", "SK=1"),
    ("export", "{typo}", TABLE, "{dir}/out.jsonl"),
    ("import", "{typo}", TABLE, "{dir}/in.jsonl"),
    ("copy", "{typo}", "{dir}/copy.db"),
    ("diff", "singletable.examples.wavyblog.design", "{typo}"),
    ("ui", "{typo}", "--port", "1"),
    ("ui", "{typo}", "--port", "1", "--read-only", "--design", "singletable.examples.wavyblog.design"),
]


@pytest.mark.parametrize("command", MISTYPED, ids=lambda c: " ".join(c[:1] + c[4:5]))
def test_a_mistyped_file_is_named_and_never_created(tmp_path: Path, command) -> None:
    (tmp_path / "in.jsonl").write_text('{"PK": {"S": "a"}, "SK": {"N": "1"}}\n')
    typo = tmp_path / "ap.db"
    result = run(*(part.format(typo=typo, dir=tmp_path) for part in command))
    assert result.exit_code == (2 if command[0] == "diff" else 1), result.output
    assert (
        result.stderr == f"Error: no such database file: {typo} (a TARGET is a file or an http(s):// URL)\n"
    )
    assert sorted(os.listdir(tmp_path)) == ["in.jsonl"]


def test_import_and_copy_still_create_the_file_they_create_a_table_in(source: Path, tmp_path: Path) -> None:
    schema = tmp_path / "schema.json"
    with open_target(str(source), read_only=True) as opened:
        settings = TableSettings.capture(opened, TABLE, pytest.fail)
    schema.write_text(json.dumps(settings.to_json(TABLE)))
    (tmp_path / "in.jsonl").write_text('{"PK": {"S": "a"}, "SK": {"N": "1"}}\n')
    imported = run(
        "import", str(tmp_path / "new.db"), TABLE, str(tmp_path / "in.jsonl"), "--schema", str(schema)
    )
    assert imported.exit_code == 0, imported.output
    copied = run("copy", str(source), str(tmp_path / "other.db"))
    assert copied.exit_code == 0, copied.output
    assert (tmp_path / "new.db").exists() and (tmp_path / "other.db").exists()


def test_a_bad_schema_creates_no_file(tmp_path: Path) -> None:
    (tmp_path / "in.jsonl").write_text('{"PK": {"S": "a"}, "SK": {"N": "1"}}\n')
    result = run(
        "import", str(tmp_path / "new.db"), TABLE, str(tmp_path / "in.jsonl"), "--schema", "no_such_mod"
    )
    assert result.exit_code == 1
    assert result.stderr.startswith(
        "Error: schema no_such_mod: not a DescribeTable JSON file, and cannot import design module "
        "no_such_mod: ModuleNotFoundError: No module named 'no_such_mod'"
    )
    assert not (tmp_path / "new.db").exists()


def _chattr(flag: str, *paths: Path) -> bool:
    if os.geteuid() != 0 or shutil.which("chattr") is None:
        return False
    return subprocess.run(["chattr", flag, *map(str, paths)], capture_output=True).returncode == 0


@pytest.fixture(params=["read-only file", "read-only directory"])
def unwritable(request: pytest.FixtureRequest, source: Path):
    """The source made unwritable: the file 0444, or its directory 0555 as well; immutable (chattr +i) too
    when we are root, whom permissions do not stop."""
    locked = [source] if request.param == "read-only file" else [source, source.parent]
    source.chmod(0o444)
    if len(locked) == 2:
        source.parent.chmod(0o555)
    immutable = _chattr("+i", *locked)
    try:
        if not immutable and os.geteuid() == 0:
            pytest.skip("root ignores permissions, and chattr +i is not available here")
        yield source
    finally:
        if immutable:
            _chattr("-i", *locked)
        source.parent.chmod(0o755)
        source.chmod(0o644)


@pytest.mark.parametrize(
    "command",
    [
        ("count", "{db}", TABLE),
        ("scan", "{db}", TABLE, "--jsonl"),
        ("export", "{db}", TABLE, "{out}/items.jsonl"),
        ("copy", "{db}", "{out}/copy.db"),
    ],
    ids=lambda c: c[0],
)
def test_an_unwritable_file_can_be_read(unwritable: Path, tmp_path: Path, command) -> None:
    before = hashlib.sha256(unwritable.read_bytes()).hexdigest()
    result = run(*(part.format(db=unwritable, out=tmp_path) for part in command))
    assert result.exit_code == 0, result.output
    if command[0] == "count":
        assert result.stdout.strip() == "300"
    assert hashlib.sha256(unwritable.read_bytes()).hexdigest() == before


def test_a_copy_to_serve_carries_expired_items_too(
    original: Callable[[int], Path], tmp_path: Path, http_server
) -> None:
    """The same copy into a real ``singletable serve``: 3,000 of 3,000, the source unchanged."""
    from transfer_support import table_name

    from singletable.data import copy_table

    db = copy_of(original(3000), tmp_path)
    before = fingerprint(db)
    into = table_name("orders")
    summary = copy_table(str(db), http_server.endpoint, TABLE, destination_table=into, segments=2)
    assert (summary.items, summary.source_count, summary.destination_count) == (3000, 3000, 3000)
    assert summary.warnings == []
    assert fingerprint(db) == before


def test_reading_a_file_a_server_is_writing(tmp_path: Path) -> None:
    """``count`` and ``copy`` read a file while ``singletable serve`` writes it from another process: they see
    what it committed, and the server goes on writing, its side files untouched."""
    from serving import ServerProcess

    db = make_source(tmp_path / "app.db", 100, 0)
    server = ServerProcess(db)
    try:
        client = server.client()
        for n in range(100, 150):
            client.put_item(TableName=TABLE, Item={"PK": {"S": "live"}, "SK": {"N": str(n)}})
        counted = run("count", str(db), TABLE)
        assert (counted.exit_code, counted.stdout.strip()) == (0, "150"), counted.output
        copied = run("copy", str(db), str(tmp_path / "copy.db"))
        assert copied.exit_code == 0, copied.output
        for n in range(150, 160):
            client.put_item(TableName=TABLE, Item={"PK": {"S": "live"}, "SK": {"N": str(n)}})
        assert client.scan(TableName=TABLE, Select="COUNT")["Count"] == 160
    finally:
        assert server.stop() == 0
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    conn.close()
    assert run("count", str(db), TABLE).stdout.strip() == "160"


def test_a_slow_copy_gives_no_sweep_a_chance(original: Callable[[int], Path], tmp_path: Path) -> None:
    """A copy that takes longer than the engine's TTL sweep interval (1 s): a source opened for writing lost
    its expired items to the sweeper mid-copy; opened read-only, nothing runs to delete them."""
    from singletable.data import copy_table

    db = copy_of(original(3000), tmp_path)
    before = fingerprint(db)
    paused: list[int] = []

    def slowly(items: int, _bytes: int) -> None:
        if not paused:
            paused.append(items)
            time.sleep(1.5)

    summary = copy_table(str(db), str(tmp_path / "copy.db"), TABLE, progress=slowly)
    assert (summary.source_count, summary.destination_count) == (3000, 3000)
    assert fingerprint(db) == before
