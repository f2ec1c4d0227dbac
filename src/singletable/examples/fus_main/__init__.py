"""Seed 000, ``fus-main``: a catalog of web sites with tags, star ratings, comments and custom RBAC groups.

``design`` declares the table, entities and access patterns; ``service`` is the app's API with the design's
roles enforced (:class:`SiteCatalog`); ``sample`` holds deterministic sample data; ``walkthrough`` is what
``singletable demo fus-main`` runs.
"""

from __future__ import annotations

from typing import Any

from singletable.examples import Example
from singletable.examples.fus_main.design import Comment, Group, Membership, Rating, Site, SiteTag, fus
from singletable.examples.fus_main.sample import load, sequential_ids
from singletable.examples.fus_main.service import (
    Actor,
    InvalidInput,
    NotAuthorized,
    NotSignedIn,
    Permission,
    SiteCatalog,
)
from singletable.examples.fus_main.walkthrough import steps


def open_catalog(db: Any) -> SiteCatalog:
    """The demo's catalog: fixed ids so every run writes the same items."""
    return SiteCatalog(db, new_id=sequential_ids())


EXAMPLE = Example(
    name="fus-main",
    title="fus-main: sites, tags, star ratings, comments and custom RBAC groups in one table",
    table=fus,
    open=open_catalog,
    load=load,
    steps=steps,
)

__all__ = [
    "EXAMPLE",
    "Actor",
    "Comment",
    "Group",
    "InvalidInput",
    "Membership",
    "NotAuthorized",
    "NotSignedIn",
    "Permission",
    "Rating",
    "Site",
    "SiteCatalog",
    "SiteTag",
    "fus",
    "open_catalog",
]
