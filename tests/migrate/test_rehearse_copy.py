"""migrate rehearse of a ``copy_from`` migration: the tables it reads are copied beside the migrations' table
(from SOURCE, or from where ``--copy-source`` says), the migration runs on the copies, the target is
verified and each source table found as it was copied; the real source is only read (its bytes and mtime
stay; ``serve --record`` shows reads only), on a file, ``serve`` and DynamoDB Local; every refusal named."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_copy import Thing, new, old, old_items, things
from test_migrate import run_cli, seed
from test_rehearse import fingerprint as file_fingerprint
from test_split_merge import stored as any_value

from cli_runs import CliRun
from draws import examples
from serving import ServerProcess
from singletable.data import export_table, open_target
from singletable.migrate import AddToSet, Migration, MigrationError, copy_from, load_migrations, rehearse
from singletable.migrate._items import canonical
from singletable.migrate._rehearse_copy import fingerprint
from singletable.model import DB, Entity, connect

MODULE = """
from singletable.migrate import Migration, copy_from
from singletable.model import Table, env
from test_copy import new, things

old = Table(name=env("REHEARSE_SOURCE_TABLE", "old_tags"), pk=("id", "N"), sk=None)
migration = Migration("0001-copy", "old_tags copied into new_tags", [copy_from(old, each=things)], table=new)
"""

READS = {"DescribeTable", "DescribeTimeToLive", "ListTagsOfResource", "Scan", "DescribeContinuousBackups"}


def rehearse_cli(*args: str, env: dict[str, str] | None = None) -> CliRun:
    """``singletable migrate rehearse ARGS`` in this process, whose path imports this directory's modules
    (the migration module imports ``test_copy``'s declarations)."""
    return run_cli("migrate", "rehearse", *args, env=env)


def module_file(directory: Path) -> Path:
    path = directory / f"copy_{uuid.uuid4().hex[:8]}.py"
    path.write_text(MODULE)
    return path


def legacy_file(directory: Path, count: int = 10, *, with_target: bool = True, name: str = "live.db") -> Path:
    """A database file holding ``old_tags`` (``count`` items) and, when asked, the empty ``new_tags``."""
    file = directory / name
    source = connect(old, str(file))
    source.create_table()
    seed(source, old_items(count))
    source.close()
    if with_target:
        target = connect(new, str(file))
        target.create_table()
        target.close()
    return file


def empty_table(file: Path) -> None:
    """A database file holding only ``new_tags``, empty (closed, so its bytes are final)."""
    db = connect(new, str(file))
    db.create_table()
    db.close()


def stored(db: DB) -> list[dict[str, Any]]:
    return db.call("Scan", {"TableName": db.table_name, "ConsistentRead": True})["Items"]


def test_a_file_holding_both_tables_is_rehearsed_and_left_as_it_was(tmp_path: Path) -> None:
    file = legacy_file(tmp_path)
    was = file_fingerprint(file)
    copy = tmp_path / "copy.db"
    done = rehearse_cli(str(module_file(tmp_path)), str(file), "--copy-to", str(copy))
    assert done.returncode == 0, done.stderr
    assert file_fingerprint(file) == was
    assert done.stdout.splitlines() == [
        "0001-copy: applied to the copy: 10 scanned, 10 written",
        f"copy of {file} (0 items): kept in {copy}",
        f"copy_from source old_tags: 10 items from {file}, unchanged",
        "entity  before  after",
        "tag          0      4",
        "thing        0     10",
        "verified: 14 items as declared, no problems",
    ]
    migrated = connect(new, str(copy))
    assert migrated.get(Thing, id="4").name == "thing 4"
    migrated.close()
    assert len(stored(connect(old, str(copy)))) == 10  # the source's copy beside it
    assert not (tmp_path / "copy.db.old_tags.checkpoint.json").exists()


def test_a_target_not_yet_created_is_made_from_the_design(tmp_path: Path) -> None:
    """The usual copy_from: the new table does not exist yet where the old one is. The rehearsal creates it
    empty from the design, as it must be created before ``up``, and leaves the source without it."""
    file = legacy_file(tmp_path, 6, with_target=False)
    was = file_fingerprint(file)
    done = rehearse_cli(str(module_file(tmp_path)), str(file))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1:3] == [
        f"new_tags is not in {file}: created empty from the design; the copy removed",
        f"copy_from source old_tags: 6 items from {file}, unchanged",
    ]
    assert lines[-1] == "verified: 10 items as declared, no problems"  # 6 things, 4 tags
    assert file_fingerprint(file) == was
    assert sorted(p.name for p in tmp_path.iterdir() if ".db" in p.name) == ["live.db"]


