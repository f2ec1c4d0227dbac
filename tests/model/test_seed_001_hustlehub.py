"""Seed 001 (HustleHubDirectory): email lookup on a KEYS_ONLY index, listings newest first on an INCLUDE
index with nested analytics filters, admins in a static partition, slug lookup for categories and listings.

Choices: only admin roles are in GSI3 (its key is conditional on ``role``). The design's "bulk slug
validation" uses ``GSI4PK IN (...)`` in a KeyConditionExpression, which DynamoDB rejects; it is one query per
slug (or, better, a batch get of slug guard items). Listings declare only projected fields, so GSI2 reads
need no extra fetch; users are hydrated from the KEYS_ONLY GSI1 with one BatchGetItem. The design's GSI2
projects 21 attributes, one over DynamoDB's limit of 20: the declaration refuses it, and we drop ``schemaOrg``
(the largest, only needed on the detail page, which reads the full item).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic import BaseModel

from singletable.model import GSI, DeclarationError, Entity, InvalidCursor, Key, Keys, Pattern, Table, env

LISTING_PROJECTION = [
    "listingId",
    "slug",
    "title",
    "categoryName",
    "categorySlug",
    "primaryAttributes",
    "earnings",
    "requirements",
    "filterValues",
    "imageUrl",
    "verified",
    "verificationLevel",
    "analytics",
    "createdAt",
    "tags",
    "rating",
    "keywords",
    "isActive",
    "externalUrls",
    "metaData",
]
hub = Table(
    name=env("TABLE_NAME", "HustleHubDirectory"),
    indexes=[
        GSI("GSI1-UserEmailIndex", pk="GSI1PK", sk="GSI1SK", projection="KEYS_ONLY"),
        GSI("GSI2-ListingsByDateIndex", pk="GSI2PK", sk="GSI2SK", projection=LISTING_PROJECTION),
        GSI(
            "GSI3-AdminManagementIndex",
            pk="GSI3PK",
            sk="GSI3SK",
            projection=[
                "userId",
                "email",
                "role",
                "adminCreatedAt",
                "adminCreatedBy",
                "lastLoginAt",
                "preferences",
            ],
        ),
        GSI(
            "GSI4-SlugLookupIndex",
            pk="GSI4PK",
            sk="GSI4SK",
            projection=["entityType", "catId", "listingId", "verified", "createdAt"],
        ),
    ],
)
ADMIN_ROLES = ("admin", "super_admin", "editor")


def is_admin(role: str | None) -> bool:
    return role in ADMIN_ROLES


class User(Entity, table=hub, type="user", timestamps=False):
    user_id: str
    email: str
    role: str = "member"
    admin_created_at: datetime | None = None
    admin_created_by: str | None = None
    last_login_at: datetime | None = None
    preferences: dict[str, Any] = {}

    keys = Keys(
        PK="USER#{user_id}",
        SK="PROFILE#{user_id}",
        GSI1PK="USER_EMAIL#{email}",
        GSI1SK="PROFILE#{user_id}",
        GSI3PK=Key("ADMINS", when=is_admin),
        GSI3SK=Key("ROLE#{role}#{user_id}", when=is_admin),
    )
    by_email = Pattern(index="GSI1-UserEmailIndex")
    admins = Pattern(index="GSI3-AdminManagementIndex")


class Analytics(BaseModel):
    views: int = 0
    saves: int = 0
    shares: int = 0
    clicks: int = 0


class Listing(Entity, table=hub, type="listing"):
    listing_id: str
    slug: str
    title: str
    category_slug: str
    rating: float | None = None
    tags: list[str] = []
    analytics: Analytics = Analytics()
    earnings: dict[str, Any] = {}
    verified: bool = False
    verification_level: str | None = None
    is_active: bool = True
    created_at: datetime | None = None

    keys = Keys(
        PK="LISTING#{listing_id}",
        SK="METADATA",
        GSI2PK="LISTINGS",
        GSI2SK="CREATED#{created_at}#{listing_id}",
        GSI4PK="SLUG#listing#{slug}",
        GSI4SK="ID#{listing_id}",
    )
    latest = Pattern(index="GSI2-ListingsByDateIndex", newest_first=True)
    by_slug = Pattern(index="GSI4-SlugLookupIndex", hydrate=True)


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2024, 1, 15, 10, 30, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(hours=1)
        return self.now


def test_the_designs_21_projected_attributes_are_refused() -> None:
    with pytest.raises(DeclarationError, match="at most 20"):
        GSI(
            "GSI2-ListingsByDateIndex",
            pk="GSI2PK",
            sk="GSI2SK",
            projection=[*LISTING_PROJECTION, "schemaOrg"],
        )


def test_find_user_by_email_hydrates_from_keys_only(open_db, needs_transactions) -> None:
    db = open_db(hub)
    db.create(User(user_id="123e4567", email="john.doe@example.com", preferences={"location": "London"}))
    db.create(User(user_id="999", email="jane@example.com"))
    (user,) = db.query(User.by_email(email="john.doe@example.com"))
    assert user.user_id == "123e4567" and user.preferences == {"location": "London"}
    # Without hydration a KEYS_ONLY read still gives typed keys parsed back from the templates.
    (bare,) = db.query(User.by_email(email="john.doe@example.com").with_hydration(False))
    assert bare.user_id == "123e4567"


def test_admins_are_a_sparse_static_partition(open_db) -> None:
    db = open_db(hub)
    db.create(User(user_id="a1", email="admin@hustlehub.uk", role="admin"))
    db.create(User(user_id="m1", email="member@hustlehub.uk"))
    db.create(
        User(
            user_id="s1",
            email="boss@hustlehub.uk",
            role="super_admin",
            last_login_at=datetime(2024, 1, 20, 14, 30, tzinfo=UTC),
        )
    )
    assert [u.user_id for u in db.query(User.admins())] == ["a1", "s1"]
    assert [u.user_id for u in db.query(User.admins().where(User.f.role == "super_admin"))] == ["s1"]
    recent = User.admins().filter(User.f.last_login_at > datetime(2024, 1, 1, tzinfo=UTC))
    assert [u.user_id for u in db.query(recent)] == ["s1"]

    db.update(User.key(user_id="m1"), role="editor")  # promoted: both GSI3 keys written in the same request
    db.update(User.key(user_id="a1"), role="member")  # demoted: both removed
    assert [(u.user_id, u.role) for u in db.query(User.admins())] == [("m1", "editor"), ("s1", "super_admin")]


def test_listings_newest_first_with_filters_and_signed_cursors(open_db) -> None:
    db = open_db(hub, clock=Clock(), cursor_secret=b"k" * 32)
    for i in range(7):
        db.create(
            Listing(
                listing_id=f"l{i}",
                slug=f"slug-{i}",
                title=f"Listing {i}",
                category_slug="create",
                analytics=Analytics(views=500 * i),
                verified=i % 2 == 0,
                rating=8.5,
            )
        )
    first = db.page(Listing.latest(), size=3)
    assert [x.listing_id for x in first] == ["l6", "l5", "l4"] and first.has_more
    second = db.page(Listing.latest(), size=3, cursor=first.cursor)
    third = db.page(Listing.latest(), size=3, cursor=second.cursor)
    assert [x.listing_id for x in second] == ["l3", "l2", "l1"]
    assert [x.listing_id for x in third] == ["l0"] and third.cursor is None
    assert isinstance(third.items[0].rating, float) and isinstance(third.items[0].analytics.views, int)

    trending = Listing.latest().filter(Listing.f.analytics.views > 1000)
    page = db.page(trending, size=2)  # size counts listings returned, not items read
    assert [x.listing_id for x in page] == ["l6", "l5"]
    assert [x.listing_id for x in db.page(trending, size=2, cursor=page.cursor)] == ["l4", "l3"]
    verified = db.query(
        Listing.latest().filter((Listing.f.verified == True) & Listing.f.rating.exists()),  # noqa: E712
        limit=2,
    )
    assert [x.listing_id for x in verified] == ["l6", "l4"]

    forged = first.cursor[:-2] + ("AA" if not first.cursor.endswith("AA") else "BB")
    with pytest.raises(InvalidCursor):
        db.page(Listing.latest(), size=3, cursor=forged)
    with pytest.raises(InvalidCursor):
        db.page(User.admins(), size=3, cursor=first.cursor)  # a cursor belongs to its pattern and partition
    other = db.__class__(hub, db.adapter, name=db.table_name, cursor_secret=b"x" * 32)
    with pytest.raises(InvalidCursor):
        other.page(Listing.latest(), size=3, cursor=first.cursor)


def test_slug_lookup_and_projection(open_db) -> None:
    db = open_db(hub, clock=Clock())
    db.create(
        Listing(
            listing_id="etsy-handmade-crafts",
            slug="selling-handmade-crafts-etsy",
            title="Etsy",
            category_slug="create-and-sell",
            verified=True,
        )
    )
    (found,) = db.query(Listing.by_slug(slug="selling-handmade-crafts-etsy"))
    assert found.title == "Etsy" and found.verified is True
    (titles,) = db.query(Listing.latest().select(Listing.f.title, Listing.f.analytics.views))
    assert titles.title == "Etsy" and titles.listing_id == "etsy-handmade-crafts"
