"""``VectorIndex``: a table's vector index, declared beside its GSIs and LSIs.

DynamoDB's third kind of index holds one vector attribute's embeddings and answers ``SearchVectors`` with the
items nearest a vector. Its declaration names the attribute, the dimensions and the distance function, and
optionally a search schema: a partition attribute (``HASH``: every search gives its value by equality, so
one tenant's search never sees another's items) and inline-filter attributes (``INLINE_FILTER``: searches may
filter on them). Search-schema attributes are declared in AttributeDefinitions like key attributes, so each
has a type (``("year", "N")``). What DynamoDB would refuse at CreateTable -- a name it does not accept,
dimensions out of range, an unknown distance function, more indexes than a table may have, two indexes on
one attribute with different dimensions, a provisioned table -- is refused here, when the table is declared.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from singletable.model._errors import DeclarationError
from singletable.model._source import Source, as_dict, caller
from singletable.model._vectors import checked_dimensions

DISTANCES = ("COSINE", "EUCLIDEAN", "DOT_PRODUCT")
MAX_VECTOR_INDEXES = 5  # DynamoDB: "VectorIndex count exceeds the per-table limit of 5"
INDEX_NAME = re.compile(r"[a-zA-Z0-9_.-]{3,255}")
# SearchVectors' TopK: 1 to 100.
MAX_TOP_K = 100


def _attribute(spec: str | tuple[str, str], where: str) -> tuple[str, str]:
    """``"tenant"`` or ``("year", "N")``: a search-schema attribute and its type."""
    name, kind = (spec, "S") if isinstance(spec, str) else spec
    if not isinstance(name, str) or not name:
        raise DeclarationError(f"{where}: an attribute name is a non-empty string, not {name!r}")
    if kind not in ("S", "N", "B"):
        raise DeclarationError(f"{where}: attribute {name} must be of type S, N or B, not {kind!r}")
    return name, kind


@dataclass
class VectorIndex:
    """A vector index: ``VectorIndex("DocsByMeaning", vector="embedding", dimensions=768, distance="COSINE",
    partition="tenant", filters=["lang"])``.

    ``vector`` is the attribute holding the embeddings (an entity's ``Vector(768)`` field stored under that
    name); ``partition`` the search schema's HASH attribute (a multi-tenant table's tenant: searches must
    give it); ``filters`` its INLINE_FILTER attributes; each as a name or ``(name, "S" | "N" | "B")``.
    ``projection`` is ``"ALL"``, ``"KEYS_ONLY"`` or the attribute names to include, as for a GSI.
    """

    name: str
    vector: str
    dimensions: int
    distance: str = "COSINE"
    partition: str | tuple[str, str] | None = None
    filters: Sequence[str | tuple[str, str]] = ()
    projection: str | Iterable[str] = "ALL"
    source: Source | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.source is None:
            self.source = caller(2)
        where = f"VectorIndex {self.name!r}"
        if not isinstance(self.name, str) or not INDEX_NAME.fullmatch(self.name):
            raise DeclarationError(
                f"{where}: an index name is 3 to 255 characters, each a letter, a digit, '_', '-' or '.'"
            )
        if not isinstance(self.vector, str) or not self.vector:
            raise DeclarationError(f"{where}: vector= names the attribute holding the vectors")
        checked_dimensions(self.dimensions, f"{where}: dimensions")
        if self.distance not in DISTANCES:
            raise DeclarationError(
                f"{where}: distance must be one of {', '.join(DISTANCES)}, not {self.distance!r}"
            )
        self.schema: list[tuple[str, str, str]] = []  # (attribute, type, HASH | INLINE_FILTER)
        if self.partition is not None:
            self.schema.append((*_attribute(self.partition, where), "HASH"))
        if isinstance(self.filters, str):
            raise DeclarationError(
                f"{where}: filters= takes a list of attributes, not the string {self.filters!r}"
            )
        for spec in self.filters:
            self.schema.append((*_attribute(spec, where), "INLINE_FILTER"))
        names = [a for a, _, _ in self.schema]
        if len(set(names)) != len(names):
            raise DeclarationError(f"{where}: the search schema names an attribute twice: {names}")
        if self.vector in names:
            raise DeclarationError(
                f"{where}: the vector attribute {self.vector} cannot be in the search schema"
            )
        self.projection = _projection(self.projection, where)

    @property
    def partition_attribute(self) -> str | None:
        return next((a for a, _, role in self.schema if role == "HASH"), None)

    @property
    def filter_attributes(self) -> list[str]:
        return [a for a, _, role in self.schema if role == "INLINE_FILTER"]

    @property
    def projection_type(self) -> str:
        return self.projection if isinstance(self.projection, str) else "INCLUDE"

    def projects(self, attributes: Iterable[str], key_attributes: Iterable[str]) -> bool:
        """Whether a search returns all of ``attributes`` (else its entities are read whole afterwards)."""
        if self.projection == "ALL":
            return True
        have = {*key_attributes, *(a for a, _, _ in self.schema)}
        if not isinstance(self.projection, str):
            have.update(self.projection)
        return set(attributes) <= have

    def params(self) -> dict[str, Any]:
        """This index as CreateTable's ``VectorIndexes`` takes it."""
        projection: dict[str, Any] = {"ProjectionType": self.projection_type}
        if not isinstance(self.projection, str):
            projection["NonKeyAttributes"] = list(self.projection)
        spec: dict[str, Any] = {
            "IndexName": self.name,
            "VectorAttribute": {"AttributeName": self.vector},
            "Dimensions": self.dimensions,
            "DistanceFunction": self.distance,
            "Projection": projection,
        }
        if self.schema:
            spec["SearchSchema"] = [
                {"AttributeName": a, "SearchSchemaElementType": role} for a, _, role in self.schema
            ]
        return spec

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": "VECTOR",
            "vector": self.vector,
            "dimensions": self.dimensions,
            "distance": self.distance,
            "partition": next(
                ({"attribute": a, "type": t} for a, t, role in self.schema if role == "HASH"), None
            ),
            "filters": [{"attribute": a, "type": t} for a, t, role in self.schema if role == "INLINE_FILTER"],
            "projection": self.projection_type,
            "include": None if isinstance(self.projection, str) else list(self.projection),
            "source": as_dict(self.source),
        }


