"""The demo's walk-through: every access pattern of the design, and every role rule both ways.

Steps run in order on the sample data and some change it (a re-tagged site, a new rating), so later steps
show the effect: "sites by tag: docs" after MDN loses the tag, bob's refused update after leaving "editors".
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from singletable.examples import Example, Step
from singletable.examples.fus_main.design import fus
from singletable.examples.fus_main.sample import ADA, BOB, CYD, DEE, load, open_service
from singletable.examples.fus_main.service import Actor, SiteCatalog


def steps(catalog: SiteCatalog) -> Iterator[Step]:
    """The whole walk-through, section by section: sites, ratings, comments, custom groups."""
    yield from _site_steps(catalog)
    yield from _site_role_steps(catalog)
    yield from _rating_steps(catalog)
    yield from _comment_steps(catalog)
    yield from _group_steps(catalog)


def _site_steps(catalog: SiteCatalog) -> Iterator[Step]:
    """Reading, listing and re-tagging sites."""
    state: dict[str, Any] = {}

    def first_page() -> Any:
        page = catalog.list_sites(size=3)
        state["cursor"] = page.cursor
        return page

    yield Step("get a site", lambda: catalog.get_site("mdn"), "GetItem PK=SITE#<id>, SK=METADATA")
    yield Step("get a site that does not exist", lambda: catalog.get_site("nope"))
    yield Step(
        "list all sites, oldest first (page 1)",
        first_page,
        "byEntity sorts on SITE#<createdAt>#<id>: the order sites were added",
    )
    yield Step(
        "list all sites (page 2, from the signed cursor)",
        lambda: catalog.list_sites(size=3, cursor=state["cursor"]),
    )
    yield Step("list all sites, newest first", lambda: catalog.list_sites(size=5, newest_first=True))
    yield Step(
        "sites by tag: javascript",
        lambda: catalog.sites_by_tag("javascript"),
        "byTag gives site ids; one BatchGetItem fetches the sites",
    )
    yield Step(
        "admin ada re-tags MDN (docs -> reference)",
        lambda: catalog.update_site(ADA, "mdn", tags=["javascript", "css", "html", "reference"]),
        "the site and its site-tag items change in one transaction",
    )
    yield Step("sites by tag: docs (MDN is gone)", lambda: catalog.sites_by_tag("docs"))
    yield Step("sites by tag: reference", lambda: catalog.sites_by_tag("reference"))


def _site_role_steps(catalog: SiteCatalog) -> Iterator[Step]:
    """Who may create and update sites: custom groups' permissions, allowed and refused."""

    def permissions(actor: Actor) -> list[str]:
        return sorted(catalog.permissions(actor)) or ["(no permissions)"]

    yield Step(
        "bob's permissions (custom group editors)",
        lambda: permissions(BOB),
        "his memberships, then his groups' permissions",
    )
    yield Step(
        "editor bob updates a site's description (allowed: editors grant sites:update)",
        lambda: catalog.update_site(BOB, "rustbook", description="The book, free online"),
    )
    yield Step(
        "cyd updates a site (refused: book-club grants nothing)",
        lambda: catalog.update_site(CYD, "rustbook", title="Rust!"),
    )
    yield Step(
        "anonymous creates a site (refused: not signed in)",
        lambda: catalog.create_site(None, url="https://example.com", title="Example"),
    )
    yield Step(
        "bob creates a site (refused: editors do not grant sites:create)",
        lambda: catalog.create_site(BOB, url="https://go.dev/doc/", title="Go docs", tags=["go"]),
    )
    yield Step(
        "curator dee creates a site (allowed: curators grant sites:create)",
        lambda: catalog.create_site(
            DEE, url="https://go.dev/doc/", title="Go documentation", tags=["go", "docs"]
        ),
    )


