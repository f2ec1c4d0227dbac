"""A table's key schema and indexes, derived from its stored TableDescription.

The TableDescription (as DescribeTable returns it, minus the live counters) is the one persisted truth about
a table; :class:`TableSchema` is the fast, read-only view of it that every data-plane operation consults.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class KeyAttr:
    name: str
    type: str  # "S", "N" or "B"


@dataclass(frozen=True, slots=True)
class IndexSchema:
    name: str
    index_id: int
    is_global: bool
    hash: KeyAttr
    range: KeyAttr | None
    projection_type: str  # ALL, KEYS_ONLY, INCLUDE
    # Attribute names the index holds besides keys; None means every attribute (ALL).
    projected: frozenset[str] | None

    @property
    def key_names(self) -> tuple[str, ...]:
        return (self.hash.name,) if self.range is None else (self.hash.name, self.range.name)


@dataclass(frozen=True, slots=True)
class TableSchema:
    name: str
    table_id: int
    hash: KeyAttr
    range: KeyAttr | None
    indexes: dict[str, IndexSchema]
    description: dict[str, Any] = field(compare=False)

    @property
    def key_names(self) -> tuple[str, ...]:
        return (self.hash.name,) if self.range is None else (self.hash.name, self.range.name)

    @property
    def has_lsi(self) -> bool:
        return any(not index.is_global for index in self.indexes.values())

    def key_of(self, item: dict[str, Any]) -> dict[str, Any]:
        """The table key attributes of ``item``."""
        if self.range is None:
            return {self.hash.name: item[self.hash.name]}
        return {self.hash.name: item[self.hash.name], self.range.name: item[self.range.name]}

    def index_key_names(self, index: IndexSchema) -> tuple[str, ...]:
        """Every key attribute an index entry carries: the index's keys, then the table's."""
        names = list(index.key_names)
        names.extend(name for name in self.key_names if name not in names)
        return tuple(names)

    def project_for_index(self, index: IndexSchema, item: dict[str, Any]) -> dict[str, Any]:
        """The item as the index stores it (its projection)."""
        if index.projected is None:
            return item
        keep = index.projected.union(self.index_key_names(index))
        return {name: value for name, value in item.items() if name in keep}

    @classmethod
    def from_description(cls, table_id: int, description: dict[str, Any]) -> TableSchema:
        types = {d["AttributeName"]: d["AttributeType"] for d in description["AttributeDefinitions"]}

        def keys(schema: list[dict[str, str]]) -> tuple[KeyAttr, KeyAttr | None]:
            hash_name = next(k["AttributeName"] for k in schema if k["KeyType"] == "HASH")
            range_name = next((k["AttributeName"] for k in schema if k["KeyType"] == "RANGE"), None)
            return KeyAttr(hash_name, types[hash_name]), (
                KeyAttr(range_name, types[range_name]) if range_name else None
            )

        table_hash, table_range = keys(description["KeySchema"])
        indexes: dict[str, IndexSchema] = {}
        for kind, is_global in (("GlobalSecondaryIndexes", True), ("LocalSecondaryIndexes", False)):
            for index in description.get(kind, ()):
                index_hash, index_range = keys(index["KeySchema"])
                projection = index.get("Projection", {})
                ptype = projection.get("ProjectionType", "ALL")
                if ptype == "ALL":
                    projected = None
                elif ptype == "KEYS_ONLY":
                    projected = frozenset()
                else:
                    projected = frozenset(projection.get("NonKeyAttributes", ()))
                indexes[index["IndexName"]] = IndexSchema(
                    name=index["IndexName"],
                    index_id=index["_IndexId"],
                    is_global=is_global,
                    hash=index_hash,
                    range=index_range,
                    projection_type=ptype,
                    projected=projected,
                )
        return cls(description["TableName"], table_id, table_hash, table_range, indexes, description)