def _projection(projection: str | Iterable[str], where: str) -> str | tuple[str, ...]:
    if isinstance(projection, str):
        if projection not in ("ALL", "KEYS_ONLY"):
            raise DeclarationError(
                f"{where}: projection must be ALL, KEYS_ONLY or a list of attributes, not {projection!r}"
            )
        return projection
    return tuple(projection)


def check_vector_indexes(
    indexes: list[VectorIndex], billing: str, other_names: Iterable[str], key_types: dict[str, str]
) -> dict[str, str]:
    """Refuse what DynamoDB refuses of a table's vector indexes together; return the search-schema
    attributes' types, for AttributeDefinitions."""
    if not indexes:
        return {}
    if billing != "PAY_PER_REQUEST":
        raise DeclarationError(
            "vector indexes need an on-demand table (billing='PAY_PER_REQUEST'); DynamoDB refuses them on "
            "provisioned tables"
        )
    if len(indexes) > MAX_VECTOR_INDEXES:
        raise DeclarationError(
            f"a table has at most {MAX_VECTOR_INDEXES} vector indexes (DynamoDB's limit); this one declares "
            f"{len(indexes)}"
        )
    names = [*other_names, *(i.name for i in indexes)]
    if len(set(names)) != len(names):
        raise DeclarationError(f"duplicate index names in {names}")
    dimensions: dict[str, VectorIndex] = {}
    types: dict[str, str] = {}
    for index in indexes:
        first = dimensions.setdefault(index.vector, index)
        if first.dimensions != index.dimensions:
            raise DeclarationError(
                f"vector indexes {first.name} and {index.name} both index {index.vector} with different "
                f"dimensions ({first.dimensions} and {index.dimensions}); DynamoDB needs one size per "
                "attribute"
            )
        if index.vector in key_types:
            raise DeclarationError(
                f"VectorIndex {index.name!r}: {index.vector} is a key attribute, which holds no list"
            )
        for attribute, kind, _ in index.schema:
            known = key_types.get(attribute) or types.get(attribute)
            if known is not None and known != kind:
                raise DeclarationError(f"attribute {attribute} is declared both {known} and {kind}")
            types[attribute] = kind
    return types
