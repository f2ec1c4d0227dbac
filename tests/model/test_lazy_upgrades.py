"""Lazy migration on read: an entity's ``schema_version`` and its ``@upgrade`` chain.

Items of older versions are written here with raw PutItem requests (as older code wrote them), on every
target; every read path gives them back upgraded, reads alone never write, ``write_back_upgrades=True``
stores the upgrade conditioned on the image read (a concurrent writer wins), an update of an older item
upgrades it first, and a failing upgrade says which entity, version, key and function.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from singletable.model import (
    DB,
    GSI,
    Adapter,
    Collection,
    ConditionFailed,
    DeclarationError,
    Entity,
    Keys,
    Pattern,
    StoredItemError,
    Table,
    UpgradeError,
    adapt,
    connect,
    upgrade,
    upgraded_item,
)

pytestmark = pytest.mark.async_twin  # each test that opens a DB runs on AsyncDB too

people = Table(name="people", indexes=[GSI("GSI1", pk="GSI1PK", sk="GSI1SK")])


class Person(Entity, table=people, type="PERSON", schema_version=3, timestamps=False, unique=["email"]):
    """v1 stored ``first`` and ``last``; v2 one ``name``; v3 calls it ``fullName`` and adds ``email``."""

    id: str
    full_name: str
    email: str | None = None
    visits: int = 0

    keys = Keys(PK="PERSON#{id}", SK="PROFILE", GSI1PK="NAME#{full_name}", GSI1SK="PERSON#{id}")
    by_id = Pattern()

    @upgrade(1)
    def join_names(old: dict[str, Any]) -> dict[str, Any]:
        first, last = old.pop("first"), old.pop("last")
        return {**old, "name": f"{first} {last}"}

    @upgrade(2)
    def rename_name(old: dict[str, Any]) -> dict[str, Any]:
        old["fullName"] = old.pop("name")
        return old


class Pet(Entity, table=people, type="PET", timestamps=False, schema_version=1):
    owner: str
    name: str
    keys = Keys(PK="PERSON#{owner}", SK="PET#{name}")


household = Collection(people, "household", pk="PERSON#{id}", entities=(Person, Pet))


def v1(person_id: str, first: str = "Ann", last: str = "Lee", **extra: Any) -> dict[str, Any]:
    """A person as version-1 code stored it: no ``_v``, no index key."""
    return {
        "PK": {"S": f"PERSON#{person_id}"},
        "SK": {"S": "PROFILE"},
        "entityType": {"S": "PERSON"},
        "id": {"S": person_id},
        "first": {"S": first},
        "last": {"S": last},
        **extra,
    }


def stored(db: DB, person_id: str) -> dict[str, Any] | None:
    key = {"PK": {"S": f"PERSON#{person_id}"}, "SK": {"S": "PROFILE"}}
    return db.call("GetItem", {"TableName": db.table_name, "Key": key, "ConsistentRead": True}).get("Item")


def put_raw(db: DB, item: dict[str, Any]) -> None:
    db.call("PutItem", {"TableName": db.table_name, "Item": item})


def test_every_read_path_upgrades_and_none_writes(open_db: Callable[..., DB]) -> None:
    db = open_db(people)
    put_raw(db, v1("1"))
    put_raw(db, {**v1("2", "Bo", "Ek"), "_v": {"N": "1"}})
    put_raw(
        db,
        {k: v for k, v in v1("3").items() if k not in ("first", "last")}
        | {"name": {"S": "Cy Do"}, "_v": {"N": "2"}},
    )
    db.create(Pet(owner="1", name="rex"))
    before = [stored(db, i) for i in "123"]
    assert db.get(Person, id="1").full_name == "Ann Lee"
    assert db.must_get(Person.key(id="2"), consistent=True).full_name == "Bo Ek"
    assert db.get(Person, id="3").full_name == "Cy Do"
    assert [p.full_name for p in db.query(Person.by_id("1"))] == ["Ann Lee"]
    assert db.page(Person.by_id("2")).items[0].full_name == "Bo Ek"
    assert [p.full_name for p in db.query(Person.by_id("1").select(Person.f.full_name))] == ["Ann Lee"]
    found = db.batch_get([Person.key(id=i) for i in "321"])
    assert [p.full_name for p in found] == ["Cy Do", "Bo Ek", "Ann Lee"]
    grouped = db.collect(household(id="1"))
    assert [p.full_name for p in grouped[Person]] == ["Ann Lee"] and [p.name for p in grouped[Pet]] == ["rex"]
    assert [stored(db, i) for i in "123"] == before  # reading never writes


def test_writes_store_the_current_version(open_db: Callable[..., DB]) -> None:
    db = open_db(people)
    db.create(Person(id="1", full_name="Ann Lee"))
    db.put(Person(id="2", full_name="Bo Ek"))
    db.update(Person.key(id="3"), full_name="Cy Do", upsert=True)
    db.batch_write(put=[Pet(owner="1", name="rex")])
    pet = db.call(
        "GetItem", {"TableName": db.table_name, "Key": {"PK": {"S": "PERSON#1"}, "SK": {"S": "PET#rex"}}}
    )
    assert pet["Item"]["_v"] == {"N": "1"}
    with db.transaction() as tx:
        tx.put(Person(id="5", full_name="Ed Gu"))
    for i in "1235":
        item = stored(db, i)
        assert item is not None and item["_v"] == {"N": "3"}, i


def test_an_update_of_an_older_item_upgrades_it_first(open_db: Callable[..., DB]) -> None:
    db = open_db(people)
    put_raw(db, v1("1", visits={"N": "4"}))
    updated = db.update(Person.key(id="1"), Person.f.visits.add(1), email="ann@x.org")
    assert (updated.full_name, updated.visits, updated.email) == ("Ann Lee", 5, "ann@x.org")
    item = stored(db, "1")
    assert item is not None
    assert item["_v"] == {"N": "3"} and item["fullName"] == {"S": "Ann Lee"}
    assert "first" not in item and "last" not in item and item["visits"] == {"N": "5"}
    assert item["GSI1PK"] == {"S": "NAME#Ann Lee"}  # the index key the upgrade made possible
    assert db.find(Person, email="ann@x.org").id == "1"  # the guard the update claimed


def test_a_transaction_refuses_to_update_an_older_item(open_db: Callable[..., DB]) -> None:
    db = open_db(people)
    put_raw(db, v1("1"))
    before = stored(db, "1")
    with pytest.raises(ConditionFailed), db.transaction() as tx:
        tx.update(Person.key(id="1"), visits=2)
    assert stored(db, "1") == before  # no second attempt inside a transaction: nothing written


def test_write_back_stores_upgraded_items(open_db: Callable[..., DB]) -> None:
    db = open_db(people, write_back_upgrades=True)
    for i in "123":
        put_raw(db, v1(i, last=f"L{i}", score={"N": "12345678901234567890.123456789"}))
    assert db.get(Person, id="1").full_name == "Ann L1"
    item = stored(db, "1")
    assert item is not None and item["_v"] == {"N": "3"} and item["fullName"] == {"S": "Ann L1"}
    assert Decimal(item["score"]["N"]) == Decimal("12345678901234567890.123456789")  # kept as stored
    assert "first" not in item
    list(db.query(Person.by_id("2")))
    db.batch_get([Person.key(id="3")])
    assert all(stored(db, i)["_v"] == {"N": "3"} for i in "23")  # type: ignore[index]


def test_a_failing_upgrade_names_entity_version_key_and_function(open_db: Callable[..., DB]) -> None:
    db = open_db(people)
    put_raw(db, {k: v for k, v in v1("1").items() if k != "last"})
    message = (
        r"^PERSON item \(PK='PERSON#1', SK='PROFILE'\): upgrade from version 1 \(Person.join_names\) "
        r"failed: KeyError: 'last'$"
    )
    with pytest.raises(UpgradeError, match=message) as caught:
        db.get(Person, id="1")
    assert (caught.value.entity, caught.value.version, caught.value.function) == (
        "PERSON",
        1,
        "Person.join_names",
    )
    assert isinstance(caught.value.error, KeyError)
    assert isinstance(caught.value, StoredItemError)
    assert list(db.query(Person.by_id("1"), on_bad_item="skip")) == []
    with pytest.raises(UpgradeError, match="upgrade from version 1"):
        list(db.query(Person.by_id("1")))
    put_raw(db, {**v1("2"), "_v": {"N": "7"}})
    with pytest.raises(UpgradeError, match=r"it is schema version 7, newer than the 3 PERSON declares"):
        db.get(Person, id="2")
    put_raw(db, {**v1("3"), "_v": {"S": "two"}})
    with pytest.raises(UpgradeError, match=r"its _v is \{'S': 'two'\}, not a whole number"):
        db.get(Person, id="3")


@pytest.mark.sync_only("a declaration error, no DB")
def test_a_chain_must_have_no_gap() -> None:
    with pytest.raises(DeclarationError, match=r"schema_version=4 but no @upgrade for version 2, 3"):

        class Gap(Entity, table=Table(name="x"), schema_version=4):
            id: str
            keys = Keys(PK="{id}", SK="X")

            @upgrade(1)
            def one(old: dict[str, Any]) -> dict[str, Any]:
                return old

    with pytest.raises(DeclarationError, match=r"@upgrade\(1\) needs the class keyword schema_version=N"):

        class Unversioned(Entity, table=Table(name="x")):
            id: str
            keys = Keys(PK="{id}", SK="X")

            @upgrade(1)
            def one(old: dict[str, Any]) -> dict[str, Any]:
                return old

    with pytest.raises(DeclarationError, match=r"@upgrade\(2\) upgrades from a version that is not older"):

        class Ahead(Entity, table=Table(name="x"), schema_version=2):
            id: str
            keys = Keys(PK="{id}", SK="X")

            @upgrade(1)
            def one(old: dict[str, Any]) -> dict[str, Any]:
                return old

            @upgrade(2)
            def two(old: dict[str, Any]) -> dict[str, Any]:
                return old

    with pytest.raises(DeclarationError, match=r"schema_version must be a whole number from 1, not 0"):

        class Zero(Entity, table=Table(name="x"), schema_version=0):
            id: str
            keys = Keys(PK="{id}", SK="X")

    with pytest.raises(DeclarationError, match=r"takes the version it upgrades from \(1 or more\), not 0"):
        upgrade(0)


@pytest.mark.sync_only("returns a non-dict from a raw helper")
def test_an_upgrade_that_returns_no_dict() -> None:
    class Broken(Entity, table=Table(name="y"), type="B", schema_version=2):
        id: str
        keys = Keys(PK="{id}", SK="B")

        @upgrade(1)
        def nothing(old: dict[str, Any]) -> dict[str, Any]:
            return None  # type: ignore[return-value]

    item = {"PK": {"S": "1"}, "SK": {"S": "B"}, "id": {"S": "1"}}
    with pytest.raises(UpgradeError, match=r"Broken.nothing\) failed: it returned None, not a dict"):
        upgraded_item(Broken, item)


class Racing(Adapter):
    """An adapter that lets another writer change the item just before the model's write-back of it."""

    def __init__(self, inner: Adapter, change: Callable[[], None]) -> None:
        self.inner, self.change, self.raced = inner, change, 0

    def call(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        if operation == "PutItem" and "#ov" in params.get("ExpressionAttributeNames", {}):
            self.raced += 1
            self.change()
        return self.inner.call(operation, params)

    def close(self) -> None:
        self.inner.close()


@pytest.mark.sync_only("the race is staged inside a synchronous adapter")
def test_write_back_loses_to_a_concurrent_writer_silently(
    open_db: Callable[..., DB], sync_target: Any
) -> None:
    db = open_db(people)
    put_raw(db, v1("1"))
    newer = {**v1("1", "Zed", "Zee"), "note": {"S": "written meanwhile"}}
    racing = Racing(adapt(sync_target), lambda: put_raw(db, newer))
    reader = connect(people, racing, name=db.table_name, write_back_upgrades=True)
    assert reader.get(Person, id="1").full_name == "Ann Lee"  # the image it read
    assert racing.raced == 1
    assert stored(db, "1") == newer  # the concurrent writer's item, untouched


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    first=st.text(min_size=1, max_size=20),
    last=st.text(min_size=1, max_size=20),
    extra=st.dictionaries(
        st.text(alphabet="abcdefghij", min_size=1, max_size=6),
        st.one_of(
            st.integers(-(10**30), 10**30).map(lambda n: {"N": str(n)}),
            st.decimals(allow_nan=False, allow_infinity=False, places=12).map(lambda d: {"N": str(d)}),
            st.text(max_size=10).map(lambda s: {"S": s}),
            st.lists(st.text(min_size=1, max_size=4), min_size=1, max_size=3, unique=True).map(
                lambda s: {"SS": s}
            ),
        ),
        max_size=4,
    ),
)
@pytest.mark.sync_only("hypothesis drives the raw helper")
def test_upgrades_keep_every_attribute_they_do_not_change(
    first: str, last: str, extra: dict[str, Any]
) -> None:
    item = {**v1("1", first, last), **{f"x{k}": v for k, v in extra.items()}}
    upgraded = upgraded_item(Person, item)
    assert upgraded["fullName"] == {"S": f"{first} {last}"} and upgraded["_v"] == {"N": "3"}
    assert {k: v for k, v in upgraded.items() if k.startswith("x")} == {f"x{k}": v for k, v in extra.items()}
    assert "first" not in upgraded and "last" not in upgraded
    assert upgraded_item(Person, upgraded) == upgraded  # a current item is left as it is
