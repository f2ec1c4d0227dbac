"""Random items (some owning derived items), random migrations built from every verb, random crashes: the
table a run ends in after any number of crashes and resumes is the table one uninterrupted run gives
(hypothesis).

A crash is the process dying at its Nth request to the table, either before the request is sent or after it
was applied and before its answer was seen -- what ``kill -9`` can do, at any point of any step, including
between the writes of one item and inside a transaction's aftermath. The resumed run is a new ``up`` on the
same table, as after a restart.
"""

from __future__ import annotations

import itertools
import uuid
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from draws import examples
from every_item import every_item_of
from singletable.engine import Engine
from singletable.migrate import (
    AddToSet,
    Delete,
    Migration,
    add_index,
    backfill,
    copy_from,
    drop_index,
    each,
    rekey,
    rename,
    up,
)
from singletable.migrate._steps import Step
from singletable.model import DB, GSI, Derived, Entity, Keys, Table, connect

RECORD = {"S": "_singletable#migrations"}

before = Table(name="rnd", indexes=[GSI("byTag", pk="GSI1PK"), GSI("byName", pk="GSI2PK")])
after = Table(name="rnd", indexes=[GSI("byTag", pk="GSI1PK"), GSI("byName", pk="GSI2PK")])
source = Table(name="rnd_source", pk=("sid", "N"), sk=None)


class Labelled(Entity, table=before, type="labelled", timestamps=False):
    """One per label of an item (a derived item), keyed apart from its owner."""

    id: str
    label: str
    keys = Keys(PK="L#{label}", SK="I#{id}")


class MovedLabel(Entity, table=after, type="movedLabel", timestamps=False):
    id: str
    label: str
    keys = Keys(PK="LABEL#{label}", SK="ITEM#{id}")


class Item(Entity, table=before, type="item", timestamps=False, unique={"email": "EMAIL#{email}"}):
    id: str
    name: str
    score: int | None = None
    tag: str | None = None
    nick: str | None = None
    email: str | None = None
    labels: list[str] = []
    keys = Keys(PK="I#{id}", SK="ITEM", GSI1PK="{tag}")
    label_items = Derived(Labelled, each="labels", as_="label")


class MovedItem(Entity, table=after, type="item", timestamps=False, unique={"email": "MAIL#{email}"}):
    id: str
    name: str
    score: int | None = None
    tag: str | None = None
    nick: str | None = None
    email: str | None = None
    labels: list[str] = []
    keys = Keys(PK="ITEM#{id}", SK="ITEM", GSI1PK="{tag}", GSI2PK="N#{name}")
    label_items = Derived(MovedLabel, each="labels", as_="label")


class Note(Entity, table=before, type="note", timestamps=False):
    id: str
    text: str
    keys = Keys(PK="I#{id}", SK="NOTE")


class Copied(Entity, table=before, type="copied", timestamps=False):
    sid: str
    label: str
    keys = Keys(PK="C#{sid}", SK="COPIED")


class Bucket(Entity, table=before, type="bucket", timestamps=False):
    letter: str
    ids: set[str] = set()
    keys = Keys(PK="B#{letter}", SK="BUCKET")


def upper_name(values: dict[str, Any]) -> dict[str, Any]:
    return {"name": values["name"].upper()}  # idempotent, as a backfill's function should be


def notes_and_deletes(item: dict[str, Any]) -> list[Entity | Delete]:
    """A note beside each scored item; items named with a leading "z" are deleted."""
    if item["name"]["S"].lower().startswith("z"):
        return [Delete({"PK": item["PK"], "SK": item["SK"]})]
    if "score" in item:
        return [Note(id=item["id"]["S"], text=f"scored {item['score']['N']}")]
    return []


def copied(item: dict[str, Any]) -> list[Entity | AddToSet]:
    sid, label = item["sid"]["N"], item["label"]["S"]
    return [Copied(sid=sid, label=label), AddToSet(Bucket(letter=label[0], ids={sid}), "ids")]


def steps_for(choices: list[bool], source_name: str) -> list[Step]:
    """The steps chosen, in an order where each makes sense after the ones before it."""
    pool: list[Step] = [
        copy_from(source, each=copied, name=source_name),
        drop_index("byName"),
        backfill(Item, set=upper_name, where=lambda v: v.get("score") is not None),
        rename(Item.f.nick, "nickname"),
        each(notes_and_deletes, Item),
        rekey(Item, to=MovedItem),
        add_index(GSI("byName", pk="GSI2PK")),
        backfill(MovedItem if choices[5] else Item, set={}),
    ]
    chosen = [step for step, keep in zip(pool, choices, strict=True) if keep]
    return chosen or [pool[4]]


class Crash(BaseException):
    """The process died (not an Exception: nothing in the run may catch it)."""


