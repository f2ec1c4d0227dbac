"""Guard items that carry the owner's key fields (seed 003's ``USEREMAIL#<email>`` item holds ``Username``),
and ``db.find`` addressing the owner in schema order whatever order the endpoint stores the map in."""

from __future__ import annotations

from typing import Any

import pytest

from singletable.model import DeclarationError, Entity, Keys, Table, UniqueViolation

pytestmark = pytest.mark.async_twin  # each test that opens a DB runs on AsyncDB too

accounts = Table(name="accounts", naming="pascal", type_attribute="EntityType")


class Account(Entity, table=accounts, type="ACCOUNT", unique={"email": ("EMAIL#{email}", "org", "name")}):
    org: str
    name: str
    email: str
    keys = Keys(PK="ORG#{org}", SK="ACCOUNT#{name}")


def guard(db: Any, email: str) -> dict[str, Any] | None:
    key = {"PK": {"S": f"EMAIL#{email}"}, "SK": {"S": f"EMAIL#{email}"}}
    return db.call("GetItem", {"TableName": db.table_name, "Key": key}).get("Item")


def test_guard_items_carry_key_fields_through_create_swap_and_delete(open_db) -> None:
    db = open_db(accounts)
    db.create(Account(org="acme", name="ann", email="ann@acme.io"))
    item = guard(db, "ann@acme.io")
    assert item is not None
    assert (item["Org"], item["Name"]) == ({"S": "acme"}, {"S": "ann"})
    assert item["owner"]["M"] == {"PK": {"S": "ORG#acme"}, "SK": {"S": "ACCOUNT#ann"}}

    db.update(Account.key(org="acme", name="ann"), email="a@acme.io")
    assert guard(db, "ann@acme.io") is None
    assert (guard(db, "a@acme.io") or {})["Name"] == {"S": "ann"}
    with pytest.raises(UniqueViolation):
        db.create(Account(org="acme", name="bob", email="a@acme.io"))

    calls: list[dict[str, Any]] = []
    real = db.call

    def spy(operation: str, params: dict[str, Any]) -> dict[str, Any]:
        calls.append(params)
        return real(operation, params)

    db.call = spy
    assert db.find(Account, email="a@acme.io").name == "ann"
    assert list(calls[-1]["Key"]) == ["PK", "SK"]  # schema order, as every other request
    db.call = real
    db.delete(Account, org="acme", name="ann")
    assert guard(db, "a@acme.io") is None


def test_a_guard_carries_primary_key_fields_only() -> None:
    with pytest.raises(DeclarationError, match="primary-key fields only"):

        class Bad(Entity, table=Table(name="bad"), type="BAD", unique={"email": ("E#{email}", "nickname")}):
            id: str
            email: str
            nickname: str
            keys = Keys(PK="BAD#{id}", SK="BAD")

    assert Account.model_entity().describe()["unique"] == [
        {"field": "email", "guard": "EMAIL#{email}", "carries": ["org", "name"]}
    ]
