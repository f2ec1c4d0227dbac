"""Seed design 003, WavyBlog: users, posts and categories in one table, uniqueness by guard items.

The declaration is the design's tables read literally: PascalCase attributes, RFC 3339 timestamps to the
second, three GSIs (posts by user, posts by category, everything by type). The open points and the design's
mistakes are recorded in this package's README.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from singletable.model import GSI, Entity, Keys, Pattern, Table, env

blog = Table(
    name=env("DYNAMODB_TABLE", "WavyBlog"),
    pk="PK",
    sk="SK",
    type_attribute="EntityType",
    naming="pascal",
    datetime_precision="seconds",  # the design's "2024-01-15T10:30:00Z"
    indexes=[
        GSI("GSI1", pk="GSI1PK", sk="GSI1SK"),  # posts by user, newest first
        GSI("GSI2", pk="GSI2PK", sk="GSI2SK"),  # posts by category, newest first
        GSI("GSI3", pk="EntityType", sk="PK"),  # every entity of a type: replaces Scan
    ],
)


class User(
    Entity,
    table=blog,
    type="USER",
    # USEREMAIL#<email> guard item; it also stores the owner's Username, as the design's UserEmail entity.
    unique={"email": ("USEREMAIL#{email}", "username")},
):
    user_id: str = Field(alias="UserID")
    username: str
    email: str
    password_hash: str = Field(repr=False)  # bcrypt; never logged, never printed by the demo
    role: Literal["user", "admin"] = "user"
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(PK="USER#{username}", SK="METADATA#{username}")
    all_users = Pattern(index="GSI3", doc="3. Get all users: EntityType = USER")

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"


class Post(Entity, table=blog, type="POST", unique={"slug": "SLUG#{slug}"}):
    post_id: str = Field(alias="PostID")
    slug: str
    title: str
    content: str = ""
    author_id: str = Field(alias="AuthorID")  # the author's username, as the design says
    category: str  # the category's slug
    thumbnail_url: str | None = Field(None, alias="ThumbnailURL")
    is_published: bool = False
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(
        PK="POST#{slug}",
        SK="METADATA#{slug}",
        GSI1PK="POSTS_BY_USER#{author_id}",
        GSI1SK="POST#{created_at}",
        GSI2PK="POSTS_BY_CAT#{category}",
        GSI2SK="POST#{created_at}",
    )
    by_user = Pattern(index="GSI1", newest_first=True, doc="6. Get posts by user")
    by_category = Pattern(index="GSI2", newest_first=True, doc="7. Get posts by category")
    all_posts = Pattern(index="GSI3", doc="5. Get all posts: EntityType = POST")


class Category(Entity, table=blog, type="CATEGORY"):
    category_id: str = Field(alias="CategoryID")
    slug: str
    name: str
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(PK="CATEGORY#{slug}", SK="METADATA#{slug}")
    all_categories = Pattern(index="GSI3", doc="8. Get all categories: EntityType = CATEGORY")
