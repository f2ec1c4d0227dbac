"""ConsumedCapacity by AWS's rules.

Reads are billed in 4 KB units (half for eventually consistent reads), Query and Scan on the sum of the
sizes read, rounded up once; writes in 1 KB units of the larger of the old and new item, and each global or
local secondary index a write touches is billed on the projected item's size: 1 write when the item enters
or leaves the index or a projected attribute changes, 2 when its index key changes, none when the index
entry stays as it was.
"""

from __future__ import annotations

from typing import Any

READ_UNIT = 4096
WRITE_UNIT = 1024


def read_units(size: int, consistent: bool) -> float:
    units = max(1, -(-size // READ_UNIT))
    return float(units) if consistent else units / 2


def write_units(size: int) -> float:
    return float(max(1, -(-size // WRITE_UNIT)))


class Capacity:
    """Accumulates one request's consumption per table and index, then renders ConsumedCapacity."""

    __slots__ = ("gsi", "lsi", "table", "table_name")

    def __init__(self, table_name: str) -> None:
        self.table_name = table_name
        self.table = 0.0
        self.gsi: dict[str, float] = {}
        self.lsi: dict[str, float] = {}

    def add_index(self, name: str, is_global: bool, units: float) -> None:
        bucket = self.gsi if is_global else self.lsi
        bucket[name] = bucket.get(name, 0.0) + units

    def render(self, mode: str | None) -> dict[str, Any] | None:
        if mode is None or mode == "NONE":
            return None
        total = self.table + sum(self.gsi.values()) + sum(self.lsi.values())
        out: dict[str, Any] = {"TableName": self.table_name, "CapacityUnits": total}
        if mode == "INDEXES":
            out["Table"] = {"CapacityUnits": self.table}
            if self.gsi:
                out["GlobalSecondaryIndexes"] = {n: {"CapacityUnits": u} for n, u in self.gsi.items()}
            if self.lsi:
                out["LocalSecondaryIndexes"] = {n: {"CapacityUnits": u} for n, u in self.lsi.items()}
        return out
