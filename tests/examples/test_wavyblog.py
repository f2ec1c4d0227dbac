"""Seed 003, WavyBlog: every access pattern and every guarded write, on the engine and on DynamoDB Local."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import bcrypt
import pytest

from singletable.examples.wavyblog.design import Category, Post, User, blog
from singletable.examples.wavyblog.errors import (
    CategoryExists,
    EditConflict,
    EmailTaken,
    InvalidInput,
    SlugTaken,
    StillInUse,
    UnknownCategory,
    UnknownPost,
    UnknownUser,
    UsernameTaken,
    WrongPassword,
)
from singletable.examples.wavyblog.passwords import PasswordHasher, WeakPassword
from singletable.examples.wavyblog.sample import load, open_service
from singletable.examples.wavyblog.service import WavyBlog
from singletable.model import AlreadyExists, InvalidCursor, NotFound, UniqueViolation
from stepping_clock import SteppingClock

START = datetime(2024, 1, 15, 10, 30, tzinfo=UTC)


@pytest.fixture
def clock() -> SteppingClock:
    return SteppingClock(START, timedelta(minutes=1))


@pytest.fixture
def app(open_db, clock: SteppingClock) -> WavyBlog:
    return open_service(open_db(blog, clock=clock))


@pytest.fixture
def sample(app: WavyBlog, clock: SteppingClock, load_sample) -> WavyBlog:
    """The sample data (every id given, so the id counter stays put), the clock where the load left it."""

    def restore(now: datetime) -> None:
        clock.now = now

    load_sample(app.db, lambda: load(app), state=lambda: clock.now, restore=restore)
    return app


def raw(app: WavyBlog, pk: str, sk: str | None = None) -> dict[str, Any] | None:
    key = {"PK": {"S": pk}, "SK": {"S": sk or pk}}
    return app.db.call("GetItem", {"TableName": app.db.table_name, "Key": key, "ConsistentRead": True}).get(
        "Item"
    )


def slugs(page: Any) -> list[str]:
    return [p.slug for p in page]


def every_item(app: WavyBlog) -> int:
    """Items of every type (GSI3) plus guards: what a failed write must leave unchanged."""
    count = 0
    for pattern in (User.all_users(), Post.all_posts(), Category.all_categories()):
        count += len(list(app.db.query(pattern)))
    return count


# -- the declaration ----------------------------------------------------------------------------------------


def test_declaration_matches_the_design(monkeypatch: pytest.MonkeyPatch) -> None:
    params = blog.create_table_params()
    assert params["TableName"] == "WavyBlog"
    assert params["BillingMode"] == "PAY_PER_REQUEST"
    assert params["KeySchema"] == [
        {"AttributeName": "PK", "KeyType": "HASH"},
        {"AttributeName": "SK", "KeyType": "RANGE"},
    ]
    indexes = {g["IndexName"]: g for g in params["GlobalSecondaryIndexes"]}
    assert [k["AttributeName"] for k in indexes["GSI3"]["KeySchema"]] == ["EntityType", "PK"]
    assert all(g["Projection"] == {"ProjectionType": "ALL"} for g in indexes.values())
    monkeypatch.setenv("DYNAMODB_TABLE", "WavyBlog-staging")
    assert blog.resolved_name() == "WavyBlog-staging"
    design = blog.describe()
    users = next(e for e in design["entities"] if e["type"] == "USER")
    assert users["unique"] == [{"field": "email", "guard": "USEREMAIL#{email}", "carries": ["username"]}]


def test_open_blog_takes_the_endpoint_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    from singletable.examples.wavyblog.service import open_blog

    monkeypatch.setenv("DYNAMODB_ENDPOINT", str(tmp_path / "local.sqlite3"))  # any target connect() takes
    monkeypatch.setenv("DYNAMODB_TABLE", "WavyBlogLocal")
    app = open_blog(hasher=PasswordHasher(4))
    try:
        assert app.db.table_name == "WavyBlogLocal"
        assert app.db.ensure_table() is True
        app.create_category("technology", "Technology")
        assert [c.slug for c in app.categories()] == ["technology"]
    finally:
        app.db.close()


def test_items_have_every_attribute_of_the_design(app: WavyBlog) -> None:
    app.register("john_doe", "John@Example.com", "correct-horse-battery", user_id="usr_123456")
    app.create_category("technology", "Technology", category_id="cat_345678")
    app.create_post(
        "john_doe",
        "my-first-post",
        "My First Post",
        category="technology",
        content="# Hello World\nThis is my first post...",
        thumbnail_url="https://example.com/thumb.jpg",
        published=True,
        post_id="post_789012",
    )
    user = raw(app, "USER#john_doe", "METADATA#john_doe")
    assert user is not None
    assert set(user) == {
        "PK",
        "SK",
        "EntityType",
        "UserID",
        "Username",
        "Email",
        "PasswordHash",
        "Role",
        "CreatedAt",
        "UpdatedAt",
    }
    assert user["Email"] == {"S": "john@example.com"}  # emails are kept lower-case: one account per address
    assert user["PasswordHash"]["S"].startswith("$2b$04$")
    assert "correct-horse-battery" not in str(user)
    assert user["CreatedAt"] == {"S": "2024-01-15T10:31:00Z"}
    guard = raw(app, "USEREMAIL#john@example.com")
    assert guard is not None and guard["Username"] == {"S": "john_doe"}
    assert set(guard) == {"PK", "SK", "Username", "owner"}  # no EntityType: guards stay out of GSI3
    post = raw(app, "POST#my-first-post", "METADATA#my-first-post")
    assert post is not None
    assert set(post) == {
        "PK",
        "SK",
        "EntityType",
        "GSI1PK",
        "GSI1SK",
        "GSI2PK",
        "GSI2SK",
        "PostID",
        "Slug",
        "Title",
        "Content",
        "AuthorID",
        "Category",
        "ThumbnailURL",
        "IsPublished",
        "CreatedAt",
        "UpdatedAt",
    }
    assert post["GSI1PK"] == {"S": "POSTS_BY_USER#john_doe"}
    assert post["GSI2PK"] == {"S": "POSTS_BY_CAT#technology"}
    assert post["GSI1SK"] == post["GSI2SK"] == {"S": "POST#" + post["CreatedAt"]["S"]}
    assert post["IsPublished"] == {"BOOL": True}
    assert set(raw(app, "SLUG#my-first-post") or {}) == {"PK", "SK", "owner"}
    category = raw(app, "CATEGORY#technology", "METADATA#technology")
    assert category is not None
    assert set(category) == {"PK", "SK", "EntityType", "CategoryID", "Slug", "Name", "CreatedAt", "UpdatedAt"}


# -- the nine access patterns -------------------------------------------------------------------------------


def test_users_by_username_by_email_and_all(sample: WavyBlog) -> None:
    john = sample.user("John_Doe")  # 1
    assert john is not None and john.user_id == "usr_000001" and john.role == "user"
    assert sample.user("nobody") is None
    by_email = sample.user_by_email("JANE@example.com")  # 2
    assert by_email is not None and by_email.username == "jane_smith"
    assert sample.user_by_email("nobody@example.com") is None
    first = sample.users(size=2)  # 3
    assert [u.username for u in first] == ["ada_admin", "jane_smith"]
    rest = sample.users(size=2, cursor=first.cursor)
    assert [u.username for u in rest] == ["john_doe"] and rest.cursor is None


def test_post_by_slug_and_drafts(sample: WavyBlog) -> None:
    john, jane, ada = (sample.user(n) for n in ("john_doe", "jane_smith", "ada_admin"))
    post = sample.post("my-first-post")  # 4
    assert post is not None and post.title == "My First Post" and post.category == "technology"
    assert sample.post("no-such-post") is None
    assert sample.post("ideas-for-next-month") is None  # a draft: hidden from visitors
    assert sample.post("ideas-for-next-month", viewer=jane) is None  # and from other users
    assert sample.post("ideas-for-next-month", viewer=john) is not None  # its author sees it
    assert sample.post("ideas-for-next-month", viewer=ada) is not None  # so do admins


def test_all_posts_hide_drafts_from_the_public(sample: WavyBlog) -> None:
    john, ada = sample.user("john_doe"), sample.user("ada_admin")
    public = sample.posts(size=100)  # 5
    assert slugs(public) == [
        "dynamodb-single-table",
        "kyoto-on-foot",
        "lisbon-in-three-days",
        "my-first-post",
        "rust-for-pythonistas",
        "sourdough-basics",
    ]
    assert "ideas-for-next-month" in slugs(sample.posts(viewer=john, size=100))
    assert "tapas-guide" not in slugs(sample.posts(viewer=john, size=100))
    assert len(sample.posts(viewer=ada, size=100)) == 8
    # A page still holds `size` posts however many drafts the filter skips.
    first = sample.posts(size=3)
    second = sample.posts(size=3, cursor=first.cursor)
    assert slugs(first) + slugs(second) == slugs(public)


def test_posts_by_user_newest_first_with_cursors(sample: WavyBlog) -> None:
    john = sample.user("john_doe")
    pages, cursor = [], None
    while True:  # 6
        page = sample.posts_by_user("john_doe", size=2, cursor=cursor)
        pages.append(slugs(page))
        cursor = page.cursor
        if cursor is None:
            break
    assert pages == [["kyoto-on-foot", "rust-for-pythonistas"], ["my-first-post"]]
    own = sample.posts_by_user("john_doe", viewer=john, size=2)
    assert slugs(own) == ["ideas-for-next-month", "kyoto-on-foot"]
    assert slugs(sample.posts_by_user("john_doe", viewer=john, size=2, cursor=own.cursor)) == [
        "rust-for-pythonistas",
        "my-first-post",
    ]
    created = [p.created_at for p in sample.posts_by_user("jane_smith", viewer=sample.user("ada_admin"))]
    assert created == sorted(created, reverse=True) and len(created) == 4
    first = sample.posts_by_user("john_doe", size=1)
    with pytest.raises(InvalidCursor):
        sample.posts_by_user("jane_smith", size=1, cursor=first.cursor)  # another user's listing
    with pytest.raises(InvalidCursor):
        sample.posts_by_user("john_doe", size=1, cursor=first.cursor[:-2] + "xx")
    assert slugs(sample.posts_by_user("nobody")) == []


def test_posts_by_category_newest_first_with_cursors(sample: WavyBlog) -> None:
    john = sample.user("john_doe")
    first = sample.posts_by_category("technology", size=2)  # 7
    assert slugs(first) == ["dynamodb-single-table", "rust-for-pythonistas"]
    second = sample.posts_by_category("technology", size=2, cursor=first.cursor)
    assert slugs(second) == ["my-first-post"] and second.cursor is None
    assert slugs(sample.posts_by_category("technology", viewer=john)) == [
        "ideas-for-next-month",
        "dynamodb-single-table",
        "rust-for-pythonistas",
        "my-first-post",
    ]
    assert slugs(sample.posts_by_category("travel")) == ["kyoto-on-foot", "lisbon-in-three-days"]


def test_categories_and_slug_checks(sample: WavyBlog) -> None:
    assert [c.slug for c in sample.categories()] == ["food", "technology", "travel"]  # 8
    assert sample.slug_available("my-first-post") is False  # 9
    assert sample.slug_available("tapas-guide") is False  # drafts hold their slug too
    assert sample.slug_available("a-new-post") is True
    with pytest.raises(CategoryExists):
        sample.create_category("food", "Food again")
    assert sample.rename_category("food", "Food & Drink").name == "Food & Drink"
    with pytest.raises(UnknownCategory):
        sample.rename_category("nope", "Nope")


# -- uniqueness: guard items in transactions ----------------------------------------------------------------


def test_duplicate_username_or_email_writes_nothing(sample: WavyBlog) -> None:
    before = every_item(sample)
    with pytest.raises(UsernameTaken) as taken:
        sample.register("john_doe", "other@example.com", "a-long-password")
    assert isinstance(taken.value.__cause__, AlreadyExists)
    assert taken.value.__cause__.code == "TransactionCanceledException"
    with pytest.raises(EmailTaken) as caught:
        sample.register("johnny", "JOHN@example.com", "a-long-password")
    assert isinstance(caught.value.__cause__, UniqueViolation)
    assert caught.value.__cause__.field == "email"
    assert every_item(sample) == before
    assert raw(sample, "USER#johnny", "METADATA#johnny") is None
    assert raw(sample, "USEREMAIL#other@example.com") is None


def test_changing_the_email_swaps_the_guards(sample: WavyBlog) -> None:
    changed = sample.change_email("john_doe", "jd@example.com")
    assert changed.email == "jd@example.com"
    assert sample.user_by_email("john@example.com") is None
    assert raw(sample, "USEREMAIL#john@example.com") is None
    assert (raw(sample, "USEREMAIL#jd@example.com") or {})["Username"] == {"S": "john_doe"}
    assert sample.user_by_email("jd@example.com").username == "john_doe"  # type: ignore[union-attr]
    sample.register("johnny", "john@example.com", "a-long-password")  # the old address is free
    with pytest.raises(EmailTaken):
        sample.change_email("johnny", "jane@example.com")
    assert sample.user("johnny").email == "john@example.com"  # type: ignore[union-attr]
    assert raw(sample, "USEREMAIL#john@example.com") is not None
    with pytest.raises(UnknownUser) as missing:
        sample.change_email("nobody", "nobody@example.com")
    assert isinstance(missing.value.__cause__, NotFound)


def test_deleting_a_user_releases_the_email(sample: WavyBlog) -> None:
    with pytest.raises(StillInUse):
        sample.delete_user("john_doe")  # posts are keyed by username
    sample.delete_user("ada_admin")
    assert sample.user("ada_admin") is None
    assert raw(sample, "USEREMAIL#ada@example.com") is None
    assert [u.username for u in sample.users()] == ["jane_smith", "john_doe"]
    sample.register("ada2", "ada@example.com", "a-long-password")


def test_duplicate_slug_writes_nothing(sample: WavyBlog) -> None:
    before = every_item(sample)
    with pytest.raises(SlugTaken) as taken:
        sample.create_post("jane_smith", "my-first-post", "Mine", category="travel")
    assert isinstance(taken.value.__cause__, AlreadyExists)
    with pytest.raises(UnknownCategory):
        sample.create_post("jane_smith", "new-post", "New", category="gardening")
    with pytest.raises(UnknownUser):
        sample.create_post("nobody", "new-post", "New", category="travel")
    assert every_item(sample) == before
    assert sample.slug_available("new-post") is True
    assert sample.post("my-first-post").author_id == "john_doe"  # type: ignore[union-attr]


def test_renaming_a_slug_swaps_the_guards(sample: WavyBlog) -> None:
    old = sample.post("kyoto-on-foot")
    assert old is not None
    renamed = sample.rename_post("kyoto-on-foot", "kyoto-walks")
    assert (renamed.slug, renamed.post_id, renamed.created_at) == ("kyoto-walks", old.post_id, old.created_at)
    assert sample.post("kyoto-on-foot") is None
    assert sample.slug_available("kyoto-on-foot") is True
    assert sample.slug_available("kyoto-walks") is False
    assert slugs(sample.posts_by_user("john_doe"))[0] == "kyoto-walks"  # same place in GSI1
    assert "kyoto-walks" in slugs(sample.posts_by_category("travel"))
    before = every_item(sample)
    with pytest.raises(SlugTaken):
        sample.rename_post("kyoto-walks", "my-first-post")
    assert every_item(sample) == before and sample.post("kyoto-walks") is not None
    with pytest.raises(UnknownPost):
        sample.rename_post("no-such-post", "whatever")
    assert sample.rename_post("kyoto-walks", "kyoto-walks").slug == "kyoto-walks"


def test_renaming_refuses_a_post_edited_meanwhile(sample: WavyBlog, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = sample.post("kyoto-on-foot")
    sample.edit_post("kyoto-on-foot", title="Kyoto, Walking")  # a later UpdatedAt
    real_get = sample.db.get
    monkeypatch.setattr(
        sample.db, "get", lambda *a, **k: stale if k.get("slug") == "kyoto-on-foot" else real_get(*a, **k)
    )
    with pytest.raises(EditConflict):
        sample.rename_post("kyoto-on-foot", "kyoto-walks")
    monkeypatch.undo()
    assert sample.post("kyoto-on-foot").title == "Kyoto, Walking"  # type: ignore[union-attr]
    assert sample.slug_available("kyoto-walks") is True


def test_deleting_a_post_removes_its_guard(sample: WavyBlog) -> None:
    sample.delete_post("my-first-post")
    assert sample.post("my-first-post") is None
    assert sample.slug_available("my-first-post") is True
    sample.delete_post("my-first-post")  # deleting again is a no-op
    with pytest.raises(StillInUse):
        sample.delete_category("travel")
    sample.create_category("gardening", "Gardening")
    sample.delete_category("gardening")
    assert [c.slug for c in sample.categories()] == ["food", "technology", "travel"]


# -- editing and publishing ---------------------------------------------------------------------------------


def test_edit_publish_and_move_category(sample: WavyBlog) -> None:
    edited = sample.edit_post("my-first-post", category="travel", thumbnail_url=None, title="Moved")
    assert (edited.category, edited.thumbnail_url, edited.title) == ("travel", None, "Moved")
    assert "ThumbnailURL" not in (raw(sample, "POST#my-first-post", "METADATA#my-first-post") or {})
    assert "my-first-post" in slugs(sample.posts_by_category("travel"))
    assert "my-first-post" not in slugs(sample.posts_by_category("technology"))
    with pytest.raises(UnknownCategory):
        sample.edit_post("my-first-post", category="gardening")
    assert sample.post("my-first-post").category == "travel"  # type: ignore[union-attr]
    with pytest.raises(UnknownPost):
        sample.edit_post("no-such-post", title="x")
    with pytest.raises(InvalidInput):
        sample.edit_post("my-first-post", author_id="jane_smith")
    assert sample.publish("ideas-for-next-month").is_published is True
    assert "ideas-for-next-month" in slugs(sample.posts_by_user("john_doe"))
    sample.publish("ideas-for-next-month", published=False)
    assert sample.post("ideas-for-next-month") is None
    with pytest.raises(UnknownPost):
        sample.publish("no-such-post")


def test_invalid_input_is_refused_before_any_request(app: WavyBlog) -> None:
    for call in (
        lambda: app.register("john#doe", "j@example.com", "a-long-password"),
        lambda: app.register("john", "j#x@example.com", "a-long-password"),
        lambda: app.register("john", "not-an-email", "a-long-password"),
        lambda: app.register("john", "j@example.com", "a-long-password", role="root"),
        lambda: app.create_category("Bad Slug", "Bad"),
        lambda: app.create_post("john", "ok-slug", "  ", category="tech"),
        lambda: app.create_post("john", "ok-slug", "T", category="tech", thumbnail_url="javascript:x"),
        lambda: app.posts(size=0),
        lambda: app.slug_available("SLUG#x"),
    ):
        with pytest.raises(InvalidInput):
            call()
    with pytest.raises(WeakPassword):
        app.register("john", "j@example.com", "short")
    with pytest.raises(WeakPassword):
        app.register("john", "j@example.com", "é" * 40)  # 80 bytes: past bcrypt's 72
    assert app.users().items == []


# -- passwords ----------------------------------------------------------------------------------------------


def test_passwords_are_bcrypt_hashes_with_verify(sample: WavyBlog) -> None:
    john = sample.authenticate("john_doe", "correct-horse-battery")
    assert john is not None and john.username == "john_doe"
    assert sample.authenticate("JOHN@example.com", "correct-horse-battery") is not None
    assert sample.authenticate("john_doe", "wrong-password") is None
    assert sample.authenticate("nobody", "correct-horse-battery") is None
    assert sample.authenticate("not a username!", "x") is None
    with pytest.raises(WrongPassword):
        sample.change_password("john_doe", "wrong-password", "a-new-password")
    sample.change_password("john_doe", "correct-horse-battery", "a-new-password")
    assert sample.authenticate("john_doe", "correct-horse-battery") is None
    assert sample.authenticate("john_doe", "a-new-password") is not None
    with pytest.raises(UnknownUser):
        sample.change_password("nobody", "x", "a-new-password")


def test_weak_hashes_are_upgraded_at_login(sample: WavyBlog) -> None:
    # A hash from the original app: "$2a$" (Go's bcrypt) at a lower cost than configured.
    legacy = bcrypt.hashpw(b"correct-horse-battery", bcrypt.gensalt(4)).decode().replace("$2b$", "$2a$", 1)
    sample.db.update(User.key(username="john_doe"), password_hash=legacy)
    stronger = WavyBlog(sample.db, hasher=PasswordHasher(5))
    user = stronger.authenticate("john_doe", "correct-horse-battery")
    assert user is not None and user.password_hash.startswith("$2b$05$")
    assert stronger.hasher.needs_rehash(legacy) and not stronger.hasher.needs_rehash(user.password_hash)
    assert not stronger.hasher.verify("correct-horse-battery", "not-a-hash")
    assert not stronger.hasher.verify("x" * 80, user.password_hash)


def test_user_repr_never_shows_the_hash(sample: WavyBlog) -> None:
    john = sample.user("john_doe")
    assert "$2b$" not in repr(john) and "password_hash" not in repr(john)


def test_users_are_found_by_type_not_by_scan(sample: WavyBlog) -> None:
    calls: list[str] = []
    real = sample.db.call

    def spy(operation: str, params: dict[str, Any]) -> dict[str, Any]:
        calls.append(operation)
        return real(operation, params)

    sample.db.call = spy  # type: ignore[method-assign]
    sample.users()
    sample.posts()
    sample.categories()
    sample.posts_by_user("john_doe")
    sample.posts_by_category("travel")
    sample.user_by_email("john@example.com")
    sample.slug_available("x")
    assert "Scan" not in calls and set(calls) == {"Query", "GetItem"}
