"""Deterministic sample data: two tenants' help articles, with fixed IDs.

Both tenants have an article about refunds, so a search for refunds in one tenant shows that the other's never
comes back. Acme also has two articles in German, for the language filter.
"""

from __future__ import annotations

from singletable.examples.docsearch.service import HelpCentre
from singletable.model import DB

TENANTS = [("acme", "Acme Invoicing"), ("globex", "Globex Hardware")]
DOCUMENTS = [
    (
        "acme",
        "a1",
        "Refunds for annual plans",
        "Annual plans can be refunded within 30 days of purchase. Refunds go back to the card that paid.",
        "en",
    ),
    (
        "acme",
        "a2",
        "Changing your billing address",
        "Update the billing address on the invoices page; future invoices show the new address.",
        "en",
    ),
    (
        "acme",
        "a3",
        "Exporting invoices as PDF",
        "Select invoices and choose export to download them as PDF files.",
        "en",
    ),
    (
        "acme",
        "a4",
        "Cancelling a subscription",
        "Cancel your subscription from the plan page; the plan stays "
        "active until the end of the paid period, with no refund for monthly plans.",
        "en",
    ),
    (
        "acme",
        "a5",
        "Rückerstattung für Jahrespläne",
        "Jahrespläne können innerhalb von 30 Tagen erstattet werden. Die Rückerstattung geht auf die Karte.",
        "de",
    ),
    ("acme", "a6", "Rechnungen als PDF exportieren", "Rechnungen auswählen und als PDF exportieren.", "de"),
    (
        "globex",
        "g1",
        "Returning a faulty router",
        "A faulty router can be returned for a refund or a replacement within two years.",
        "en",
    ),
    (
        "globex",
        "g2",
        "Resetting the router",
        "Hold the reset button for ten seconds; the router restarts with factory settings.",
        "en",
    ),
    (
        "globex",
        "g3",
        "Firmware updates",
        "The router installs firmware updates at night; see the update history on the status page.",
        "en",
    ),
]


def open_service(db: DB) -> HelpCentre:
    return HelpCentre(db)


def load(centre: HelpCentre) -> None:
    """The tenants, then their documents, each written with the vector of its text."""
    for tenant_id, name in TENANTS:
        centre.add_tenant(tenant_id, name)
    for tenant_id, doc_id, title, body, lang in DOCUMENTS:
        centre.add_document(tenant_id, doc_id, title, body, lang)
