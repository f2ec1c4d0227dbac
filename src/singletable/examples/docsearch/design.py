"""A multi-tenant help centre: tenants and their documents on one table, searched by meaning.

Every document is stored in its tenant's partition (``PK = TENANT#<id>``) with its text's vector in
``embedding`` (64 numbers, :mod:`.embedding`). The vector index ``DocsByMeaning`` indexes that attribute
with COSINE distance and is partitioned by ``tenantId`` (its search schema's HASH attribute): DynamoDB then
requires every search to name one tenant, so one tenant's search can never return another's documents --
isolation the index enforces, not a filter the application might forget. ``lang`` and ``entityType`` are
its inline filters: a search can keep to one language, and the model keeps a search to documents (the
tenant items carry no vector, so they are never in the index anyway).
"""

from __future__ import annotations

from datetime import datetime

from singletable.examples.docsearch.embedding import DIMENSIONS
from singletable.model import Entity, Keys, Pattern, Similar, Table, Vector, VectorIndex, env

help_centre = Table(
    name=env("DOCSEARCH_TABLE", "docsearch"),
    naming="camel",
    vector_indexes=[
        VectorIndex(
            "DocsByMeaning",
            vector="embedding",
            dimensions=DIMENSIONS,
            distance="COSINE",
            partition="tenantId",
            filters=["lang", "entityType"],
        )
    ],
)


class Tenant(Entity, table=help_centre, type="TENANT"):
    """A customer of the help-centre product: its documents live in its partition."""

    tenant_id: str
    name: str

    keys = Keys(PK="TENANT#{tenant_id}", SK="TENANT")


class Document(Entity, table=help_centre, type="DOC"):
    """A help article; ``embedding`` is its title and body as a vector, kept in step by the service."""

    tenant_id: str
    doc_id: str
    title: str
    body: str
    lang: str = "en"
    embedding: list[float] = Vector(DIMENSIONS)
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(PK="TENANT#{tenant_id}", SK="DOC#{doc_id}")
    in_tenant = Pattern(doc="a tenant's documents, by ID")
    by_meaning = Similar("DocsByMeaning", doc="a tenant's documents nearest a text")