def test_the_library_reports_the_sources(tmp_path: Path) -> None:
    file = legacy_file(tmp_path, 5)
    migration = Migration("0001-copy", "copy", [copy_from(old, each=things)], table=new)
    found = rehearse(migration, str(file))
    assert found.ok and not found.created and found.checked == 5 + 4
    [source] = found.sources
    assert (source.name, source.origin, source.items, source.unchanged) == ("old_tags", str(file), 5, True)
    assert {c.type: (c.before, c.after) for c in found.counts} == {"thing": (0, 5), "tag": (0, 4)}
    elsewhere = Migration("0001-copy", "copy", [copy_from(old, each=things, name="archive")], table=new)
    message = (
        f"copy_from reads table archive, which is not in {file}: say where it is with "
        "--copy-source archive=FILE|URL|EXPORT_DIR"
    )
    with pytest.raises(MigrationError, match=f"^{re.escape(message)}$"):
        rehearse(elsewhere, str(file))
    archive = connect(old, str(tmp_path / "archive.db"), name="archive")
    archive.create_table()
    seed(archive, old_items(3))
    archive.close()
    found = rehearse(elsewhere, str(file), copy_sources={"archive": str(tmp_path / "archive.db")})
    assert found.ok and [(s.name, s.items) for s in found.sources] == [("archive", 3)]


def test_a_source_table_elsewhere_is_named_with_copy_source(tmp_path: Path) -> None:
    """The new table in one file, the old one in another file and in an export directory."""
    target = tmp_path / "new.db"
    empty_table(target)
    elsewhere = legacy_file(tmp_path, 7, with_target=False, name="old.db")
    export = tmp_path / "old-export"
    export_table(str(elsewhere), "old_tags", export, format="dynamodb")
    exported = {p: file_fingerprint(p) for p in export.rglob("*") if p.is_file()}
    was = file_fingerprint(target), file_fingerprint(elsewhere)
    module = module_file(tmp_path)
    for where in (elsewhere, export):
        done = rehearse_cli(str(module), str(target), "--copy-source", f"old_tags={where}")
        assert done.returncode == 0, done.stderr
        assert f"copy_from source old_tags: 7 items from {where}, unchanged\n" in done.stdout
        assert "thing        0      7\n" in done.stdout
    assert (file_fingerprint(target), file_fingerprint(elsewhere)) == was
    assert {p: file_fingerprint(p) for p in export.rglob("*") if p.is_file()} == exported
    # SOURCE the export of the old table: the new table is then created from the design
    alone = rehearse_cli(str(module), str(export), "--copy-source", f"old_tags={export}")
    assert alone.returncode == 0, alone.stderr
    assert f"new_tags is not in {export}: created empty from the design; the copy removed\n" in alone.stdout
    assert {p: file_fingerprint(p) for p in export.rglob("*") if p.is_file()} == exported


