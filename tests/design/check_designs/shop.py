"""A clean design: the quick start's customers and orders, declared with the model. check finds nothing.

Orders by status are a GSI keyed by fields (a multi-attribute key): the customer and status partition it,
the time placed and the order id sort it, each stored as the order's own typed attribute."""

from __future__ import annotations

from datetime import datetime

from singletable.model import GSI, Entity, Keys, Pattern, Table

shop = Table(
    name="shop",
    indexes=[GSI("byStatus", pk=["customer_id", "status"], sk=["placed_at", "order_id"])],
)


class Customer(Entity, table=shop, type="CUSTOMER"):
    customer_id: str
    name: str
    email: str

    keys = Keys(PK="CUSTOMER#{customer_id}", SK="PROFILE")


class Order(Entity, table=shop, type="ORDER"):
    customer_id: str
    order_id: str
    status: str
    placed_at: datetime
    total_cents: int

    keys = Keys(
        PK="CUSTOMER#{customer_id}",
        SK="ORDER#{placed_at}#{order_id}",
    )
    of_customer = Pattern(newest_first=True, doc="a customer's orders, newest first")
    in_status = Pattern(index="byStatus", newest_first=True, doc="a customer's orders in one status")
