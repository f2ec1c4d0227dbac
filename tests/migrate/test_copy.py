"""``copy_from``: a migration that reads another table and writes what its items become, on the engine,
``serve`` and DynamoDB Local -- into a table whose key type differs, conditional puts that keep what is
there, ``ADD`` for set members, the checkpoint in the target, the source only read, and every refusal."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from every_item import every_item_of
from singletable.migrate import (
    AddToSet,
    Migration,
    MigrationError,
    Progress,
    copy_from,
    each,
    plan,
    status,
    up,
)
from singletable.model import DB, Entity, Keys, Table, connect

RECORD = {"S": "_singletable#migrations"}


class Interrupted(Exception):
    pass


old = Table(name="old_tags", pk=("id", "N"), sk=None)
new = Table(name="new_tags")


class Thing(Entity, table=new, type="thing", timestamps=False):
    id: str
    name: str
    keys = Keys(PK="THING#{id}", SK="THING")


class Tag(Entity, table=new, type="tag", timestamps=False):
    """Fed by every thing carrying the tag: its ``things`` set grows with ADD."""

    tag: str
    things: set[str] = set()
    keys = Keys(PK="TAG#{tag}", SK="TAG")


class Owned(Entity, table=new, type="owned", timestamps=False, unique={"name": "NAME#{name}"}):
    id: str
    name: str
    keys = Keys(PK="OWNED#{id}", SK="OWNED")


def things(item: dict[str, Any]) -> list[Entity | AddToSet]:
    id_ = item["id"]["N"]
    tags = item.get("tags", {}).get("SS", [])
    return [
        Thing(id=id_, name=item["name"]["S"]),
        *(AddToSet(Tag(tag=t, things={id_}), "things") for t in tags),
    ]


def old_items(count: int) -> list[dict[str, Any]]:
    return [
        {"id": {"N": str(i)}, "name": {"S": f"thing {i}"}, "tags": {"SS": [f"t{i % 3}", "all"]}}
        for i in range(count)
    ]


@pytest.fixture
def tables(target: Any) -> Any:
    suffix = uuid.uuid4().hex[:10]
    source = connect(old, target, name=f"old_{suffix}")
    source.create_table()
    dest = connect(new, target, name=f"new_{suffix}")
    dest.create_table()
    yield source, dest
    for db in (source, dest):
        db.delete_table()


def copy_of(source: DB, fn: Any = things) -> Migration:
    return Migration(
        "0001-copy", "copy old_tags", [copy_from(old, each=fn, name=source.table_name)], table=new
    )


def contents(db: DB) -> dict[tuple[str, ...], dict[str, Any]]:
    out: dict[tuple[str, ...], dict[str, Any]] = {}
    for item in every_item_of(db):
        key = tuple(next(iter(item[n].values())) for n in (db.table.pk_name, db.table.sk_name) if n)
        if item.get(db.table.pk_name) != RECORD:
            out[key] = {k: sorted(v["SS"]) if "SS" in v else v for k, v in item.items()}
    return out


def seed(db: DB, items: list[dict[str, Any]]) -> None:
    for item in items:
        db.call("PutItem", {"TableName": db.table_name, "Item": item})


def test_copy_into_a_table_of_another_key_type(tables: Any) -> None:
    source, dest = tables
    seed(source, old_items(10))
    before = contents(source)
    [result] = up(copy_of(source), dest, page_size=3)
    assert (result.state, result.scanned, result.written) == ("applied", 10, 10)
    assert contents(source) == before  # only read
    copied = contents(dest)
    assert copied[("THING#4", "THING")]["name"] == {"S": "thing 4"}
    assert copied[("TAG#all", "TAG")]["things"] == sorted(str(i) for i in range(10))
    assert copied[("TAG#t1", "TAG")] == {
        "PK": {"S": "TAG#t1"},
        "SK": {"S": "TAG"},
        "entityType": {"S": "tag"},
        "tag": {"S": "t1"},
        "things": ["1", "4", "7"],
    }
    assert len(copied) == 10 + 4
    assert dest.get(Tag, tag="t0").things == {"0", "3", "6", "9"}  # the model reads what the copy wrote


def test_interrupted_copy_resumes_to_the_same_table(tables: Any, target: Any) -> None:
    source, dest = tables
    seed(source, old_items(23))
    pages = [0]

    def stop(progress: Progress) -> None:
        """Every page from the second of a run on is interrupted (whichever segment did it)."""
        pages[0] += 1
        if pages[0] >= 2:
            raise Interrupted

    for _ in range(2):
        pages[0] = 0
        with pytest.raises(Interrupted):
            up(copy_of(source), dest, page_size=2, segments=2, on_page=stop)
    [running] = status([copy_of(source)], dest)
    assert running.state == "running" and running.segments == 2
    [result] = up(copy_of(source), dest, page_size=2)
    assert result.resumed and result.state == "applied"
    straight = connect(new, target, name=f"straight_{uuid.uuid4().hex[:10]}")
    straight.create_table()
    try:
        up(copy_of(source), straight, page_size=5)
        assert contents(dest) == contents(straight)
    finally:
        straight.delete_table()
    record = dest.call("GetItem", {"TableName": dest.table_name, "Key": {"PK": RECORD, "SK": RECORD}})["Item"]
    # the checkpoint is in the target's record item: its key and the record's two maps, no index attribute
    assert set(record) == {"PK", "SK", "singletableApplied", "singletableRunning"}


def test_what_is_already_in_the_target_is_kept(tables: Any) -> None:
    """A thing written by the new code before the copy reached it keeps its newer name; its tags still
    gain it; the whole copy run again (its record forgotten) changes nothing."""
    source, dest = tables
    seed(source, old_items(6))
    dest.put(Thing(id="2", name="renamed on the new table"))
    up(copy_of(source), dest, page_size=4)
    assert dest.get(Thing, id="2").name == "renamed on the new table"
    once = contents(dest)
    dest.call("DeleteItem", {"TableName": dest.table_name, "Key": {"PK": RECORD, "SK": RECORD}})
    up(copy_of(source), dest, page_size=4)
    assert contents(dest) == once


def test_the_source_migration_record_is_not_copied(tmp_path: Path) -> None:
    file = str(tmp_path / "t.db")
    source = connect(new, file, name="source")
    source.create_table()
    source.put(Thing(id="1", name="one"))
    up(Migration("0001", "noop", [each(lambda item: [], Thing)]), source)  # the source has a record now
    dest = connect(new, file, name="dest")
    dest.create_table()

    def again(item: dict[str, Any]) -> list[Entity | AddToSet]:
        return [Thing(id=item["PK"]["S"].removeprefix("THING#"), name=item["name"]["S"])]

    copying = Migration("0002", "copy", [copy_from(new, each=again, name="source")], table=new)
    [result] = up(copying, dest)
    assert result.scanned == 1 and list(contents(dest)) == [("THING#1", "THING")]


def test_refusals_name_what_is_wrong(tmp_path: Path) -> None:
    file = str(tmp_path / "t.db")
    source = connect(old, file, name="old")
    source.create_table()
    seed(source, old_items(1))
    dest = connect(new, file, name="new")
    dest.create_table()
    cases = [
        (
            lambda item: ["text"],
            r"^copy_from\(old\): each returned 'text': return entities or AddToSet\(...\)$",
        ),
        (
            lambda item: [Owned(id="1", name="x")],
            r"^copy_from: owned has uniqueness guards, which a copied put does not write; ",
        ),
        (
            lambda item: [AddToSet(Thing(id="1", name="x"), "name")],
            r"^AddToSet: thing.name is not a set field$",
        ),
        (lambda item: [AddToSet(Tag(tag="x"), "things")], r"^AddToSet: tag.things holds no member to add$"),
        (
            lambda item: [item["missing"]],
            r"^copy old: test_refusals_name_what_is_wrong.<locals>.<lambda>: item id=0: KeyError: 'missing'$",
        ),
    ]
    for n, (fn, message) in enumerate(cases):
        migration = Migration(f"000{n}", "refused", [copy_from(old, each=fn, name="old")], table=new)
        with pytest.raises(MigrationError, match=message):
            up(migration, dest)
    with pytest.raises(TypeError, match=r"copy_from\(\) takes the source's Table\(...\), not 'old'"):
        copy_from("old", each=things)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"copy_from\(\) needs each=, a function of one source item"):
        copy_from(old, each=None)  # type: ignore[arg-type]
    missing = Migration("0009", "no source", [copy_from(old, each=things, name="nowhere")], table=new)
    with pytest.raises(MigrationError, match=r"^copy_from: the source table nowhere is not on this database"):
        up(missing, dest)
    from singletable.migrate._calls import Caller

    reader = copy_from(old, each=things, name="old").reader(Caller(dest))
    with pytest.raises(MigrationError, match="PutItem was asked"):
        reader("PutItem", {"Item": old_items(1)[0]})
    assert contents(source) == {("0",): {**old_items(1)[0], "tags": ["all", "t0"]}}


def test_plan_reads_the_source_and_writes_nothing(tables: Any) -> None:
    source, dest = tables
    seed(source, old_items(5))
    [step] = plan(copy_of(source), dest).steps
    assert step.scanned == {f"source {source.table_name}": 5}
    assert step.touched == {f"source {source.table_name}": 5, "thing": 5, "tag": 10}
    assert step.write_units >= 15 and step.read_units > 0
    assert contents(dest) == {}
    [sampled] = plan(copy_of(source), dest, sample=2).steps
    assert sum(sampled.scanned.values()) == 2