def test_refusals_are_one_line_and_copy_nothing(tmp_path: Path) -> None:
    file = legacy_file(tmp_path, 2)
    no_source = tmp_path / "bare.db"
    empty_table(no_source)
    export = tmp_path / "export"
    export_table(str(file), "new_tags", export, format="dynamodb")
    module = module_file(tmp_path)
    was = file_fingerprint(file), file_fingerprint(no_source)
    where = "FILE|URL|EXPORT_DIR"
    cases = [
        (
            [str(no_source)],
            f"Error: copy_from reads table old_tags, which is not in {no_source}: say where it is with "
            f"--copy-source old_tags={where}",
        ),
        (
            [str(no_source), "--copy-source", f"old_tags={tmp_path / 'missing.db'}"],
            f"Error: {tmp_path / 'missing.db'}: no such database file or export directory",
        ),
        (
            [str(file), "--copy-source", f"nope={file}"],
            "Error: copy source nope: no copy_from of these migrations reads a table of that name "
            "(they read old_tags)",
        ),
        (
            [str(export)],
            f"Error: copy_from reads table old_tags, and {export} is an export directory, which holds one "
            f"table: say where old_tags is with --copy-source old_tags={where}",
        ),
        (
            [str(file), "--copy-to", str(file.with_name("copy.db")), "--copy-source", f"old_tags={file}"],
            None,  # succeeds; the next case reuses its copy
        ),
        (
            [
                str(no_source),
                "--copy-source",
                f"old_tags={file.with_name('copy.db')}",
                "--copy-to",
                str(file.with_name("copy.db")),
            ],
            f"Error: {file.with_name('copy.db')} exists: a rehearsal makes a new copy; name a file that does "
            "not exist",
        ),
    ]
    for extra, message in cases:
        done = rehearse_cli(str(module), *extra)
        if message is None:
            assert done.returncode == 0, done.stderr
            continue
        assert done.returncode == 1, done.stdout
        assert done.stderr.strip() == message
    assert (file_fingerprint(file), file_fingerprint(no_source)) == was
    assert sorted(p.name for p in tmp_path.iterdir() if ".db" in p.name) == ["bare.db", "copy.db", "live.db"]
    for bad, said in [("old_tags", "'old_tags': give TABLE=WHERE"), ("=x", "'=x': give TABLE=WHERE")]:
        usage = rehearse_cli(str(module), str(file), "--copy-source", bad)
        assert usage.returncode == 2 and f"Invalid value for --copy-source: {said}" in usage.stderr
    twice = run_cli(
        "migrate", "rehearse", str(module), str(file), "--copy-source", "a=x", "--copy-source", "a=y"
    )
    assert twice.returncode == 2 and "Invalid value for --copy-source: a is named twice" in twice.stderr


def test_a_copy_into_its_own_source_is_caught(tmp_path: Path) -> None:
    """A copy_from that reads the migrations' own table changes its source (a copied thing, and the
    migrations' record): the check of the source fails the rehearsal, proof that the check can fail."""
    file = tmp_path / "t.db"
    db = connect(new, str(file))
    db.create_table()
    db.put(Thing(id="1", name="one"))
    db.close()

    def again(item: dict[str, Any]) -> list[Entity | AddToSet]:
        if item.get("entityType") != {"S": "thing"}:
            return []
        return [Thing(id=item["id"]["S"] + "-copy", name=item["name"]["S"])]

    migration = Migration("0001", "copy", [copy_from(new, each=again)], table=new)
    found = rehearse(migration, str(file))
    assert not found.ok
    assert [(p.key, p.check, p.detail) for p in found.problems] == [
        ("table new_tags", "copy_from source", "the migrations changed it: 1 item before, 3 items after")
    ]
    assert found.sources[0].unchanged is False


