"""The quick start's sample data: one customer, Ada, and five orders on consecutive days of November 2026.

Each order carries its status twice: as ``status`` and in ``GSI1PK`` (``STATUS#<status>``), which puts it in
the index partition of orders with that status.
"""

from __future__ import annotations

from typing import Any

from singletable.engine import Engine
from singletable.examples.quickstart.design import TABLE

CUSTOMER = "CUSTOMER#ada"
PROFILE: dict[str, Any] = {"PK": {"S": CUSTOMER}, "SK": {"S": "PROFILE"}, "name": {"S": "Ada Lovelace"}}
ORDER_STATUSES = ["SHIPPED", "PENDING", "SHIPPED", "PENDING", "SHIPPED"]


def order(number: int, status: str) -> dict[str, Any]:
    """Order ``number`` (1-based, dated 2026-11-<number>) of 10 x ``number`` in ``status``."""
    return {
        "PK": {"S": CUSTOMER},
        "SK": {"S": f"ORDER#2026-11-{number:02d}"},
        "amount": {"N": str(10 * number)},
        "status": {"S": status},
        "GSI1PK": {"S": f"STATUS#{status}"},
        "GSI1SK": {"S": f"2026-11-{number:02d}"},
    }


def load(ddb: Engine) -> None:
    """Create the profile (only if absent) and put the five orders."""
    ddb.put_item(TableName=TABLE, Item=PROFILE, ConditionExpression="attribute_not_exists(PK)")
    for number, status in enumerate(ORDER_STATUSES, start=1):
        ddb.put_item(TableName=TABLE, Item=order(number, status))
