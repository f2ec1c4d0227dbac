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


NamesAndTypes = tuple[tuple[str, str], ...]


def _names_and_types(attrs: tuple[KeyAttr, ...]) -> NamesAndTypes:
    return tuple((attr.name, attr.type) for attr in attrs)


@dataclass(frozen=True, slots=True)
class IndexSchema:
    """A secondary index. ``hash``/``range`` are its first HASH and RANGE attributes; a global index with
    multi-attribute keys has more (``hash_keys``/``range_keys``, in key-schema order, and ``composite``)."""

    name: str
    index_id: int
    is_global: bool
    hash: KeyAttr
    range: KeyAttr | None
    projection_type: str  # ALL, KEYS_ONLY, INCLUDE
    # Attribute names the index holds besides keys; None means every attribute (ALL).
    projected: frozenset[str] | None
    # Every HASH / RANGE attribute in key-schema order; left empty, (hash,) and (range,) or ().
    hash_keys: tuple[KeyAttr, ...] = ()
    range_keys: tuple[KeyAttr, ...] = ()
    # More than one HASH or more than one RANGE attribute: its keys are stored as composite keys
    # (see ``_keys.join_key_parts``).
    composite: bool = field(init=False, compare=False)
    # (name, type) of the HASH and of the RANGE attributes: what a key condition is compiled against.
    condition_keys: tuple[NamesAndTypes, NamesAndTypes] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        if not self.hash_keys:
            object.__setattr__(self, "hash_keys", (self.hash,))
        if not self.range_keys and self.range is not None:
            object.__setattr__(self, "range_keys", (self.range,))
        object.__setattr__(self, "composite", len(self.hash_keys) > 1 or len(self.range_keys) > 1)
        object.__setattr__(
            self, "condition_keys", (_names_and_types(self.hash_keys), _names_and_types(self.range_keys))
        )

    @property
    def key_names(self) -> tuple[str, ...]:
        if self.composite:
            return tuple(attr.name for attr in self.hash_keys + self.range_keys)
        return (self.hash.name,) if self.range is None else (self.hash.name, self.range.name)

    @property
    def key_attrs(self) -> tuple[tuple[KeyAttr, bool], ...]:
        """Every key attribute with whether it is a HASH attribute, in key-schema order."""
        return tuple((attr, True) for attr in self.hash_keys) + tuple(
            (attr, False) for attr in self.range_keys
        )


@dataclass(frozen=True, slots=True)
class VectorIndexSchema:
    """A vector index: which attribute holds the vector, its length and distance function, the SearchSchema
    (an optional HASH attribute that partitions the index and INLINE_FILTER attributes a search may test),
    and what a search result shows of an item (its Projection)."""

    name: str
    index_id: int
    attribute: str
    dimensions: int
    distance: str  # COSINE, EUCLIDEAN or DOT_PRODUCT
    hash: KeyAttr | None
    filters: tuple[KeyAttr, ...]
    projection_type: str
    # Attribute names the index holds besides the table's keys and the vector; None means every one (ALL).
    projected: frozenset[str] | None

    @property
    def schema_attributes(self) -> tuple[KeyAttr, ...]:
        """The SearchSchema's attributes, HASH first."""
        return self.filters if self.hash is None else (self.hash, *self.filters)


@dataclass(frozen=True, slots=True)
class IndexKeyCheck:
    """An index key attribute that is not a table key attribute: what a write checks an item's value of.
    (Slots, not a named tuple: every write reads these fields, and a slot read is the cheap one.)"""

    name: str
    type: str  # "S", "N" or "B"
    is_hash: bool
    index_name: str


