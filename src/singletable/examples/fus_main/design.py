"""Seed 000 (``fus-main``): the site catalog's single table, as the design document lays it out.

Sites, one item per site tag, star ratings on a numeric index, comments, custom RBAC groups and memberships
share one table. The design is kept as written, with the choices it left open made here (README.md records
each one and why):

- ``entitySk`` of a site is ``SITE#<createdAt>#<id>``, not ``SITE#<id>``: "list all sites" then comes back in
  the order sites were added (newest first on request), and the id keeps equal timestamps apart. createdAt
  never changes, so the key never has to be rewritten. Groups keep ``GROUP#<name>`` (alphabetical).
- Site-tag items are derived from ``Site.tags``: written, rewritten and removed in the same transaction as
  the site, so byTag cannot disagree with a site's tags.
- Comments stay under the user (``SITE#<siteId>#COMMENT#<id>``) as designed; "comments for a site" is the
  ``bySite`` GSI the design suggests (partition ``siteId``, sort ``commentSk = COMMENT#<id>``). Only comments
  carry ``commentSk``, so ratings (which also carry ``siteId``) stay out of it.
- ``siteId`` always holds ``SITE#<id>`` (site-tag, rating, comment and the site itself), never a bare id.
- Every item carries ``entityType`` (the model's type attribute); byEntity stays sparse because only sites
  and groups carry ``entitySk``.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from singletable.model import GSI, Derived, Entity, Keys, Pattern, Table, env

# The design's ``var.dynamoTableName``: the deployment passes it to the app as this variable.
TABLE_NAME_VARIABLE = "DYNAMO_TABLE_NAME"

fus = Table(
    name=env(TABLE_NAME_VARIABLE, "fus-main"),
    pk="PK",
    sk="SK",
    type_attribute="entityType",
    indexes=[
        GSI("byEntity", pk="entityType", sk="entitySk"),
        GSI("byTag", pk="tag", sk="siteId"),
        GSI("byStars", pk=("starRating", "N"), sk="siteId"),
        GSI("byGroup", pk="groupName", sk="userId"),
        GSI("bySite", pk="siteId", sk="commentSk"),
    ],
)


class SiteTag(Entity, table=fus, type="SITE_TAG"):
    """One item per tag per site: what byTag indexes. Never written directly (see ``Site.tag_items``)."""

    site_id: str
    tag: str

    keys = Keys(PK="SITE#{site_id}", SK="TAG#{tag}", siteId="SITE#{site_id}")
    with_tag = Pattern(index="byTag", doc="Sites by tag: byTag, tag = <tag>")


class Site(Entity, table=fus, type="SITE"):
    """A catalog entry. Only admins (or groups granting it) create and update sites; everyone reads them."""

    site_id: str
    url: str
    title: str
    description: str = ""
    scraped_content: str | None = None
    tags: list[str] = []
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(
        PK="SITE#{site_id}",
        SK="METADATA",
        entitySk="SITE#{created_at}#{site_id}",
        siteId="SITE#{site_id}",  # else the field would be stored bare as siteId, unlike every other item
    )
    all_sites = Pattern(index="byEntity", doc="List all sites: byEntity, entityType = SITE, oldest first")
    tag_items = Derived(SiteTag, each="tags", as_="tag")


class Rating(Entity, table=fus, type="RATING"):
    """One user's stars (1-5) and note for one site; ``starRating`` mirrors ``stars`` for byStars."""

    user_id: str
    site_id: str
    stars: int = Field(ge=1, le=5)
    note: str | None = None
    updated_at: datetime | None = None

    keys = Keys(PK="USER#{user_id}", SK="SITE#{site_id}", starRating="{stars}", siteId="SITE#{site_id}")
    mine = Pattern(doc="My ratings: PK = USER#<id>, SK begins_with SITE# (comments share the prefix)")
    with_stars = Pattern(index="byStars", doc="Ratings with a star value: byStars, starRating = <n>")


class Comment(Entity, table=fus, type="COMMENT"):
    """A comment, stored under its author. Ids are time-ordered, so ``COMMENT#<id>`` sorts by time."""

    user_id: str
    site_id: str
    comment_id: str
    body: str
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(
        PK="USER#{user_id}",
        SK="SITE#{site_id}#COMMENT#{comment_id}",
        siteId="SITE#{site_id}",
        commentSk="COMMENT#{comment_id}",
    )
    by_user_on_site = Pattern(doc="A user's comments on a site: SK begins_with SITE#<site>#COMMENT#")
    for_site = Pattern(index="bySite", doc="Comments for a site: bySite, siteId = SITE#<site>")


class Group(Entity, table=fus, type="GROUP"):
    """A custom RBAC group: its ``permissions`` are actions its members may perform."""

    name: str
    description: str = ""
    permissions: list[str] = []
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(PK="GROUP#{name}", SK="METADATA", entitySk="GROUP#{name}")
    all_groups = Pattern(index="byEntity", doc="List all groups: byEntity, entityType = GROUP")


class Membership(Entity, table=fus, type="MEMBERSHIP"):
    """A user (Cognito sub) in a custom group, with who added them and when."""

    user_id: str
    group_name: str
    added_at: datetime
    added_by: str

    keys = Keys(PK="USER#{user_id}", SK="MEMBERSHIP#{group_name}")
    of_user = Pattern(doc="A user's groups: PK = USER#<sub>, SK begins_with MEMBERSHIP#")
    members = Pattern(index="byGroup", doc="A group's members: byGroup, groupName = <name>")