def crashing(db: DB, at: int, after: bool) -> None:
    """``db`` dies at its ``at``-th request: before sending it, or (``after``) once it is applied."""
    call = db.call
    count = itertools.count(1)

    def dying(operation: str, params: dict[str, Any]) -> dict[str, Any]:
        if next(count) == at:
            if after:
                call(operation, params)
            raise Crash
        return call(operation, params)

    db.call = dying  # type: ignore[method-assign]


def fresh(engine: Engine, items: list[dict[str, Any]], sources: list[dict[str, Any]]) -> DB:
    suffix = uuid.uuid4().hex[:10]
    db = connect(before, engine, name=f"rnd_{suffix}")
    db.create_table()
    for item in items:
        db.create(Item(**item))
    origin = connect(source, engine, name=f"src_{suffix}")
    origin.create_table()
    for one in sources:
        origin.call("PutItem", {"TableName": origin.table_name, "Item": one})
    return db


def snapshot(db: DB) -> list[dict[str, Any]]:
    items = [
        {k: sorted(v["SS"]) if "SS" in v else v for k, v in item.items()}
        for item in every_item_of(db)
        if item["PK"] != RECORD
    ]
    return sorted(items, key=lambda i: (i["PK"]["S"], i["SK"]["S"]))


def derived_agree(items: list[dict[str, Any]]) -> None:
    """Every item has the derived items of the declaration its key is in (moved: MovedLabel, else
    Labelled) and a moved item has none of the old ones left. (An item ``each`` deleted leaves its
    derived items: a raw delete does not know them.)"""
    keys = {(i["PK"]["S"], i["SK"]["S"]) for i in items}
    for item in items:
        if item.get("entityType") != {"S": "item"}:
            continue
        owner = item["id"]["S"]
        labels = [v["S"] for v in item.get("labels", {}).get("L", [])]
        moved = item["PK"]["S"].startswith("ITEM#")
        for label in labels:
            wanted = (f"LABEL#{label}", f"ITEM#{owner}") if moved else (f"L#{label}", f"I#{owner}")
            assert wanted in keys, (item, wanted)
            if moved:
                assert (f"L#{label}", f"I#{owner}") not in keys, item


def indexes(db: DB) -> list[str]:
    described = db.call("DescribeTable", {"TableName": db.table_name})["Table"]
    return sorted(g["IndexName"] for g in described.get("GlobalSecondaryIndexes", []))


names = st.text("abcxyz", min_size=1, max_size=4)
items = st.lists(
    st.fixed_dictionaries(
        {"id": st.integers(0, 60).map(str), "name": names},
        optional={
            "score": st.integers(-5, 5),
            "tag": st.sampled_from(["red", "blue"]),
            "nick": names,
            "email": st.integers(0, 60).map(lambda n: f"u{n}@x.org"),
            "labels": st.lists(st.sampled_from(["a", "b", "c"]), unique=True, max_size=3),
        },
    ),
    max_size=14,
    unique_by=(lambda i: i["id"], lambda i: i.get("email") or i["id"]),
)
sources = st.lists(
    st.tuples(st.integers(0, 99), names).map(lambda t: {"sid": {"N": str(t[0])}, "label": {"S": t[1]}}),
    max_size=8,
    unique_by=lambda s: s["sid"]["N"],
)
crashes = st.lists(st.tuples(st.integers(1, 40), st.booleans()), max_size=6)


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    items=items,
    sources=sources,
    choices=st.lists(st.booleans(), min_size=8, max_size=8),
    page_size=st.integers(1, 4),
    segments=st.integers(1, 3),
    crashes=crashes,
)
def test_crashes_and_resumes_end_as_one_uninterrupted_run(
    items: list[dict[str, Any]],
    sources: list[dict[str, Any]],
    choices: list[bool],
    page_size: int,
    segments: int,
    crashes: list[tuple[int, bool]],
) -> None:
    with Engine(":memory:") as engine:
        straight, crashed = fresh(engine, items, sources), fresh(engine, items, sources)
        steps = steps_for(choices, straight.table_name.replace("rnd_", "src_"))
        up(Migration("0001-random", "random steps", steps, table=before), straight, page_size=page_size)
        steps = steps_for(choices, crashed.table_name.replace("rnd_", "src_"))
        migration = Migration("0001-random", "random steps", steps, table=before)
        for at, applied in crashes:
            db = connect(before, engine, name=crashed.table_name)
            crashing(db, at, applied)
            try:
                up(migration, db, page_size=page_size, segments=segments)
            except Crash:
                continue
        [last] = up(migration, crashed, page_size=page_size, segments=segments)
        assert last.state in ("applied", "already applied")
        assert snapshot(crashed) == snapshot(straight)
        derived_agree(snapshot(straight))
        assert indexes(crashed) == indexes(straight)
