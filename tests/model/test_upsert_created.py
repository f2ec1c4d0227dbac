"""An upsert keeps the stored createdAt, and every index key built from createdAt follows it.

Before: ``db.put`` of an entity that already existed kept ``createdAt`` (``if_not_exists``) but rebuilt
``GSI1SK = POST#{created_at}`` from the value in hand, so the index entry sat at a time the item's own
createdAt contradicts. Now such a put is a PutItem conditioned on the createdAt it assumes; a wrong guess is
retried with the stored value (or, in a transaction, the value is read first). Checked on the raw items, on
every target.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from singletable.model import GSI, ConditionFailed, Entity, Keys, Pattern, Table, VersionConflict
from stepping_clock import SteppingClock

pytestmark = pytest.mark.async_twin  # each test that opens a DB runs on AsyncDB too

blog = Table(name="upsert-created", indexes=[GSI("GSI1", pk="GSI1PK", sk="GSI1SK")])


class Post(Entity, table=blog, type="POST"):
    slug: str
    author: str
    title: str = ""
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(PK="POST#{slug}", SK="POST", GSI1PK="AUTHOR#{author}", GSI1SK="POST#{created_at}")
    by_author = Pattern(index="GSI1")


class Draft(Entity, table=blog, type="DRAFT", version="version"):
    slug: str
    author: str
    version: int | None = None
    created_at: datetime | None = None

    keys = Keys(PK="DRAFT#{slug}", SK="DRAFT", GSI1PK="AUTHOR#{author}", GSI1SK="DRAFT#{created_at}")


class Page(Entity, table=blog, type="PAGE", unique=["path"]):  # guarded: the put reads the item anyway
    slug: str
    path: str
    created_at: datetime | None = None

    keys = Keys(PK="PAGE#{slug}", SK="PAGE", GSI1PK="PAGES", GSI1SK="{created_at}#{slug}")


def T(seconds: int) -> datetime:
    return datetime(2024, 6, 1, tzinfo=UTC) + timedelta(seconds=seconds)


def raw(db: Any, pk: str, sk: str) -> dict[str, Any]:
    item = db.call("GetItem", {"TableName": db.table_name, "Key": {"PK": {"S": pk}, "SK": {"S": sk}}})
    return item["Item"]


def stamp(item: dict[str, Any], attribute: str = "createdAt") -> str:
    return item[attribute]["S"]


def counting(db: Any) -> list[str]:
    sent: list[str] = []
    call = db.call

    def counted(operation: str, params: dict[str, Any]) -> dict[str, Any]:
        sent.append(operation)
        return call(operation, params)

    db.call = counted
    return sent


def test_a_put_over_an_existing_entity_keeps_created_at_and_the_keys_built_from_it(open_db) -> None:
    db = open_db(blog, clock=SteppingClock())
    first = db.put(Post(slug="a", author="ann", title="v1"))
    assert first.created_at == T(1)
    again = db.put(Post(slug="a", author="ann", title="v2"))  # a fresh instance: no createdAt in hand
    assert again.created_at == T(1) and again.updated_at > T(1)
    item = raw(db, "POST#a", "POST")
    assert item["GSI1SK"] == {"S": "POST#" + stamp(item)} and stamp(item) == "2024-06-01T00:00:01.000Z"
    assert [(p.title, p.created_at) for p in db.query(Post.by_author(author="ann"))] == [("v2", T(1))]
    older = db.put(Post(slug="a", author="bob", title="v3", created_at=T(-100)))  # stored wins, as before
    assert older.created_at == T(1)
    item = raw(db, "POST#a", "POST")
    assert item["GSI1SK"] == {"S": "POST#" + stamp(item)} and item["GSI1PK"] == {"S": "AUTHOR#bob"}
    assert list(db.query(Post.by_author(author="ann"))) == []
    assert [p.created_at for p in db.query(Post.by_author(author="bob"))] == [T(1)]
    assert db.get(Post, slug="a").created_at == T(1)


def test_one_request_when_the_guess_is_right_two_when_it_is_not(open_db) -> None:
    db = open_db(blog, clock=SteppingClock())
    sent = counting(db)
    db.put(Post(slug="n", author="ann"))  # new
    assert sent == ["PutItem"]
    stored = db.get(Post, slug="n")
    sent.clear()
    db.put(stored.model_copy(update={"title": "edited"}))  # read back: createdAt in hand is the stored one
    assert sent == ["PutItem"]
    sent.clear()
    db.put(Post(slug="n", author="ann", title="fresh"))  # wrong guess: the stored item comes back, retried
    assert sent == ["PutItem", "PutItem"]
    item = raw(db, "POST#n", "POST")
    assert stamp(item) == "2024-06-01T00:00:01.000Z" and item["GSI1SK"] == {"S": "POST#" + stamp(item)}


def test_a_legacy_item_without_created_at_gets_one_with_matching_keys(open_db) -> None:
    db = open_db(blog, clock=SteppingClock())
    legacy = {"PK": {"S": "POST#old"}, "SK": {"S": "POST"}, "entityType": {"S": "POST"},
              "slug": {"S": "old"}, "author": {"S": "ann"}}  # fmt: skip
    db.call("PutItem", {"TableName": db.table_name, "Item": legacy})
    put = db.put(Post(slug="old", author="ann", title="now dated"))
    item = raw(db, "POST#old", "POST")
    assert put.created_at is not None and item["GSI1SK"] == {"S": "POST#" + stamp(item)}
    assert db.get(Post, slug="old").created_at == put.created_at


def test_caller_conditions_and_versions_still_fail_as_themselves(open_db) -> None:
    db = open_db(blog, clock=SteppingClock())
    db.put(Post(slug="c", author="ann", title="one"))
    with pytest.raises(ConditionFailed):  # fails with a right guess and with a wrong one: not retried forever
        db.put(Post(slug="c", author="ann", title="two"), condition=Post.f.title == "nope")
    assert db.get(Post, slug="c").title == "one"
    db.put(Post(slug="c", author="ann", title="two"), condition=Post.f.title == "one")
    assert db.get(Post, slug="c").title == "two"

    draft = db.put(Draft(slug="d", author="ann"))
    assert draft.version == 1
    with pytest.raises(VersionConflict):
        db.put(Draft(slug="d", author="ann", version=7))
    bumped = db.put(Draft(slug="d", author="ann", version=1))  # right version, createdAt not in hand
    assert (bumped.version, bumped.created_at) == (2, draft.created_at)
    item = raw(db, "DRAFT#d", "DRAFT")
    assert item["GSI1SK"] == {"S": "DRAFT#" + stamp(item)} and item["version"] == {"N": "2"}


def test_a_put_in_a_transaction_reads_created_at_and_is_conditioned_on_it(open_db) -> None:
    db = open_db(blog, clock=SteppingClock())
    db.put(Post(slug="t", author="ann"))
    with db.transaction() as tx:
        kept = tx.put(Post(slug="t", author="ann", title="in a transaction"))
        tx.put(Post(slug="t2", author="ann"))
    assert kept.created_at == T(1)
    item = raw(db, "POST#t", "POST")
    assert stamp(item) == "2024-06-01T00:00:01.000Z" and item["GSI1SK"] == {"S": "POST#" + stamp(item)}

    # Another writer re-creates the item between planning (which read createdAt) and commit: the planned
    # put must fail rather than write keys for a createdAt that is no longer there.
    with pytest.raises(ConditionFailed), db.transaction() as tx:
        tx.put(Post(slug="t", author="ann", title="planned"))
        db.delete(Post, slug="t")
        db.create(Post(slug="t", author="ann", title="re-created"))
    item = raw(db, "POST#t", "POST")
    assert item["title"] == {"S": "re-created"} and item["GSI1SK"] == {"S": "POST#" + stamp(item)}


def test_guarded_entities_keep_created_at_and_their_keys_too(open_db) -> None:
    db = open_db(blog, clock=SteppingClock())
    db.put(Page(slug="p", path="/p"))
    moved = db.put(Page(slug="p", path="/moved"))  # swaps the guard; createdAt from the item it read
    assert moved.created_at == T(1)
    item = raw(db, "PAGE#p", "PAGE")
    assert item["GSI1SK"] == {"S": f"{stamp(item)}#p"} and item["path"] == {"S": "/moved"}