@pytest.mark.parametrize("server", ["http", "reference"])
def test_an_endpoint_holding_both_tables(tmp_path: Path, request: pytest.FixtureRequest, server: str) -> None:
    endpoint = request.getfixturevalue("http_server" if server == "http" else "reference_server").endpoint
    suffix = uuid.uuid4().hex[:10]
    source = connect(old, endpoint, name=f"old_{suffix}")
    source.create_table()
    seed(source, old_items(9))
    target = connect(new, endpoint, name=f"new_{suffix}")
    target.create_table()
    try:
        before = sorted(json.dumps(i, sort_keys=True) for i in stored(source))
        env = {"REHEARSE_SOURCE_TABLE": source.table_name}
        module = module_file(tmp_path)
        done = rehearse_cli(str(module), endpoint, "--table", target.table_name, env=env)
        assert done.returncode == 0, done.stderr
        assert f"copy_from source {source.table_name}: 9 items from {endpoint}, unchanged\n" in done.stdout
        assert "thing        0      9\n" in done.stdout
        assert sorted(json.dumps(i, sort_keys=True) for i in stored(source)) == before
        assert stored(target) == []  # the real target is not written either
        # the new table not created yet on the endpoint: made in the copy, and still absent there
        missing = f"new_{uuid.uuid4().hex[:10]}"
        made = rehearse_cli(str(module), endpoint, "--table", missing, env=env)
        assert made.returncode == 0, made.stderr
        assert f"{missing} is not in {endpoint}: created empty from the design" in made.stdout
        assert missing not in source.call("ListTables", {})["TableNames"]
    finally:
        source.delete_table()
        target.delete_table()


def test_serve_records_only_reads_of_both_tables(tmp_path: Path) -> None:
    file = legacy_file(tmp_path, 4, with_target=False)
    record = tmp_path / "traffic.jsonl"
    server = ServerProcess(file, args=("--record", str(record)))
    try:
        done = rehearse_cli(str(module_file(tmp_path)), server.endpoint)
        assert done.returncode == 0, done.stderr
    finally:
        server.stop()
    requests = [json.loads(line) for line in record.read_text().splitlines()]
    assert {r["operation"] for r in requests} <= READS
    scanned = {r["params"]["TableName"] for r in requests if r["operation"] == "Scan"}
    assert scanned == {"old_tags"}


def test_the_loaded_module_names_its_source(tmp_path: Path) -> None:
    [migration] = load_migrations(str(module_file(tmp_path)))
    assert migration.steps[0].describe().startswith("copy old_tags: ")


values = st.dictionaries(st.from_regex(r"x[A-Za-z0-9_]{0,6}", fullmatch=True), any_value, max_size=4)


@settings(max_examples=examples(25), deadline=None)
@given(
    contents=st.dictionaries(st.integers(0, 10**6), values, min_size=1, max_size=12),
    order=st.randoms(use_true_random=False),
    changed=st.integers(0, 11),
    replacement=any_value,
)
def test_the_source_check_sees_any_change_whatever_the_order(
    contents: dict[int, dict[str, Any]], order: Any, changed: int, replacement: dict[str, Any]
) -> None:
    """A source table's fingerprint: the same items written in any order give the same one; one value
    changed (of any type and nesting), one attribute added, or one item removed gives another."""
    items = [{"id": {"N": str(k)}, **v} for k, v in contents.items()]
    shuffled = list(items)
    order.shuffle(shuffled)
    victim = dict(items[changed % len(items)])
    name = next((n for n in victim if n != "id"), "added")
    altered = [i for i in items if i is not items[changed % len(items)]]
    with open_target(":memory:") as copy:  # what fingerprint reads is items, whatever stores them
        for table, rows in [("one", items), ("two", shuffled), ("three", altered)]:
            copy.call("CreateTable", **old.create_table_params(table))
            for row in rows:
                copy.call("PutItem", TableName=table, Item=row)
        assert fingerprint(copy, "one") == fingerprint(copy, "two")
        assert fingerprint(copy, "three") != fingerprint(copy, "one")  # one item fewer
        if victim.get(name) is None or canonical(victim[name]) != canonical(replacement):
            victim[name] = replacement
            copy.call("PutItem", TableName="three", Item=victim)
            assert fingerprint(copy, "three") != fingerprint(copy, "one")
