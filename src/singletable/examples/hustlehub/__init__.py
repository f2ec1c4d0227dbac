"""Seed 001, HustleHubDirectory: a side-hustle directory on one table with four GSIs.

``from singletable.examples.hustlehub import HustleHub, hub`` for the service and the table; ``EXAMPLE`` is
what ``singletable demo hustlehub`` runs.
"""

from __future__ import annotations

from singletable.examples import DEMO_CURSOR_SECRET, Example
from singletable.examples.hustlehub.design import Category, Listing, User, hub
from singletable.examples.hustlehub.sample import load
from singletable.examples.hustlehub.service import HustleHub, ServiceError, SlugStatus
from singletable.examples.hustlehub.walkthrough import steps
from singletable.model import DB


def open_service(db: DB) -> HustleHub:
    return HustleHub(db, cursor_secret=DEMO_CURSOR_SECRET)


EXAMPLE = Example(
    name="hustlehub",
    title="HustleHubDirectory (seed 001): users by email, listings newest first, admins by role, slugs",
    table=hub,
    open=open_service,
    load=load,
    steps=steps,
)

__all__ = ["EXAMPLE", "Category", "HustleHub", "Listing", "ServiceError", "SlugStatus", "User", "hub"]
