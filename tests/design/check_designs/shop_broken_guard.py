"""A shop customer whose per-store email guard names ``mail``, a field the entity does not have."""

from __future__ import annotations

from singletable.model import Entity, Keys, Table

shop = Table(name="shop-broken-guard")


class Customer(Entity, table=shop, type="CUSTOMER", unique={"email": "STORE#{store_id}#EMAIL#{mail}"}):
    store_id: str
    customer_id: str
    email: str
    keys = Keys(PK="STORE#{store_id}", SK="CUSTOMER#{customer_id}")
