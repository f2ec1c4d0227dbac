"""Each planned request part carries a typed label saying what it writes.

The planners run against a real engine (they read the stored item when a guard or derived item depends on
it: those planners are steps, driven here by the DB's own synchronous driver); the labels are checked as
data, and their text is what ``TransactionFailed.labels`` reports.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import FrozenInstanceError

import pytest

from singletable.engine import Engine
from singletable.model import DB, Derived, Entity, Keys, Table, connect
from singletable.model._steps import run
from singletable.model._write_plans import plan_check, plan_create, plan_delete, plan_put, plan_update
from singletable.model._write_requests import PartLabel
from singletable.model._write_target import WriteTarget

labels_table = Table(name="labels")


class Tag(Entity, table=labels_table, type="TAG", timestamps=False):
    user: str
    tag: str

    keys = Keys(PK="USER#{user}", SK="TAG#{tag}")


class User(Entity, table=labels_table, type="USER", unique=["email"], version="version"):
    user: str
    email: str
    tags: list[str] = []
    version: int | None = None

    keys = Keys(PK="USER#{user}", SK="PROFILE")
    tag_items = Derived(Tag, each="tags", as_="tag")


@pytest.fixture
def db(tmp_path) -> Iterator[DB]:
    engine = Engine(str(tmp_path / "labels.sqlite3"))
    database = connect(labels_table, engine)
    database.create_table()
    yield database
    engine.close()


def target(db: DB) -> WriteTarget:
    return WriteTarget(db.table_name, db.clock)


def test_create_labels_the_item_each_guard_claim_and_each_derived_item(db: DB) -> None:
    parts, _ = plan_create(target(db), User(user="ann", email="a@x.com", tags=["blue"]))
    assert [p.label for p in parts] == [
        PartLabel("create", "USER"),
        PartLabel("claim", "USER", field="email", value="a@x.com"),
        PartLabel("derived", "USER", field="tag_items"),
    ]
    assert [p.kind for p in parts] == ["Put", "Put", "Put"]


def test_update_of_a_unique_field_releases_the_old_value_and_claims_the_new(db: DB) -> None:
    stored = db.create(User(user="ann", email="a@x.com"))
    parts, _, _ = run(plan_update(target(db), stored, [], None, {"email": "b@x.com"}), db.call)
    assert [(p.kind, p.label) for p in parts] == [
        ("Update", PartLabel("update", "USER", versioned=True)),
        ("Delete", PartLabel("release", "USER", field="email", value="a@x.com")),
        ("Put", PartLabel("claim", "USER", field="email", value="b@x.com")),
    ]
    by_key, _, _ = run(plan_update(target(db), User.key(user="ann"), [], None, {"tags": []}), db.call)
    assert by_key[0].label == PartLabel("update", "USER")  # a key holds no version to check


def test_put_delete_and_check_labels(db: DB) -> None:
    stored = db.create(User(user="ann", email="a@x.com"))
    put, _ = run(plan_put(target(db), stored), db.call)
    assert put[0].label == PartLabel("put", "USER", versioned=True)
    delete, _ = run(plan_delete(target(db), User.key(user="ann"), None), db.call)
    assert [p.label.role for p in delete] == ["delete", "release"]
    assert not delete[0].label.versioned
    check = plan_check(target(db), User.key(user="ann"), User.f.email == "a@x.com")
    assert (check.kind, check.label) == ("ConditionCheck", PartLabel("check", "USER"))


def test_label_text_names_entity_role_and_guard() -> None:
    assert str(PartLabel("claim", "USER", field="email", value="a@x.com")) == "USER claim email='a@x.com'"
    assert str(PartLabel("update", "POST", versioned=True)) == "POST update (versioned)"
    assert str(PartLabel("derived", "SITE", field="tag_items")) == "SITE derived tag_items"
    assert str(PartLabel("raw")) == "raw"


def test_labels_are_immutable() -> None:
    label = PartLabel("create", "USER")
    with pytest.raises((AttributeError, FrozenInstanceError)):
        label.role = "put"  # type: ignore[misc]
