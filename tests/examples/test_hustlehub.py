"""Seed 001 (HustleHubDirectory): every access pattern, on the embedded engine and on DynamoDB Local.

The design lives in ``singletable.examples.hustlehub``; these tests load its sample data through the service
and check each pattern's results, the index upkeep of admin changes, and the error paths (typed model errors
and DynamoDB's own codes).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from pydantic import ValidationError

from singletable.examples.hustlehub.design import (
    LISTING_INCLUDE,
    LISTING_INCLUDE_AS_DESIGNED,
    LISTINGS_INDEX,
    Category,
    Listing,
    User,
    hub,
)
from singletable.examples.hustlehub.sample import LISTING_ROWS, NOW, listing, load
from singletable.examples.hustlehub.service import HustleHub, ServiceError
from singletable.examples.hustlehub.walkthrough import ADA, ADMIN, EDITOR, JANE, JOHN
from singletable.model import (
    GSI,
    ConditionFailed,
    DeclarationError,
    InvalidCursor,
    NotFound,
    RequestError,
    UniqueViolation,
)

NEWEST = [row[0] for row in LISTING_ROWS]  # sample listings are numbered newest first


@pytest.fixture
def open_hub(open_db: Callable[..., Any], load_sample: Callable[..., None]) -> Callable[..., HustleHub]:
    def open_(shards: int = 1) -> HustleHub:
        db = open_db(hub, clock=lambda: NOW, cursor_secret=b"k" * 32)
        service = HustleHub(db, shards=shards, cursor_secret=b"s" * 32)
        load_sample(db, lambda: load(service), variant=shards)
        return service

    return open_


def ids(listings: list[Listing]) -> list[str]:
    return [x.listing_id for x in listings]


def test_the_declaration_keeps_the_designs_names_within_dynamodbs_limits() -> None:
    # 21 NonKeyAttributes in one index: AWS's API allows 20 per index (and 100 over all indexes).
    with pytest.raises(DeclarationError, match="at most 20"):
        GSI(LISTINGS_INDEX, pk="GSI2PK", sk="GSI2SK", projection=LISTING_INCLUDE_AS_DESIGNED)
    params = hub.create_table_params()
    gsis = {g["IndexName"]: g for g in params["GlobalSecondaryIndexes"]}
    assert list(gsis) == [
        "GSI1-UserEmailIndex",
        "GSI2-ListingsByDateIndex",
        "GSI3-AdminManagementIndex",
        "GSI4-SlugLookupIndex",
    ]
    assert gsis["GSI1-UserEmailIndex"]["Projection"] == {"ProjectionType": "KEYS_ONLY"}
    included = gsis[LISTINGS_INDEX]["Projection"]["NonKeyAttributes"]
    assert included == list(LISTING_INCLUDE) and len(included) == 20
    assert set(LISTING_INCLUDE_AS_DESIGNED) - set(included) == {"listingId"}  # travels in PK instead


def test_login_path_finds_the_user_by_email_and_hydrates_the_profile(open_hub) -> None:
    service = open_hub()
    user = service.user_by_email("  John.Doe@Example.com ")
    assert user is not None and user.user_id == JOHN
    assert user.preferences.location == "Manchester"  # not in a KEYS_ONLY index: the profile was fetched
    assert service.user_by_email("nobody@example.com") is None
    assert service.record_login(JOHN, NOW).last_login_at == NOW

    with pytest.raises(UniqueViolation) as taken:
        service.register(User(user_id="someone-else", email="JOHN.DOE@example.com"))
    assert (taken.value.field, taken.value.value) == ("email", "john.doe@example.com")
    with pytest.raises(ValidationError, match="not an email address"):
        User(user_id="x", email="not-an-email")
    assert service.db.find(User, email="john.doe@example.com").user_id == JOHN  # the consistent path


def test_admin_index_lists_filters_and_follows_role_changes(open_hub) -> None:
    service = open_hub()

    def roles() -> list[tuple[str, str]]:
        return [(u.role, u.user_id) for u in service.admins()]

    assert roles() == [("admin", ADMIN), ("editor", EDITOR), ("super_admin", ADA)]
    assert [u.user_id for u in service.admins_with_role("super_admin")] == [ADA]
    assert [u.user_id for u in service.admins_with_role("admin")] == [ADMIN]  # not super_admin
    recent = service.recently_active_admins(NOW - timedelta(days=30))
    assert [u.user_id for u in recent] == [EDITOR, ADA]
    assert service.admins()[0].preferences.skills == ["Content Management", "User Support"]

    promoted = service.promote(JANE, "editor", by=ADA, at=NOW)
    assert (promoted.role, promoted.admin_created_by, promoted.admin_created_at) == ("editor", ADA, NOW)
    with pytest.raises(ConditionFailed):
        service.promote(ADMIN, "super_admin", by=ADA, at=NOW)  # already an admin: change_admin_role
    service.change_admin_role(ADMIN, "editor")
    removed = service.remove_admin(EDITOR)
    assert removed.role == "member" and removed.admin_created_at is None
    assert roles() == [("editor", ADMIN), ("editor", JANE), ("super_admin", ADA)]
    assert service.admins_with_role("admin") == []

    raw = service.db.call(
        "GetItem", {"TableName": service.db.table_name, "Key": User.key(user_id=EDITOR).item_key()}
    )
    assert "GSI3PK" not in raw["Item"] and "GSI3SK" not in raw["Item"]
    with pytest.raises(ConditionFailed):
        service.remove_admin(JOHN)  # a member is not an admin
    with pytest.raises(ServiceError, match="not an admin role"):
        service.promote(JOHN, "owner", by=ADA, at=NOW)


def test_newest_listings_page_with_signed_cursors(open_hub) -> None:
    service = open_hub()
    first = service.newest_listings(20)
    assert ids(first.items) == NEWEST[:20] and first.cursor is not None
    second = service.newest_listings(20, cursor=first.cursor)
    assert ids(second.items) == NEWEST[20:] and second.cursor is None
    etsy = first.items[0]  # everything the list page shows came from GSI2 alone
    assert etsy.schema_org["provider"]["name"] == "Etsy" and etsy.earnings.max == 2000
    assert etsy.requirements.time_commitment.flexibility == "high"
    with pytest.raises(InvalidCursor):
        service.newest_listings(
            20, cursor=first.cursor[:-2] + ("AA" if not first.cursor.endswith("AA") else "BB")
        )


def test_listing_filters_and_atomic_counters(open_hub) -> None:
    service = open_hub()
    trending = service.trending(min_views=1000, min_saves=50, size=10)
    expected = [r[0] for r in LISTING_ROWS if r[7][0] > 1000 or r[7][1] > 50][:10]
    assert ids(trending) == expected and len(trending) == 10
    manual = service.verified_listings("manual")
    assert ids(manual) == [r[0] for r in LISTING_ROWS if r[6] == "manual"]
    teaching = service.listings_for_interest("Teaching")
    assert ids(teaching) == [r[0] for r in LISTING_ROWS if "Teaching" in r[4]]

    assert service.record("etsy-handmade-crafts", "views").analytics.views == 1251
    assert service.record("etsy-handmade-crafts", "saves", by=2).analytics.saves == 91
    stored = service.db.get(Listing, listing_id="etsy-handmade-crafts")
    assert (stored.analytics.views, stored.analytics.saves, stored.analytics.clicks) == (1251, 91, 156)
    with pytest.raises(NotFound):
        service.record("no-such-listing", "clicks")
    with pytest.raises(ServiceError, match="unknown counter"):
        service.record("etsy-handmade-crafts", "likes")


def test_listing_model_validates_the_nested_structures() -> None:
    good = listing(0).model_dump()
    for change, message in [
        ({"earnings": {**good["earnings"], "min": 5000}}, "above earnings.max"),
        ({"verification_level": None}, "needs a verificationLevel"),
        ({"rating": 11}, "less than or equal to 10"),
        ({"external_urls": {"primary": "http://etsy.com"}}, "https://"),
        ({"schema_org": {"name": "x"}}, "JSON-LD"),
        ({"filter_values": {**good["filter_values"], "colour": "red"}}, "Extra inputs"),
    ]:
        with pytest.raises(ValidationError, match=message):
            Listing.model_validate({**good, **change})


def test_slug_lookups_uniqueness_and_bulk_validation(open_hub) -> None:
    service = open_hub()
    category = service.category_by_slug("create-and-sell")
    assert category is not None and category.name == "Create & Sell"
    assert service.category_by_slug("no-such-category") is None
    found = service.listing_by_slug("etsy-handmade-crafts-uk")
    assert found is not None and found.listing_id == "etsy-handmade-crafts" and found.verified
    assert service.listing_by_slug("vinted-reselling-uk") is None  # unverified: filtered out
    assert (
        service.listing_by_slug("vinted-reselling-uk", verified_only=False).listing_id == "vinted-reselling"
    )

    with pytest.raises(UniqueViolation):
        service.add_listing(listing(1).model_copy(update={"listing_id": "copycat"}))  # same slug
    with pytest.raises(UniqueViolation):
        service.add_category(Category(cat_id="other", slug="gig-economy", name="Other"))
    # Unique per entity type: a category may share a listing's slug.
    service.add_category(Category(cat_id="etsy", slug="etsy-handmade-crafts-uk", name="Etsy"))

    slugs = [("listing", "etsy-handmade-crafts-uk"), ("listing", "brand-new"), ("category", "gig-economy")]
    with pytest.raises(RequestError) as rejected:
        service.bulk_slug_query_as_designed(slugs)
    assert rejected.value.code == "ValidationException"
    assert "Invalid operator used in KeyConditionExpression: IN" in rejected.value.message
    statuses = service.validate_slugs(slugs)
    assert [(s.taken, s.owner_id) for s in statuses] == [(True, "etsy-handmade-crafts"), (False, None),
                                                          (True, "gig-economy")]  # fmt: skip
    with pytest.raises(ServiceError, match="unknown entity type"):
        service.validate_slugs([("user", "x")])


def test_write_sharded_listings_read_the_same_pages(open_hub) -> None:
    service = open_hub(shards=4)
    first = service.newest_listings(20)
    assert ids(first.items) == NEWEST[:20] and {x.listings_shard for x in first.items} == {0, 1, 2, 3}
    second = service.newest_listings(20, cursor=first.cursor)
    assert ids(second.items) == NEWEST[20:] and second.cursor is None
    small = service.newest_listings(5)
    assert ids(small.items) == NEWEST[:5]
    assert ids(service.newest_listings(5, cursor=small.cursor).items) == NEWEST[5:10]
    with pytest.raises(InvalidCursor):  # a cursor belongs to its shard count
        service.newest_listings(
            20, cursor=HustleHub(service.db, shards=2, cursor_secret=b"s" * 32).newest_listings(5).cursor
        )

    assert service.reshard(1) == len(NEWEST)
    assert ids(service.newest_listings(30).items) == NEWEST
    assert all(x.listings_shard is None for x in service.newest_listings(30).items)
    assert service.reshard(1) == 0
    with pytest.raises(ServiceError):
        HustleHub(service.db, shards=0)
