"""Deterministic sample data: a few sites, users, ratings, comments and custom groups.

Loading replays a short history through the service (so the roles apply to the sample too): each write
happens at its own fixed time before :data:`singletable.examples.DEMO_CLOCK`, which gives sites distinct
``createdAt`` values -- the order "list all sites" returns -- and comments distinct times. Ids come from
:func:`sequential_ids`, so every run writes exactly the same items.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from singletable.examples import DEMO_CLOCK
from singletable.examples.fus_main.service import Actor, Permission, SiteCatalog
from singletable.model import DB

ADA = Actor("ada", frozenset({"admin"}))  # Cognito group "admin"
BOB = Actor("bob")  # in custom group "editors" (sites:update)
CYD = Actor("cyd")  # in "book-club" only (no permissions)
DEE = Actor("dee")  # in "curators" (sites:create, sites:update) and "book-club"

GROUPS = [
    ("book-club", "Reads one site a week together; grants nothing", []),
    ("curators", "Add and edit catalog entries", [Permission.CREATE_SITES, Permission.UPDATE_SITES]),
    ("editors", "Fix titles, descriptions and tags", [Permission.UPDATE_SITES]),
]
MEMBERSHIPS = [("bob", "editors"), ("cyd", "book-club"), ("dee", "curators"), ("dee", "book-club")]
SITES = [
    (
        "mdn",
        "https://developer.mozilla.org",
        "MDN Web Docs",
        "Documentation for web developers",
        "Resources for Developers, by Developers.",
        ["javascript", "css", "html", "docs"],
    ),
    (
        "pydocs",
        "https://docs.python.org/3/",
        "Python documentation",
        "The standard library and language",
        None,
        ["python", "docs"],
    ),
    (
        "jsinfo",
        "https://javascript.info",
        "The Modern JavaScript Tutorial",
        "From basics to advanced",
        None,
        ["javascript", "tutorial"],
    ),
    (
        "rustbook",
        "https://doc.rust-lang.org/book/",
        "The Rust Programming Language",
        "The book",
        None,
        ["rust", "book"],
    ),
    ("realpython", "https://realpython.com", "Real Python", "Python tutorials", None, ["python", "tutorial"]),
]
RATINGS = [
    (BOB, "mdn", 5, "the reference"),
    (BOB, "pydocs", 4, None),
    (BOB, "jsinfo", 5, "clear examples"),
    (CYD, "mdn", 4, None),
    (CYD, "rustbook", 5, "best free book"),
    (DEE, "pydocs", 5, None),
    (DEE, "realpython", 3, "some articles are paywalled"),
]
COMMENTS = [
    (BOB, "mdn", "The compatibility tables save me every week."),
    (CYD, "mdn", "Search could be better."),
    (DEE, "pydocs", "The tutorial section is a good start."),
    (BOB, "mdn", "Also: the CSS grid guide."),
]


def sequential_ids() -> Callable[[str], str]:
    """``s001``, ``c001``, ... per kind: fixed ids that still sort in creation order, like real ones."""
    counters: dict[str, int] = {}

    def new_id(kind: str) -> str:
        counters[kind] = counters.get(kind, 0) + 1
        return f"{kind[0]}{counters[kind]:03d}"

    return new_id


@contextmanager
def _at(catalog: SiteCatalog, when: datetime) -> Iterator[None]:
    clock = catalog.db.clock
    catalog.db.clock = lambda: when
    try:
        yield
    finally:
        catalog.db.clock = clock


def open_service(db: DB) -> SiteCatalog:
    """The demo's catalog: fixed ids so every run writes the same items."""
    return SiteCatalog(db, new_id=sequential_ids())


def load(catalog: SiteCatalog) -> None:
    """Write the sample: groups and members 60 days ago, sites from 40 days ago, then ratings and comments."""
    start = DEMO_CLOCK - timedelta(days=60)
    for n, (name, description, permissions) in enumerate(GROUPS):
        with _at(catalog, start + timedelta(hours=n)):
            catalog.create_group(ADA, name, description=description, permissions=permissions)
    for n, (user_id, group) in enumerate(MEMBERSHIPS):
        with _at(catalog, start + timedelta(days=1, hours=n)):
            catalog.add_member(ADA, group, user_id)
    for n, (site_id, url, title, description, scraped, tags) in enumerate(SITES):
        with _at(catalog, DEMO_CLOCK - timedelta(days=40 - 5 * n)):
            catalog.create_site(
                ADA,
                site_id=site_id,
                url=url,
                title=title,
                description=description,
                scraped_content=scraped,
                tags=tags,
            )
    for n, (actor, site_id, stars, note) in enumerate(RATINGS):
        with _at(catalog, DEMO_CLOCK - timedelta(days=10, hours=-n)):
            catalog.rate_site(actor, site_id, stars, note)
    for n, (actor, site_id, body) in enumerate(COMMENTS):
        with _at(catalog, DEMO_CLOCK - timedelta(days=9 - 2 * n)):
            catalog.add_comment(actor, site_id, body)
