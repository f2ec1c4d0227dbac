"""0001: "posts by category, newest first" (GSI2), a pattern added after launch, with its keys backfilled.

Posts written before GSI2 existed carry no ``GSI2PK``/``GSI2SK``, so the index would miss them. This migration

1. creates GSI2 (``POSTS_BY_CAT#<category>`` / ``POST#<createdAt>``) and waits until it is ACTIVE, then
2. backfills ``Post``: each post is rewritten with every key its templates compute, on condition that it is
   still the item read; a post already in that shape is not written.

The slug guards (``SLUG#...``) and users' email guards are not touched: a backfill never changes a primary
key.
"""

from __future__ import annotations

from singletable.examples.wavyblog.design import Post, blog
from singletable.migrate import Migration, add_index, backfill
from singletable.model import GSI

migration = Migration(
    id="0001-posts-by-category",
    description="GSI2 (posts by category, newest first) created and its keys backfilled on existing posts",
    steps=[add_index(GSI("GSI2", pk="GSI2PK", sk="GSI2SK")), backfill(Post, set={})],
    table=blog,
)
