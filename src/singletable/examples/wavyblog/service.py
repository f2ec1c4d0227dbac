"""WavyBlog's service API: accounts, categories and posts over the seed-003 single table.

Every one of the design's nine access patterns is a method here and none of them scans. Writes that the
design guards with separate items (a user's email, a post's slug) run as one transaction with their guard, so
a duplicate raises a clear :mod:`error <singletable.examples.wavyblog.errors>` and writes nothing. Drafts
(``IsPublished = false``) are left out of public listings by a filter; their author and admins see them.
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Callable
from datetime import datetime
from typing import Any

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
from singletable.examples.wavyblog.passwords import PasswordHasher
from singletable.model import (
    DB,
    AlreadyExists,
    Cond,
    ConditionFailed,
    NotFound,
    Page,
    UniqueViolation,
    connect,
    guard_key,
)

USERNAME = re.compile(r"[a-z0-9_]{3,32}")
SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
EMAIL = re.compile(r"[^@\s#]+@[^@\s#]+\.[^@\s#]+")
MAX_SLUG = 100
MAX_TITLE = 200
MAX_CONTENT = 256 * 1024  # the post is copied into three ALL-projection indexes; items stop at 400 KB
MAX_PAGE = 100
ROLES = ("user", "admin")


def random_id(prefix: str) -> str:
    """``usr_``/``post_``/``cat_`` and 16 hex digits: the design's prefixed ids, unguessable."""
    return f"{prefix}_{secrets.token_hex(8)}"


# -- input checks: everything that becomes part of a key is normalised and refused here ------------------


def username_of(value: str) -> str:
    name = value.strip().lower()
    if not USERNAME.fullmatch(name):
        raise InvalidInput(f"a username is 3-32 of a-z, 0-9 and _: {value!r}")
    return name


def email_of(value: str) -> str:
    email = value.strip().lower()
    if len(email) > 254 or not EMAIL.fullmatch(email):
        raise InvalidInput(f"not an email address this blog accepts: {value!r}")
    return email


def slug_of(value: str) -> str:
    slug = value.strip().lower()
    if len(slug) > MAX_SLUG or not SLUG.fullmatch(slug):
        raise InvalidInput(f"a slug is words of a-z and 0-9 joined by single hyphens: {value!r}")
    return slug


def title_of(value: str) -> str:
    title = value.strip()
    if not title or len(title) > MAX_TITLE:
        raise InvalidInput(f"a title is 1-{MAX_TITLE} characters")
    return title


def content_of(value: str) -> str:
    if len(value.encode("utf-8")) > MAX_CONTENT:
        raise InvalidInput(f"post content is limited to {MAX_CONTENT} bytes")
    return value


def url_of(value: str | None) -> str | None:
    if value is None:
        return None
    url = value.strip()
    if not url.startswith(("https://", "http://")) or len(url) > 2048:
        raise InvalidInput(f"a thumbnail is an http(s) URL: {value!r}")
    return url


EDITABLE: dict[str, Callable[[Any], Any]] = {
    "title": title_of,
    "content": content_of,
    "category": slug_of,
    "thumbnail_url": url_of,
}


