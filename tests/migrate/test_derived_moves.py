"""Derived items move with their owner (engine, serve, DynamoDB Local): a re-key, a split and a merge leave
exactly the derived items a fresh write of the new design makes and none of the old design's; a page redone
after a crash at any request converges; a move over DynamoDB's 100 actions is refused before anything is
written; a derived key holding another entity's item stops the move; a rehearsal verifies the result. The
dual-write window's side is in test_derived_window.py."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_migrate import snapshot
from test_random_migrations import Crash, crashing

from singletable.migrate import (
    Migration,
    MigrationError,
    backfill,
    merge,
    plan,
    rehearse,
    rekey,
    split,
    up,
)
from singletable.model import DB, Derived, Entity, Keys, Table, connect

before = Table(name="sites")
after = Table(name="sites")
labelled = Table(name="sites")  # a table's declarations name each type once: one per design of sites
relabelled = Table(name="sites")


class SiteTag(Entity, table=before, type="siteTag", timestamps=False):
    site_id: str
    tag: str
    keys = Keys(PK="TAG#{tag}", SK="SITE#{site_id}")


class OldSummary(Entity, table=before, type="summary", timestamps=False):
    site_id: str
    count: int
    keys = Keys(PK="S#{site_id}", SK="SUMMARY")


class Site(Entity, table=before, type="site", timestamps=False, unique={"url": "URL#{url}"}):
    site_id: str
    kind: str = "shop"
    url: str | None = None
    tags: list[str] = []
    keys = Keys(PK="S#{site_id}", SK="SITE")
    tag_items = Derived(SiteTag, each="tags", as_="tag")
    summary = Derived(OldSummary, build=lambda s: OldSummary(site_id=s.site_id, count=len(s.tags)))


class Label(Entity, table=after, type="label", timestamps=False):
    site_id: str
    tag: str
    keys = Keys(PK="LABEL#{tag}", SK="SITE#{site_id}")


class Summary(Entity, table=after, type="summary", timestamps=False):
    site_id: str
    count: int
    keys = Keys(PK="SITE#{site_id}", SK="SUMMARY")


class MovedSite(Entity, table=after, type="site", timestamps=False, unique={"url": "URL#{url}"}):
    """A new key; the tag items as they were; the summary beside the owner, so it moves too."""

    site_id: str
    kind: str = "shop"
    url: str | None = None
    tags: list[str] = []
    keys = Keys(PK="SITE#{site_id}", SK="SITE")
    tag_items = Derived(SiteTag, each="tags", as_="tag")
    summary = Derived(Summary, build=lambda s: Summary(site_id=s.site_id, count=len(s.tags)))


class LabelledSite(Entity, table=labelled, type="site", timestamps=False, unique={"url": "URL#{url}"}):
    """A new key, and labels instead of tag items: every derived item changes."""

    site_id: str
    kind: str = "shop"
    url: str | None = None
    tags: list[str] = []
    keys = Keys(PK="SITE#{site_id}", SK="SITE")
    labels = Derived(Label, each="tags", as_="tag")
    summary = Derived(Summary, build=lambda s: Summary(site_id=s.site_id, count=len(s.tags)))


class RelabelledSite(Entity, table=relabelled, type="site", timestamps=False, unique={"url": "URL#{url}"}):
    """The key as it was; labels instead of tag items."""

    site_id: str
    kind: str = "shop"
    url: str | None = None
    tags: list[str] = []
    keys = Keys(PK="S#{site_id}", SK="SITE")
    labels = Derived(Label, each="tags", as_="tag")
    summary = Derived(OldSummary, build=lambda s: OldSummary(site_id=s.site_id, count=len(s.tags)))


class ShopTag(Entity, table=after, type="shopTag", timestamps=False):
    site_id: str
    tag: str
    keys = Keys(PK="TAG#{tag}", SK="SITE#{site_id}")  # the key of a SiteTag, another type


class Shop(Entity, table=after, type="shop", timestamps=False, unique={"url": "URL#{url}"}):
    site_id: str
    url: str | None = None
    tags: list[str] = []
    keys = Keys(PK="SHOP#{site_id}", SK="SITE")
    tag_items = Derived(ShopTag, each="tags", as_="tag")


class Blog(Entity, table=after, type="blog", timestamps=False):
    site_id: str
    url: str | None = None
    tags: list[str] = []
    keys = Keys(PK="S#{site_id}", SK="SITE")  # kept in place; no derived items


SITES = [
    {"site_id": "1", "kind": "shop", "url": "a.example", "tags": ["red", "blue"]},
    {"site_id": "2", "kind": "blog", "url": "b.example", "tags": ["red"]},
    {"site_id": "3", "kind": "shop", "tags": []},
    {"site_id": "4", "kind": "blog", "tags": ["green", "red", "blue"]},
]
MOVE = Migration("0001-move", "sites keyed SITE#id", [rekey(Site, to=MovedSite)], table=before)
LABEL = Migration("0001-label", "sites keyed SITE#id, labelled", [rekey(Site, to=LabelledSite)], table=before)
RELABEL = Migration("0001-relabel", "labels in place", [rekey(Site, to=RelabelledSite)], table=before)
SPLIT = Migration(
    "0001-split", "shops and blogs", [split(Site, into={"shop": Shop, "blog": Blog}, by="kind")], table=before
)
WINDOW = Migration("0001-window", "labels", [rekey(Site, to=LabelledSite, keep_old=True)], table=before)
MERGE = Migration(
    "0002-merge",
    "sites again",
    [merge([Shop, Blog], into=Site, set={Shop: {"kind": "shop"}, Blog: {"kind": "blog"}})],
    table=after,
)


@pytest.fixture
def db(target: Any) -> Iterator[DB]:
    one = connect(before, target, name=f"sites_{uuid.uuid4().hex[:10]}")
    one.create_table()
    yield one
    one.delete_table()


def fresh(db: DB, entities: list[Entity]) -> list[dict[str, Any]]:
    """What the model writes for ``entities`` on a new table beside ``db``'s: the table a migration must
    leave."""
    other = DB(before, db.adapter, name=f"{db.table_name}_fresh")
    other.create_table()
    try:
        for entity in entities:
            other.create(entity)
        return snapshot(other)
    finally:
        other.delete_table()


def seed(db: DB, sites: list[dict[str, Any]] = SITES) -> None:
    for site in sites:
        db.create(Site(**site))


def as_new(cls: type[Entity], sites: list[dict[str, Any]] = SITES) -> list[Entity]:
    return [cls(**{k: v for k, v in site.items() if k in cls.model_fields}) for site in sites]


def split_entities(sites: list[dict[str, Any]] = SITES) -> list[Entity]:
    out: list[Entity] = []
    for site in sites:
        cls = Shop if site["kind"] == "shop" else Blog
        out.append(cls(**{k: v for k, v in site.items() if k != "kind"}))
    return out


def refused_as_it_was(db: DB, message: str, run: Callable[[], object]) -> None:
    """``run()`` raises MigrationError matching ``message`` and leaves the table as it was."""
    was = snapshot(db)
    with pytest.raises(MigrationError, match=message):
        run()
    assert snapshot(db) == was


def types(items: list[dict[str, Any]]) -> list[str]:
    return sorted(i.get("entityType", {}).get("S", "(guard)") for i in items)


@pytest.mark.parametrize(
    ("migration", "cls", "written"),
    [(MOVE, MovedSite, 4), (LABEL, LabelledSite, 4), (RELABEL, RelabelledSite, 3)],  # site 3 has no tags
)
def test_a_rekey_leaves_what_a_fresh_write_makes(
    db: DB, migration: Migration, cls: type[Entity], written: int
) -> None:
    seed(db)
    [result] = up(migration, db, page_size=2)
    assert result.written == written
    assert snapshot(db) == fresh(db, as_new(cls))


def test_a_rekey_counts_every_derived_item(db: DB) -> None:
    seed(db)
    was = types(snapshot(db))
    assert was.count("siteTag") == 6 and was.count("summary") == 4 and was.count("site") == 4
    up(LABEL, db)
    now = types(snapshot(db))
    assert now.count("siteTag") == 0 and now.count("label") == 6 and now.count("summary") == 4
    assert now.count("(guard)") == was.count("(guard)") == 2
    keys = {i["PK"]["S"] for i in snapshot(db)}
    assert not any(k.startswith(("S#", "TAG#")) for k in keys)  # no old owner, summary or tag item left


def test_a_split_then_a_merge_moves_derived_items_both_ways(db: DB) -> None:
    seed(db)
    original = snapshot(db)
    up(SPLIT, db, page_size=3)
    assert snapshot(db) == fresh(db, split_entities())
    up(MERGE, db, page_size=3)
    assert snapshot(db) == original


def test_a_second_run_writes_nothing_but_an_in_place_relabelling(db: DB) -> None:
    seed(db)
    for migration in (LABEL, SPLIT):
        one = connect(before, db.adapter, name=f"{db.table_name}_{migration.id}")  # type: ignore[arg-type]
        one.create_table()
        try:
            seed(one)
            up(migration, one)
            once = snapshot(one)
            one.call("DeleteItem", {"TableName": one.table_name, "Key": {"PK": RECORD, "SK": RECORD}})
            [again] = up(migration, one)
            assert again.written == 0 and snapshot(one) == once
        finally:
            one.delete_table()
    # the owner stays as it is; only its derived items change, so each run sends them again (no change)
    up(RELABEL, db)
    once = snapshot(db)
    db.call("DeleteItem", {"TableName": db.table_name, "Key": {"PK": RECORD, "SK": RECORD}})
    [again] = up(RELABEL, db)
    assert again.written == 3 and snapshot(db) == once  # the three sites with tags


RECORD = {"S": "_singletable#migrations"}
CRASHES = [(2, False), (4, True), (5, False), (7, True), (9, True), (12, False)]


@pytest.mark.parametrize("migration", [LABEL, SPLIT], ids=["rekey", "split"])
def test_crashes_then_a_resume_converge(db: DB, migration: Migration) -> None:
    """The process dies at a request (before it is sent, or once it is applied and before its answer is
    seen), over and over; the run that finally ends leaves the table an uninterrupted run leaves."""
    seed(db)
    straight = connect(before, db.adapter, name=f"{db.table_name}_straight")  # type: ignore[arg-type]
    straight.create_table()
    try:
        seed(straight)
        up(migration, straight, page_size=1)
        crashed = 0
        for at, applied in CRASHES:
            dying = connect(before, db.adapter, name=db.table_name)  # type: ignore[arg-type]
            crashing(dying, at, applied)
            try:
                up(migration, dying, page_size=1)
            except Crash:
                crashed += 1
        assert crashed >= 3
        up(migration, db, page_size=1)
        assert snapshot(db) == snapshot(straight)
    finally:
        straight.delete_table()


def test_crashes_in_a_merge_converge(db: DB) -> None:
    seed(db)
    up(SPLIT, db)
    for at, applied in CRASHES:
        dying = connect(before, db.adapter, name=db.table_name)  # type: ignore[arg-type]
        crashing(dying, at, applied)
        try:
            up(MERGE, dying, page_size=1)
        except Crash:
            pass
    up(MERGE, db, page_size=1)
    assert snapshot(db) == fresh(db, [Site(**site) for site in SITES])


def big(n: int) -> dict[str, Any]:
    return {"site_id": "big", "kind": "shop", "tags": [f"t{i}" for i in range(n)]}


def test_the_hundred_action_limit(db: DB) -> None:
    """A move of 48 tags is 100 actions (the item put and deleted, 48 tag items deleted, 48 labels put, the
    summary deleted and put): sent. One of 49 is 102: refused before anything is written, naming the
    entity, its key and the count; ``plan`` names it too."""
    seed(db, [big(48)])
    up(LABEL, db)
    assert types(snapshot(db)).count("label") == 48
    db.call("DeleteItem", {"TableName": db.table_name, "Key": {"PK": RECORD, "SK": RECORD}})
    for item in snapshot(db):
        db.call("DeleteItem", {"TableName": db.table_name, "Key": {"PK": item["PK"], "SK": item["SK"]}})
    seed(db, [big(49)])
    before_run = snapshot(db)
    message = (
        "rekey site PK=S#big, SK=SITE: it takes 102 writes in one transaction (the item, its uniqueness "
        "guards and derived items), more than the 100 DynamoDB allows; nothing of it was written"
    )
    [step] = plan(LABEL, db).steps
    assert step.problems == [message]
    with pytest.raises(MigrationError) as refused:
        up(LABEL, db)
    assert str(refused.value) == message
    assert snapshot(db) == before_run


def test_a_split_over_the_limit_names_its_verb(db: DB) -> None:
    seed(db, [big(98)])  # a shop: 98 tag items become shop tags (a put each), the summary is deleted
    message = r"^split site PK=S#big, SK=SITE: it takes 101 writes in one transaction"
    with pytest.raises(MigrationError, match=message):
        up(SPLIT, db)


# another entity's item where a label of site 1 goes
SQUATTER = {"PK": {"S": "LABEL#red"}, "SK": {"S": "SITE#1"}, "entityType": {"S": "note"}}


@pytest.mark.parametrize(
    ("migration", "step"),
    [(LABEL, "rekey site to LabelledSite"), (WINDOW, r"rekey site to LabelledSite \(keeping .*\)")],
    ids=["move", "copy"],
)
def test_a_derived_key_holding_another_item_stops_the_move(db: DB, migration: Migration, step: str) -> None:
    seed(db, SITES[:1])
    db.call("PutItem", {"TableName": db.table_name, "Item": SQUATTER})
    message = (
        rf"^{step}: cannot move PK=S#1, SK=SITE to PK=SITE#1, SK=SITE: the new key holds nothing, but a "
        r"uniqueness guard was missing or a derived item's key holds another item$"
    )
    refused_as_it_was(db, message, lambda: up(migration, db))


def test_a_backfill_swaps_the_derived_items_of_what_it_changes(db: DB) -> None:
    seed(db)
    upper = backfill(
        Site, set={"tags": lambda v: [t.upper() for t in v["tags"]]}, where=lambda v: v["kind"] == "blog"
    )
    up(Migration("0001-upper", "blog tags in capitals", [upper], table=before), db)
    sites = [{**s, "tags": [t.upper() for t in s["tags"]]} if s["kind"] == "blog" else s for s in SITES]
    assert snapshot(db) == fresh(db, [Site(**site) for site in sites])


@pytest.mark.parametrize(
    ("migration", "counts"),
    [
        (LABEL, {"site": (4, 4), "siteTag": (6, 0), "label": (0, 6), "summary": (4, 4)}),
        (SPLIT, {"site": (4, 0), "shop": (0, 2), "blog": (0, 2), "siteTag": (6, 0), "shopTag": (0, 2)}),
    ],
    ids=["rekey", "split"],
)
def test_a_rehearsal_verifies_the_moved_derived_items(
    tmp_path: Path, migration: Migration, counts: dict[str, tuple[int, int]]
) -> None:
    source = tmp_path / "live.db"
    live = connect(before, str(source))
    live.create_table()
    seed(live)
    live.close()
    found = rehearse(migration, str(source))
    assert found.ok, found.problems
    seen = {c.type: (c.before, c.after) for c in found.counts}
    assert {kind: seen[kind] for kind in counts} == counts


def test_a_move_to_a_stored_twin_whose_derived_key_is_taken_stops(db: DB) -> None:
    """The new shape is already stored (an application wrote it): the old item is deleted with its derived
    items moving in one transaction -- unless a derived item's key holds another item."""
    site = {"site_id": "1", "tags": ["red", "blue"]}  # no url: no guard to name the new key
    seed(db, [site])
    owner = next(i for i in snapshot(db) if i["PK"]["S"] == "S#1" and i["SK"]["S"] == "SITE")
    twin = {**owner, "PK": {"S": "SITE#1"}}
    db.call("PutItem", {"TableName": db.table_name, "Item": twin})
    db.call("PutItem", {"TableName": db.table_name, "Item": SQUATTER})
    message = (
        r"^rekey site to LabelledSite: item PK=S#1, SK=SITE: its new shape is stored, but deleting it with "
        r"its derived items was refused \(TransactionCanceledException: "
    )
    with pytest.raises(MigrationError, match=message):
        up(LABEL, db)
    db.call("DeleteItem", {"TableName": db.table_name, "Key": {"PK": SQUATTER["PK"], "SK": SQUATTER["SK"]}})
    up(LABEL, db)
    assert snapshot(db) == fresh(db, as_new(LabelledSite, [site]))
