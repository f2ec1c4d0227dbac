"""Every item of a table, read with consistent Scans page by page: one loop for the tests of every package,
whatever handle they read through (a :class:`backends.Backend`, a model DB, a data tools Target)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Scanner = Callable[[dict[str, Any]], dict[str, Any]]


def every_item(scan: Scanner, table: str) -> list[dict[str, Any]]:
    """``table``'s items in the order Scan gives them; ``scan(params)`` sends one Scan and returns its
    answer."""
    items: list[dict[str, Any]] = []
    params: dict[str, Any] = {"TableName": table, "ConsistentRead": True}
    while True:
        page = scan(params)
        items += page.get("Items", [])
        if "LastEvaluatedKey" not in page:
            return items
        params["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def every_item_of(db: Any) -> list[dict[str, Any]]:
    """Every item of a model DB's table (read raw, through ``db.call``)."""
    return every_item(lambda params: db.call("Scan", params), db.table_name)
