"""Seed 001, HustleHubDirectory: users found by email, listings newest first, admins by role, slugs.

The table and its four GSIs keep the design's names. Where the design cannot run as written, the declaration
says so next to the fix (the README has the full list):

- GSI2's INCLUDE list names 21 attributes; DynamoDB takes at most 20 per index. ``listingId`` is the one left
  out: the table key ``PK = LISTING#<listingId>`` is projected into every index anyway, and the model parses
  the id back from it, so every field the design wanted on the index still arrives with no extra read.
- Slugs are unique per entity type through guard items (``SLUG#<type>#<slug>``) written in the same
  transaction as the entity; a GSI cannot refuse a duplicate. The same guards make bulk slug validation one
  BatchGetItem.
- ``LISTINGS`` is one static partition; ``listings_shard`` (None by default) moves a listing to
  ``LISTINGS#<n>`` when the application turns on write sharding (see ``service.ListingsIndex``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

from singletable.model import GSI, Entity, Key, Keys, Pattern, Table, env

# The design's GSI2 projection, exactly as written (21 names: one over DynamoDB's per-index limit of 20).
LISTING_INCLUDE_AS_DESIGNED = (
    "listingId", "slug", "title", "categoryName", "categorySlug", "primaryAttributes",
    "earnings", "requirements", "filterValues", "imageUrl", "verified", "verificationLevel",
    "analytics", "createdAt", "tags", "rating", "keywords", "isActive",
    "externalUrls", "metaData", "schemaOrg",
)  # fmt: skip
# What the index projects: listingId travels in the projected table key PK = LISTING#<listingId>.
LISTING_INCLUDE = tuple(a for a in LISTING_INCLUDE_AS_DESIGNED if a != "listingId")
ADMIN_INCLUDE = ("userId", "email", "role", "adminCreatedAt", "adminCreatedBy", "lastLoginAt", "preferences")
SLUG_INCLUDE = ("entityType", "catId", "listingId", "verified", "createdAt")

EMAIL_INDEX = "GSI1-UserEmailIndex"
LISTINGS_INDEX = "GSI2-ListingsByDateIndex"
ADMIN_INDEX = "GSI3-AdminManagementIndex"
SLUG_INDEX = "GSI4-SlugLookupIndex"

hub = Table(
    name=env("TABLE_NAME", "HustleHubDirectory"),
    type_attribute="entityType",
    datetime_precision="seconds",  # the design's timestamps: 2024-01-15T10:30:00Z
    indexes=[
        GSI(EMAIL_INDEX, pk="GSI1PK", sk="GSI1SK", projection="KEYS_ONLY"),
        GSI(LISTINGS_INDEX, pk="GSI2PK", sk="GSI2SK", projection=LISTING_INCLUDE),
        GSI(ADMIN_INDEX, pk="GSI3PK", sk="GSI3SK", projection=ADMIN_INCLUDE),
        GSI(SLUG_INDEX, pk="GSI4PK", sk="GSI4SK", projection=SLUG_INCLUDE),
    ],
)

# The type attribute is written by the model, not a field; GSI4's "entityType = :type" filter needs a path.
ENTITY_TYPE = hub.attribute("entityType")


class Nested(BaseModel):
    """Nested maps keep the design's camelCase member names; unknown members are a mistake, not data."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


# -- users ----------------------------------------------------------------------------------------------

Role = Literal["member", "editor", "admin", "super_admin"]
ADMIN_ROLES: tuple[str, ...] = ("admin", "super_admin", "editor")


def is_admin(role: str | None) -> bool:
    return role in ADMIN_ROLES


class Preferences(Nested):
    location: str | None = None
    skills: list[str] = []
    interests: list[str] = []


class User(Entity, table=hub, type="user", unique={"email": "USER_EMAIL#{email}"}):
    """A profile keyed by its Cognito ``sub``. Every field is in GSI3's projection, so admin lists need no
    second read; members have no GSI3 keys at all (the index is sparse)."""

    user_id: str
    email: str
    role: Role = "member"
    preferences: Preferences = Preferences()
    last_login_at: datetime | None = None
    admin_created_at: datetime | None = None
    admin_created_by: str | None = None

    keys = Keys(
        PK="USER#{user_id}",
        SK="PROFILE#{user_id}",
        GSI1PK="USER_EMAIL#{email}",
        GSI1SK="PROFILE#{user_id}",
        GSI3PK=Key("ADMINS", when=is_admin),
        GSI3SK=Key("ROLE#{role}#{user_id}", when=is_admin),
    )
    by_email = Pattern(index=EMAIL_INDEX, doc="U3: the login lookup; KEYS_ONLY, so hydrated")
    admins = Pattern(index=ADMIN_INDEX, doc="A2: every admin, ordered by role then sub")

    @field_validator("email")
    @classmethod
    def _normalise_email(cls, email: str) -> str:
        # One spelling per address: GSI1 and the guard item are exact-match keys.
        email = email.strip().lower()
        if "@" not in email:
            raise ValueError(f"not an email address: {email!r}")
        return email


# -- categories -----------------------------------------------------------------------------------------


