"""What the stateful proof (``test_stateful_writes.py``) found, each pinned by a small test on every target.

Each test failed before its fix; the docstring says what the random steps ran into. Each runs on AsyncDB
too (``async_twin``): the fixes are in the steps both drivers run.
"""

from __future__ import annotations

from typing import Any

import pytest
from stateful_design import Doc, Member, MemberTag, design
from stateful_table import without_field_keyed_index

from singletable.model import ConditionFailed, MissingFields, VersionConflict, connect

pytestmark = pytest.mark.async_twin  # each test runs on AsyncDB too


@pytest.fixture
def open_stateful(open_db: Any, request: pytest.FixtureRequest) -> Any:
    """The stateful design's table; on DynamoDB Local 1.25.1, which cannot create a GSI keyed on several
    attributes, without that index (these tests do not read it)."""
    reference = request.node.callspec.params.get("target") == "reference"
    return lambda: open_db(design, table_params=without_field_keyed_index if reference else None)


def raw(db: Any, pk: str, sk: str) -> dict[str, Any] | None:
    key = {"PK": {"S": pk}, "SK": {"S": sk}}
    return db.call("GetItem", {"TableName": db.table_name, "Key": key, "ConsistentRead": True}).get("Item")


def test_updating_a_set_to_empty_removes_it_as_a_put_would(open_stateful) -> None:
    """``db.update(key, tags=set())`` raised ``KeyTemplateError: DynamoDB cannot store an empty set``, while
    a put of the same entity simply leaves the attribute out (and reads it back as the empty default)."""
    db = open_stateful()
    db.create(Member(org="a", handle="h1", email="e1@x", tags={"x", "y"}))
    updated = db.update(Member.key(org="a", handle="h1"), tags=set())
    assert updated.tags == set()
    assert "tags" not in raw(db, "ORG#a", "MEMBER#h1")
    assert raw(db, "TAG#a#x", "MEMBER#h1") is None and raw(db, "TAG#a#y", "MEMBER#h1") is None
    with db.transaction() as tx:  # the same inside a transaction
        tx.update(Member.key(org="a", handle="h1"), tags={"z"})
    assert db.get(Member, org="a", handle="h1").tags == {"z"}
    db.update(Member.key(org="a", handle="h1"), Member.f.tags.set(frozenset()))
    assert db.get(Member, org="a", handle="h1").tags == set()
    assert db.get(MemberTag, org="a", tag="z", handle="h1") is None


def test_a_versioned_write_whose_own_condition_fails_is_not_a_version_conflict(open_stateful) -> None:
    """``db.update(entity, condition=...)`` with the entity's version still current, and its condition
    false, raised ``VersionConflict: MEMBER was changed by someone else (version)``: nobody had changed it.
    The stored item the failure returns tells the two apart: same version, so the caller's condition."""
    db = open_stateful()
    member = db.create(Member(org="a", handle="h1", email="e1@x", rank=1))
    with pytest.raises(ConditionFailed) as caught:
        db.update(member, condition=Member.f.rank >= 2, name="bob")
    assert type(caught.value) is ConditionFailed
    with pytest.raises(ConditionFailed) as caught, db.transaction() as tx:  # a guard makes it a transaction
        tx.update(member, condition=Member.f.rank >= 2, email="e2@x")
    assert type(caught.value) is ConditionFailed
    with pytest.raises(ConditionFailed) as caught:
        db.put(member.model_copy(update={"name": "bob"}), condition=Member.f.rank >= 2)
    assert type(caught.value) is ConditionFailed
    with pytest.raises(ConditionFailed) as caught:
        db.delete(member, condition=Member.f.rank >= 2)
    assert type(caught.value) is ConditionFailed
    stale = db.update(member, name="bob")  # and a version that moved on is still a VersionConflict
    with pytest.raises(VersionConflict):
        db.update(member, condition=Member.f.rank >= 2, name="ann")
    with pytest.raises(VersionConflict), db.transaction() as tx:
        tx.delete(member)
    assert db.get(Member, org="a", handle="h1") == stale


# -- an upsert creates a whole entity, or is refused ---------------------------------------------------------


