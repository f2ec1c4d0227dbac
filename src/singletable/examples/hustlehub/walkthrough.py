"""The demo's access patterns, in the order ``singletable demo hustlehub`` runs them.

List results print one line per listing (id, date, counters, verification) so a page of 20 stays readable;
single lookups print the whole entity.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

from singletable.examples import DEMO_CLOCK, Example, Step
from singletable.examples.hustlehub import design
from singletable.examples.hustlehub.design import LISTING_INCLUDE_AS_DESIGNED, LISTINGS_INDEX, Listing, User
from singletable.examples.hustlehub.sample import load, open_service
from singletable.examples.hustlehub.service import HustleHub
from singletable.model import GSI

JOHN = "9f0c1e2a-0000-4000-8000-000000000004"
JANE = "9f0c1e2a-0000-4000-8000-000000000005"
ADA = "9f0c1e2a-0000-4000-8000-000000000001"
ADMIN = "9f0c1e2a-0000-4000-8000-000000000002"
EDITOR = "9f0c1e2a-0000-4000-8000-000000000003"
SHARDS = 4


def brief(listing: Listing) -> str:
    a = listing.analytics
    level = listing.verification_level or "unverified"
    shard = "" if listing.listings_shard is None else f" shard={listing.listings_shard}"
    return (
        f"{listing.listing_id} {listing.created_at:%Y-%m-%dT%H:%MZ} views={a.views} saves={a.saves} "
        f"{level}{shard}"
    )


def admin_line(user: User) -> str:
    login = f"{user.last_login_at:%Y-%m-%d}" if user.last_login_at else "never"
    return f"{user.role} {user.user_id} {user.email} last login {login}"


def listing_lines(items: list[Listing]) -> list[str]:
    return [brief(x) for x in items] or ["(empty)"]


def page_lines(page: Any) -> list[str]:
    return [*listing_lines(page.items), f"cursor: {'(more)' if page.cursor else '(end)'}"]


def design_gsi2_as_written() -> str:
    """The design's GSI2 projection with its 21 names: refused when declared, before any request."""
    GSI(LISTINGS_INDEX, pk="GSI2PK", sk="GSI2SK", projection=LISTING_INCLUDE_AS_DESIGNED)
    return "accepted"  # pragma: no cover - the declaration raises


def steps(hub: HustleHub) -> Iterator[Step]:
    """The whole walk-through: lookups, listing pages and counters, admins, the design's two refused
    declarations, then write sharding."""
    yield from _lookup_steps(hub)
    yield from _listing_steps(hub)
    yield from _admin_steps(hub)
    yield from _as_designed_steps(hub)
    yield from _sharding_steps(hub)


def _lookup_steps(hub: HustleHub) -> Iterator[Step]:
    """Users by email (and the email guard), a category and listings by slug."""
    yield Step(
        "U3 find a user by email (login): GSI1 KEYS_ONLY, then the profile",
        lambda: hub.user_by_email("john.doe@example.com"),
        "KEYS_ONLY gives the key; the model hydrates it with one BatchGetItem",
    )
    yield Step("U3 unknown email", lambda: hub.user_by_email("nobody@example.com"))
    yield Step("record a login", lambda: admin_line(hub.record_login(JOHN, DEMO_CLOCK)))
    yield Step(
        "register with an email already taken",
        lambda: hub.register(
            User(user_id="9f0c1e2a-0000-4000-8000-00000000000f", email="JOHN.DOE@example.com")
        ),
        "the email guard item refuses it in the same transaction",
    )
    yield Step("C1 category by slug: GSI4, then the item", lambda: hub.category_by_slug("create-and-sell"))
    yield Step(
        "L1 listing by slug, entityType and verified filter",
        lambda: hub.listing_by_slug("etsy-handmade-crafts-uk"),
    )
    yield Step(
        "L1 an unverified listing's slug with the verified filter",
        lambda: hub.listing_by_slug("vinted-reselling-uk"),
        "the filter drops it: no second read",
    )


