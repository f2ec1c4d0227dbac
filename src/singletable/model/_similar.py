"""``Similar``: a similarity search declared in an entity, searched with ``db.similar(...)``.

A :class:`Similar` sits in the entity's body (``by_meaning = Similar("DocsByMeaning")``) and names one of
the table's vector indexes; binding it checks, when the entity is declared, that the entity stores the
index's vector attribute and its partition attribute. ``db.similar(Doc.by_meaning, vector, top_k=10,
where=Doc.f.tenant == t)`` (:mod:`singletable.model._search`) returns :class:`Scored` records, nearest
first (DynamoDB's order: the smallest COSINE or EUCLIDEAN distance, the largest DOT_PRODUCT).

What a result holds: SearchVectors leaves the vector attribute out unless the request projects it, so a
result is the entity without its vector (a partial entity: reading the vector raises FieldNotLoaded) unless
``with_vector=True``. An index projecting fewer attributes than the entity has (KEYS_ONLY, INCLUDE) is
followed by one BatchGetItem of the whole items, as a KEYS_ONLY GSI's pages are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, NamedTuple, TypeVar

from singletable.model._entity_meta import EntityMeta
from singletable.model._errors import DeclarationError
from singletable.model._source import as_dict, caller

E = TypeVar("E")


class Scored(NamedTuple, Generic[E]):
    """One search result: the entity and its score (its distance for COSINE and EUCLIDEAN, smaller is
    nearer; its dot product for DOT_PRODUCT, larger is nearer)."""

    entity: E
    score: float


@dataclass(eq=False)
class Similar:
    """A similarity search over one of the table's vector indexes: ``by_meaning = Similar("DocsByMeaning")``
    in the entity's body, searched with ``db.similar(Doc.by_meaning, vector, top_k=10, where=...)``."""

    index: str
    doc: str = ""
    name: str = field(default="", init=False)
    meta: EntityMeta | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.source = caller(2)

    def bind(self, meta: EntityMeta, name: str) -> Similar:
        self.name, self.meta = name, meta
        where = f"{meta.cls.__name__}.{name}"
        self.vector_index = vi = meta.table.vector_index(self.index)
        vector_field = meta.field_of.get(vi.vector)
        if vector_field is None:
            raise DeclarationError(
                f"{where}: {meta.type} has no field stored as {vi.vector}, the vector attribute of "
                f"{vi.name}; "
                f"declare one: {vi.vector}: list[float] = Vector({vi.dimensions})"
            )
        self.vector_field = vector_field
        partition = vi.partition_attribute
        if partition is not None and partition not in meta.field_of:
            raise DeclarationError(
                f"{where}: {vi.name} is partitioned by {partition}, which no field of {meta.type} is stored "
                f"as; its items would never be found (a search must give the partition's value)"
            )
        self.partition_field = meta.field_of.get(partition) if partition else None
        self.schema_fields = {meta.field_of[a]: a for a, _, _ in vi.schema if a in meta.field_of}
        type_attribute = meta.table.type_attribute
        self.by_type = type_attribute in vi.filter_attributes and type_attribute not in meta.field_of
        keys = [*meta.table.key_attributes(), type_attribute]
        wanted = [f.attribute for f in meta.fields.values() if f.stored and f.name != vector_field]
        self.hydrate = not vi.projects(wanted, keys)
        return self

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "operation": "SearchVectors",
            "index": self.index,
            "vector_field": self.vector_field,
            "partition_field": self.partition_field,
            "filter_fields": [f for f in self.schema_fields if f != self.partition_field],
            "hydrate": self.hydrate,
            "doc": self.doc,
            "source": as_dict(self.source),
        }