@dataclass(frozen=True, slots=True)
class TableSchema:
    name: str
    table_id: int
    hash: KeyAttr
    range: KeyAttr | None
    indexes: dict[str, IndexSchema]
    description: dict[str, Any] = field(compare=False)
    # Vector indexes (DynamoDB's third kind of index), by name; searched by SearchVectors, never by Query.
    vector_indexes: dict[str, VectorIndexSchema] = field(default_factory=dict, compare=False)
    # Derived once here rather than on every write (the write path asks for them per item).
    key_names: tuple[str, ...] = field(init=False, compare=False)
    # Every index key attribute that is not a table key attribute, in index order: what PutItem checks an
    # item's index keys against.
    index_key_checks: tuple[IndexKeyCheck, ...] = field(init=False, compare=False)
    has_lsi: bool = field(init=False, compare=False)
    # Whether vector_indexes is non-empty, as a bool: every item write tests it, and a bool is the cheap test.
    has_vector_indexes: bool = field(init=False, compare=False)
    # Index name -> the attribute names its entries keep (None: ALL), for project_for_index.
    index_keeps: dict[str, frozenset[str] | None] = field(init=False, compare=False)
    # (name, type) of the HASH and of the RANGE attribute: what a key condition is compiled against.
    condition_keys: tuple[NamesAndTypes, NamesAndTypes] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        key_names = (self.hash.name,) if self.range is None else (self.hash.name, self.range.name)
        ranges = () if self.range is None else (self.range,)
        object.__setattr__(self, "condition_keys", (_names_and_types((self.hash,)), _names_and_types(ranges)))
        checks = tuple(
            IndexKeyCheck(attr.name, attr.type, is_hash, index.name)
            for index in self.indexes.values()
            for attr, is_hash in index.key_attrs
            if attr.name not in key_names
        )
        object.__setattr__(self, "key_names", key_names)
        object.__setattr__(self, "index_key_checks", checks)
        object.__setattr__(self, "has_lsi", any(not index.is_global for index in self.indexes.values()))
        object.__setattr__(self, "has_vector_indexes", bool(self.vector_indexes))
        object.__setattr__(
            self,
            "index_keeps",
            {
                name: None if index.projected is None else index.projected.union(self.index_key_names(index))
                for name, index in self.indexes.items()
            },
        )

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
        keep = self.index_keeps.get(index.name) if self.indexes.get(index.name) is index else None
        if keep is None:  # an IndexSchema that is not this table's own
            keep = index.projected.union(self.index_key_names(index))
        return {name: value for name, value in item.items() if name in keep}

    @classmethod
    def from_description(cls, table_id: int, description: dict[str, Any]) -> TableSchema:
        types = {d["AttributeName"]: d["AttributeType"] for d in description["AttributeDefinitions"]}

        def attrs(schema: list[dict[str, str]], kind: str) -> tuple[KeyAttr, ...]:
            return tuple(
                KeyAttr(k["AttributeName"], types[k["AttributeName"]]) for k in schema if k["KeyType"] == kind
            )

        def keys(schema: list[dict[str, str]]) -> tuple[KeyAttr, KeyAttr | None]:
            range_keys = attrs(schema, "RANGE")
            return attrs(schema, "HASH")[0], range_keys[0] if range_keys else None

        table_hash, table_range = keys(description["KeySchema"])
        indexes: dict[str, IndexSchema] = {}
        for kind, is_global in (("GlobalSecondaryIndexes", True), ("LocalSecondaryIndexes", False)):
            for index in description.get(kind, ()):
                index_hash, index_range = keys(index["KeySchema"])
                ptype, projected = _projection(index)
                indexes[index["IndexName"]] = IndexSchema(
                    name=index["IndexName"],
                    index_id=index["_IndexId"],
                    is_global=is_global,
                    hash=index_hash,
                    range=index_range,
                    projection_type=ptype,
                    projected=projected,
                    hash_keys=attrs(index["KeySchema"], "HASH"),
                    range_keys=attrs(index["KeySchema"], "RANGE"),
                )
        vector_indexes = {
            index["IndexName"]: _vector_index(index, types) for index in description.get("VectorIndexes", ())
        }
        return cls(
            description["TableName"], table_id, table_hash, table_range, indexes, description, vector_indexes
        )


def _projection(index: dict[str, Any]) -> tuple[str, frozenset[str] | None]:
    """An index's ProjectionType and the non-key attributes it projects (None: ALL of them)."""
    projection = index.get("Projection", {})
    ptype = projection.get("ProjectionType", "ALL")
    if ptype == "ALL":
        return ptype, None
    if ptype == "KEYS_ONLY":
        return ptype, frozenset()
    return ptype, frozenset(projection.get("NonKeyAttributes", ()))


def _vector_index(index: dict[str, Any], types: dict[str, str]) -> VectorIndexSchema:
    """A stored vector index definition as the engine reads it."""
    hash_attr = None
    filters: list[KeyAttr] = []
    for element in index.get("SearchSchema", ()):
        attr = KeyAttr(element["AttributeName"], types[element["AttributeName"]])
        if element["SearchSchemaElementType"] == "HASH":
            hash_attr = attr
        else:
            filters.append(attr)
    ptype, projected = _projection(index)
    return VectorIndexSchema(
        name=index["IndexName"],
        index_id=index["_IndexId"],
        attribute=index["VectorAttribute"]["AttributeName"],
        dimensions=int(index["Dimensions"]),
        distance=index["DistanceFunction"],
        hash=hash_attr,
        filters=tuple(filters),
        projection_type=ptype,
        projected=projected,
    )
