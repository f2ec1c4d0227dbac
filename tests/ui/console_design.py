"""The web console tests' design: users with a unique email, their orders (a GSI by status), one collection.

The table's name comes from ``UI_TABLE`` (set by the tests' conftest) so the shared servers keep apart.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from singletable.model import GSI, Collection, Entity, Keys, Pattern, Table, env

shop = Table(
    name=env("UI_TABLE", "console"),
    type_attribute="entityType",
    indexes=[GSI("GSI1", pk="GSI1PK", sk="GSI1SK")],
)


class User(Entity, table=shop, type="USER", unique=("email",)):
    user_id: str
    name: str
    email: str

    keys = Keys(PK="USER#{user_id}", SK="PROFILE")


class Order(Entity, table=shop, type="ORDER"):
    user_id: str
    order_id: int
    status: str = "open"

    keys = Keys(
        PK="USER#{user_id}",
        SK="ORDER#{order_id:05d}",
        GSI1PK="STATUS#{status}",
        GSI1SK="ORDER#{order_id:05d}",
    )
    of_user = Pattern(sk="ORDER#", doc="A user's orders, oldest first")
    by_status = Pattern(index="GSI1", doc="Orders in a status")


account = Collection(shop, "account", pk="USER#{user_id}", entities=(User, Order))


class Sheet(Entity, table=shop, type="SHEET", version="version"):
    """Every kind of field the entity-fields editor must carry through unchanged; versioned, timestamped."""

    sheet_id: str
    title: str = ""
    tags: set[str] = set()
    sizes: set[int] = set()
    blob: bytes | None = None
    price: Decimal | None = None
    ratio: float | None = None
    attrs: dict[str, Any] = {}
    cells: list[Any] = []
    flag: bool = False
    note: str | None = None
    version: int | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(PK="SHEET#{sheet_id}", SK="SHEET")
