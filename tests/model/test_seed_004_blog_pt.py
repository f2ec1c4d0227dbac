"""Seed 004 (Blog API, in Portuguese): users by role, posts by category and author, category hierarchy,
threaded comments, likes, notifications.

Choices: the overview says "3 GSIs" but configures two; we declare the two. A draft post has no
``published_at``, so it is in neither GSI (sparse) until published. The design's "root comments" query
(``begins_with(SK, "COMMENT#")``) also matches replies, whose SKs start with ``COMMENT#<parentId>#``; typed
entities tell them apart by ``entityType``, so ``Comment.of_post`` returns roots and ``Reply.to_comment`` the
replies. Category order is zero-padded (``{order:03d}``) so ``10`` sorts after ``9``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from singletable.model import GSI, Collection, Derived, Entity, Key, Keys, Pattern, Table, env

blog = Table(
    name=env("${StackName}-${Environment}-blog", StackName="blog-api", Environment="dev"),
    type_attribute="entityType",
    indexes=[GSI("GSI1", pk="GSI1PK", sk="GSI1SK"), GSI("GSI2", pk="GSI2PK", sk="GSI2SK")],
)


class User(Entity, table=blog, type="USER"):
    cognito_sub: str
    name: str
    role: str = "reader"
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
    by_role = Pattern(index="GSI2")


class Post(Entity, table=blog, type="POST"):
    post_id: str
    title: str
    subcategory_id: str
    author_id: str
    published_at: datetime | None = None
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
    by_category = Pattern(index="GSI1", newest_first=True)
    by_author = Pattern(index="GSI2", newest_first=True)


class CategoryChild(Entity, table=blog, type="CATEGORY_CHILD"):
    parent_id: str
    child_id: str
    order: int

    keys = Keys(PK="CATEGORY#{parent_id}", SK="CHILD#{child_id}#{order}")
    children = Pattern(sk="CHILD#")


class Category(Entity, table=blog, type="CATEGORY"):
    category_id: str
    name: str
    order: int
    parent_id: str | None = None

    keys = Keys(
        PK="CATEGORY#{category_id}",
        SK="CATEGORY#{category_id}",
        GSI1PK=Key("CATEGORY#{parent_id}", otherwise="CATEGORY_ROOT"),
        GSI1SK="CATEGORY#{order:03d}#{category_id}",
    )
    roots = Pattern(index="GSI1", pk="CATEGORY_ROOT")
    subcategories = Pattern(index="GSI1")
    child_link = Derived(
        CategoryChild,
        on=("category_id", "parent_id", "order"),
        build=lambda c: (
            CategoryChild(parent_id=c.parent_id, child_id=c.category_id, order=c.order)
            if c.parent_id
            else None
        ),
    )


class Comment(Entity, table=blog, type="COMMENT"):
    post_id: str
    comment_id: str
    author_id: str
    body: str
    created_at: datetime | None = None

    keys = Keys(
        PK="POST#{post_id}",
        SK="COMMENT#{comment_id}#{created_at}",
        GSI1PK="COMMENT#{comment_id}",
        GSI1SK="POST#{post_id}",
        GSI2PK="AUTHOR#{author_id}",
        GSI2SK="COMMENT#{created_at}#{comment_id}",
    )
    of_post = Pattern()


class Reply(Entity, table=blog, type="REPLY"):
    post_id: str
    parent_id: str
    reply_id: str
    author_id: str
    body: str
    created_at: datetime | None = None

    keys = Keys(PK="POST#{post_id}", SK="COMMENT#{parent_id}#{reply_id}#{created_at}")
    to_comment = Pattern()


class Like(Entity, table=blog, type="LIKE"):
    post_id: str
    user_id: str
    author_id: str
    created_at: datetime | None = None

    keys = Keys(
        PK="POST#{post_id}",
        SK="LIKE#{user_id}#{created_at}",
        GSI1PK="LIKE#{user_id}#{post_id}",
        GSI1SK="LIKE",
        GSI2PK="AUTHOR#{author_id}",
        GSI2SK="LIKE#{created_at}",
    )
    by_user_and_post = Pattern(index="GSI1")


class Notification(Entity, table=blog, type="NOTIFICATION", ttl="expires_at"):
    user_id: str
    notification_id: str
    message: str
    created_at: datetime | None = None
    expires_at: datetime | None = None

    keys = Keys(
        PK="USER#{user_id}",
        SK="NOTIFICATION#{notification_id}#{created_at}",
        GSI1PK="NOTIFICATION#{user_id}",
        GSI1SK="NOTIFICATION#{created_at}#{notification_id}",
    )
    latest = Pattern(index="GSI1", newest_first=True)


post_page = Collection(blog, "post_page", pk="POST#{post_id}", entities=(Post, Comment, Reply, Like))


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=7)
        return self.now


def test_table_name_from_a_stack_template(monkeypatch: pytest.MonkeyPatch) -> None:
    assert blog.resolved_name() == "blog-api-dev-blog"
    monkeypatch.setenv("StackName", "acme")
    monkeypatch.setenv("Environment", "prod")
    assert blog.resolved_name() == "acme-prod-blog"


def test_drafts_stay_out_of_the_indexes_until_published(open_db) -> None:
    db = open_db(blog, clock=Clock())
    db.create(Post(post_id="p1", title="Olá", subcategory_id="python", author_id="ana"))
    db.create(
        Post(
            post_id="p2",
            title="Mundo",
            subcategory_id="python",
            author_id="ana",
            published_at=datetime(2024, 2, 1, tzinfo=UTC),
        )
    )
    assert [p.post_id for p in db.query(Post.by_category(subcategory_id="python"))] == ["p2"]
    db.update(Post.key(post_id="p1"), published_at=datetime(2024, 2, 5, tzinfo=UTC))
    assert [p.post_id for p in db.query(Post.by_author(author_id="ana"))] == ["p1", "p2"]
    db.update(Post.key(post_id="p2"), published_at=None)  # unpublish: both index keys removed
    assert [p.post_id for p in db.query(Post.by_category(subcategory_id="python"))] == ["p1"]
    item = db.call(
        "GetItem", {"TableName": db.table_name, "Key": {"PK": {"S": "POST#p2"}, "SK": {"S": "POST#p2"}}}
    )
    assert "GSI1SK" not in item["Item"] and "GSI2SK" not in item["Item"] and "GSI1PK" in item["Item"]


def test_category_hierarchy(open_db, needs_transactions) -> None:
    db = open_db(blog)
    db.create(Category(category_id="tech", name="Tecnologia", order=2))
    db.create(Category(category_id="life", name="Vida", order=1))
    db.create(Category(category_id="python", name="Python", order=10, parent_id="tech"))
    db.create(Category(category_id="rust", name="Rust", order=9, parent_id="tech"))
    assert [c.category_id for c in db.query(Category.roots())] == ["life", "tech"]
    assert [c.category_id for c in db.query(Category.subcategories(parent_id="tech"))] == ["rust", "python"]
    assert [(c.child_id, c.order) for c in db.query(CategoryChild.children(parent_id="tech"))] == [
        ("python", 10),
        ("rust", 9),
    ]

    # Re-parenting moves the index key and the relationship item together.
    db.update(Category.key(category_id="rust"), parent_id="life", order=1)
    assert [c.category_id for c in db.query(Category.subcategories(parent_id="life"))] == ["rust"]
    assert [c.child_id for c in db.query(CategoryChild.children(parent_id="tech"))] == ["python"]
    assert [c.child_id for c in db.query(CategoryChild.children(parent_id="life"))] == ["rust"]
    db.update(Category.key(category_id="rust"), parent_id=None)
    assert [c.category_id for c in db.query(Category.roots())] == ["life", "rust", "tech"]
    assert list(db.query(CategoryChild.children(parent_id="life"))) == []


def test_threaded_comments_likes_and_the_post_page(open_db) -> None:
    db = open_db(blog, clock=Clock())
    db.create(Post(post_id="p1", title="Olá", subcategory_id="python", author_id="ana"))
    c1 = db.create(Comment(post_id="p1", comment_id="c1", author_id="bia", body="Legal"))
    db.create(Comment(post_id="p1", comment_id="c2", author_id="caio", body="Boa"))
    db.create(Reply(post_id="p1", parent_id="c1", reply_id="r1", author_id="ana", body="Valeu"))
    db.create(Like(post_id="p1", user_id="bia", author_id="ana"))

    assert [c.comment_id for c in db.query(Comment.of_post(post_id="p1"))] == ["c1", "c2"]
    assert [r.reply_id for r in db.query(Reply.to_comment(post_id="p1", parent_id="c1"))] == ["r1"]
    assert db.get(Comment, post_id="p1", comment_id="c1", created_at=c1.created_at).body == "Legal"
    assert [like.user_id for like in db.query(Like.by_user_and_post(user_id="bia", post_id="p1"))] == ["bia"]
    page = db.collect(post_page(post_id="p1"))
    assert [type(e).__name__ for e in page] == ["Comment", "Reply", "Comment", "Like", "Post"]
    assert page.one(Post).title == "Olá"


def test_notifications_expire_by_ttl(open_db) -> None:
    db = open_db(blog, clock=Clock())
    expires = datetime(2024, 4, 1, tzinfo=UTC)
    db.create(Notification(user_id="ana", notification_id="n1", message="oi", expires_at=expires))
    item = db.call(
        "Query",
        {
            "TableName": db.table_name,
            "KeyConditionExpression": "PK = :p",
            "ExpressionAttributeValues": {":p": {"S": "USER#ana"}},
        },
    )["Items"][0]
    assert item["expiresAt"] == {"N": str(int(expires.timestamp()))}
    (note,) = db.query(Notification.latest(user_id="ana"))
    assert note.expires_at == expires and note.expires_at.tzinfo is not None
