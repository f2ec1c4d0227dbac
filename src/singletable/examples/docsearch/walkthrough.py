"""The demo's walk-through, in the order ``singletable demo docsearch`` runs it: a tenant's documents,
searches by meaning (within a tenant, in one language, like a document), an edit that moves a document in
the index, and the searches and writes the model refuses before anything is sent.
"""

from __future__ import annotations

from collections.abc import Iterable

from singletable.examples import Example, Step
from singletable.examples.docsearch.design import Document, help_centre
from singletable.examples.docsearch.embedding import embed
from singletable.examples.docsearch.sample import load, open_service
from singletable.examples.docsearch.service import HelpCentre


def steps(centre: HelpCentre) -> Iterable[Step]:
    return [
        Step("documents of acme", lambda: centre.documents("acme"), "a Query of the tenant's partition"),
        Step(
            "acme: 'how do I get my money back for a yearly plan refund'",
            lambda: centre.search("acme", "how do I get my money back for a yearly plan refund"),
            "SearchVectors partitioned by tenantId: the three nearest, smallest COSINE distance first",
        ),
        Step(
            "globex: the same words",
            lambda: centre.search("globex", "how do I get my money back for a yearly plan refund"),
            "another partition of the index: acme's refund article cannot come back",
        ),
        Step(
            "acme, in German: 'rückerstattung jahresplan'",
            lambda: centre.search("acme", "rückerstattung jahrespläne", lang="de", top_k=2),
            "lang is an inline filter of the index",
        ),
        Step("like acme's a3 (PDF export)", lambda: centre.related("acme", "a3")),
        Step(
            "acme edits a2 to be about refunds",
            lambda: centre.edit_document(
                "acme", "a2", body="Refunds for annual plans are paid to the billing address card."
            ),
            "body and vector change in one UpdateItem; the index follows the item",
        ),
        Step(
            "acme: 'refund annual plan' again",
            lambda: centre.search("acme", "refund annual plan"),
        ),
        Step(
            "a search without a tenant",
            lambda: centre.db.similar(Document.by_meaning, embed("refund")),
            "refused before any request: the index is partitioned by tenantId",
        ),
        Step(
            "a vector of the wrong size",
            lambda: centre.db.update(Document.key(tenant_id="acme", doc_id="a1"), embedding=[0.5, 0.5]),
            "refused before any request, naming the entity, the field and the value",
        ),
    ]


EXAMPLE = Example(
    name="docsearch",
    title="Help-centre documents searched by meaning: a vector index partitioned by tenant",
    table=help_centre,
    open=open_service,
    load=load,
    steps=steps,
)
