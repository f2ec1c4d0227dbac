"""ConsumedCapacity by AWS's rules.

Reads are billed in 4 KB units (half for eventually consistent reads), Query and Scan on the sum of the
sizes read, rounded up once; writes in 1 KB units of the larger of the old and new item. Each global or
local secondary index is billed on the change to what it stores, sized on the projected entry: an entry
put costs its new size, an entry deleted its old size, a moved index key both (a delete and a put, each
rounded on its own), a changed projection the larger of the two, and an entry that holds the same values
as before nothing -- the index then has no arm in the response at all. "The same values" is DynamoDB's
equality (:func:`same_entry`): a set listed in another order is no change. Transactions double the
table's arm only (see :mod:`_transactions`).
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


def same_entry(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Whether two stored images hold the same values: sets compare unordered (numbers are stored in
    canonical form, so equal numbers are equal strings)."""
    if old.keys() != new.keys():
        return False
    return all(_same_value(old[name], new[name]) for name in [n for n, v in old.items() if v != new[n]])


def _same_value(a: dict[str, Any], b: dict[str, Any]) -> bool:
    ((kind, left),) = a.items()
    ((other, right),) = b.items()
    if kind != other:
        return False
    if kind in ("SS", "NS", "BS"):
        return len(left) == len(right) and set(left) == set(right)
    if kind == "L":
        return len(left) == len(right) and all(
            x == y or _same_value(x, y) for x, y in zip(left, right, strict=True)
        )
    if kind == "M":
        return same_entry(left, right)
    return False


class Capacity:
    """Accumulates one request's consumption per table and index, then renders ConsumedCapacity."""

    __slots__ = ("gsi", "lsi", "table", "table_name", "vector")

    def __init__(self, table_name: str) -> None:
        self.table_name = table_name
        self.table = 0.0
        self.gsi: dict[str, float] = {}
        self.lsi: dict[str, float] = {}
        # Vector index name -> VectorWriteRequestBytes (bytes, not units; shown under INDEXES only). None
        # until a vector index is written: most requests never need the dict.
        self.vector: dict[str, float] | None = None

    def add_vector(self, name: str, size: int) -> None:
        if self.vector is None:
            self.vector = {}
        self.vector[name] = self.vector.get(name, 0.0) + size

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
            if self.vector:
                out["VectorIndexes"] = {n: {"VectorWriteRequestBytes": b} for n, b in self.vector.items()}
        return out
