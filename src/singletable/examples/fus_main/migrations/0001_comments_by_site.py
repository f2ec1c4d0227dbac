"""0001: comments get the ``bySite`` index the seed document postponed, and move out of the ratings' prefix.

The seed document stores a comment under its author as ``SK = SITE#<siteId>#COMMENT#<id>``, which shares the
``SITE#`` prefix with ratings (``SK = SITE#<siteId>``): "my ratings" reads, pays for and drops every comment
the user wrote. And it postponed "comments for a site". This migration

1. creates ``bySite`` (partition ``siteId``, sort ``commentSk``) and waits until it is ACTIVE, then
2. re-keys every comment to ``SK = COMMENT#<siteId>#<id>``, with ``commentSk = COMMENT#<id>`` (what puts it
   in bySite): one transaction per comment writes the new item and deletes the old one.

``Comment`` below is the entity as it becomes; the example's ``design.Comment`` keeps the seed's keys (the
design tools show the prefix collision on it). Adopting the migration means moving this declaration into
the design.
"""

from __future__ import annotations

from datetime import datetime

from singletable.examples.fus_main import design
from singletable.migrate import Migration, add_index, rekey
from singletable.model import GSI, Entity, Keys, Pattern, Table

# The design's table again (same name, keys and indexes), to declare the comment as it becomes beside it.
fus = Table(name=design.fus.name, pk="PK", sk="SK", type_attribute="entityType", indexes=design.fus.indexes)


class Comment(Entity, table=fus, type="COMMENT"):
    """A comment, under its author, in its own ``COMMENT#`` prefix: "my ratings" no longer reads it."""

    user_id: str
    site_id: str
    comment_id: str
    body: str
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(
        PK="USER#{user_id}",
        SK="COMMENT#{site_id}#{comment_id}",
        siteId="SITE#{site_id}",
        commentSk="COMMENT#{comment_id}",
    )
    by_user_on_site = Pattern(doc="A user's comments on a site: SK begins_with COMMENT#<site>#")
    for_site = Pattern(index="bySite", doc="Comments for a site: bySite, siteId = SITE#<site>")


migration = Migration(
    id="0001-comments-by-site",
    description="bySite index for comments; comments keyed COMMENT#<siteId>#<id>, out of the ratings' prefix",
    steps=[add_index(GSI("bySite", pk="siteId", sk="commentSk")), rekey(design.Comment, to=Comment)],
    table=design.fus,
)
