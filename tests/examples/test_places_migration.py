"""The move from the older layout (numeric PK, non-sparse GSI, one GSI partition for all records) to the
design's current one, as the migration ``places/migrations/0001_string_ids.py`` (a ``copy_from``) run by
``singletable.migrate``: complete, idempotent, resumable after an interruption, the old table only read, on
every target."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cli_runs import CliRun, run_in_process
from singletable.examples import DEMO_CLOCK
from singletable.examples.places.design import places
from singletable.examples.places.legacy import legacy, legacy_items
from singletable.examples.places.migrate import MIGRATIONS, copy_migration, main, migrate
from singletable.examples.places.sample import load
from singletable.examples.places.service import Archive
from singletable.migrate import MigrationError, plan, status, up
from singletable.model import connect

RECORD = "_singletable#migrations"


class Interrupted(Exception):
    pass


def _old_table(open_db):
    source = open_db(legacy)
    for start in range(0, len(items := legacy_items()), 25):
        source.call(
            "BatchWriteItem",
            {
                "RequestItems": {
                    source.table_name: [{"PutRequest": {"Item": item}} for item in items[start : start + 25]]
                }
            },
        )
    return source


def _contents(db, *, drop: tuple[str, ...] = ("updatedAt",)) -> dict:
    """Every item but the migrations' record, by key, as comparable plain data (``drop``: attributes a copy
    does not invent -- the old layout kept no update time)."""
    out, start = {}, None
    while True:
        params: dict[str, Any] = {"TableName": db.table_name, "ConsistentRead": True}
        if start:
            params["ExclusiveStartKey"] = start
        page = db.call("Scan", params)
        for item in page["Items"]:
            key = tuple(next(iter(item[n].values())) for n in ("PK", "SK"))
            if key[0] != RECORD:
                out[key] = {k: sorted(v["SS"]) if "SS" in v else v for k, v in item.items() if k not in drop}
        start = page.get("LastEvaluatedKey")
        if not start:
            return out


def test_migration_gives_the_same_table_as_the_new_code(open_db) -> None:
    source = _old_table(open_db)
    before = _contents(source, drop=())
    target = open_db(places, clock=lambda: DEMO_CLOCK)
    result = migrate(source.table_name, target, page_size=7)
    assert result.scanned == len(legacy_items()) and not result.resumed
    expected = open_db(places, clock=lambda: DEMO_CLOCK)
    load(Archive(expected))
    assert _contents(target) == _contents(expected)
    assert _contents(source, drop=()) == before  # the source is only read

    archive = Archive(target)  # the access patterns the old layout could not serve
    assert [p.id for p in archive.search_places("ynys mo")] == ["1024"]
    assert [r.id for r in archive.records_of("1051")] == ["1061", "1062", "1063", "1064"]
    assert [c.id for c in archive.collections_in("1002")] == ["1012", "1013"]
    assert archive.next_id() == "1101"


def test_an_interrupted_migration_resumes_and_a_finished_one_is_a_no_op(open_db) -> None:
    source = _old_table(open_db)
    target = open_db(places, clock=lambda: DEMO_CLOCK)

    def stop_after_three(progress) -> None:
        if progress.pages == 3:
            raise Interrupted

    with pytest.raises(Interrupted):
        migrate(source.table_name, target, page_size=5, on_page=stop_after_three)
    migration = copy_migration(source.table_name)
    [running] = status([migration], target)
    assert (running.state, running.scanned) == ("running", 15)

    resumed = migrate(source.table_name, target, page_size=5)
    assert resumed.resumed and resumed.scanned == len(legacy_items())
    assert migrate(source.table_name, target, page_size=5).state == "already applied"

    fresh = open_db(places, clock=lambda: DEMO_CLOCK)
    migrate(source.table_name, fresh, page_size=50)
    assert _contents(target) == _contents(fresh)
    # idempotent: the whole copy run again (its record forgotten) changes nothing
    target.call(
        "DeleteItem", {"TableName": target.table_name, "Key": {"PK": {"S": RECORD}, "SK": {"S": RECORD}}}
    )
    again = migrate(source.table_name, target, page_size=11)
    assert again.state == "applied" and not again.resumed
    assert _contents(target) == _contents(fresh)


def test_a_place_written_meanwhile_by_the_new_code_is_kept(open_db) -> None:
    """An application already on the new table renamed a place before the copy reached it: the copy's put
    (on condition that the key is free) leaves the newer item, and still adds to the word index."""
    source = _old_table(open_db)
    target = open_db(places, clock=lambda: DEMO_CLOCK)
    expected = open_db(places, clock=lambda: DEMO_CLOCK)
    load(Archive(expected))
    newer = {**_contents(expected)[("1024", "place#yn")]}
    newer["region"] = {"S": "Gwynedd (renamed before the copy)"}
    target.call("PutItem", {"TableName": target.table_name, "Item": {**newer, "PK": {"S": "1024"}}})
    migrate(source.table_name, target, page_size=9)
    assert _contents(target)[("1024", "place#yn")]["region"] == {"S": "Gwynedd (renamed before the copy)"}
    assert (
        _contents(target)[("placeWord#ynys", "placeWord")]
        == _contents(expected)[("placeWord#ynys", "placeWord")]
    )


def test_unknown_old_items_stop_the_migration(open_db) -> None:
    convert = copy_migration().steps[0].fn  # type: ignore[attr-defined]
    with pytest.raises(MigrationError, match="no known entity"):
        convert({"PK": {"N": "5"}, "SK": {"S": "invoice"}})
    with pytest.raises(MigrationError, match="issuer and subject"):
        convert(
            {
                "PK": {"N": "5"},
                "SK": {"S": "user"},
                "GSISK": {"S": "x"},
                "issuer": {"S": "a"},
                "subject": {"S": "b"},
            }
        )
    source = _old_table(open_db)
    source.call(
        "PutItem", {"TableName": source.table_name, "Item": {"PK": {"N": "7"}, "SK": {"S": "invoice"}}}
    )
    target = open_db(places)
    with pytest.raises(MigrationError, match=r"^old item PK=7 SK='invoice' is of no known entity$"):
        migrate(source.table_name, target, page_size=100)
    assert status([copy_migration(source.table_name)], target)[0].state == "pending"  # no page was done


def test_plan_counts_the_copy_on_its_source(open_db) -> None:
    source = _old_table(open_db)
    target = open_db(places)
    [step] = plan(copy_migration(source.table_name), target).steps
    assert step.scanned == {f"source {source.table_name}": len(legacy_items())}
    words = sum(1 for i in legacy_items() if i["SK"]["S"] == "placeWord")
    places_count = sum(1 for i in legacy_items() if i["SK"]["S"].startswith("place#"))
    assert step.touched["place"] == places_count and step.touched["category"] > 0
    assert step.touched["placeWord"] > 0 and words > 0  # one ADD per word of each place
    assert step.write_units > 0 and step.read_units > 0 and step.problems == []
    assert _contents(target) == {}  # a plan writes nothing


def _old_file(tmp_path) -> str:
    """A database file holding the old layout's table ``old``."""
    file = str(tmp_path / "places.db")
    source = connect(legacy, file, name="old")
    source.create_table()
    for item in legacy_items():
        source.call("PutItem", {"TableName": "old", "Item": item})
    source.close()
    return file


