"""The design the stateful proof runs on, and the plain-Python reference of what its table must hold.

Two entities share a table with two GSIs and an LSI, between them using every kind of key the model has:
sparse keys (``when=``, over one field and over two), an alternative key (``otherwise=``), multi-field
templates, an index keyed by fields (members by org and team, sorted by status then rank: a multi-attribute
key, sparse while ``team`` is None, its number ``rank`` changed by ADD on the server), keys built from
``created_at`` (which an upsert must keep), numeric formats, a version field,
uniqueness guards (one carrying a primary-key field, one scoped by another field: an email per
site), derived items of both shapes (one per element of a set,
and one built by a function that may return none). Values come from small alphabets so that random steps
collide: the same keys, the same unique values, conditions that flip.

:class:`Reference` is what the table should hold, kept with plain dicts: the rules of
``test_stateful_writes.py`` predict each write's outcome from it (success, or which model error), apply the
successes, and compare the model's reads with it after every step.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pydantic import Field

from singletable.model import GSI, LSI, Derived, Entity, Key, Keys, Pattern, Table
from stepping_clock import SteppingClock

FIELD_KEYED = "byTeam"  # the index keyed by fields, which DynamoDB Local 1.25.1 cannot create

design = Table(
    name="stateful",
    indexes=[
        GSI("GSI1", pk="GSI1PK", sk="GSI1SK"),
        GSI("GSI2", pk="GSI2PK", sk="GSI2SK"),
        LSI("LSI1", sk="LSI1SK"),
        GSI(FIELD_KEYED, pk=["org", "team"], sk=["status", "rank"]),
    ],
)


class MemberTag(Entity, table=design, type="MTAG", timestamps=False):
    """One per tag of a member (``Derived(each=...)``): who is tagged ``x`` in an org."""

    org: str
    handle: str
    tag: str

    keys = Keys(PK="TAG#{org}#{tag}", SK="MEMBER#{handle}")


class Member(
    Entity, table=design, type="MEMBER", unique={"email": "EMAIL#{site}#{email}"}, version="version"
):
    """Emails are unique per site (a guard scoped by another field, which an update may change)."""

    org: str
    handle: str
    email: str
    site: str = "main"
    name: str = "anon"
    status: str = "active"
    team: str | None = None
    rank: int = 0
    tags: set[str] = Field(default_factory=set)
    version: int | None = None

    keys = Keys(
        PK="ORG#{org}",
        SK="MEMBER#{handle}",
        GSI1PK=Key("ACTIVE#{org}", when=lambda status: status == "active"),  # sparse: active members
        GSI1SK=Key("{name}#{handle}", when=lambda status: status == "active"),
        GSI2PK=Key("TEAM#{team}", otherwise="NOTEAM#{org}"),  # alternative
        GSI2SK="RANK#{rank:04d}#{name}",  # multi-field, formatted
        LSI1SK="STATUS#{status}#{rank:04d}",
    )
    active = Pattern(index="GSI1")
    by_team = Pattern(index=FIELD_KEYED)
    tag_items = Derived(MemberTag, each="tags", as_="tag")


class OwnerLink(Entity, table=design, type="OWNS", timestamps=False):
    """An owned document under its owner (``Derived(build=...)``, none for a document without owner)."""

    owner: str
    org: str
    doc_id: str

    keys = Keys(PK="OWNER#{owner}", SK="DOC#{org}#{doc_id}")


class Doc(Entity, table=design, type="DOC", unique={"slug": ("SLUG#{slug}", "org")}):
    org: str
    doc_id: str
    title: str
    slug: str | None = None
    owner: str | None = None
    published: bool = False
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(
        PK="ORG#{org}",
        SK="DOC#{doc_id}",
        # sparse over two fields; the sort key is built from createdAt, which puts must keep
        GSI1PK=Key("PUB#{org}", when=lambda published, owner: published and owner is not None),
        GSI1SK=Key("{created_at}#{doc_id}", when=lambda published: published),
        GSI2PK=Key("OWNER#{owner}", otherwise="UNOWNED#{org}"),
        GSI2SK="DOC#{title}#{doc_id}",
    )
    owner_link = Derived(
        OwnerLink,
        on=("org", "doc_id", "owner"),
        build=lambda d: OwnerLink(owner=d.owner, org=d.org, doc_id=d.doc_id) if d.owner else None,
    )


ENTITIES = (Member, MemberTag, Doc, OwnerLink)
# What the guard items of each owner type are keyed by, to tell them apart in a Scan.
GUARD_PREFIXES = {"EMAIL#": (Member, "email"), "SLUG#": (Doc, "slug")}

ORGS = ("a", "b")
HANDLES = ("h1", "h2", "h3")
EMAILS = ("e1@x", "e2@x", "e3@x")
SITES = ("main", "alt")
NAMES = ("ann", "bob")
STATUSES = ("active", "away")
TEAMS = (None, "red", "blue")
TAGS = ("x", "y", "z")
DOC_IDS = ("d1", "d2")
TITLES = ("t1", "t2")
SLUGS = (None, "s1", "s2")
OWNERS = (None, "ann", "bob")


def stepping_clock() -> SteppingClock:
    """Every write's time, one second apart: deterministic, so createdAt can be followed exactly."""
    return SteppingClock(datetime(2026, 1, 1, tzinfo=UTC))


@dataclass
class Reference:
    """The table's expected content: members and documents by primary key, as field dicts."""

    members: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    docs: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)

    def email_owner(self, email: str, site: str) -> tuple[str, str] | None:
        """Who holds ``email`` on ``site`` (emails are unique per site)."""
        return next((k for k, m in self.members.items() if (m["email"], m["site"]) == (email, site)), None)

    def slug_owner(self, slug: str | None) -> tuple[str, str] | None:
        if slug is None:
            return None
        return next((k for k, d in self.docs.items() if d["slug"] == slug), None)

    def email_taken(self, email: str, site: str, by: tuple[str, str]) -> bool:
        owner = self.email_owner(email, site)
        return owner is not None and owner != by

    def slug_taken(self, slug: str | None, by: tuple[str, str]) -> bool:
        owner = self.slug_owner(slug)
        return owner is not None and owner != by


MEMBER_DEFAULTS: dict[str, Any] = {
    "site": "main",
    "name": "anon",
    "status": "active",
    "team": None,
    "rank": 0,
    "tags": set(),
}
DOC_DEFAULTS: dict[str, Any] = {"slug": None, "owner": None, "published": False}
