"""The model API's promises beyond the seeds: templates, typed round trips, every update action, conditions,
timestamps, versions, transactions and batches -- on the engine and on DynamoDB Local."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

import pytest
from pydantic import BaseModel

from singletable.model import (
    GSI,
    AlreadyExists,
    ConditionFailed,
    DeclarationError,
    Entity,
    Key,
    Keys,
    MissingKeyFields,
    NotFound,
    Pattern,
    Table,
    VersionConflict,
    connect,
)
from stepping_clock import SteppingClock

pytestmark = pytest.mark.async_twin  # each test that opens a DB runs on AsyncDB too

app = Table(
    name="features", indexes=[GSI("GSI1", pk="GSI1PK", sk="GSI1SK"), GSI("byScore", pk=("score", "N"))]
)


class Meta(BaseModel):
    color: str = "red"
    counts: dict[str, int] = {}


class Doc(Entity, table=app, type="DOC", version="version"):
    org: str
    doc_id: str
    team: str | None = None
    seq: int = 0
    title: str = ""
    price: Decimal = Decimal("0")
    ratio: float = 0.0
    tags: list[str] = []
    labels: set[str] = set()
    meta: Meta = Meta()
    extra: dict[str, Any] = {}
    version: int | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(PK="ORG#{org}", SK="DOC#{doc_id}", GSI1PK="ORG#{org}#TEAM#{team}", GSI1SK="SEQ#{seq:06d}")
    by_team = Pattern(index="GSI1")
    in_org = Pattern()


class Score(Entity, table=app, type="SCORE", timestamps=False):
    player: str
    points: int
    keys = Keys(PK="PLAYER#{player}", SK="SCORE", score=Key("{points}", when=lambda points: points > 0))
    with_points = Pattern(index="byScore")


def test_templates_format_parse_and_check() -> None:
    meta = Doc.model_entity()
    values = {"org": "acme", "team": "core", "seq": 42}
    assert meta.keys["GSI1SK"].render(values) == "SEQ#000042"
    assert meta.keys["GSI1SK"].parse("SEQ#000042") == {"seq": 42}
    assert meta.keys["GSI1PK"].parse("ORG#acme#TEAM#core") == {"org": "acme", "team": "core"}
    assert meta.keys["GSI1PK"].parse("USER#x") is None
    with pytest.raises(DeclarationError, match="not a field"):

        class Broken(Entity, table=Table(name="x"), type="B"):
            a: str
            keys = Keys(PK="A#{b}", SK="S")

    with pytest.raises(DeclarationError, match="no key attribute"):

        class Broken2(Entity, table=Table(name="x"), type="B"):
            a: str
            keys = Keys(PK="A#{a}", SK="S", GSI9PK="x")

    with pytest.raises(DeclarationError, match="Number key"):

        class Broken3(Entity, table=app, type="B3"):
            a: str
            keys = Keys(PK="A#{a}", SK="S", score="{a}")

    described = app.describe()
    doc = next(e for e in described["entities"] if e["type"] == "DOC")
    assert {"attribute": "GSI1SK", "template": "SEQ#{seq:06d}"}.items() <= doc["keys"][3].items()
    assert [p["name"] for p in doc["patterns"]] == ["by_team", "in_org"]
    assert '"byScore"' in app.to_json()


def test_typed_round_trip_and_create_put_get_delete(open_db) -> None:
    db = open_db(app, clock=SteppingClock())
    doc = Doc(
        org="acme",
        doc_id="d1",
        title="Hello",
        price=Decimal("9.99"),
        ratio=0.5,
        tags=["a"],
        labels={"x", "y"},
        meta=Meta(color="blue", counts={"a": 1}),
        extra={"n": 1, "f": 1.5, "s": [1, "x"]},
    )
    created = db.create(doc)
    assert created.version == 1 and created.created_at == created.updated_at
    with pytest.raises(AlreadyExists):
        db.create(doc)
    got = db.get(Doc, org="acme", doc_id="d1")
    assert got == created
    assert type(got.price) is Decimal and type(got.ratio) is float and type(got.seq) is int
    assert got.created_at.tzinfo is not None and got.extra == {"n": 1, "f": 1.5, "s": [1, "x"]}
    assert db.get(Doc, org="acme", doc_id="nope") is None
    with pytest.raises(MissingKeyFields, match="doc_id"):
        db.get(Doc, org="acme")

    # put is an upsert that keeps createdAt and bumps the version; a stale version is refused.
    replaced = db.put(got.model_copy(update={"title": "Again", "created_at": None}))
    assert replaced.version == 2
    stored = db.get(Doc, org="acme", doc_id="d1")
    assert stored.created_at == created.created_at and stored.updated_at > created.updated_at
    with pytest.raises(VersionConflict):
        db.put(got)
    db.delete(stored)
    assert db.get(stored.key()) is None


def test_every_update_action(open_db) -> None:
    db = open_db(app, clock=SteppingClock())
    db.create(Doc(org="acme", doc_id="d1", tags=["b"], labels={"x"}, extra={"keep": 1}, seq=1, team="core"))
    key = Doc.key(org="acme", doc_id="d1")
    updated = db.update(
        key,
        Doc.f.tags.append(["c"]),
        Doc.f.labels.add({"y"}),
        Doc.f.meta.color.set("green"),
        Doc.f.meta.counts["a"].if_not_exists(5),
        Doc.f.extra["keep"].remove(),
        Doc.f.price.add(Decimal("1.5")),
        title="Set",
    )
    assert updated.tags == ["b", "c"] and updated.labels == {"x", "y"} and updated.meta.color == "green"
    assert updated.meta.counts == {"a": 5} and updated.extra == {} and updated.price == Decimal("1.5")
    assert updated.version == 2
    updated = db.update(
        key,
        Doc.f.tags.prepend(["a"]),
        Doc.f.labels.delete({"x"}),
        Doc.f.price.subtract(Decimal("0.5")),
        Doc.f.ratio.add(0.25),
    )
    assert updated.tags == ["a", "b", "c"] and updated.labels == {"y"} and updated.price == Decimal("1")
    assert updated.ratio == 0.25

    # Index keys follow the fields they are built from -- or the update is refused, naming what is missing.
    assert [d.doc_id for d in db.query(Doc.by_team(org="acme", team="core"))] == ["d1"]
    db.update(key, team="ops", org="acme") if False else db.update(key, team="ops")
    assert [d.doc_id for d in db.query(Doc.by_team(org="acme", team="ops"))] == ["d1"]
    with pytest.raises(MissingKeyFields) as caught:
        db.update(key, Doc.f.seq.add(1))
    assert caught.value.attribute == "GSI1SK" and caught.value.missing == ["seq"]
    db.update(key, team=None)
    assert list(db.query(Doc.by_team(org="acme", team="ops"))) == []
    with pytest.raises(NotFound):
        db.update(Doc.key(org="acme", doc_id="missing"), title="x")
    with pytest.raises(DeclarationError.__mro__[1]):  # KeyTemplateError: primary-key fields are immutable
        db.update(key, doc_id="d2")


def test_conditions_and_sparse_conditional_keys(open_db) -> None:
    db = open_db(app, clock=SteppingClock())
    db.create(Doc(org="acme", doc_id="d1", title="select", tags=["a", "b"], seq=3))
    key = Doc.key(org="acme", doc_id="d1")
    db.update(key, title="ok", condition=(Doc.f.seq.between(1, 5)) & Doc.f.tags.contains("a"))
    with pytest.raises(ConditionFailed):
        db.update(key, title="no", condition=Doc.f.tags.size() > 2)
    with pytest.raises(ConditionFailed):
        db.delete(key, condition=Doc.f.title.begins_with("x") | Doc.f.team.exists())
    assert db.get(key).title == "ok"
    found = db.query(Doc.in_org(org="acme").filter(Doc.f.title.is_in("ok", "other") & ~Doc.f.team.exists()))
    assert [d.doc_id for d in found] == ["d1"]

    db.put(Score(player="p1", points=10))
    db.put(Score(player="p2", points=0))  # the condition keeps zero scores out of the index
    assert [s.player for s in db.query(Score.with_points(10))] == ["p1"]
    assert (
        db.call("Scan", {"TableName": db.table_name, "IndexName": "byScore", "Select": "COUNT"})["Count"] == 1
    )
    db.update(Score.key(player="p1"), points=0)
    assert (
        db.call("Scan", {"TableName": db.table_name, "IndexName": "byScore", "Select": "COUNT"})["Count"] == 0
    )


def test_pages_iterate_lazily_and_limit_counts_entities(open_db) -> None:
    db = open_db(app, clock=SteppingClock())
    db.batch_write(put=[Doc(org="big", doc_id=f"{i:03d}", seq=i) for i in range(60)])
    results = db.query(Doc.in_org(org="big"), page_size=7)
    assert [d.seq for d in results] == list(range(60))
    assert [d.seq for d in db.query(Doc.in_org(org="big").newest_first(), limit=5)] == [59, 58, 57, 56, 55]
    odd = Doc.in_org(org="big").filter(Doc.f.title == "none")
    assert db.page(odd, size=10).items == [] and db.page(odd, size=10).cursor is None
    cursor, seen = None, []
    while True:
        page = db.page(Doc.in_org(org="big").where(Doc.f.doc_id >= "050"), size=4, cursor=cursor)
        seen += [d.seq for d in page]
        if not page.has_more:
            break
        cursor = page.cursor
    assert seen == list(range(50, 60))


def test_transactions_and_batches(open_db) -> None:
    db = open_db(app, clock=SteppingClock())
    docs = [Doc(org="bulk", doc_id=f"{i:03d}") for i in range(130)]
    db.batch_write(put=docs)
    keys = [Doc.key(org="bulk", doc_id=f"{i:03d}") for i in range(129, -1, -1)]
    fetched = db.batch_get([*keys, Doc.key(org="bulk", doc_id="missing")])
    assert [d.doc_id for d in fetched] == [f"{i:03d}" for i in range(129, -1, -1)]
    db.batch_write(delete=keys[:30])
    assert len(db.batch_get(keys)) == 100

    with db.transaction() as tx:
        tx.create(Doc(org="t", doc_id="a"))
        tx.update(Doc.key(org="bulk", doc_id="000"), title="moved")
        tx.check(Doc.key(org="bulk", doc_id="001"), Doc.f.version == 1)
        tx.raw({"Put": {"Item": {"PK": {"S": "RAW"}, "SK": {"S": "RAW"}}}})
    assert (
        db.get(Doc, org="t", doc_id="a") is not None
        and db.get(Doc, org="bulk", doc_id="000").title == "moved"
    )
    with pytest.raises(ConditionFailed), db.transaction() as tx:
        tx.create(Doc(org="t", doc_id="b"))
        tx.check(Doc.key(org="bulk", doc_id="001"), Doc.f.version == 7)
    assert db.get(Doc, org="t", doc_id="b") is None
    with pytest.raises(AlreadyExists), db.transaction() as tx:
        tx.create(Doc(org="t", doc_id="c"))
        tx.create(Doc(org="t", doc_id="a"))
    assert db.get(Doc, org="t", doc_id="c") is None


def test_connect_accepts_paths_and_memory(tmp_path) -> None:
    db = connect(app, ":memory:")
    assert db.adapter.native
    assert db.ensure_table() is True and db.ensure_table() is False
    db.put(Score(player="p", points=1))
    assert db.get(Score, player="p").points == 1
    db.close()
    path = str(tmp_path / "app.db")
    with connect(app, path) as first:
        first.ensure_table()
        first.put(Score(player="q", points=2))
    with connect(app, path) as second:
        assert second.get(Score, player="q").points == 2
