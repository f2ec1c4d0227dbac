"""Declaring an entity's ``ttl`` field turns TTL on: ``create_table``/``ensure_table`` enable it on that
field's attribute when the Table names no ``ttl_attribute``, on every target that supports
UpdateTimeToLive, and ``describe()`` says so. DynamoDB has one TTL attribute per table, so entities that
disagree are refused."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from singletable.model import DeclarationError, Entity, Keys, Table

sessions = Table(name="entity-ttl")
declared = Table(name="declared-ttl", ttl_attribute="purgeAt")


class Session(Entity, table=sessions, type="SESSION", ttl="expires_at", timestamps=False):
    id: str
    expires_at: datetime | None = None

    keys = Keys(PK="SESSION#{id}", SK="SESSION")


class Token(Entity, table=sessions, type="TOKEN", ttl="expires_at", timestamps=False):
    id: str
    expires_at: datetime | None = None

    keys = Keys(PK="TOKEN#{id}", SK="TOKEN")


class Cart(Entity, table=declared, type="CART", ttl="abandon_at", timestamps=False):
    """A table that names its own TTL attribute decides (check's ST601 flags this entity's ttl field)."""

    id: str
    abandon_at: datetime | None = None

    keys = Keys(PK="CART#{id}", SK="CART")


def ttl_of(db: Any) -> dict[str, Any]:
    return db.call("DescribeTimeToLive", {"TableName": db.table_name})["TimeToLiveDescription"]


def test_an_entity_ttl_field_enables_ttl_on_its_attribute(open_db: Any) -> None:
    db = open_db(sessions)  # created with ensure_table/create_table
    assert sessions.resolved_ttl_attribute() == "expiresAt"
    assert sessions.describe()["table"]["ttl_attribute"] == "expiresAt"
    assert ttl_of(db) == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expiresAt"}


def test_the_tables_own_ttl_attribute_wins(open_db: Any) -> None:
    db = open_db(declared)
    assert declared.describe()["table"]["ttl_attribute"] == "purgeAt"
    assert ttl_of(db) == {"TimeToLiveStatus": "ENABLED", "AttributeName": "purgeAt"}


def test_entities_that_keep_their_expiry_in_different_attributes_are_refused() -> None:
    with pytest.raises(DeclarationError) as caught:

        class Voucher(Entity, table=sessions, type="VOUCHER", ttl="valid_until"):
            id: str
            valid_until: datetime

            keys = Keys(PK="VOUCHER#{id}", SK="VOUCHER")

    assert str(caught.value) == (
        "entities keep their expiry in different attributes: expiresAt (Session, Token); validUntil "
        "(Voucher); DynamoDB has one TTL attribute per table: store every ttl field under one name, or "
        "declare Table(ttl_attribute=...)"
    )
    assert "VOUCHER" not in sessions.entities
