"""The dual-write window with derived items (engine, serve, DynamoDB Local): the copy
(``rekey(..., keep_old=True)``) writes the new shape's derived items and keeps the old shape's, an application
connected with ``migrating=`` writes each shape's own, and ``finish`` -- refusing a twin without its derived
items -- removes the old ones; crashes in the copy or the finish converge."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from test_derived_moves import (
    SITES,
    SQUATTER,
    WINDOW,
    LabelledSite,
    MovedSite,
    Site,
    as_new,
    before,
    big,
    fresh,
    labelled,
    refused_as_it_was,
    seed,
    types,
)
from test_migrate import snapshot
from test_random_migrations import Crash, crashing

from singletable.migrate import Migration, finish, rekey, up
from singletable.model import DB, connect


@pytest.fixture
def db(target: Any) -> Iterator[DB]:
    one = connect(before, target, name=f"sites_{uuid.uuid4().hex[:10]}")
    one.create_table()
    yield one
    one.delete_table()


def test_the_window_keeps_old_derived_items_until_finish(db: DB) -> None:
    seed(db)
    up(WINDOW, db, page_size=3)
    during = types(snapshot(db))  # both shapes, each with its own derived items
    assert during.count("site") == 8 and during.count("siteTag") == 6 and during.count("label") == 6
    assert during.count("summary") == 8
    [done] = finish(WINDOW, db)
    assert (done.verified, done.deleted) == (4, 4)
    assert snapshot(db) == fresh(db, as_new(LabelledSite))
    [again] = finish(WINDOW, db)
    assert (again.verified, again.deleted) == (0, 0)


def test_the_window_shares_derived_items_both_shapes_declare(db: DB) -> None:
    seed(db)
    moved = Migration("0001-window", "moved", [rekey(Site, to=MovedSite, keep_old=True)], table=before)
    up(moved, db)
    assert types(snapshot(db)).count("siteTag") == 6  # one tag item serves both shapes
    finish(moved, db)
    assert snapshot(db) == fresh(db, as_new(MovedSite))


def test_finish_refuses_a_twin_without_its_derived_items(db: DB) -> None:
    seed(db)
    up(WINDOW, db)
    db.call(
        "DeleteItem", {"TableName": db.table_name, "Key": {"PK": {"S": "LABEL#blue"}, "SK": {"S": "SITE#4"}}}
    )
    message = (
        r"^finish 0001-window: site old-shape items 1 whose new-shape item lacks derived items "
        r"\(PK=S#4, SK=SITE\); nothing was deleted"
    )
    refused_as_it_was(db, message, lambda: finish(WINDOW, db))


def test_a_windowed_application_keeps_both_shapes_derived_items(db: DB) -> None:
    """An application writing both shapes (``migrating=``) while the copy runs: every write carries each
    shape's derived items; ``finish`` leaves the table a fresh write of the new design makes."""
    seed(db, SITES[:3])
    app = connect(labelled, db.adapter, name=db.table_name, migrating={LabelledSite: Site})  # type: ignore[arg-type]
    app.create(LabelledSite(site_id="5", tags=["x"]))
    created = types(snapshot(db))
    assert created.count("site") == 5 and created.count("label") == 1 and created.count("siteTag") == 4
    app.update(LabelledSite.key(site_id="1"), tags=["red", "green"])  # in the old shape only: copied first
    keys = {(i["PK"]["S"], i["SK"]["S"]) for i in snapshot(db)}
    labels = {("LABEL#red", "SITE#1"), ("LABEL#green", "SITE#1"), ("SITE#1", "SUMMARY")}  # the copy's and
    tags = {("TAG#red", "SITE#1"), ("TAG#green", "SITE#1"), ("S#1", "SUMMARY")}  # the update's, both shapes
    assert labels <= keys and tags <= keys and ("TAG#blue", "SITE#1") not in keys
    up(WINDOW, db, page_size=2)
    app.delete(LabelledSite, site_id="2")
    app.update(LabelledSite.key(site_id="3"), tags=["blue"])
    [done] = finish(WINDOW, db)
    assert (done.verified, done.deleted) == (3, 3)
    sites = [
        LabelledSite(site_id="1", kind="shop", url="a.example", tags=["red", "green"]),
        LabelledSite(site_id="3", kind="shop", tags=["blue"]),
        LabelledSite(site_id="5", tags=["x"]),
    ]
    assert snapshot(db) == fresh(db, sites)


def test_a_copy_to_a_stored_twin_whose_derived_key_is_taken_stops(db: DB) -> None:
    seed(db, SITES[:1])
    db.call("PutItem", {"TableName": db.table_name, "Item": SQUATTER})
    owner = next(i for i in snapshot(db) if i["PK"]["S"] == "S#1" and i["SK"]["S"] == "SITE")
    db.call("PutItem", {"TableName": db.table_name, "Item": {**owner, "PK": {"S": "SITE#1"}}})  # its twin
    message = (
        r"^rekey site to LabelledSite \(keeping the old items until migrate finish\): item PK=S#1, SK=SITE: "
        r"write refused \(.+\)$"
    )
    refused_as_it_was(db, message, lambda: up(WINDOW, db))


def test_crashes_in_a_copy_and_its_finish_converge(db: DB) -> None:
    seed(db)
    for run, at, applied in [("up", 3, True), ("up", 6, False), ("finish", 2, True), ("finish", 5, True)]:
        if run == "finish":
            up(WINDOW, db, page_size=1)
        dying = connect(before, db.adapter, name=db.table_name)  # type: ignore[arg-type]
        crashing(dying, at, applied)
        with pytest.raises(Crash):
            if run == "up":
                up(WINDOW, dying, page_size=1)
            else:
                finish(WINDOW, dying, page_size=1)
    finish(WINDOW, db, page_size=1)
    assert snapshot(db) == fresh(db, as_new(LabelledSite))


def test_a_copy_over_the_hundred_action_limit_is_refused(db: DB) -> None:
    """98 tags: the copy checks the old item, puts the new one, 98 labels and the summary -- 101 actions."""
    seed(db, [big(98)])
    message = (
        r"^rekey site PK=S#big, SK=SITE: it takes 101 writes in one transaction \(the item, its uniqueness "
        r"guards and derived items\), more than the 100 DynamoDB allows; nothing of it was written$"
    )
    refused_as_it_was(db, message, lambda: up(WINDOW, db))