class WavyBlog:
    """The blog's data operations. ``viewer`` arguments are the signed-in user (None: a visitor)."""

    def __init__(
        self,
        db: DB,
        *,
        hasher: PasswordHasher | None = None,
        new_id: Callable[[str], str] = random_id,
    ) -> None:
        self.db = db
        self.hasher = hasher or PasswordHasher()
        self.new_id = new_id

    # -- users ----------------------------------------------------------------------------------------

    def register(
        self, username: str, email: str, password: str, *, role: str = "user", user_id: str | None = None
    ) -> User:
        """A new account: the USER item and its USEREMAIL# guard in one transaction."""
        if role not in ROLES:
            raise InvalidInput(f"role is one of {', '.join(ROLES)}")
        user = User(
            user_id=user_id or self.new_id("usr"),
            username=username_of(username),
            email=email_of(email),
            password_hash=self.hasher.hash(password),
            role=role,
        )
        try:
            return self.db.create(user)
        except AlreadyExists as error:
            raise UsernameTaken(f"username {user.username!r} is taken") from error
        except UniqueViolation as error:
            raise EmailTaken(f"email {user.email!r} belongs to another account") from error

    def user(self, username: str) -> User | None:
        """1. Get user by username: GetItem USER#<username>."""
        return self.db.get(User, username=username_of(username))

    def user_by_email(self, email: str) -> User | None:
        """2. Get user by email: the USEREMAIL# guard item, then the user it names."""
        return self.db.find(User, email=email_of(email))

    def users(self, *, size: int = 25, cursor: str | None = None) -> Page:
        """3. Get all users: GSI3 EntityType = USER, by username."""
        return self.db.page(User.all_users(), size=_size(size), cursor=cursor)

    def authenticate(self, login: str, password: str) -> User | None:
        """The user if ``password`` is theirs (``login`` is a username or an email); upgrades weak hashes."""
        try:
            user = self.user_by_email(login) if "@" in login else self.user(login)
        except InvalidInput:
            user = None
        if not self.hasher.verify(password, user.password_hash if user else None):
            return None
        assert user is not None
        if self.hasher.needs_rehash(user.password_hash):
            user = self.db.update(User.key(username=user.username), password_hash=self.hasher.hash(password))
        return user

    def change_password(self, username: str, current: str, new: str) -> User:
        user = self.user(username)
        if user is None:
            raise UnknownUser(f"no user {username!r}")
        if not self.hasher.verify(current, user.password_hash):
            raise WrongPassword("the current password is wrong")
        return self.db.update(User.key(username=user.username), password_hash=self.hasher.hash(new))

    def change_email(self, username: str, email: str) -> User:
        """Swaps the USEREMAIL# guards atomically: the old address is free once the new one is held."""
        try:
            return self.db.update(User.key(username=username_of(username)), email=email_of(email))
        except NotFound as error:
            raise UnknownUser(f"no user {username!r}") from error
        except UniqueViolation as error:
            raise EmailTaken(f"email {email_of(email)!r} belongs to another account") from error

    def delete_user(self, username: str) -> None:
        """Removes the user and its email guard. Refused while posts carry the username (a new account
        with the same name would otherwise inherit them)."""
        name = username_of(username)
        if self.db.page(Post.by_user(author_id=name), size=1).items:
            raise StillInUse(f"{name} still has posts; delete them first")
        self.db.delete(User, username=name)

    # -- categories -----------------------------------------------------------------------------------

    def create_category(self, slug: str, name: str, *, category_id: str | None = None) -> Category:
        category = Category(
            category_id=category_id or self.new_id("cat"), slug=slug_of(slug), name=title_of(name)
        )
        try:
            return self.db.create(category)
        except AlreadyExists as error:
            raise CategoryExists(f"category {category.slug!r} exists") from error

    def rename_category(self, slug: str, name: str) -> Category:
        """Changes the display name; the slug is in every post's GSI2PK, so it never changes."""
        try:
            return self.db.update(Category.key(slug=slug_of(slug)), name=title_of(name))
        except NotFound as error:
            raise UnknownCategory(f"no category {slug!r}") from error

    def categories(self, *, size: int = 50, cursor: str | None = None) -> Page:
        """8. Get all categories: GSI3 EntityType = CATEGORY, by slug."""
        return self.db.page(Category.all_categories(), size=_size(size), cursor=cursor)

    def delete_category(self, slug: str) -> None:
        category = slug_of(slug)
        if self.db.page(Post.by_category(category), size=1).items:
            raise StillInUse(f"category {category} still has posts")
        self.db.delete(Category, slug=category)

    # -- posts ----------------------------------------------------------------------------------------

    def create_post(
        self,
        author: str,
        slug: str,
        title: str,
        *,
        category: str,
        content: str = "",
        thumbnail_url: str | None = None,
        published: bool = False,
        created_at: datetime | None = None,
        post_id: str | None = None,
    ) -> Post:
        """The POST item and its SLUG# guard in one transaction, which also checks that the author and the
        category exist. ``created_at`` is for imports and sample data; by default it is now."""
        post = Post(
            post_id=post_id or self.new_id("post"),
            slug=slug_of(slug),
            title=title_of(title),
            content=content_of(content),
            author_id=username_of(author),
            category=slug_of(category),
            thumbnail_url=url_of(thumbnail_url),
            is_published=published,
            created_at=created_at,
        )
        try:
            with self.db.transaction() as tx:
                stored = tx.create(post)
                tx.check(User.key(username=post.author_id), User.f.username.exists())
                tx.check(Category.key(slug=post.category), Category.f.slug.exists())
        except (AlreadyExists, UniqueViolation) as error:
            raise SlugTaken(f"slug {post.slug!r} is taken") from error
        except ConditionFailed as error:
            if self.db.get(Category, slug=post.category) is None:
                raise UnknownCategory(f"no category {post.category!r}") from error
            raise UnknownUser(f"no user {post.author_id!r}") from error
        return stored

    def post(self, slug: str, *, viewer: User | None = None) -> Post | None:
        """4. Get post by slug: GetItem POST#<slug>; a draft only for its author and admins."""
        post = self.db.get(Post, slug=slug_of(slug))
        if post is None or post.is_published or _sees_drafts_of(viewer, post.author_id):
            return post
        return None

    def posts(self, *, viewer: User | None = None, size: int = 10, cursor: str | None = None) -> Page:
        """5. Get all posts: GSI3 EntityType = POST, by slug (the index sorts by PK)."""
        return self._page(Post.all_posts(), self._visible(viewer, None), size, cursor)

    def posts_by_user(
        self, username: str, *, viewer: User | None = None, size: int = 10, cursor: str | None = None
    ) -> Page:
        """6. Get posts by user: GSI1 POSTS_BY_USER#<username>, newest first."""
        name = username_of(username)
        return self._page(Post.by_user(author_id=name), self._visible(viewer, name), size, cursor)

    def posts_by_category(
        self, category: str, *, viewer: User | None = None, size: int = 10, cursor: str | None = None
    ) -> Page:
        """7. Get posts by category: GSI2 POSTS_BY_CAT#<category>, newest first."""
        return self._page(Post.by_category(slug_of(category)), self._visible(viewer, None), size, cursor)

    def slug_available(self, slug: str) -> bool:
        """9. Check slug uniqueness: GetItem SLUG#<slug>. Advisory: create_post's transaction decides."""
        key = guard_key(Post.model_entity(), "slug", slug_of(slug))
        found = self.db.call(
            "GetItem",
            {
                "TableName": self.db.table_name,
                "Key": key,
                "ProjectionExpression": "#pk",
                "ExpressionAttributeNames": {"#pk": blog.pk_name},
            },
        )
        return "Item" not in found

    def edit_post(self, slug: str, **changes: Any) -> Post:
        """Title, content, category or thumbnail (None removes it); a new category must exist and moves
        the post in GSI2 in the same request."""
        unknown = sorted(set(changes) - EDITABLE.keys())
        if unknown:
            raise InvalidInput(f"cannot edit {', '.join(unknown)}; editable: {', '.join(EDITABLE)}")
        values = {name: EDITABLE[name](value) for name, value in changes.items()}
        key = Post.key(slug=slug_of(slug))
        try:
            if "category" not in values:
                return self.db.update(key, **values)
            with self.db.transaction() as tx:
                tx.update(key, **values)
                tx.check(Category.key(slug=values["category"]), Category.f.slug.exists())
        except NotFound as error:
            raise UnknownPost(f"no post {slug!r}") from error
        except ConditionFailed as error:
            raise UnknownCategory(f"no category {values['category']!r}") from error
        return self.db.must_get(key)

    def publish(self, slug: str, published: bool = True) -> Post:
        try:
            return self.db.update(Post.key(slug=slug_of(slug)), is_published=published)
        except NotFound as error:
            raise UnknownPost(f"no post {slug!r}") from error

    def rename_post(self, slug: str, new_slug: str) -> Post:
        """A slug is the post's primary key, so renaming writes the post under the new key and deletes the
        old one, swapping the SLUG# guards, all in one transaction. CreatedAt and PostID are kept."""
        old = self.db.get(Post, slug=slug_of(slug), consistent=True)
        if old is None:
            raise UnknownPost(f"no post {slug!r}")
        target = slug_of(new_slug)
        if target == old.slug:
            return old
        try:
            with self.db.transaction() as tx:
                renamed = tx.create(old.model_copy(update={"slug": target}))
                tx.delete(Post, slug=old.slug, condition=Post.f.updated_at == old.updated_at)
        except (AlreadyExists, UniqueViolation) as error:
            raise SlugTaken(f"slug {target!r} is taken") from error
        except ConditionFailed as error:
            raise EditConflict(f"post {old.slug!r} changed while being renamed") from error
        return renamed

    def delete_post(self, slug: str) -> None:
        """Removes the post and its SLUG# guard together; deleting a missing post does nothing."""
        self.db.delete(Post, slug=slug_of(slug))

    # -- helpers --------------------------------------------------------------------------------------

    def _visible(self, viewer: User | None, owner: str | None) -> Cond | None:
        """The filter that keeps drafts out: none for admins and for an author's own listing."""
        if _sees_drafts_of(viewer, owner):
            return None
        published = Post.f.is_published == True  # noqa: E712 - builds a condition, not a comparison
        if viewer is None:
            return published
        return published | (Post.f.author_id == viewer.username)

    def _page(self, query: Any, visible: Cond | None, size: int, cursor: str | None) -> Page:
        if visible is not None:
            query = query.filter(visible)
        return self.db.page(query, size=_size(size), cursor=cursor)


def _sees_drafts_of(viewer: User | None, author: str | None) -> bool:
    return viewer is not None and (viewer.is_admin or (author is not None and viewer.username == author))


def _size(size: int) -> int:
    if not 1 <= size <= MAX_PAGE:
        raise InvalidInput(f"a page holds 1-{MAX_PAGE} items")
    return size


def open_blog(target: Any = None, *, hasher: PasswordHasher | None = None) -> WavyBlog:
    """The blog on ``target``: an endpoint URL (DynamoDB Local, LocalStack's ``http://localhost:4566``), a
    boto3 client, an Engine or a SQLite path. By default ``DYNAMODB_ENDPOINT`` if set, else AWS with the
    usual environment (region, credentials). The table name is ``DYNAMODB_TABLE``, else ``WavyBlog``."""
    if target is None:
        target = os.environ.get("DYNAMODB_ENDPOINT")
    if target is None:
        import boto3

        target = boto3.client("dynamodb")
    return WavyBlog(connect(blog, target), hasher=hasher)
