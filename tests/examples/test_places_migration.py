"""The move from the older layout (numeric PK, non-sparse GSI, one GSI partition for all records) to the
design's current one: complete, idempotent, resumable after an interruption, on every target."""

from __future__ import annotations

import io

import pytest

from singletable.examples import DEMO_CLOCK
from singletable.examples.places.design import places
from singletable.examples.places.legacy import legacy, legacy_items
from singletable.examples.places.migrate import MigrationError, convert, migrate, read_checkpoint
from singletable.examples.places.sample import load
from singletable.examples.places.service import Archive


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


def _contents(db) -> dict:
    """Every item but migration checkpoints, by key, as comparable plain data."""
    out, start = {}, None
    while True:
        params = {"TableName": db.table_name, "ConsistentRead": True}
        if start:
            params["ExclusiveStartKey"] = start
        page = db.call("Scan", params)
        for item in page["Items"]:
            if not item["PK"]["S"].startswith("migration#"):
                out[(item["PK"]["S"], item["SK"]["S"])] = {
                    k: sorted(v["SS"]) if "SS" in v else v for k, v in item.items()
                }
        start = page.get("LastEvaluatedKey")
        if not start:
            return out


def test_migration_gives_the_same_table_as_the_new_code(open_db) -> None:
    source = _old_table(open_db)
    target = open_db(places, clock=lambda: DEMO_CLOCK)
    result = migrate(source, target, page_size=7)
    assert result.items == len(legacy_items()) and not result.resumed
    assert result.skipped == sum(1 for i in legacy_items() if i["SK"]["S"] == "placeWord")
    expected = open_db(places, clock=lambda: DEMO_CLOCK)
    load(Archive(expected))
    assert _contents(target) == _contents(expected)

    archive = Archive(target)  # the access patterns the old layout could not serve
    assert [p.id for p in archive.search_places("ynys mo")] == ["1024"]
    assert [r.id for r in archive.records_of("1051")] == ["1061", "1062", "1063", "1064"]
    assert [c.id for c in archive.collections_in("1002")] == ["1012", "1013"]
    assert archive.next_id() == "1101"


def test_an_interrupted_migration_resumes_and_a_finished_one_is_a_no_op(open_db) -> None:
    source = _old_table(open_db)
    target = open_db(places, clock=lambda: DEMO_CLOCK)

    def stop_after_three(pages: int) -> None:
        if pages == 3:
            raise Interrupted

    with pytest.raises(Interrupted):
        migrate(source, target, page_size=5, after_page=stop_after_three)
    checkpoint = read_checkpoint(target, "v1-to-v2")
    assert checkpoint["pages"]["N"] == "3" and checkpoint["done"]["BOOL"] is False

    resumed = migrate(source, target, page_size=5)
    assert resumed.resumed and resumed.items == len(legacy_items())
    again = migrate(source, target, page_size=5)
    assert again.already_done

    fresh = open_db(places, clock=lambda: DEMO_CLOCK)
    migrate(source, fresh, page_size=50)
    assert _contents(target) == _contents(fresh)
    # idempotent: the whole migration run again under another checkpoint changes nothing
    migrate(source, target, name="second-run", page_size=11)
    assert _contents(target) == _contents(fresh)


def test_unknown_old_items_stop_the_migration(open_db) -> None:
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


def test_the_progress_bar_draws_only_when_asked(open_db, monkeypatch) -> None:
    from rich.console import Console

    drawn = io.StringIO()
    source = _old_table(open_db)
    console = Console(file=drawn, force_terminal=True, width=100)
    migrate(source, open_db(places), page_size=20, progress=True, console=console)
    assert "migrating" in drawn.getvalue() and f"{len(legacy_items())}/" in drawn.getvalue()
    quiet = io.StringIO()
    monkeypatch.setattr("sys.stderr", quiet)
    migrate(source, open_db(places), page_size=20)  # not a terminal: no bar
    assert quiet.getvalue() == ""
