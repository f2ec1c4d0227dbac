"""Seed 003 (WavyBlog) written with the model API: users, posts, categories, unique email and slug.

Choices where the design is open: timestamps are RFC 3339 to the second (the design's examples), so
``datetime_precision="seconds"``; attribute names are PascalCase as in its tables (``naming="pascal"``, with
aliases for ``UserID``/``PostID``/``CategoryID``/``AuthorID``/``ThumbnailURL``); guard items carry the
owner's key.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Literal

import pytest
from pydantic import Field

from singletable.model import (
    GSI,
    AlreadyExists,
    Entity,
    Keys,
    Pattern,
    Table,
    UniqueViolation,
    env,
)

blog = Table(
    name=env("DYNAMODB_TABLE", "WavyBlog"),
    pk="PK",
    sk="SK",
    type_attribute="EntityType",
    naming="pascal",
    datetime_precision="seconds",
    indexes=[
        GSI("GSI1", pk="GSI1PK", sk="GSI1SK"),
        GSI("GSI2", pk="GSI2PK", sk="GSI2SK"),
        GSI("GSI3", pk="EntityType", sk="PK"),
    ],
)


class User(Entity, table=blog, type="USER", unique={"email": "USEREMAIL#{email}"}):
    user_id: str = Field(alias="UserID")
    username: str
    email: str
    password_hash: str
    role: Literal["user", "admin"] = "user"
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(PK="USER#{username}", SK="METADATA#{username}")
    all_users = Pattern(index="GSI3")


class Post(Entity, table=blog, type="POST", unique={"slug": "SLUG#{slug}"}):
    post_id: str = Field(alias="PostID")
    slug: str
    title: str
    content: str = ""
    author_id: str = Field(alias="AuthorID")
    category: str
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
    by_user = Pattern(index="GSI1", newest_first=True)
    by_category = Pattern(index="GSI2", newest_first=True)
    all_posts = Pattern(index="GSI3")


class Category(Entity, table=blog, type="CATEGORY"):
    category_id: str = Field(alias="CategoryID")
    slug: str
    name: str
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(PK="CATEGORY#{slug}", SK="METADATA#{slug}")
    all_categories = Pattern(index="GSI3")


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2024, 1, 15, 10, 30, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(minutes=1)
        return self.now


def john() -> User:
    return User(user_id="usr_123456", username="john_doe", email="john@example.com", password_hash="$2a$10$x")


def test_declaration_matches_the_design() -> None:
    params = blog.create_table_params()
    assert params["TableName"] == "WavyBlog"
    assert params["BillingMode"] == "PAY_PER_REQUEST"
    assert [g["IndexName"] for g in params["GlobalSecondaryIndexes"]] == ["GSI1", "GSI2", "GSI3"]
    assert {"AttributeName": "EntityType", "AttributeType": "S"} in params["AttributeDefinitions"]
    design = blog.describe()
    assert [e["type"] for e in design["entities"]] == ["USER", "POST", "CATEGORY"]


def test_table_name_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DYNAMODB_TABLE", "WavyBlog-staging")
    assert blog.resolved_name() == "WavyBlog-staging"


def test_item_shape_is_the_designs(open_db) -> None:
    db = open_db(blog, clock=Clock())
    db.create(Category(category_id="cat_345678", slug="technology", name="Technology"))
    raw = db.call(
        "GetItem",
        {
            "TableName": db.table_name,
            "Key": {"PK": {"S": "CATEGORY#technology"}, "SK": {"S": "METADATA#technology"}},
        },
    )
    assert raw["Item"] == {
        "PK": {"S": "CATEGORY#technology"},
        "SK": {"S": "METADATA#technology"},
        "EntityType": {"S": "CATEGORY"},
        "CategoryID": {"S": "cat_345678"},
        "Slug": {"S": "technology"},
        "Name": {"S": "Technology"},
        "CreatedAt": {"S": "2024-01-15T10:31:00Z"},
        "UpdatedAt": {"S": "2024-01-15T10:31:00Z"},
    }
    category = db.get(Category, slug="technology")
    assert category.created_at == datetime(2024, 1, 15, 10, 31, tzinfo=UTC)
    assert [c.slug for c in db.query(Category.all_categories())] == ["technology"]


def test_users_unique_email(open_db, needs_transactions) -> None:
    db = open_db(blog, clock=Clock())
    created = db.create(john())
    assert created.created_at is not None
    with pytest.raises(AlreadyExists):
        db.create(john())
    with pytest.raises(UniqueViolation) as caught:
        db.create(User(user_id="usr_2", username="johnny", email="john@example.com", password_hash="h"))
    assert (caught.value.field, caught.value.value) == ("email", "john@example.com")
    guard = db.call(
        "GetItem",
        {
            "TableName": db.table_name,
            "Key": {"PK": {"S": "USEREMAIL#john@example.com"}, "SK": {"S": "USEREMAIL#john@example.com"}},
        },
    )["Item"]
    assert guard["owner"]["M"]["PK"] == {"S": "USER#john_doe"}
    assert db.find(User, email="john@example.com").username == "john_doe"

    # Changing the email swaps the guard atomically; the old address is free again.
    db.update(User.key(username="john_doe"), email="jd@example.com")
    assert db.find(User, email="john@example.com") is None
    assert db.find(User, email="jd@example.com").user_id == "usr_123456"
    db.create(User(user_id="usr_2", username="johnny", email="john@example.com", password_hash="h"))
    with pytest.raises(UniqueViolation):
        db.update(User.key(username="johnny"), email="jd@example.com")

    # Deleting the user releases the address.
    db.delete(User, username="john_doe")
    assert db.find(User, email="jd@example.com") is None
    assert [u.username for u in db.query(User.all_users())] == ["johnny"]


def test_posts_by_user_category_and_type(open_db, needs_transactions) -> None:
    db = open_db(blog, clock=Clock())
    for slug, category in [("first", "technology"), ("second", "travel"), ("third", "technology")]:
        db.create(
            Post(
                post_id=f"post_{slug}", slug=slug, title=slug.title(), author_id="john_doe", category=category
            )
        )
    db.create(Post(post_id="p_other", slug="other", title="Other", author_id="jane", category="technology"))

    assert [p.slug for p in db.query(Post.by_user(author_id="john_doe"))] == ["third", "second", "first"]
    assert [p.slug for p in db.query(Post.by_category("technology"))] == ["other", "third", "first"]
    assert sorted(p.slug for p in db.query(Post.all_posts())) == ["first", "other", "second", "third"]
    raw = db.call(
        "GetItem",
        {"TableName": db.table_name, "Key": {"PK": {"S": "POST#first"}, "SK": {"S": "METADATA#first"}}},
    )["Item"]
    assert raw["GSI1SK"] == {"S": "POST#2024-01-15T10:31:00Z"}

    # Moving a post to another category moves it in GSI2 in the same request.
    db.update(Post.key(slug="first"), category="travel")
    assert [p.slug for p in db.query(Post.by_category("travel"))] == ["second", "first"]
    assert [p.slug for p in db.query(Post.by_category("technology"))] == ["other", "third"]

    # Slugs are guarded too; the post's own key makes a second "first" an AlreadyExists.
    with pytest.raises(AlreadyExists):
        db.create(Post(post_id="dup", slug="first", title="Dup", author_id="x", category="y"))

    since = datetime(2024, 1, 15, 10, 32, tzinfo=UTC)
    recent = db.query(Post.by_user(author_id="john_doe").where(Post.f.created_at >= since))
    assert [p.slug for p in recent] == ["third", "second"]
    published = db.query(Post.by_user(author_id="john_doe").filter(Post.f.is_published == True))  # noqa: E712
    assert list(published) == []


def test_changing_the_author_moves_the_post_in_gsi1(open_db) -> None:
    db = open_db(blog, clock=Clock())
    db.put(Post(post_id="p1", slug="p1", title="T", author_id="john_doe", category="tech"))
    db.update(Post.key(slug="p1"), author_id="jane")
    assert list(db.query(Post.by_user(author_id="john_doe"))) == []
    assert [p.post_id for p in db.query(Post.by_user(author_id="jane"))] == ["p1"]