def _rating_steps(catalog: SiteCatalog) -> Iterator[Step]:
    """Star ratings: one per user and site, the byStars index, and who may rate for whom."""
    yield Step("my rating for a site (bob, mdn)", lambda: catalog.my_rating(BOB, "mdn"))
    yield Step(
        "my ratings (bob)",
        lambda: catalog.my_ratings(BOB),
        "comments share the SITE# prefix: they are read (and paid for) and dropped by entityType",
    )
    yield Step("all 5-star ratings", lambda: catalog.ratings_with_stars(5))
    yield Step(
        "cyd rates jsinfo 4 stars",
        lambda: catalog.rate_site(CYD, "jsinfo", 4, "good exercises"),
        "the site must exist: a ConditionCheck in the same transaction",
    )
    yield Step(
        "cyd changes her MDN rating from 4 to 5 (byStars follows)", lambda: catalog.rate_site(CYD, "mdn", 5)
    )
    yield Step("all 5-star ratings again", lambda: catalog.ratings_with_stars(5))
    yield Step("rate with 6 stars (refused before any request)", lambda: catalog.rate_site(BOB, "mdn", 6))
    yield Step(
        "bob rates for cyd (refused: users write only their own)",
        lambda: catalog.rate_site(BOB, "mdn", 1, user_id="cyd"),
    )
    yield Step(
        "admin ada rates for cyd (refused: admins too)",
        lambda: catalog.rate_site(ADA, "mdn", 1, user_id="cyd"),
    )
    yield Step("anonymous rates a site (refused: not signed in)", lambda: catalog.rate_site(None, "mdn", 5))
    yield Step("rate a site that does not exist", lambda: catalog.rate_site(BOB, "nope", 3))


def _comment_steps(catalog: SiteCatalog) -> Iterator[Step]:
    """Comments: a user's on a site, a site's through bySite, and editing only one's own."""
    yield Step(
        "bob's comments on MDN",
        lambda: catalog.user_comments("bob", "mdn"),
        "PK=USER#bob, SK begins_with SITE#mdn#COMMENT#",
    )
    yield Step(
        "comments for a site (MDN)",
        lambda: catalog.comments_for_site("mdn"),
        "the bySite GSI: siteId = SITE#mdn, commentSk begins_with COMMENT#",
    )
    yield Step(
        "cyd comments on jsinfo", lambda: catalog.add_comment(CYD, "jsinfo", "Try the tasks at the end.")
    )
    yield Step(
        "bob edits his own comment",
        lambda: catalog.edit_comment(BOB, "mdn", "c004", "Also: the CSS grid and flexbox guides."),
    )
    yield Step(
        "cyd edits bob's comment (refused)",
        lambda: catalog.edit_comment(CYD, "mdn", "c004", "spam", user_id="bob"),
    )


def _group_steps(catalog: SiteCatalog) -> Iterator[Step]:
    """Custom RBAC groups: managing groups and members, and a permission lost with a membership."""
    yield Step("list all groups (admin)", lambda: catalog.list_groups(ADA))
    yield Step("get a group (admin)", lambda: catalog.get_group(ADA, "curators"))
    yield Step("list all groups as cyd (refused: needs groups:manage)", lambda: catalog.list_groups(CYD))
    yield Step(
        "admin ada creates a group granting groups:manage",
        lambda: catalog.create_group(
            ADA, "group-admins", description="Manage custom groups", permissions=["groups:manage"]
        ),
    )
    yield Step("bob creates a group (refused)", lambda: catalog.create_group(BOB, "bobs"))
    yield Step("admin ada adds cyd to group-admins", lambda: catalog.add_member(ADA, "group-admins", "cyd"))
    yield Step("now cyd lists the groups (allowed)", lambda: catalog.list_groups(CYD))
    yield Step("add cyd again (already a member)", lambda: catalog.add_member(ADA, "group-admins", "cyd"))
    yield Step("add to a group that does not exist", lambda: catalog.add_member(ADA, "nobody", "cyd"))
    yield Step(
        "dee's groups (her own)", lambda: catalog.groups_of(DEE), "PK=USER#dee, SK begins_with MEMBERSHIP#"
    )
    yield Step("dee reads bob's groups (refused)", lambda: catalog.groups_of(DEE, "bob"))
    yield Step("members of editors (cyd, now a group admin)", lambda: catalog.members(CYD, "editors"))
    yield Step("cyd removes bob from editors", lambda: catalog.remove_member(CYD, "editors", "bob"))
    yield Step("remove bob again (not a member)", lambda: catalog.remove_member(CYD, "editors", "bob"))
    yield Step(
        "bob updates a site again (refused: no longer an editor)",
        lambda: catalog.update_site(BOB, "rustbook", title="The Rust Book"),
    )


EXAMPLE = Example(
    name="fus-main",
    title="fus-main: sites, tags, star ratings, comments and custom RBAC groups in one table",
    table=fus,
    open=open_service,
    load=load,
    steps=steps,
)
