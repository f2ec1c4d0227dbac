"""The dual-write window of a re-keying: ``connect(table, target, migrating={Member: OldMember})``.

While the window is open every write of ``Member`` reaches both shapes in one request (one TransactWriteItems
when both are written), so code that reads the old shape keeps seeing every change; an item stored in only one
shape is copied to the other before a write that depends on it; ``get`` falls back on the old shape. On every
target, for DB and AsyncDB.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from draws import examples
from member_shapes import Member, OldMember, after, before
from singletable.migrate import Migration, MigrationError, finish, rekey, up
from singletable.model import (
    DB,
    AlreadyExists,
    DeclarationError,
    Entity,
    Keys,
    ModelError,
    NotFound,
    Table,
    UniqueViolation,
    VersionConflict,
    connect,
)

pytestmark = pytest.mark.async_twin  # each test that opens a DB runs on AsyncDB too


def shapes(db: Any, member_id: str) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The stored (new, old) items of one member."""

    def one(pk: str) -> dict[str, Any] | None:
        key = {"PK": {"S": pk}, "SK": {"S": "MEMBER"}}
        return db.call("GetItem", {"TableName": db.table_name, "Key": key, "ConsistentRead": True}).get(
            "Item"
        )

    return one(f"M#{member_id}"), one(f"MEMBER_OLD#{member_id}")


def same_but_key(new: dict[str, Any] | None, old: dict[str, Any] | None) -> bool:
    assert new is not None and old is not None
    return {k: v for k, v in new.items() if k != "PK"} == {k: v for k, v in old.items() if k != "PK"}


@pytest.fixture
def window(open_db: Callable[..., DB]) -> DB:
    return open_db(after, migrating={Member: OldMember})


def test_every_write_reaches_both_shapes(window: DB) -> None:
    db = window
    db.create(Member(id="1", email="a@x.org"))
    new, old = shapes(db, "1")
    assert same_but_key(new, old) and old is not None and old["PK"] == {"S": "MEMBER_OLD#1"}
    updated = db.update(Member.key(id="1"), Member.f.visits.add(2))
    assert (updated.visits, updated.rev) == (2, 2)
    assert same_but_key(*shapes(db, "1"))
    member = db.get(Member, id="1")
    member.email = "b@x.org"
    db.put(member)
    assert same_but_key(*shapes(db, "1"))
    assert db.find(Member, email="b@x.org").id == "1"
    with db.transaction() as tx:
        tx.update(Member.key(id="1"), email="c@x.org")
        tx.create(Member(id="2", email="d@x.org"))
    assert same_but_key(*shapes(db, "1")) and same_but_key(*shapes(db, "2"))
    db.delete(Member, id="1")
    db.delete(Member.key(id="2"))
    assert shapes(db, "1") == shapes(db, "2") == (None, None)
    assert db.call("Scan", {"TableName": db.table_name, "ConsistentRead": True})["Items"] == []  # guards too


def test_batch_writes_put_both_shapes(open_db: Callable[..., DB]) -> None:
    class Plain(Entity, table=Table(name="plain"), type="PLAIN", timestamps=False):
        id: str
        n: int = 0
        keys = Keys(PK="P#{id}", SK="P")

    class OldPlain(Entity, table=Table(name="plain"), type="PLAIN", timestamps=False):
        id: str
        n: int = 0
        keys = Keys(PK="OLD#{id}", SK="P")

    db = open_db(Plain.model_entity().table, migrating={Plain: OldPlain})
    db.batch_write(put=[Plain(id=str(i), n=i) for i in range(30)])
    items = db.call("Scan", {"TableName": db.table_name, "ConsistentRead": True})["Items"]
    assert sorted(i["PK"]["S"] for i in items) == sorted(
        [f"P#{i}" for i in range(30)] + [f"OLD#{i}" for i in range(30)]
    )
    db.batch_write(delete=[Plain.key(id=str(i)) for i in range(30)])
    assert db.call("Scan", {"TableName": db.table_name})["Items"] == []


def test_an_item_in_one_shape_is_copied_before_a_write(window: DB) -> None:
    db = window
    # written by old code before the window opened: only the old shape
    item = {
        "PK": {"S": "MEMBER_OLD#7"},
        "SK": {"S": "MEMBER"},
        "entityType": {"S": "MEMBER"},
        "id": {"S": "7"},
        "email": {"S": "seven@x.org"},
        "visits": {"N": "1"},
        "rev": {"N": "3"},
        "createdAt": {"S": "2024-01-01T00:00:00.000Z"},
        "updatedAt": {"S": "2024-01-01T00:00:00.000Z"},
    }
    db.call("PutItem", {"TableName": db.table_name, "Item": item})
    got = db.get(Member, id="7")  # falls back on the old shape
    assert got is not None and (got.visits, got.rev) == (1, 3)
    assert shapes(db, "7")[0] is None  # a read never writes
    db.update(got, Member.f.visits.add(1))  # checks rev 3 on both shapes
    new, old = shapes(db, "7")
    assert (
        same_but_key(new, old)
        and new is not None
        and new["rev"] == {"N": "4"}
        and new["visits"] == {"N": "2"}
    )
    assert new["createdAt"] == item["createdAt"]


