"""Uniqueness scoped to a tenant: a guard template may name other fields of its entity.

Before: ``unique={"email": "STORE#{store_id}#EMAIL#{email}"}`` was accepted when declared, then every
create failed with ``KeyTemplateError: CUSTOMER: PK needs store_id`` (the guard was built from the email
alone). Now the guard is built from every field it names: one email per store. Changing the email or the
store moves the guard in the same transaction, delete releases it, ``db.find`` and ``guard_key`` take the
scope; a template that could not work is refused when the entity is declared, naming the field. On every
target (the random proof is ``test_stateful_writes.py``, whose member emails are unique per site).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from singletable.model import (
    DB,
    DeclarationError,
    Entity,
    Keys,
    MissingKeyFields,
    Table,
    UniqueViolation,
    UnknownArgument,
    guard_key,
)

pytestmark = pytest.mark.async_twin

shop = Table(name="scoped-unique")


class Customer(Entity, table=shop, type="CUSTOMER", unique={"email": "STORE#{store_id}#EMAIL#{email}"}):
    customer_id: str
    store_id: str
    email: str
    name: str = ""

    keys = Keys(PK="CUSTOMER#{customer_id}", SK="CUSTOMER")


class Item(Entity, table=shop, type="ITEM", unique={"sku": "STORE#{store_id}#SKU#{sku}"}, timestamps=False):
    """Per-store SKU, the store being part of the item's own key."""

    store_id: str
    item_id: str
    sku: str

    keys = Keys(PK="STORE#{store_id}", SK="ITEM#{item_id}")


def guards(db: DB) -> list[str]:
    """The guard items in the table, by key."""
    items = db.call("Scan", {"TableName": db.table_name, "ConsistentRead": True}).get("Items", [])
    return sorted(i["PK"]["S"] for i in items if shop.type_attribute not in i)


@pytest.fixture
def db(open_db: Callable[..., DB]) -> DB:
    return open_db(shop)


def test_an_email_is_unique_per_store(db: DB) -> None:
    first = db.create(Customer(customer_id="c1", store_id="s1", email="a@x"))
    db.create(Customer(customer_id="c2", store_id="s2", email="a@x"))  # another store: fine
    with pytest.raises(UniqueViolation) as caught:
        db.create(Customer(customer_id="c3", store_id="s1", email="a@x"))
    error = caught.value
    assert (error.entity, error.field, error.value, error.scope) == (
        "CUSTOMER",
        "email",
        "a@x",
        {"store_id": "s1"},
    )
    assert str(error) == "CUSTOMER.email must be unique per store_id: 'a@x' is already taken (store_id='s1')"
    assert db.get(Customer, customer_id="c3") is None
    assert db.find(Customer, email="a@x", store_id="s1") == first
    assert db.find(Customer, store_id="s2", email="a@x").customer_id == "c2"
    assert db.find(Customer, email="a@x", store_id="s3") is None
    assert guards(db) == ["STORE#s1#EMAIL#a@x", "STORE#s2#EMAIL#a@x"]
    assert guard_key(Customer, "email", "a@x", store_id="s1") == {
        "PK": {"S": "STORE#s1#EMAIL#a@x"},
        "SK": {"S": "STORE#s1#EMAIL#a@x"},
    }


