"""Seed 001's listings index as its document wrote it: 21 INCLUDE attributes, one over DynamoDB's limit."""

from __future__ import annotations

from singletable.examples.hustlehub.design import LISTING_INCLUDE_AS_DESIGNED
from singletable.model import GSI, Table

hub = Table(
    name="HustleHubDirectory",
    indexes=[
        GSI("GSI2-ListingsByDateIndex", pk="GSI2PK", sk="GSI2SK", projection=LISTING_INCLUDE_AS_DESIGNED),
    ],
)