def test_refusals_name_what_failed_and_write_neither_shape(window: DB) -> None:
    db = window
    db.create(Member(id="1", email="a@x.org"))
    with pytest.raises(AlreadyExists):
        db.create(Member(id="1", email="other@x.org"))
    with pytest.raises(UniqueViolation):
        db.create(Member(id="2", email="a@x.org"))
    assert shapes(db, "2") == (None, None)
    stale = db.get(Member, id="1")
    db.update(Member.key(id="1"), visits=5)
    with pytest.raises(VersionConflict):
        db.update(stale, visits=9)
    assert same_but_key(*shapes(db, "1")) and shapes(db, "1")[0]["visits"] == {"N": "5"}  # type: ignore[index]
    with pytest.raises(NotFound):
        db.update(Member.key(id="nobody"), visits=1)
    assert shapes(db, "nobody") == (None, None)


@pytest.mark.sync_only("declaration errors, no DB")
def test_a_window_needs_two_compatible_declarations() -> None:
    class Renamed(Entity, table=Table(name="members"), type="MEMBER", unique=["mail"], version="rev"):
        id: str
        mail: str
        visits: int = 0
        rev: int = 0
        keys = Keys(PK="R#{id}", SK="MEMBER")

    with pytest.raises(
        DeclarationError, match=r"the same fields under the same attributes; they differ in email, mail"
    ):
        connect(after, migrating={Renamed: OldMember})
    with pytest.raises(
        DeclarationError, match=r"migrating= takes \{NewEntity: OldEntity\} \(Entity classes\), not 'x'"
    ):
        connect(after, migrating={Member: "x"})
    with pytest.raises(DeclarationError, match=r"migrating= takes \{NewEntity: OldEntity\}, not \[\]"):
        connect(after, migrating=[])  # type: ignore[arg-type]


operations = st.lists(
    st.tuples(
        st.sampled_from(["create", "put", "update", "delete", "tx", "old_write"]),
        st.integers(0, 4),
        st.integers(0, 3),
    ),
    max_size=25,
)


@pytest.mark.sync_only("hypothesis drives a synchronous DB on the engine")
@settings(max_examples=examples(60), deadline=None)
@given(ops=operations)
def test_any_sequence_of_writes_keeps_both_shapes_equal(ops: list[tuple[str, int, int]]) -> None:
    """Whatever the writes (some refused), every member written only through the window is stored in both
    shapes, equal but for the key, or in neither; each guard names a stored member; and the keeping copy and
    finish then leave exactly the new shapes. A member old code changed (only its old shape) is the one case
    the window cannot mend: the copy refuses it."""
    db = connect(after, ":memory:", migrating={Member: OldMember})
    db.create_table()
    old_code = connect(before, db.adapter, name=db.table_name)
    diverged: set[str] = set()
    for kind, n, mail in ops:
        member_id, email = str(n), f"{mail}@x.org"
        try:
            if kind == "create":
                db.create(Member(id=member_id, email=email))
            elif kind == "put":
                found = db.get(Member, id=member_id)
                db.put(Member(id=member_id, email=email, rev=found.rev if found else 0))
                diverged.discard(member_id)  # both shapes written whole: equal again
            elif kind == "update":
                db.update(Member.key(id=member_id), Member.f.visits.add(1), email=email)
            elif kind == "delete":
                db.delete(Member, id=member_id)
                diverged.discard(member_id)
            elif kind == "tx":
                with db.transaction() as tx:
                    tx.update(Member.key(id=member_id), Member.f.visits.add(1))
            else:  # code that knows only the old shape
                old_code.update(OldMember.key(id=member_id), OldMember.f.visits.add(5))
                diverged.add(member_id)
        except ModelError:
            pass
    scan = db.call("Scan", {"TableName": db.table_name, "ConsistentRead": True})["Items"]
    for n in range(5):
        new, old = shapes(db, str(n))
        if str(n) in diverged:
            assert old is not None
            continue
        assert (new, old) == (None, None) or same_but_key(new, old), n
    owners = {i["owner"]["M"]["PK"]["S"] for i in scan if "owner" in i}
    assert owners <= {i["PK"]["S"] for i in scan}
    migration = Migration("0001-keys", "members keyed M#id", [rekey(OldMember, to=Member, keep_old=True)])
    if diverged:  # the copy refuses to overwrite a new shape that is not the old one's twin
        with pytest.raises(MigrationError, match=r"to PK=M#\d, SK=MEMBER: the new key holds another item$"):
            up(migration, db)
        return
    up(migration, db)
    expected = sorted(i["PK"]["S"] for i in scan if not i["PK"]["S"].startswith("MEMBER_OLD#"))
    finish(migration, db)
    after_finish = db.call("Scan", {"TableName": db.table_name, "ConsistentRead": True})["Items"]
    assert (
        sorted(i["PK"]["S"] for i in after_finish if not i["PK"]["S"].startswith("_singletable")) == expected
    )


@pytest.mark.sync_only("inspects a DB's attributes")
def test_without_a_window_or_schema_version_nothing_is_wrapped() -> None:
    """The hot paths stay the class's own methods: the window's steps and the upgrading readers are
    installed only where declared (bench/model_instructions.py counts the instructions)."""
    plain = connect(after, ":memory:")
    windowed = connect(after, ":memory:", migrating={Member: OldMember})
    for name in ("_create", "_put", "_update", "_delete", "_batch_write", "_get", "get", "transaction"):
        assert name not in vars(plain) and name in vars(windowed), name
    assert plain.call == plain.adapter.call  # no write-back wrapper
    meta = Member.model_entity()
    assert meta.upgrades is None and "from_item" not in vars(meta) and meta.read_builder is meta.builder
