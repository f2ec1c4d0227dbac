"""Seed 004 (``blog-api``): the Blog API's single table, as the design document ("Design de Tabela Única
DynamoDB - Blog API") lays it out.

Users, posts, a two-level category hierarchy, threaded comments, likes, bookmarks and notifications share
one table with two GSIs. The keys follow "Mapeamento das Entidades" except where a key cannot serve its
access pattern as written; README.md records each departure and every choice the design left open. In short:

- Sort keys end with the item's identity, not a trailing ``#<createdAt>``: the design's
  ``LIKE#<userId>#<createdAt>`` (and the same shape for comments, replies, bookmarks and notifications) makes
  the item unaddressable without knowing when it was written, so "did I like this post", "one like per
  user", unlike, unbookmark and "mark read" would all need an index read and could not be enforced by a
  condition. ``createdAt`` stays an attribute and keeps ordering the GSI sort keys where the design uses it.
- A like no longer needs its GSI1 entry (``LIKE#<userId>#<postId>``): the primary key answers "did I like
  this post" with a strongly consistent GetItem.
- Likes received (``GSI2SK = LIKE#<createdAt>``) get ``#<postId>#<userId>`` appended so equal timestamps
  still have one order on every backend.
- Replies carry the comment's GSI1/GSI2 keys too ("a user's comments" includes replies; a reply can be
  found by id).
- Category ``<order>`` is zero-padded to three digits so ``10`` sorts after ``9``.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import Field

from singletable.model import GSI, Collection, Derived, Entity, Key, Keys, Pattern, Table, env

# "Nome da Tabela": ``${StackName}-${Environment}-blog``, read from the environment when connecting.
blog = Table(
    name=env("${StackName}-${Environment}-blog", StackName="blog-api", Environment="dev"),
    pk="PK",
    sk="SK",
    type_attribute="entityType",
    indexes=[
        # "GSI1 - Acesso por Categoria/Entidade"
        GSI("GSI1", pk="GSI1PK", sk="GSI1SK"),
        # "GSI2 - Atividade do Usuário"
        GSI("GSI2", pk="GSI2PK", sk="GSI2SK"),
    ],
)


class Role(StrEnum):
    """The design names roles (``ROLE#<role>``) without listing them; these are the ones the API grants."""

    READER = "reader"
    AUTHOR = "author"
    ADMIN = "admin"


class User(Entity, table=blog, type="USER"):
    """1. Usuários: a Cognito user's profile."""

    cognito_sub: str
    name: str
    role: Role = Role.READER
    bio: str = ""
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(
        PK="USER#{cognito_sub}",
        SK="PROFILE#{cognito_sub}",
        GSI1PK="USER#{cognito_sub}",
        GSI1SK="PROFILE",
        GSI2PK="ROLE#{role}",
        GSI2SK="USER#{cognito_sub}",
    )
    with_role = Pattern(index="GSI2", doc="Users by role: GSI2, GSI2PK = ROLE#<role>")


class Post(Entity, table=blog, type="POST"):
    """2. Posts. A draft has no ``publishedAt``, so it is in neither GSI until published (sparse keys)."""

    post_id: str
    title: str
    body: str
    subcategory_id: str
    author_id: str
    published_at: datetime | None = None
    comment_count: int = 0
    like_count: int = 0
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(
        PK="POST#{post_id}",
        SK="POST#{post_id}",
        GSI1PK="CATEGORY#{subcategory_id}",
        GSI1SK="POST#{published_at}#{post_id}",
        GSI2PK="AUTHOR#{author_id}",
        GSI2SK="POST#{published_at}#{post_id}",
    )
    in_category = Pattern(index="GSI1", newest_first=True, doc="Padrão 2: posts by subcategory, newest first")
    by_author = Pattern(index="GSI2", newest_first=True, doc="Padrão 3: a user's posts, newest first")


class CategoryChild(Entity, table=blog, type="CATEGORY_CHILD"):
    """3. "Relacionamento Pai-Filho": one item per subcategory under its parent, kept by ``Category``."""

    parent_id: str
    child_id: str
    order: int
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(PK="CATEGORY#{parent_id}", SK="CHILD#{child_id}#{order:03d}")
    of_parent = Pattern(sk="CHILD#", doc="Parent-child items of a category (table, strongly consistent)")


class Category(Entity, table=blog, type="CATEGORY", version="version"):
    """3. Categorias: a root ("Categoria Principal") has no parent; a subcategory names a root as parent.

    ``version`` guards reordering and moving: both are read-then-write, and the child item's key depends on
    the order and parent the write read.
    """

    category_id: str
    name: str
    order: int = Field(ge=0, le=999)
    parent_id: str | None = None
    version: int | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(
        PK="CATEGORY#{category_id}",
        SK="CATEGORY#{category_id}",
        GSI1PK=Key("CATEGORY#{parent_id}", otherwise="CATEGORY_ROOT"),
        GSI1SK="CATEGORY#{order:03d}#{category_id}",
    )
    roots = Pattern(index="GSI1", pk="CATEGORY_ROOT", doc="Root categories in order")
    subcategories = Pattern(index="GSI1", doc="Subcategories of a parent in order")
    child_link = Derived(
        CategoryChild,
        on=("category_id", "parent_id", "order"),
        build=lambda c: (
            CategoryChild(parent_id=c.parent_id, child_id=c.category_id, order=c.order)
            if c.parent_id
            else None
        ),
    )


# Comment and Reply share: GSI1 (find by id) and GSI2 (an author's comments, newest first).
class Comment(Entity, table=blog, type="COMMENT"):
    """4. Comentários: a root comment of a post."""

    post_id: str
    comment_id: str
    author_id: str
    body: str
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(
        PK="POST#{post_id}",
        SK="COMMENT#{comment_id}",
        GSI1PK="COMMENT#{comment_id}",
        GSI1SK="POST#{post_id}",
        GSI2PK="AUTHOR#{author_id}",
        GSI2SK="COMMENT#{created_at}#{comment_id}",
    )
    of_post = Pattern(sk="COMMENT#", doc="Padrão 4, first query: root comments (replies skipped by type)")


class Reply(Entity, table=blog, type="REPLY"):
    """4. "Respostas (replies)": one level deep, under a root comment."""

    post_id: str
    parent_id: str
    reply_id: str
    author_id: str
    body: str
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(
        PK="POST#{post_id}",
        SK="COMMENT#{parent_id}#{reply_id}",
        GSI1PK="COMMENT#{reply_id}",
        GSI1SK="POST#{post_id}",
        GSI2PK="AUTHOR#{author_id}",
        GSI2SK="COMMENT#{created_at}#{reply_id}",
    )
    to_comment = Pattern(doc="Padrão 4, second query: begins_with(SK, COMMENT#<commentId>#)")


class Like(Entity, table=blog, type="LIKE"):
    """5. Curtidas: one per user per post. ``post_author_id`` is the design's ``<authorId>`` in GSI2PK."""

    post_id: str
    user_id: str
    post_author_id: str
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(
        PK="POST#{post_id}",
        SK="LIKE#{user_id}",
        GSI2PK="AUTHOR#{post_author_id}",
        GSI2SK="LIKE#{created_at}#{post_id}#{user_id}",
    )
    received_by = Pattern(index="GSI2", newest_first=True, doc="Likes an author's posts received")


class Bookmark(Entity, table=blog, type="BOOKMARK"):
    """6. Favoritos."""

    user_id: str
    post_id: str
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(
        PK="USER#{user_id}",
        SK="BOOKMARK#{post_id}",
        GSI1PK="BOOKMARK#{user_id}",
        GSI1SK="BOOKMARK#{created_at}#{post_id}",
        GSI2PK="POST#{post_id}",
        GSI2SK="BOOKMARK#{user_id}",
    )
    of_user = Pattern(index="GSI1", newest_first=True, doc="My bookmarks, newest first")
    of_post = Pattern(index="GSI2", doc="Who bookmarked a post")


class NotificationKind(StrEnum):
    COMMENT = "comment"
    REPLY = "reply"
    LIKE = "like"


class Notification(Entity, table=blog, type="NOTIFICATION"):
    """7. Notificações: to ``user_id`` when ``actor_id`` comments on, replies to or likes their content."""

    user_id: str
    notification_id: str
    kind: NotificationKind
    actor_id: str
    post_id: str
    comment_id: str | None = None
    read: bool = False
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(
        PK="USER#{user_id}",
        SK="NOTIFICATION#{notification_id}",
        GSI1PK="NOTIFICATION#{user_id}",
        GSI1SK="NOTIFICATION#{created_at}#{notification_id}",
    )
    latest = Pattern(index="GSI1", newest_first=True, doc="My notifications, newest first")


# A whole thread in one query: SK order puts each root's replies right after it ('#' sorts below ids).
thread = Collection(blog, "thread", pk="POST#{post_id}", entities=(Comment, Reply), sk_prefix="COMMENT#")
# "A user's comments": GSI2 partition AUTHOR#<id>, comments and replies alike.
comments_by_author = Collection(
    blog,
    "comments_by_author",
    pk="AUTHOR#{author_id}",
    index="GSI2",
    entities=(Comment, Reply),
    sk_prefix="COMMENT#",
)
# Any comment or reply by id alone (GSI1 "buscas por entidade").
comment_by_id = Collection(
    blog, "comment_by_id", pk="COMMENT#{comment_id}", index="GSI1", entities=(Comment, Reply)
)
