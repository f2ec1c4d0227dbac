"""The help centre's service API: documents written with their vectors, searched by meaning.

The service owns the embedding: a document's vector is computed from its title and body whenever either is
written, so the index never holds a vector of text the item no longer has.
"""

from __future__ import annotations

from singletable.examples.docsearch.design import Document, Tenant
from singletable.examples.docsearch.embedding import embed
from singletable.model import DB, NotFound, Scored


def _text(title: str, body: str) -> str:
    return f"{title}\n{body}"


class HelpCentre:
    """Tenants and their documents (see ``README.md`` beside this module)."""

    def __init__(self, db: DB) -> None:
        self.db = db

    def add_tenant(self, tenant_id: str, name: str) -> Tenant:
        return self.db.create(Tenant(tenant_id=tenant_id, name=name))

    def add_document(self, tenant_id: str, doc_id: str, title: str, body: str, lang: str = "en") -> Document:
        vector = embed(_text(title, body))
        document = Document(
            tenant_id=tenant_id, doc_id=doc_id, title=title, body=body, lang=lang, embedding=vector
        )
        return self.db.create(document)

    def edit_document(self, tenant_id: str, doc_id: str, *, body: str) -> Document:
        """A new body, and with it a new vector, in one UpdateItem."""
        stored = self.db.must_get(Document, tenant_id=tenant_id, doc_id=doc_id)
        return self.db.update(stored.key(), body=body, embedding=embed(_text(stored.title, body)))

    def documents(self, tenant_id: str) -> list[Document]:
        return list(self.db.query(Document.in_tenant(tenant_id=tenant_id)))

    def search(self, tenant_id: str, text: str, *, top_k: int = 3, lang: str | None = None) -> list[Scored]:
        """The tenant's documents nearest ``text`` (optionally in one language), nearest first."""
        where = Document.f.tenant_id == tenant_id
        if lang is not None:
            where = where & (Document.f.lang == lang)
        return self.db.similar(Document.by_meaning, embed(text), top_k=top_k, where=where)

    def related(self, tenant_id: str, doc_id: str, *, top_k: int = 2) -> list[Scored]:
        """Documents like one document: a search with its own vector, itself left out."""
        document = self.db.get(Document, tenant_id=tenant_id, doc_id=doc_id)
        if document is None:
            raise NotFound(f"no document {doc_id} in tenant {tenant_id}")
        found = self.db.similar(
            Document.by_meaning, document.embedding, top_k=top_k + 1, where=Document.f.tenant_id == tenant_id
        )
        return [result for result in found if result.entity.doc_id != doc_id][:top_k]
