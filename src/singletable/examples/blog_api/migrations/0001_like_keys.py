"""0001: likes written with the design document's keys move to keys that end with the liker.

The document keys a like ``SK = LIKE#<userId>#<createdAt>`` with a GSI1 entry ``LIKE#<userId>#<postId>`` /
``LIKE`` and ``GSI2SK = LIKE#<createdAt>``. A table written that way cannot answer "did I like this post"
without an index read, cannot refuse a second like, and cannot unlike. This migration re-keys every like to
the design's ``SK = LIKE#<userId>`` (no GSI1 entry; ``GSI2SK = LIKE#<createdAt>#<postId>#<userId>``): one
transaction per like puts the new item (if its key is free) and deletes the old one (if unchanged).

A user who liked one post twice under the old keys has two old items for one new key: the second stops the
run (``the new key holds another item``), naming both keys; delete the duplicate and run again.
"""

from __future__ import annotations

from datetime import datetime

from singletable.examples.blog_api.design import Like, blog
from singletable.migrate import Migration, rekey
from singletable.model import GSI, Entity, Keys, Table

document = Table(
    name=blog.name,
    pk="PK",
    sk="SK",
    type_attribute="entityType",
    indexes=[GSI("GSI1", pk="GSI1PK", sk="GSI1SK"), GSI("GSI2", pk="GSI2PK", sk="GSI2SK")],
)


class DocumentLike(Entity, table=document, type="LIKE"):
    """A like as the design document keys it ("5. Curtidas")."""

    post_id: str
    user_id: str
    post_author_id: str
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(
        PK="POST#{post_id}",
        SK="LIKE#{user_id}#{created_at}",
        GSI1PK="LIKE#{user_id}#{post_id}",
        GSI1SK="LIKE",
        GSI2PK="AUTHOR#{post_author_id}",
        GSI2SK="LIKE#{created_at}",
    )


migration = Migration(
    id="0001-like-keys",
    description="likes keyed LIKE#<userId> (addressable, one per user), without their GSI1 entry",
    steps=[rekey(DocumentLike, to=Like)],
    table=blog,
)
