"""split and merge on real tables (engine, serve, DynamoDB Local): items change type and key with their
guards, unknown attributes ride along, a second run writes nothing, a split then a merge gives the table back,
and an interrupted split resumes to the table an uninterrupted one leaves."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_migrate import snapshot

from draws import examples
from singletable.migrate import Migration, MigrationError, merge, plan, split, status, up
from singletable.model import DB, Entity, Keys, Table, UniqueViolation, connect
from value_draws import attribute_values

before = Table(name="contacts")
after = Table(name="contacts")
RECORD = {"S": "_singletable#migrations"}


class Contact(Entity, table=before, type="contact", timestamps=False, unique={"email": "EMAIL#{email}"}):
    id: str
    kind: str
    name: str
    email: str | None = None
    vat: str | None = None
    keys = Keys(PK="CONTACT#{id}", SK="CONTACT")


class Person(Entity, table=after, type="person", timestamps=False, unique={"email": "EMAIL#{email}"}):
    id: str
    name: str
    email: str | None = None
    keys = Keys(PK="PERSON#{id}", SK="PROFILE")


class Company(Entity, table=after, type="company", timestamps=False):
    id: str
    name: str
    vat: str | None = None
    email: str | None = None
    keys = Keys(PK="CONTACT#{id}", SK="CONTACT")  # companies keep their key: the item is rewritten in place


def contact(i: int, kind: str, email: str | None = None, **extra: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "PK": {"S": f"CONTACT#{i}"},
        "SK": {"S": "CONTACT"},
        "entityType": {"S": "contact"},
        "id": {"S": str(i)},
        "kind": {"S": kind},
        "name": {"S": f"name {i}"},
        **extra,
    }
    if email is not None:
        item["email"] = {"S": email}
    return item


def seed(db: DB, items: list[dict[str, Any]]) -> None:
    """Contacts as the old design writes them, through the model (so each email has its guard), then the
    attributes no declaration knows."""
    for item in items:
        db.create(
            Contact(
                id=item["id"]["S"],
                kind=item["kind"]["S"],
                name=item["name"]["S"],
                email=item.get("email", {}).get("S"),
                vat=item.get("vat", {}).get("S"),
            )
        )
        unknown = {
            k: v for k, v in item.items() if k not in ("id", "kind", "name", "email", "vat", "PK", "SK")
        }
        unknown.pop("entityType", None)
        for name, av in unknown.items():
            db.call(
                "UpdateItem",
                {
                    "TableName": db.table_name,
                    "Key": {"PK": item["PK"], "SK": item["SK"]},
                    "UpdateExpression": "SET #n = :v",
                    "ExpressionAttributeNames": {"#n": name},
                    "ExpressionAttributeValues": {":v": av},
                },
            )


BY_KIND = split(Contact, into={"person": Person, "company": Company}, by="kind")
SPLIT = Migration("0001-split-contacts", "contacts become people and companies", [BY_KIND])
MERGE = Migration(
    "0002-merge-contacts",
    "people and companies become contacts again",
    [merge([Person, Company], into=Contact, set={Person: {"kind": "person"}, Company: {"kind": "company"}})],
)


@pytest.fixture
def db(target: Any) -> Iterator[DB]:
    one = connect(before, target, name=f"contacts_{uuid.uuid4().hex[:10]}")
    one.create_table()
    yield one
    one.call("DeleteTable", {"TableName": one.table_name})


def new_design(db: DB) -> DB:
    """The same table seen through the new declarations."""
    return DB(after, db.adapter, name=db.table_name)


def test_split_by_a_field(db: DB) -> None:
    seed(
        db,
        [
            contact(1, "person", "ann@x.org", note={"S": "kept"}),
            contact(2, "company", "sales@acme.com", vat={"S": "GB1"}),
            contact(3, "person"),
        ],
    )
    [result] = up(SPLIT, db, page_size=2)
    assert (result.state, result.written) == ("applied", 3)
    items = {i["PK"]["S"]: i for i in snapshot(db)}
    assert sorted(items) == ["CONTACT#2", "EMAIL#ann@x.org", "PERSON#1", "PERSON#3"]
    ann = items["PERSON#1"]
    assert ann["entityType"] == {"S": "person"} and ann["SK"] == {"S": "PROFILE"}
    assert ann["note"] == {"S": "kept"}  # neither declaration knows it: kept
    assert "kind" not in ann  # Contact's field that Person does not declare: dropped
    acme = items["CONTACT#2"]
    assert acme["entityType"] == {"S": "company"} and acme["vat"] == {"S": "GB1"}
    # Contact guarded email, Company does not: its guard is released; Person's guard names the moved item
    assert items["EMAIL#ann@x.org"]["owner"] == {"M": {"PK": {"S": "PERSON#1"}, "SK": {"S": "PROFILE"}}}
    people = new_design(db)
    found = people.find(Person, email="ann@x.org")
    assert found is not None and found.id == "1"
    with pytest.raises(UniqueViolation):
        people.create(Person(id="9", name="copy", email="ann@x.org"))
    people.create(Company(id="8", name="free", email="sales@acme.com"))  # the released email is free
    assert status([SPLIT], db)[0].state == "applied"


def test_split_then_merge_gives_the_table_back(db: DB) -> None:
    items = [contact(i, "person" if i % 2 else "company", f"c{i}@x.org" if i % 3 else None) for i in range(8)]
    seed(db, items)
    original = snapshot(db)
    company_guards = [i for i in original if i["PK"]["S"].startswith("EMAIL#")]
    assert company_guards
    up(SPLIT, db, page_size=3)
    up(MERGE, db, page_size=3)
    # companies lost their email guards in the split (Company declares none); merging claims them again
    assert snapshot(db) == original


def test_run_again_writes_nothing(db: DB) -> None:
    seed(db, [contact(i, "person" if i % 2 else "company", f"r{i}@x.org") for i in range(5)])
    up(SPLIT, db)
    once = snapshot(db)
    db.call("DeleteItem", {"TableName": db.table_name, "Key": {"PK": RECORD, "SK": RECORD}})
    [again] = up(SPLIT, db)
    assert again.written == 0 and snapshot(db) == once


def test_split_by_a_function_with_values_set(db: DB) -> None:
    seed(db, [contact(1, "person", "p@x.org"), contact(2, "company", vat={"S": "FR9"})])
    by_vat = split(
        Contact,
        into=[Person, Company],
        by=lambda v: Company if v.get("vat") else Person,
        set={Person: {"name": lambda v: v["name"].title()}},
    )
    up(Migration("0001-by-vat", "by VAT number", [by_vat]), db)
    items = {i["PK"]["S"]: i for i in snapshot(db)}
    assert items["PERSON#1"]["name"] == {"S": "Name 1"}
    assert items["CONTACT#2"]["entityType"] == {"S": "company"}


def test_a_value_no_target_takes_stops_naming_the_item(db: DB) -> None:
    seed(db, [contact(1, "person"), contact(2, "robot")])
    message = r"split contact PK=CONTACT#2, SK=CONTACT: kind is 'robot', which into does not name"
    with pytest.raises(MigrationError, match=message):
        up(SPLIT, db)
    [step] = plan(SPLIT, db).steps
    assert step.problem_count == 1 and step.problems[0].startswith("split contact PK=CONTACT#2")
    robot = [i for i in snapshot(db) if i["PK"]["S"] == "CONTACT#2"]
    assert [i["entityType"]["S"] for i in robot] == ["contact"]  # left as it was


def test_a_merge_that_collides_on_a_guard_stops(db: DB) -> None:
    people = new_design(db)
    people.create(Person(id="1", name="a", email="same@x.org"))
    people.create(Company(id="2", name="b", email="same@x.org"))  # Company does not guard its email
    with pytest.raises(MigrationError, match=r"item PK=CONTACT#2, SK=CONTACT: write refused"):
        up(MERGE, db)
    kinds = sorted(i["entityType"]["S"] for i in snapshot(db) if "entityType" in i)
    assert kinds == ["company", "contact"]  # the person merged; the company stays as it was, nothing lost


def test_declarations_are_checked() -> None:
    with pytest.raises(TypeError, match=r"split\(by='kind'\) takes into=\{value of kind: Entity"):
        split(Contact, into=[Person, Company], by="kind")
    with pytest.raises(ValueError, match=r"'colour' is not a field"):
        split(Contact, into={"a": Person, "b": Company}, by="colour")
    with pytest.raises(ValueError, match="names two or more distinct entity types"):
        split(Contact, into={"a": Person, "b": Person}, by="kind")
    with pytest.raises(ValueError, match="entity types named twice"):
        merge([Person, Person], into=Contact)
    with pytest.raises(ValueError, match="which is not one of the merged types"):
        merge([Person], into=Contact, set={Company: {"kind": "x"}})
    with pytest.raises(TypeError, match="a migration step takes an Entity class"):
        merge([dict], into=Contact)  # type: ignore[list-item]


@settings(
    max_examples=examples(5), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    kinds=st.lists(st.sampled_from(["person", "company"]), min_size=1, max_size=10),
    page_size=st.integers(1, 4),
    stop_at=st.integers(1, 10),
)
def test_an_interrupted_split_resumes_to_the_same_table(
    tmp_path: Any, kinds: list[str], page_size: int, stop_at: int
) -> None:
    """The run stops (an exception from the progress callback, as Ctrl-C would) after a page; the rerun
    resumes from the checkpoint and ends in the table an uninterrupted run leaves."""
    base = tmp_path / uuid.uuid4().hex[:8]
    base.mkdir()
    items = [contact(i, kind, f"h{i}@x.org" if i % 2 else None) for i, kind in enumerate(kinds)]
    dbs = [connect(before, str(base / f"{name}.db")) for name in ("straight", "stopped")]
    for one in dbs:
        one.create_table()
        seed(one, items)
    up(SPLIT, dbs[0], page_size=page_size)

    class Stop(Exception):
        pass

    def interrupt(progress: Any) -> None:
        if progress.pages == stop_at:
            raise Stop

    try:
        up(SPLIT, dbs[1], page_size=page_size, on_page=interrupt)
    except Stop:
        assert status([SPLIT], dbs[1])[0].state == "running"
    up(SPLIT, dbs[1], page_size=page_size)
    assert snapshot(dbs[1]) == snapshot(dbs[0])


def test_plan_counts_a_split_without_writing(db: DB) -> None:
    seed(db, [contact(1, "person", "a@x.org"), contact(2, "company"), contact(3, "person")])
    before_plan = snapshot(db)
    [step] = plan(SPLIT, db).steps
    assert step.step == "split contact into person, company"
    assert step.scanned == {"contact": 3} and step.touched == {"contact": 3}
    assert step.write_units > 0 and step.problem_count == 0 and step.violation_count == 0
    assert snapshot(db) == before_plan


stored = attribute_values(st.integers(-(10**20), 10**20).map(str), size=8, binary_sets=False, max_leaves=6)
unknown = st.dictionaries(st.from_regex(r"x[A-Za-z0-9_.#:-]{0,8}", fullmatch=True), stored, max_size=3)
hostile = st.lists(
    st.tuples(
        st.sampled_from(["person", "company"]),
        st.text(min_size=1, max_size=20),
        st.one_of(st.none(), st.text(st.characters(exclude_characters="#", codec="utf-8"), max_size=30)),
        unknown,
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=examples(25), deadline=None)
@given(contacts=hostile, page_size=st.integers(1, 4))
def test_split_then_merge_keeps_every_value(
    contacts: list[tuple[str, str, str | None, dict[str, Any]]], page_size: int
) -> None:
    """Any names, emails (unique, any UTF-8 text but the key delimiter, which the model refuses in a key) and
    attributes no declaration knows, of every type and nesting: a split then a merge gives the table back
    exactly."""
    db = connect(before, ":memory:")
    db.create_table()
    items = []
    for i, (kind, name, email, extra) in enumerate(contacts):
        item = contact(i, kind, None if email is None else f"{i}:{email}", **extra)
        item["name"] = {"S": name}
        items.append(item)
    seed(db, items)
    original = snapshot(db)
    up(SPLIT, db, page_size=page_size)
    split_once = snapshot(db)
    assert all(i.get("entityType", {}).get("S") != "contact" for i in split_once)
    up(MERGE, db, page_size=page_size)
    assert snapshot(db) == original
    db.close()


def test_a_directory_mixing_the_before_and_after_declarations(tmp_path: Path) -> None:
    """The split is declared on the table as it was, the next migration on the table as it is now: two
    Table objects naming and keying one table alike, run as one directory. A table keyed otherwise is
    refused."""
    from test_migrate import run_cli

    here = Path(__file__).parent
    directory = tmp_path / "migrations"
    directory.mkdir()
    (directory / "m0001.py").write_text("from test_split_merge import SPLIT as migration\n")
    (directory / "m0002.py").write_text(
        "from test_split_merge import Person\n"
        "from singletable.migrate import Migration, backfill\n"
        "migration = Migration('0003-titles', 'titled names', "
        "[backfill(Person, set={'name': lambda v: v['name'].title()})])\n"
    )
    file = tmp_path / "contacts.db"
    db = connect(before, str(file))
    db.create_table()
    seed(db, [contact(1, "person"), contact(2, "company")])
    db.close()
    env = {"PYTHONPATH": os.pathsep.join([str(here), str(here.parent), os.environ.get("PYTHONPATH", "")])}
    done = run_cli("migrate", "up", "--progress-every", "3600", str(directory), str(file), env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith("0001-split-contacts: applied")
    assert done.stdout.splitlines()[1].startswith("0003-titles: applied")
    names = {i["PK"]["S"]: i["name"]["S"] for i in snapshot(connect(after, str(file)))}
    assert names == {"PERSON#1": "Name 1", "CONTACT#2": "name 2"}
    (directory / "m0003.py").write_text(
        "from singletable.migrate import Migration, drop_index\n"
        "from singletable.model import Table\n"
        "numbered = Table(name='contacts', pk=('PK', 'N'))\n"
        "migration = Migration('0004-other', 'another key', [drop_index('x')], table=numbered)\n"
    )
    refused = run_cli("migrate", "status", str(directory), str(file), env=env)
    assert refused.returncode == 1
    assert (
        refused.stderr == f"Error: {directory}: the migrations are for 2 different tables; run them apart\n"
    )