class Category(Entity, table=hub, type="category", unique={"slug": "SLUG#category#{slug}"}):
    cat_id: str
    slug: str
    name: str
    description: str = ""
    verified: bool = True
    created_at: datetime | None = None

    keys = Keys(PK="CATEGORY#{cat_id}", SK="METADATA", GSI4PK="SLUG#category#{slug}", GSI4SK="ID#{cat_id}")
    by_slug = Pattern(index=SLUG_INDEX, hydrate=True, doc="C1: URL routing; GSI4 holds the id only")


# -- listings -------------------------------------------------------------------------------------------


class PrimaryAttributes(Nested):
    skill_level: Literal["Beginner", "Intermediate", "Advanced"]
    time_commitment: Literal["Low", "Medium", "High"]
    upfront_cost: Literal["None", "Low", "Medium", "High"]
    income_potential: Literal["£", "££", "£££"]
    location_type: Literal["Online", "Local", "Hybrid"]
    platform_required: str | None = None


class Earnings(Nested):
    min: int = Field(ge=0)
    max: int = Field(ge=0)
    type: Literal["hourly", "monthly", "per_project"]

    @model_validator(mode="after")
    def _ordered(self) -> Earnings:
        if self.min > self.max:
            raise ValueError(f"earnings.min {self.min} is above earnings.max {self.max}")
        return self


class TimeCommitment(Nested):
    min: int = Field(ge=0)
    max: int = Field(ge=0)
    flexibility: Literal["low", "medium", "high"]


class Requirements(Nested):
    startup_cost: int = Field(ge=0)
    time_commitment: TimeCommitment


class FilterValues(Nested):
    location: Literal["online", "local", "hybrid"]
    platform: list[str] = []
    skills_required: list[str] = []
    income_potential: Literal["low", "medium", "high"]
    startup_cost: Literal["none", "low", "medium", "high"]
    interests: list[str] = []


class Analytics(Nested):
    views: int = Field(default=0, ge=0)
    saves: int = Field(default=0, ge=0)
    shares: int = Field(default=0, ge=0)
    clicks: int = Field(default=0, ge=0)


class MetaData(Nested):
    seo_title: str = Field(max_length=70)
    seo_description: str | None = Field(default=None, max_length=160)


COUNTERS = ("views", "saves", "shares", "clicks")


class Listing(Entity, table=hub, type="listing", unique={"slug": "SLUG#listing#{slug}"}):
    """A side hustle as the design's example item shows it. Validation covers what a list page relies on:
    ranges ordered, enumerations closed, a verified listing says how, links are https, JSON-LD is JSON-LD."""

    listing_id: str
    slug: str
    title: str
    category_name: str
    category_slug: str
    primary_attributes: PrimaryAttributes
    earnings: Earnings
    requirements: Requirements
    filter_values: FilterValues
    image_url: str | None = None
    verified: bool = False
    verification_level: Literal["automated", "manual"] | None = None
    analytics: Analytics = Analytics()
    tags: list[str] = []
    rating: float | None = Field(default=None, ge=0, le=10)
    keywords: list[str] = []
    is_active: bool = True
    external_urls: dict[str, str] = {}
    meta_data: MetaData | None = None
    schema_org: dict[str, Any] | None = None
    listings_shard: int | None = None  # set only when the listings index is write-sharded
    created_at: datetime | None = None

    keys = Keys(
        PK="LISTING#{listing_id}",
        SK="METADATA",
        GSI2PK=Key("LISTINGS#{listings_shard}", otherwise="LISTINGS"),
        GSI2SK="CREATED#{created_at}#{listing_id}",
        GSI4PK="SLUG#listing#{slug}",
        GSI4SK="ID#{listing_id}",
    )
    # GSI2 projects every field a list page shows (listingId through PK); the shard number arrives through
    # GSI2PK. Nothing to hydrate, even though listingId and listingsShard are not in the INCLUDE list.
    latest = Pattern(index=LISTINGS_INDEX, pk="LISTINGS", newest_first=True, hydrate=False, doc="L2")
    latest_in_shard = Pattern(index=LISTINGS_INDEX, pk="LISTINGS#{listings_shard}", newest_first=True,
                              hydrate=False, doc="L2 when write-sharded: one shard's partition")  # fmt: skip
    by_slug = Pattern(index=SLUG_INDEX, hydrate=True, doc="L1: URL routing; GSI4 holds the id only")

    @field_validator("external_urls")
    @classmethod
    def _https(cls, urls: dict[str, str]) -> dict[str, str]:
        for name, url in urls.items():
            if not url.startswith("https://"):
                raise ValueError(f"externalUrls.{name} must be an https:// URL, not {url!r}")
        return urls

    @field_validator("schema_org")
    @classmethod
    def _json_ld(cls, doc: dict[str, Any] | None) -> dict[str, Any] | None:
        if doc is not None and (doc.get("@context") != "https://schema.org" or "@type" not in doc):
            raise ValueError('schemaOrg must be JSON-LD with "@context": "https://schema.org" and an "@type"')
        return doc

    @model_validator(mode="after")
    def _verification(self) -> Listing:
        if self.verified and self.verification_level is None:
            raise ValueError("a verified listing needs a verificationLevel (automated or manual)")
        if not self.verified and self.verification_level is not None:
            raise ValueError("verificationLevel is only for verified listings")
        return self