def test_the_command_line_entry(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    """The example's own entry point once as a real process (its exit status and output), then its ``main``
    and ``singletable migrate status`` in this process."""
    file = _old_file(tmp_path)
    arguments = ["--source", "old", "--target", "new", "--db", file]
    entry = [sys.executable, "-m", "singletable.examples.places.migrate", *arguments]
    done = subprocess.run(entry, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    words = sum(1 for i in legacy_items() if i["SK"]["S"] == "placeWord")  # rebuilt, not copied
    read, written = len(legacy_items()), len(legacy_items()) - words
    assert done.stdout == f"migrated old -> new: {read} items read, {written} written\n"
    main(arguments)
    assert capsys.readouterr().out == "migrated old -> new: already done\n"
    shown = run_in_process("migrate", "status", str(MIGRATIONS), file, "--table", "new")
    assert shown.stdout.startswith("0001-string-ids: applied at "), shown.stderr
    assert up(copy_migration("old"), connect(places, file, name="new"))[0].state == "already applied"


def test_the_migrate_command_plans_the_copy_and_names_a_missing_source(tmp_path) -> None:
    file = _old_file(tmp_path)
    connect(places, file, name="new").create_table()

    def run(verb: str, legacy_name: str) -> CliRun:
        env = {"PLACES_LEGACY_TABLE": legacy_name}
        return run_in_process("migrate", verb, str(MIGRATIONS), file, "--table", "new", env=env)

    planned = run("plan", "old")
    assert planned.returncode == 0, planned.stderr
    assert "0001-string-ids: copy old: copied" in planned.stdout
    words = sum(1 for i in legacy_items() if i["SK"]["S"] == "placeWord")  # rebuilt, so not written
    read, writing = len(legacy_items()), len(legacy_items()) - words
    assert f"  source old: {read} scanned, {writing} to write" in planned.stdout
    assert "  place: " in planned.stdout and "index" not in planned.stderr
    missing = run("up", "nowhere")
    assert missing.returncode == 1
    assert missing.stderr.startswith("Error: copy_from: the source table nowhere is not on this database")
    assert len(missing.stderr.strip().splitlines()) == 1


def test_the_copy_is_rehearsed_on_a_file_holding_only_the_old_table(tmp_path) -> None:
    """The new table does not exist yet: the rehearsal creates it in its copy, copies ``old`` beside it,
    runs the migration there and verifies it; the file keeps its bytes."""
    file = _old_file(tmp_path)
    was = Path(file).read_bytes()
    env = {"PLACES_LEGACY_TABLE": "old"}
    done = run_in_process("migrate", "rehearse", str(MIGRATIONS), file, "--table", "new", env=env)
    assert done.returncode == 0, done.stderr
    read = len(legacy_items())
    lines = done.stdout.splitlines()
    assert lines[1:3] == [
        f"new is not in {file}: created empty from the design; the copy removed",
        f"copy_from source old: {read} items from {file}, unchanged",
    ]
    table = lines[lines.index("entity               before  after") + 1 : -1]
    assert "place                     0     10" in table
    after = sum(int(line.split()[-1]) for line in table)
    assert lines[-1] == f"verified: {after} items as declared, no problems"
    assert Path(file).read_bytes() == was