def _listing_steps(hub: HustleHub) -> Iterator[Step]:
    """The newest listings a page at a time, filtered listings, and the atomic counters."""
    first: dict[str, Any] = {}

    def newest_first_page() -> list[str]:
        first["page"] = hub.newest_listings(20)
        return page_lines(first["page"])

    yield Step(
        "L2 newest listings, 20 per page (single LISTINGS partition)",
        newest_first_page,
        "Limit is 21: one more than the page, so the cursor is absent exactly when nothing follows",
    )
    yield Step(
        "L2 next page from the signed cursor",
        lambda: page_lines(hub.newest_listings(20, cursor=first["page"].cursor)),
    )
    yield Step(
        "trending: analytics.views > 1000 OR analytics.saves > 50, 10 results",
        lambda: listing_lines(hub.trending(min_views=1000, min_saves=50, size=10)),
        "the design's Limit 10 would cap items read, not matches; the page keeps reading until 10 match",
    )
    yield Step(
        "verified listings, verificationLevel manual", lambda: listing_lines(hub.verified_listings("manual"))
    )
    yield Step(
        "listings for an interest: contains(filterValues.interests, 'Teaching')",
        lambda: listing_lines(hub.listings_for_interest("Teaching")),
    )
    yield Step("count a view (atomic ADD)", lambda: hub.record("etsy-handmade-crafts", "views").analytics)
    yield Step("count a save (atomic ADD)", lambda: hub.record("etsy-handmade-crafts", "saves").analytics)
    yield Step(
        "count a click on a listing that does not exist", lambda: hub.record("no-such-listing", "clicks")
    )


def _admin_steps(hub: HustleHub) -> Iterator[Step]:
    """Admins through the sparse GSI3: all, by role, recently active, and the writes that move them."""
    yield Step("A2 all admins (GSI3, INCLUDE: no second read)", lambda: [admin_line(u) for u in hub.admins()])
    yield Step("admins with role super_admin: begins_with(GSI3SK)",
               lambda: [admin_line(u) for u in hub.admins_with_role("super_admin")])  # fmt: skip
    yield Step(
        "recently active admins: lastLoginAt in the last 30 days",
        lambda: [admin_line(u) for u in hub.recently_active_admins(DEMO_CLOCK - timedelta(days=30))],
    )
    yield Step(
        "promote a member to editor: GSI3 keys appear",
        lambda: admin_line(hub.promote(JANE, "editor", by=ADA, at=DEMO_CLOCK)),
    )
    yield Step(
        "promote someone who is already an admin", lambda: hub.promote(ADMIN, "admin", by=ADA, at=DEMO_CLOCK)
    )
    yield Step("demote admin to editor: GSI3SK rewritten",
               lambda: admin_line(hub.change_admin_role(ADMIN, "editor")))  # fmt: skip
    yield Step("remove an admin: GSI3 keys removed", lambda: admin_line(hub.remove_admin(EDITOR)))
    yield Step("A2 all admins after the changes", lambda: [admin_line(u) for u in hub.admins()])


def _as_designed_steps(hub: HustleHub) -> Iterator[Step]:
    """What the design wrote that DynamoDB refuses, beside what the example does instead."""
    slugs = [
        ("listing", "etsy-handmade-crafts-uk"),
        ("listing", "brand-new-hustle"),
        ("category", "gig-economy"),
    ]
    yield Step(
        "bulk slug validation as designed: GSI4PK IN (...) in a key condition",
        lambda: hub.bulk_slug_query_as_designed(slugs),
        "DynamoDB rejects it: a key condition takes one partition key value",
    )
    yield Step(
        "bulk slug validation: one BatchGetItem on the slug guard items",
        lambda: [str(s) for s in hub.validate_slugs(slugs)],
    )
    yield Step(
        "the design's GSI2 INCLUDE list as written (21 attributes)",
        design_gsi2_as_written,
        "DynamoDB allows 20 NonKeyAttributes per index; listingId is left out (PK carries it)",
    )


def _sharding_steps(hub: HustleHub) -> Iterator[Step]:
    """Every listing moved to one of SHARDS partitions, and the newest listings merged across them."""
    yield Step(
        f"write sharding: move every listing to LISTINGS#0..{SHARDS - 1}",
        lambda: f"{hub.reshard(SHARDS)} listings moved",
        "one UpdateItem per listing rewrites GSI2PK; new listings go to their shard on create",
    )
    sharded: dict[str, Any] = {}

    def sharded_first_page() -> list[str]:
        sharded["page"] = hub.newest_listings(20)
        return page_lines(sharded["page"])

    yield Step(
        f"L2 newest listings, 20 per page ({SHARDS} shards, merged newest first)",
        sharded_first_page,
        "same page as the single partition; compare the capacity: each shard reads up to 21 items",
    )
    yield Step(
        "L2 sharded next page from the signed cursor",
        lambda: page_lines(hub.newest_listings(20, cursor=sharded["page"].cursor)),
    )


EXAMPLE = Example(
    name="hustlehub",
    title="HustleHubDirectory (seed 001): users by email, listings newest first, admins by role, slugs",
    table=design.hub,
    open=open_service,
    load=load,
    steps=steps,
)