def test_an_upsert_that_creates_the_item_writes_it_whole(open_stateful) -> None:
    """An upsert of an absent item wrote only the fields it set: the defaults were not stored, so the keys
    built from them were missing (a member created by ``db.update(key, name="bob", upsert=True)`` was in
    no index), although every read returns those defaults. It now writes the item a create of the same
    values would: defaults, every key that applies, guards and derived items."""
    db = open_stateful()
    made = db.update(Doc.key(org="a", doc_id="d1"), title="t1", upsert=True)
    item = raw(db, "ORG#a", "DOC#d1")
    expected = Doc.model_entity().to_item(Doc.model_entity().values(made))
    assert item == expected and item["published"] == {"BOOL": False}
    assert item["GSI2PK"] == {"S": "UNOWNED#a"}  # an alternative key that needs no field the update sets
    made = db.update(Doc.key(org="a", doc_id="d2"), title="t2", owner="ann", slug="s1", upsert=True)
    assert db.find(Doc, slug="s1") == made  # the guard was claimed
    assert raw(db, "OWNER#ann", "DOC#a#d2") is not None  # the derived item was written
    updated = db.update(Doc.key(org="a", doc_id="d2"), title="t3", upsert=True)  # it exists: an update
    assert (updated.owner, updated.slug, updated.created_at) == ("ann", "s1", made.created_at)


def test_an_upsert_lacking_a_required_field_is_refused(open_stateful) -> None:
    """An upsert could create a member without its required ``email``: an item every read then refuses
    (StoredItemError). It is refused before anything is sent, whether or not the item exists."""
    db = open_stateful()
    with pytest.raises(MissingFields) as caught:
        db.update(Member.key(org="a", handle="h1"), name="bob", upsert=True)
    assert (caught.value.entity, caught.value.missing) == ("MEMBER", ["email"])
    assert str(caught.value) == (
        "MEMBER: upsert=True creates the item when it does not exist, and then it would lack email "
        "(required, no default); set it in the update, or drop upsert=True (NotFound when absent)"
    )
    assert raw(db, "ORG#a", "MEMBER#h1") is None
    made = db.update(Member.key(org="a", handle="h1"), email="e1@x", status="away", upsert=True)
    assert made.version == 1 and db.find(Member, email="e1@x", site="main") == made
    item = raw(db, "ORG#a", "MEMBER#h1")
    assert item == Member.model_entity().to_item(Member.model_entity().values(made))


def racing(db: Any, before_first_update: Any) -> list[str]:
    """Run ``before_first_update()`` (another writer) just before the first UpdateItem or transaction this
    DB sends: between an upsert's read and its write. Returns the operations sent."""
    inner, sent = db.call, []

    def call(operation: str, params: dict[str, Any]) -> dict[str, Any]:
        if operation in ("UpdateItem", "TransactWriteItems") and not any(
            op in ("UpdateItem", "TransactWriteItems") for op in sent
        ):
            before_first_update()
        sent.append(operation)
        return inner(operation, params)

    db.call = call
    return sent


def test_an_upsert_whose_item_is_created_in_between_updates_it(open_stateful, sync_target) -> None:
    """The upsert read no item and planned a create; another writer creates it first: the create's
    condition fails, and the upsert is planned again from the item that failure returned -- an update."""
    db = open_stateful()
    other = connect(design, sync_target, name=db.table_name)  # another writer
    sent = racing(db, lambda: other.create(Doc(org="a", doc_id="d1", title="theirs", owner="bob")))
    made = db.update(Doc.key(org="a", doc_id="d1"), title="mine", upsert=True)
    db.call = db.adapter.call
    assert (made.title, made.owner) == ("mine", "bob")
    assert sent == ["GetItem", "UpdateItem", "UpdateItem"]  # read, failed create, update (no second read)
    item = raw(db, "ORG#a", "DOC#d1")
    assert item == Doc.model_entity().to_item(Doc.model_entity().values(db.get(Doc, org="a", doc_id="d1")))
    assert raw(db, "OWNER#bob", "DOC#a#d1") is not None


def test_an_upsert_whose_item_is_deleted_in_between_creates_it(open_stateful, sync_target) -> None:
    """The upsert read the item and planned an update of it; another writer deletes it first: the update
    (conditioned on the item existing) fails instead of leaving a fragment, and the upsert creates it
    whole."""
    db = open_stateful()
    db.create(Doc(org="a", doc_id="d1", title="old", owner="bob", published=True))
    other = connect(design, sync_target, name=db.table_name)  # another writer
    racing(db, lambda: other.delete(Doc, org="a", doc_id="d1"))
    made = db.update(Doc.key(org="a", doc_id="d1"), title="new", upsert=True)
    db.call = db.adapter.call
    assert (made.title, made.owner, made.published) == ("new", None, False)
    item = raw(db, "ORG#a", "DOC#d1")
    assert item == Doc.model_entity().to_item(Doc.model_entity().values(made))
    assert raw(db, "OWNER#bob", "DOC#a#d1") is None
