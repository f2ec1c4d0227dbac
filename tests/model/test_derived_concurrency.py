"""Derived items under a concurrent change of their source (found with seed 000's site tags).

Derived items are planned from the owner as read. A writer that changed the source in between must make
the planned write fail, or both writers' derived items survive: two admins re-tagging one site at once
would leave a TAG# item for a tag the site no longer has. A transaction is planned at ``tx.update`` and sent
on exit, which lets the test put the other writer in between.
"""

from __future__ import annotations

import pytest

from singletable.model import GSI, ConditionFailed, Derived, Entity, Keys, Pattern, Table

pytestmark = pytest.mark.async_twin  # each test that opens a DB runs on AsyncDB too

shop = Table(name="derived-race", indexes=[GSI("byLabel", pk="label", sk="itemId")])


class Labelled(Entity, table=shop, type="LABELLED", timestamps=False):
    item_id: str
    label: str

    keys = Keys(PK="ITEM#{item_id}", SK="LABEL#{label}", itemId="ITEM#{item_id}")
    with_label = Pattern(index="byLabel")


class Item(Entity, table=shop, type="ITEM", timestamps=False):
    item_id: str
    labels: list[str] = []
    note: str = ""

    keys = Keys(PK="ITEM#{item_id}", SK="ITEM", itemId="ITEM#{item_id}")
    label_items = Derived(Labelled, each="labels", as_="label")


def labels(db, label: str) -> list[str]:
    return [x.item_id for x in db.query(Labelled.with_label(label=label))]


def test_update_planned_before_a_concurrent_change_fails(open_db) -> None:
    db = open_db(shop)
    db.create(Item(item_id="i1", labels=["a"]))
    with pytest.raises(ConditionFailed), db.transaction() as tx:
        tx.update(Item.key(item_id="i1"), labels=["b"])  # planned from labels=["a"]
        db.update(Item.key(item_id="i1"), labels=["c"])  # another writer gets in first
    assert db.get(Item, item_id="i1").labels == ["c"]
    assert (labels(db, "a"), labels(db, "b"), labels(db, "c")) == ([], [], ["i1"])


def test_put_and_delete_planned_before_a_concurrent_change_fail(open_db) -> None:
    db = open_db(shop)
    db.create(Item(item_id="i1", labels=["a"]))
    with pytest.raises(ConditionFailed), db.transaction() as tx:
        tx.put(Item(item_id="i1", labels=["b"]))
        db.update(Item.key(item_id="i1"), labels=["c"])
    with pytest.raises(ConditionFailed), db.transaction() as tx:
        tx.delete(Item, item_id="i1")  # planned from labels=["c"]: would leave LABEL#d behind
        db.update(Item.key(item_id="i1"), labels=["d"])
    assert labels(db, "d") == ["i1"] and labels(db, "b") == labels(db, "c") == []


def test_changes_to_other_fields_do_not_conflict(open_db) -> None:
    db = open_db(shop)
    db.create(Item(item_id="i1"))  # no labels stored: the condition is attribute_not_exists or []
    with db.transaction() as tx:
        tx.update(Item.key(item_id="i1"), labels=["x"])
        db.update(Item.key(item_id="i1"), note="unrelated")
    assert labels(db, "x") == ["i1"] and db.get(Item, item_id="i1").note == "unrelated"
    db.update(Item.key(item_id="i1"), labels=[])
    db.delete(Item, item_id="i1")
    assert labels(db, "x") == []
