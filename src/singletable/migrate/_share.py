"""A rate limit given as a share of the table's capacity: ``25%`` of what DescribeTable says the table can
take, so a migration leaves the rest to the application.

Where the capacity comes from, in this order:

- an observed rate the caller gives (``--observed-wcu``: what the application's own traffic peaks at, read
  from CloudWatch, say);
- a provisioned table: its ``ProvisionedThroughput`` (the table's own; its GSIs have their own);
- an on-demand table: its ``WarmThroughput`` -- the units per second DynamoDB says it can serve at once (a
  new on-demand table starts at 12,000 read and 4,000 write units, and the value grows with use) -- or its
  ``OnDemandThroughput`` maximum when one is set and lower.

DynamoDB Local shows neither for an on-demand table; the share is then refused with a message asking for
an observed rate or plain units.
"""

from __future__ import annotations

from dataclasses import dataclass

from singletable.migrate._steps import MigrationError
from singletable.model import DB

NAMES = {
    "read": ("ReadCapacityUnits", "ReadUnitsPerSecond", "MaxReadRequestUnits", "rcu"),
    "write": ("WriteCapacityUnits", "WriteUnitsPerSecond", "MaxWriteRequestUnits", "wcu"),
}


@dataclass(slots=True)
class Share:
    """A share of capacity in units per second, with what it is a share of (for the log)."""

    kind: str  # "read" or "write"
    percent: float
    base: float  # the capacity, in units per second
    source: str  # "provisioned capacity", "warm throughput", "on-demand maximum", "observed rate"

    @property
    def units(self) -> float:
        return self.base * self.percent / 100

    def describe(self) -> str:
        return (
            f"{self.kind} rate: {self.percent:g}% of the table's {self.source} "
            f"({self.base:,.0f} {self.kind} units per second) = {self.units:,.1f} units per second"
        )


def share_of_capacity(db: DB, percent: float, kind: str, observed: float | None = None) -> Share:
    """``percent`` of ``db``'s table's capacity for ``kind`` ("read" or "write"); see the module docstring.
    MigrationError when the table shows no capacity to take a share of."""
    if kind not in NAMES:
        raise ValueError(f"kind is read or write, not {kind!r}")
    if not 0 < percent <= 100:
        raise ValueError(f"a share of capacity is a percentage above 0 and at most 100, not {percent:g}")
    if observed is not None:
        if observed <= 0:
            raise ValueError(f"an observed rate is a positive number of units per second, not {observed:g}")
        return Share(kind, percent, float(observed), "observed rate")
    provisioned_name, warm_name, maximum_name, flag = NAMES[kind]
    table = db.call("DescribeTable", {"TableName": db.table_name})["Table"]
    on_demand = table.get("BillingModeSummary", {}).get("BillingMode") == "PAY_PER_REQUEST"
    provisioned = table.get("ProvisionedThroughput", {}).get(provisioned_name, 0)
    if not on_demand and provisioned > 0:
        return Share(kind, percent, float(provisioned), "provisioned capacity")
    warm = table.get("WarmThroughput", {}).get(warm_name, 0)
    maximum = table.get("OnDemandThroughput", {}).get(maximum_name, -1)
    if maximum > 0 and (not warm or maximum < warm):
        return Share(kind, percent, float(maximum), "on-demand maximum")
    if warm:
        return Share(kind, percent, float(warm), "warm throughput")
    raise MigrationError(
        f"table {db.table_name} is on-demand and DescribeTable shows neither its warm throughput nor a "
        f"maximum: a percentage has nothing to be a share of; give --observed-{flag} (the units per second "
        f"it takes), or --max-{flag} in units per second"
    )


def capacity_share(db: DB, percent: float, kind: str, observed: float | None = None) -> float:
    """:func:`share_of_capacity` in units per second."""
    return share_of_capacity(db, percent, kind, observed).units
