"""What the stateful proof (``test_stateful_writes.py``) found, each pinned by a small test on every target.

Each test failed before its fix; the docstring says what the random steps ran into.
"""

from __future__ import annotations

from typing import Any

import pytest
from stateful_design import Member, MemberTag, design

from singletable.model import ConditionFailed, VersionConflict


def raw(db: Any, pk: str, sk: str) -> dict[str, Any] | None:
    key = {"PK": {"S": pk}, "SK": {"S": sk}}
    return db.call("GetItem", {"TableName": db.table_name, "Key": key, "ConsistentRead": True}).get("Item")


def test_updating_a_set_to_empty_removes_it_as_a_put_would(open_db) -> None:
    """``db.update(key, tags=set())`` raised ``KeyTemplateError: DynamoDB cannot store an empty set``, while
    a put of the same entity simply leaves the attribute out (and reads it back as the empty default)."""
    db = open_db(design)
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


def test_a_versioned_write_whose_own_condition_fails_is_not_a_version_conflict(open_db) -> None:
    """``db.update(entity, condition=...)`` with the entity's version still current, and its condition
    false, raised ``VersionConflict: MEMBER was changed by someone else (version)``: nobody had changed it.
    The stored item the failure returns tells the two apart: same version, so the caller's condition."""
    db = open_db(design)
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