def test_changing_the_email_or_the_store_moves_the_guard(db: DB) -> None:
    db.create(Customer(customer_id="c1", store_id="s1", email="a@x"))
    db.create(Customer(customer_id="c2", store_id="s2", email="a@x"))
    db.update(Customer.key(customer_id="c1"), email="b@x")  # the email changes
    assert guards(db) == ["STORE#s1#EMAIL#b@x", "STORE#s2#EMAIL#a@x"]
    db.update(Customer.key(customer_id="c1"), store_id="s3")  # the store changes: the guard follows
    assert guards(db) == ["STORE#s2#EMAIL#a@x", "STORE#s3#EMAIL#b@x"]
    with pytest.raises(UniqueViolation, match=r"\(store_id='s2'\)$"):
        db.update(Customer.key(customer_id="c1"), store_id="s2", email="a@x")  # taken there
    assert db.get(Customer, customer_id="c1").store_id == "s3"
    assert guards(db) == ["STORE#s2#EMAIL#a@x", "STORE#s3#EMAIL#b@x"]
    db.update(Customer.key(customer_id="c1"), name="renamed")  # no guard field: the guard stays
    customer = db.get(Customer, customer_id="c1")
    db.put(customer.model_copy(update={"store_id": "s1"}))  # a put moves it too
    assert guards(db) == ["STORE#s1#EMAIL#b@x", "STORE#s2#EMAIL#a@x"]
    db.create(Customer(customer_id="c4", store_id="s3", email="b@x"))  # released in s3: free again
    db.delete(Customer, customer_id="c1")
    assert guards(db) == ["STORE#s2#EMAIL#a@x", "STORE#s3#EMAIL#b@x"]


def test_guards_move_inside_a_transaction(db: DB) -> None:
    db.create(Customer(customer_id="c1", store_id="s1", email="a@x"))
    with db.transaction() as tx:
        tx.update(Customer.key(customer_id="c1"), store_id="s2")  # release s1's guard, claim s2's
        tx.create(Customer(customer_id="c2", store_id="s3", email="a@x"))
    assert guards(db) == ["STORE#s2#EMAIL#a@x", "STORE#s3#EMAIL#a@x"]
    db.create(Customer(customer_id="c5", store_id="s1", email="a@x"))  # released by the transaction
    with pytest.raises(UniqueViolation), db.transaction() as tx:
        tx.update(Customer.key(customer_id="c2"), name="x")
        tx.create(Customer(customer_id="c3", store_id="s2", email="a@x"))
    assert db.get(Customer, customer_id="c2").name == ""  # all or nothing


def test_a_sku_unique_per_store_in_the_items_own_key(db: DB) -> None:
    db.create(Item(store_id="s1", item_id="i1", sku="K-1"))
    db.create(Item(store_id="s2", item_id="i1", sku="K-1"))
    with pytest.raises(UniqueViolation, match=r"^ITEM\.sku must be unique per store_id: 'K-1'"):
        db.create(Item(store_id="s1", item_id="i2", sku="K-1"))
    db.update(Item.key(store_id="s1", item_id="i1"), sku="K-2")
    db.create(Item(store_id="s1", item_id="i2", sku="K-1"))
    assert db.find(Item, sku="K-2", store_id="s1").item_id == "i1"


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda db: db.find(Customer, email="a@x"),
            UnknownArgument,
            "db.find(Customer) takes exactly one of email with store_id",
        ),
        (
            lambda db: db.find(Customer, email="a@x", store="s1"),
            UnknownArgument,
            "db.find(Customer) got unknown argument(s) store; it takes store_id, email",
        ),
        (
            lambda db: guard_key(Customer, "email", "a@x"),
            MissingKeyFields,
            "CUSTOMER: key attribute PK = 'STORE#{store_id}#EMAIL#{email}' needs store_id (the guard item of "
            "email is keyed by it)",
        ),
        (
            lambda db: guard_key(Customer, "email", "a@x", shop="s1"),
            UnknownArgument,
            "guard_key(CUSTOMER, 'email') got unknown argument(s) shop; it takes store_id",
        ),
        (
            lambda db: guard_key(Customer, "name", "n"),
            UnknownArgument,
            "guard_key(CUSTOMER) got unknown argument(s) name; it takes a unique field: email",
        ),
    ],
)
def test_lookups_without_the_scope_say_what_they_need(db: DB, call: Any, error: type, message: str) -> None:
    with db.trace() as trace, pytest.raises(error) as caught:
        call(db)
    assert str(caught.value) == message
    assert trace.requests == []


