"""The HustleHub directory's data access: what the web app and the admin console call.

Every method is one access pattern of the design (or a write that keeps its indexes right). The model layer
builds the requests; the few places that go below it -- the design's invalid bulk slug query, the sharded
newest-first merge -- say why.
"""

from __future__ import annotations

import heapq
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from singletable.examples.hustlehub.design import (
    ADMIN_ROLES,
    COUNTERS,
    ENTITY_TYPE,
    SLUG_INDEX,
    Category,
    Listing,
    User,
)
from singletable.model import DB, InvalidCursor, Page, RequestError, guard_key
from singletable.model import cursor as cursors

SLUG_TYPES: dict[str, type[Listing | Category]] = {"listing": Listing, "category": Category}


class ServiceError(ValueError):
    """A request the directory refuses before it reaches DynamoDB (bad role, unknown counter)."""


@dataclass(frozen=True)
class SlugStatus:
    entity_type: str
    slug: str
    taken: bool
    owner_id: str | None = None

    def __str__(self) -> str:
        owner = f" by {self.owner_id}" if self.owner_id else ""
        return f"{self.entity_type}/{self.slug}: {'taken' + owner if self.taken else 'free'}"


class HustleHub:
    """The directory on one table. ``shards`` > 1 writes listings to ``LISTINGS#0..n-1`` instead of the
    single ``LISTINGS`` partition (see :meth:`newest_listings`)."""

    def __init__(self, db: DB, *, shards: int = 1, cursor_secret: bytes | str | None = None) -> None:
        if shards < 1:
            raise ServiceError("shards must be at least 1")
        self.db = db
        self.shards = shards
        secret = cursor_secret or cursors.default_secret()
        self._secret = secret.encode() if isinstance(secret, str) else secret

    # -- users: the login path and admin management ---------------------------------------------------

    def register(self, user: User) -> User:
        """A new profile; :class:`UniqueViolation` if the email belongs to someone else."""
        return self.db.create(user)

    def user_by_email(self, email: str) -> User | None:
        """U3, the login lookup: GSI1 (KEYS_ONLY) gives the key, one BatchGetItem gives the profile.

        GSI1 is eventually consistent: right after sign-up the user may not be there yet. The email guard
        item is the strongly consistent alternative (``db.find(User, email=...)``).
        """
        return next(iter(self.db.query(User.by_email(email=email.strip().lower()))), None)

    def record_login(self, user_id: str, at: datetime) -> User:
        return self.db.update(User.key(user_id=user_id), last_login_at=at)

    def promote(self, user_id: str, role: str, *, by: str, at: datetime) -> User:
        """A member becomes an admin: GSI3PK/GSI3SK appear in the same UpdateItem."""
        self._check_admin_role(role)
        return self.db.update(
            User.key(user_id=user_id),
            role=role,
            admin_created_at=at,
            admin_created_by=by,
            condition=User.f.role == "member",
        )

    def change_admin_role(self, user_id: str, role: str) -> User:
        """Demote or promote between admin roles: GSI3SK (ROLE#<role>#<sub>) is rewritten."""
        self._check_admin_role(role)
        return self.db.update(User.key(user_id=user_id), role=role, condition=User.f.role.is_in(ADMIN_ROLES))

    def remove_admin(self, user_id: str) -> User:
        """Back to member: the GSI3 keys are removed, so the user leaves the admin index."""
        return self.db.update(
            User.key(user_id=user_id),
            role="member",
            admin_created_at=None,
            admin_created_by=None,
            condition=User.f.role.is_in(ADMIN_ROLES),
        )

    def admins(self) -> list[User]:
        """A2: every admin, from GSI3's INCLUDE projection alone."""
        return list(self.db.query(User.admins()))

    def admins_with_role(self, role: str) -> list[User]:
        """``begins_with(GSI3SK, "ROLE#<role>#")`` -- with the trailing delimiter, so "admin" never matches
        a role that merely starts with it."""
        self._check_admin_role(role)
        return list(self.db.query(User.admins().where(User.f.role == role)))

    def recently_active_admins(self, since: datetime) -> list[User]:
        return list(self.db.query(User.admins().filter(User.f.last_login_at > since)))

    @staticmethod
    def _check_admin_role(role: str) -> None:
        if role not in ADMIN_ROLES:
            raise ServiceError(f"{role!r} is not an admin role; admin roles are {', '.join(ADMIN_ROLES)}")

    # -- categories -----------------------------------------------------------------------------------

    def add_category(self, category: Category) -> Category:
        return self.db.create(category)

    def category_by_slug(self, slug: str) -> Category | None:
        """C1: GSI4 gives the id, the profile comes from the table (GSI4 projects five attributes)."""
        return next(iter(self.db.query(Category.by_slug(slug=slug))), None)

    # -- listings -------------------------------------------------------------------------------------

    def add_listing(self, listing: Listing) -> Listing:
        """A new listing, on its shard when the index is sharded; :class:`UniqueViolation` on a taken slug."""
        if self.shards > 1:
            listing = listing.model_copy(update={"listings_shard": shard_of(listing.listing_id, self.shards)})
        return self.db.create(listing)

    def listing_by_slug(self, slug: str, *, verified_only: bool = True) -> Listing | None:
        """L1 with the design's validation filter (entityType, and verified unless told otherwise)."""
        cond = ENTITY_TYPE == "listing"
        if verified_only:
            cond = cond & (Listing.f.verified == True)  # noqa: E712 -- an expression, not a comparison
        return next(iter(self.db.query(Listing.by_slug(slug=slug).filter(cond))), None)

    def newest_listings(self, size: int = 20, cursor: str | None = None) -> Page:
        """L2: newest first, ``size`` per page, a signed cursor to the next page.

        Single partition: one Query on ``LISTINGS``. Sharded: one Query per shard, each reading at most
        ``size`` items after the cursor, merged on GSI2SK -- more read units per page, in exchange for
        spreading writes (and reads) over ``shards`` partitions.
        """
        if self.shards == 1:
            return self.db.page(Listing.latest(), size=size, cursor=cursor)
        scope = f"newest_listings|{self.shards}"
        after = cursors.decode(self._secret, scope, cursor)["GSI2SK"]["S"] if cursor else None
        streams = [self._shard_stream(shard, size, after) for shard in range(self.shards)]
        merged = heapq.merge(*streams, key=lambda pair: pair[0], reverse=True)
        picked = [pair for _, pair in zip(range(size + 1), merged, strict=False)]
        items = [listing for _, listing in picked[:size]]
        more = len(picked) > size
        token = cursors.encode(self._secret, scope, {"GSI2SK": {"S": picked[size - 1][0]}}) if more else None
        return Page(items, token)

    def _shard_stream(self, shard: int, size: int, after: str | None) -> Iterable[tuple[str, Listing]]:
        if after is None:
            query = Listing.latest_in_shard(listings_shard=shard)
        else:  # GSI2SK < "CREATED#<ts>#<id>": strictly after the last listing handed out
            created, listing_id = after.removeprefix("CREATED#").rsplit("#", 1)
            at = datetime.fromisoformat(created.replace("Z", "+00:00"))
            query = Listing.latest_in_shard(listings_shard=shard, created_at=at).where(
                Listing.f.listing_id < listing_id
            )
        # size + 1 from each shard: enough to know whether anything follows the page.
        for listing in self.db.query(query, limit=size + 1, page_size=size + 1):
            yield gsi2_sort_key(listing), listing

    def reshard(self, shards: int) -> int:
        """Move every listing to the layout for ``shards`` (1 = the single LISTINGS partition).

        Each move is one UpdateItem that rewrites GSI2PK; returns how many listings moved.
        """
        if shards < 1:
            raise ServiceError("shards must be at least 1")
        listings = [*self._all_listings()]
        moved = 0
        for listing in listings:
            target = shard_of(listing.listing_id, shards) if shards > 1 else None
            if listing.listings_shard != target:
                self.db.update(Listing.key(listing_id=listing.listing_id), listings_shard=target)
                moved += 1
        self.shards = shards
        return moved

    def _all_listings(self) -> Iterable[Listing]:
        if self.shards == 1:
            yield from self.db.query(Listing.latest())
        else:
            for shard in range(self.shards):
                yield from self.db.query(Listing.latest_in_shard(listings_shard=shard))

    def trending(self, *, min_views: int, min_saves: int, size: int = 10) -> list[Listing]:
        """``analytics.views > x OR analytics.saves > y``, ``size`` matches (not ``size`` items read)."""
        f = Listing.f.analytics
        query = Listing.latest().filter((f.views > min_views) | (f.saves > min_saves))
        return self.db.page(query, size=size).items

    def verified_listings(self, level: str, size: int = 20) -> list[Listing]:
        verified = Listing.f.verified == True  # noqa: E712 -- an expression, not a comparison
        query = Listing.latest().filter(verified & (Listing.f.verification_level == level))
        return self.db.page(query, size=size).items

    def listings_for_interest(self, interest: str, size: int = 20) -> list[Listing]:
        """The personalised feed: ``contains(filterValues.interests, :i)``."""
        query = Listing.latest().filter(Listing.f.filter_values.interests.contains(interest))
        return self.db.page(query, size=size).items

    def record(self, listing_id: str, counter: str, by: int = 1) -> Listing:
        """Count a view, save, share or click: one atomic ``ADD analytics.<counter> :n``, no read first.

        :class:`NotFound` if there is no such listing (the update is conditional on the item existing).
        """
        if counter not in COUNTERS:
            raise ServiceError(f"unknown counter {counter!r}; counters are {', '.join(COUNTERS)}")
        return self.db.update(Listing.key(listing_id=listing_id), Listing.f.analytics[counter].add(by))

    # -- slugs ----------------------------------------------------------------------------------------

    def bulk_slug_query_as_designed(self, slugs: list[tuple[str, str]]) -> Any:
        """The design's ``GSI4PK IN (...)`` key condition, sent as written: DynamoDB answers
        ValidationException (a key condition takes one partition key value, with ``=``)."""
        values = {f":slug{i}": {"S": f"SLUG#{kind}#{slug}"} for i, (kind, slug) in enumerate(slugs, 1)}
        return self.db.call(
            "Query",
            {
                "TableName": self.db.table_name,
                "IndexName": SLUG_INDEX,
                "KeyConditionExpression": f"GSI4PK IN ({', '.join(values)})",
                "ExpressionAttributeValues": values,
            },
        )

    def validate_slugs(self, slugs: list[tuple[str, str]]) -> list[SlugStatus]:
        """Which (entityType, slug) pairs are taken: one strongly consistent BatchGetItem on the slug guard
        items (100 keys per request), instead of one eventually consistent GSI4 query per slug."""
        keys = []
        for kind, slug in slugs:
            if kind not in SLUG_TYPES:
                raise ServiceError(f"unknown entity type {kind!r}; slugs belong to {', '.join(SLUG_TYPES)}")
            keys.append(guard_key(SLUG_TYPES[kind].model_entity(), "slug", slug))
        found = {item["PK"]["S"]: item for item in self.db.batch_get(keys, consistent=True, raw=True)}
        out = []
        for (kind, slug), key in zip(slugs, keys, strict=True):
            guard = found.get(key["PK"]["S"])
            owner = guard["owner"]["M"]["PK"]["S"].split("#", 1)[1] if guard else None
            out.append(SlugStatus(kind, slug, guard is not None, owner))
        return out


def shard_of(listing_id: str, shards: int) -> int:
    """A stable shard for a listing: CRC-32 of its id (the same on every machine and every run)."""
    return zlib.crc32(listing_id.encode()) % shards


def gsi2_sort_key(listing: Listing) -> str:
    return Listing.model_entity().keys["GSI2SK"].value(listing.__dict__)["S"]


__all__ = ["HustleHub", "InvalidCursor", "RequestError", "ServiceError", "SlugStatus", "shard_of"]
