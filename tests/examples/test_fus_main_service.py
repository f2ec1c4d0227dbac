"""Seed 000 (fus-main) through its service: every access pattern on the sample data, on every target."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from sample_tables import ReplayedIds

from singletable.examples import DEMO_CLOCK
from singletable.examples.fus_main.design import Rating, Site, fus
from singletable.examples.fus_main.sample import ADA, BOB, CYD, DEE, load, open_service
from singletable.examples.fus_main.service import Actor, InvalidInput, SiteCatalog
from singletable.model import AlreadyExists, InvalidCursor, NotFound


@pytest.fixture
def catalog(open_db: Callable[..., Any], load_sample: Callable[..., None]) -> SiteCatalog:
    catalog = open_service(open_db(fus, clock=lambda: DEMO_CLOCK))
    catalog.new_id = ids = ReplayedIds(catalog.new_id)
    load_sample(catalog.db, lambda: load(catalog), state=ids.state, restore=ids.restore)
    return catalog


def site_ids(sites: Any) -> list[str]:
    return [s.site_id for s in sites]


# -- sites ----------------------------------------------------------------------------------------------


def test_get_a_site(catalog: SiteCatalog) -> None:
    site = catalog.get_site("mdn")
    assert site is not None and site.title == "MDN Web Docs" and site.tags[-1] == "docs"
    assert site.created_at == DEMO_CLOCK - timedelta(days=40)
    assert catalog.get_site("nope") is None


def test_list_all_sites_in_the_order_they_were_added(catalog: SiteCatalog) -> None:
    first = catalog.list_sites(size=3)
    assert site_ids(first) == ["mdn", "pydocs", "jsinfo"] and first.cursor
    second = catalog.list_sites(size=3, cursor=first.cursor)
    assert site_ids(second) == ["rustbook", "realpython"] and second.cursor is None
    newest = catalog.list_sites(newest_first=True)
    assert site_ids(newest) == ["realpython", "rustbook", "jsinfo", "pydocs", "mdn"]
    # Updating a site does not move it: entitySk is built from createdAt, which never changes.
    catalog.update_site(ADA, "mdn", title="MDN")
    assert site_ids(catalog.list_sites())[0] == "mdn"
    with pytest.raises(InvalidCursor):
        catalog.list_sites(size=3, cursor=first.cursor[:-2] + "xx")


def test_sites_by_tag_follow_tag_changes(catalog: SiteCatalog) -> None:
    assert site_ids(catalog.sites_by_tag("javascript")) == ["jsinfo", "mdn"]
    assert site_ids(catalog.sites_by_tag(" Python ")) == ["pydocs", "realpython"]
    assert catalog.sites_by_tag("cobol") == []
    updated = catalog.update_site(ADA, "mdn", tags=["JavaScript", "reference", "javascript"])
    assert updated.tags == ["javascript", "reference"]
    assert site_ids(catalog.sites_by_tag("docs")) == ["pydocs"]
    assert site_ids(catalog.sites_by_tag("css")) == []
    assert site_ids(catalog.sites_by_tag("reference")) == ["mdn"]
    catalog.update_site(ADA, "mdn", tags=[])
    assert site_ids(catalog.sites_by_tag("javascript")) == ["jsinfo"]


def test_site_writes_validate_and_report_missing_sites(catalog: SiteCatalog) -> None:
    site = catalog.create_site(ADA, url="https://go.dev", title="Go", tags=["go", "GO"])
    assert site.site_id == "s001" and site.tags == ["go"]
    assert site_ids(catalog.sites_by_tag("go")) == ["s001"]
    with pytest.raises(AlreadyExists):
        catalog.create_site(ADA, site_id="mdn", url="https://x.dev", title="X")
    with pytest.raises(NotFound):
        catalog.update_site(ADA, "nope", title="x")
    with pytest.raises(NotFound):
        catalog.update_site(ADA, "nope", tags=["x"])
    for bad in (["a#b"], ["has space"], [""], "python", [f"t{n}" for n in range(21)]):
        with pytest.raises(InvalidInput):
            catalog.create_site(ADA, url="https://x.dev", title="X", tags=bad)
    with pytest.raises(InvalidInput):
        catalog.create_site(ADA, url="ftp://x.dev", title="X")
    for bad_change in ({"site_id": "other"}, {"created_at": None}, {}):
        with pytest.raises(InvalidInput):
            catalog.update_site(ADA, "mdn", **bad_change)


# -- ratings --------------------------------------------------------------------------------------------


def test_my_rating_and_my_ratings(catalog: SiteCatalog) -> None:
    mine = catalog.my_rating(BOB, "mdn")
    assert (mine.stars, mine.note) == (5, "the reference")
    assert catalog.my_rating(BOB, "rustbook") is None
    # bob also commented on mdn (same partition, SITE# prefix): only ratings come back.
    mine = [(r.site_id, r.stars) for r in catalog.my_ratings(BOB)]
    assert mine == [("jsinfo", 5), ("mdn", 5), ("pydocs", 4)]
    assert all(isinstance(r, Rating) for r in catalog.my_ratings(BOB))
    assert catalog.my_ratings(Actor("newcomer")) == []


def test_ratings_by_star_value(catalog: SiteCatalog) -> None:
    fives = [(r.user_id, r.site_id) for r in catalog.ratings_with_stars(5)]
    assert fives == [("bob", "jsinfo"), ("bob", "mdn"), ("dee", "pydocs"), ("cyd", "rustbook")]
    assert [(r.user_id, r.site_id) for r in catalog.ratings_with_stars(3)] == [("dee", "realpython")]
    assert catalog.ratings_with_stars(1) == []
    rating = catalog.rate_site(CYD, "mdn", 5, "changed my mind")
    assert rating.updated_at == DEMO_CLOCK
    assert ("cyd", "mdn") in [(r.user_id, r.site_id) for r in catalog.ratings_with_stars(5)]
    assert [r.user_id for r in catalog.ratings_with_stars(4) if r.site_id == "mdn"] == []
    assert catalog.my_rating(CYD, "mdn").note == "changed my mind"


@pytest.mark.parametrize("stars", [0, 6, -1, True, 4.5, "5", None])
def test_stars_are_whole_numbers_from_1_to_5(catalog: SiteCatalog, stars: Any) -> None:
    with pytest.raises(InvalidInput, match="1 to 5"):
        catalog.rate_site(BOB, "mdn", stars)
    with pytest.raises(InvalidInput):
        catalog.ratings_with_stars(stars)
    assert catalog.my_rating(BOB, "mdn").stars == 5


def test_rating_a_missing_site_writes_nothing(catalog: SiteCatalog) -> None:
    with pytest.raises(NotFound, match="no site nope"):
        catalog.rate_site(BOB, "nope", 3)
    assert catalog.my_rating(BOB, "nope") is None
    with pytest.raises(InvalidInput):
        catalog.rate_site(BOB, "mdn", 4, "x" * 2001)


# -- comments -------------------------------------------------------------------------------------------


def test_comments_per_user_per_site_and_per_site(catalog: SiteCatalog) -> None:
    assert [c.body[:10] for c in catalog.user_comments("bob", "mdn")] == ["The compat", "Also: the "]
    assert catalog.user_comments("cyd", "pydocs") == []
    page = catalog.comments_for_site("mdn")
    assert [(c.user_id, c.comment_id) for c in page] == [("bob", "c001"), ("cyd", "c002"), ("bob", "c004")]
    first = catalog.comments_for_site("mdn", size=2)
    rest = catalog.comments_for_site("mdn", size=2, cursor=first.cursor)
    assert [c.comment_id for c in (*first, *rest)] == ["c001", "c002", "c004"] and rest.cursor is None

    added = catalog.add_comment(CYD, "mdn", "  Dark mode, please.  ")
    assert (added.comment_id, added.body, added.created_at) == ("c005", "Dark mode, please.", DEMO_CLOCK)
    assert [c.comment_id for c in catalog.comments_for_site("mdn")][-1] == "c005"
    edited = catalog.edit_comment(BOB, "mdn", "c001", "Edited.")
    assert edited.body == "Edited." and edited.created_at < edited.updated_at == DEMO_CLOCK
    with pytest.raises(NotFound):
        catalog.edit_comment(BOB, "mdn", "c999", "x")
    with pytest.raises(NotFound):
        catalog.add_comment(BOB, "nope", "x")
    with pytest.raises(InvalidInput):
        catalog.add_comment(BOB, "mdn", "   ")


# -- custom groups --------------------------------------------------------------------------------------


def test_groups_create_get_list(catalog: SiteCatalog) -> None:
    assert [g.name for g in catalog.list_groups(ADA)] == ["book-club", "curators", "editors"]
    curators = catalog.get_group(ADA, "curators")
    assert curators.permissions == ["sites:create", "sites:update"]
    assert catalog.get_group(ADA, "nope") is None
    created = catalog.create_group(ADA, "mods", description="Moderators", permissions=["sites:update"])
    assert created.created_at == DEMO_CLOCK
    assert [g.name for g in catalog.list_groups(ADA)][-1] == "mods"
    with pytest.raises(AlreadyExists):
        catalog.create_group(ADA, "mods")
    for name, permissions in (("Bad Name", []), ("a#b", []), ("ok", ["*"]), ("ok", ["admin"])):
        with pytest.raises(InvalidInput):
            catalog.create_group(ADA, name, permissions=permissions)


def test_memberships(catalog: SiteCatalog) -> None:
    assert [m.group_name for m in catalog.groups_of(DEE)] == ["book-club", "curators"]
    assert [m.user_id for m in catalog.members(ADA, "book-club")] == ["cyd", "dee"]
    added = catalog.add_member(ADA, "editors", "cyd")
    assert (added.added_by, added.added_at) == ("ada", DEMO_CLOCK)
    assert [m.user_id for m in catalog.members(ADA, "editors")] == ["bob", "cyd"]
    stored = catalog.groups_of(ADA, "cyd")
    assert [(m.group_name, m.added_by) for m in stored] == [("book-club", "ada"), ("editors", "ada")]
    assert stored[0].added_at == DEMO_CLOCK - timedelta(days=59) + timedelta(hours=1)
    with pytest.raises(AlreadyExists, match="already in editors"):
        catalog.add_member(ADA, "editors", "cyd")
    with pytest.raises(NotFound, match="no group ghosts"):
        catalog.add_member(ADA, "ghosts", "cyd")
    assert [m.group_name for m in catalog.groups_of(CYD)] == ["book-club", "editors"]

    catalog.remove_member(ADA, "editors", "cyd")
    assert [m.user_id for m in catalog.members(ADA, "editors")] == ["bob"]
    with pytest.raises(NotFound, match="cyd is not in editors"):
        catalog.remove_member(ADA, "editors", "cyd")
    assert catalog.members(ADA, "ghosts") == []
    assert catalog.groups_of(Actor("newcomer")) == []


def test_site_unchanged_by_validation_or_listing(catalog: SiteCatalog) -> None:
    before = catalog.get_site("rustbook")
    with pytest.raises(InvalidInput):
        catalog.update_site(ADA, "rustbook")
    assert catalog.get_site("rustbook") == before
    assert isinstance(before, Site)