def _declare(unique: Any, **annotations: Any) -> None:
    namespace = {
        "__annotations__": {"shop_id": str, "email": str, **annotations},
        "keys": Keys(PK="C#{shop_id}", SK="C"),
    }
    type("Bad", (Entity,), namespace, table=Table(name="declarations"), type="BAD", unique=unique)


@pytest.mark.parametrize(
    ("unique", "annotations", "message"),
    [
        (
            {"email": "STORE#{store}#EMAIL#{email}"},
            {},
            "Bad: the guard of email ('STORE#{store}#EMAIL#{email}') uses 'store', which is not a field; "
            "fields are ['email', 'shop_id']",
        ),
        (
            {"email": "STORE#{region}#EMAIL#{email}"},
            {"region": str | None},
            "Bad: the guard of email ('STORE#{region}#EMAIL#{email}') uses 'region', which may be None; "
            "a guard needs every field it names on every entity, so region must be required or have a "
            "default that is not None",
        ),
        (
            {"email": "STORE#{tags}#EMAIL#{email}"},
            {"tags": list[str]},
            "Bad: the guard of email ('STORE#{tags}#EMAIL#{email}') uses 'tags', a list[str] field, which "
            "cannot be part of a key; scope a guard by text, number, date or enum fields",
        ),
        (
            {"email": "STORE#{shop_id}"},
            {},
            "Bad: the guard of email ('STORE#{shop_id}') must contain {email}, the value it keeps unique",
        ),
    ],
)
def test_a_guard_that_cannot_work_is_refused_when_declared(
    unique: Any, annotations: dict[str, Any], message: str
) -> None:
    with pytest.raises(DeclarationError) as caught:
        _declare(unique, **annotations)
    assert str(caught.value) == message


def test_an_optional_default_and_the_version_field_are_refused_too() -> None:
    with pytest.raises(DeclarationError, match=r"uses 'region', which may be None"):
        type(
            "Bad",
            (Entity,),
            {"__annotations__": {"shop_id": str, "email": str, "region": str}, "region": None,
             "keys": Keys(PK="C#{shop_id}", SK="C")},
            table=Table(name="declarations"), type="BAD", unique={"email": "R#{region}#{email}"},
        )  # fmt: skip
    with pytest.raises(DeclarationError, match=r"uses the version field 'rev', which changes on every write"):
        type(
            "Bad",
            (Entity,),
            {"__annotations__": {"shop_id": str, "email": str, "rev": int}, "rev": 1,
             "keys": Keys(PK="C#{shop_id}", SK="C")},
            table=Table(name="declarations"), type="BAD", unique={"email": "R#{rev}#{email}"}, version="rev",
        )  # fmt: skip


class Member(
    Entity, table=shop, type="MEMBER", unique={"email": "SITE#{site}#EMAIL#{email}"}, timestamps=False
):
    """``site`` was added after items were stored: its default scopes the guards of those items."""

    member_id: str
    email: str
    site: str = "main"

    keys = Keys(PK="MEMBER#{member_id}", SK="MEMBER")


def test_an_item_stored_before_its_scoping_field_was_declared_keeps_its_guard_right(db: DB) -> None:
    old = {"PK": {"S": "MEMBER#m1"}, "SK": {"S": "MEMBER"}, shop.type_attribute: {"S": "MEMBER"}}
    old |= {"memberId": {"S": "m1"}, "email": {"S": "a@x"}}
    db.call("PutItem", {"TableName": db.table_name, "Item": old})
    guard = guard_key(Member, "email", "a@x", site="main")
    db.call(
        "PutItem",
        {
            "TableName": db.table_name,
            "Item": {**guard, "owner": {"M": Member.key(member_id="m1").item_key()}},
        },
    )
    assert db.get(Member, member_id="m1").site == "main"
    db.update(Member.key(member_id="m1"), email="b@x")  # the guard the default scoped is released
    assert guards(db) == ["SITE#main#EMAIL#b@x"]
    db.delete(Member, member_id="m1")
    assert guards(db) == []
