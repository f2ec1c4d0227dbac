"""The Blog API's data operations, named after what the app does, on the design in :mod:`.design`.

Every write that touches more than one item (a comment and its post's count and the notification it sends,
a subcategory and its parent-child item) is one transaction, so counts and the hierarchy cannot drift from
the items they describe. Reads are one GetItem or one Query per call, except the category tree (one query
per root) and the design's threaded comments (one query per root comment).
"""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from singletable.examples.blog_api.design import (
    Bookmark,
    Category,
    CategoryChild,
    Comment,
    Like,
    Notification,
    NotificationKind,
    Post,
    Reply,
    Role,
    User,
    comment_by_id,
    comments_by_author,
    thread,
)
from singletable.model import DB, AlreadyExists, ConditionFailed, NotFound, Page, VersionConflict

MAX_TRANSACTION_ITEMS = 100
WRITERS = (Role.AUTHOR, Role.ADMIN)


class BlogError(Exception):
    """Base of the Blog API's own refusals (the model's errors pass through unchanged)."""


class InvalidCategory(BlogError, ValueError):
    """The category hierarchy would break: two levels, posts only in subcategories, complete reorders."""


class NotAllowed(BlogError, PermissionError):
    """The user's role does not allow this (only authors and admins write posts)."""


class TooManyItems(BlogError, ValueError):
    """The change needs more than one transaction's 100 items."""


IdMaker = Callable[[str, datetime], str]


def time_ordered_ids() -> IdMaker:
    """Ids that sort by creation time: root comments are listed by ``SK = COMMENT#<commentId>``."""

    def make(prefix: str, at: datetime) -> str:
        at = at.astimezone(UTC)
        return f"{prefix}{at:%Y%m%d%H%M%S}{at.microsecond // 1000:03d}{secrets.token_hex(3)}"

    return make


def sequential_ids() -> IdMaker:
    """``c0001``, ``n0002``...: deterministic, for the demo and tests (created in time order there)."""
    counter = itertools.count(1)
    return lambda prefix, at: f"{prefix}{next(counter):04d}"


def _is_root() -> Any:
    return Category.f.category_id.exists() & Category.f.parent_id.not_exists()


def _is_subcategory() -> Any:
    return Category.f.parent_id.exists()


class BlogService:
    """The Blog API on one table. ``at=`` on writes fixes the time (sample data); otherwise the DB clock."""

    def __init__(self, db: DB, *, ids: IdMaker | None = None) -> None:
        self.db = db
        self.ids = ids or time_ordered_ids()

    def _now(self, at: datetime | None) -> datetime:
        return at or self.db.clock()

    # -- users ---------------------------------------------------------------------------------------------

    def register(
        self,
        cognito_sub: str,
        name: str,
        *,
        role: Role = Role.READER,
        bio: str = "",
        at: datetime | None = None,
    ) -> User:
        return self.db.create(User(cognito_sub=cognito_sub, name=name, role=role, bio=bio, created_at=at))

    def profile(self, cognito_sub: str) -> User | None:
        """Padrão 1: the design's Query on PK and SK is one item, so a GetItem (half the read cost)."""
        return self.db.get(User, cognito_sub=cognito_sub)

    def change_role(self, cognito_sub: str, role: Role) -> User:
        """GSI2PK (``ROLE#<role>``) is rewritten in the same UpdateItem."""
        return self.db.update(User.key(cognito_sub=cognito_sub), role=role)

    def users_with_role(self, role: Role) -> list[User]:
        return list(self.db.query(User.with_role(role=role)))

    # -- categories -----------------------------------------------------------------------------------------

    def add_category(self, category_id: str, name: str, order: int, parent_id: str | None = None) -> Category:
        """A root, or a subcategory of an existing root (checked in the same transaction)."""
        category = Category(category_id=category_id, name=name, order=order, parent_id=parent_id)
        if parent_id is None:
            return self.db.create(category)
        if parent_id == category_id:
            raise InvalidCategory(f"{category_id} cannot be its own parent")
        try:
            with self.db.transaction() as tx:
                created = tx.create(category)
                tx.check(Category.key(category_id=parent_id), _is_root())
        except AlreadyExists:
            raise
        except ConditionFailed:
            raise InvalidCategory(f"{parent_id} is not a root category") from None
        return created

    def root_categories(self) -> list[Category]:
        return list(self.db.query(Category.roots()))

    def subcategories(self, parent_id: str) -> list[Category]:
        return list(self.db.query(Category.subcategories(parent_id=parent_id)))

    def child_links(self, parent_id: str) -> list[CategoryChild]:
        """The parent-child items (``CATEGORY#<parent>`` / ``CHILD#<child>#<order>``): child-id order."""
        return list(self.db.query(CategoryChild.of_parent(parent_id=parent_id).consistent_read()))

    def category_tree(self) -> list[dict[str, Any]]:
        """Roots in order, each with its subcategories in order: one query per root."""
        return [
            {
                "id": root.category_id,
                "name": root.name,
                "children": [
                    {"id": c.category_id, "name": c.name} for c in self.subcategories(root.category_id)
                ],
            }
            for root in self.root_categories()
        ]

    def reorder(self, parent_id: str | None, ordered_ids: list[str]) -> dict[str, int]:
        """Give the roots (``parent_id=None``) or a parent's subcategories the orders 1..n, all or nothing.

        ``ordered_ids`` must list every current sibling once. Each changed category carries its version, so a
        concurrent reorder or move fails the whole transaction (:class:`VersionConflict`) instead of leaving
        a parent-child item under a stale order.
        """
        current = self.root_categories() if parent_id is None else self.subcategories(parent_id)
        by_id = {c.category_id: c for c in current}
        if len(set(ordered_ids)) != len(ordered_ids) or set(ordered_ids) != set(by_id):
            raise InvalidCategory(f"reorder must list each of {sorted(by_id)} once, got {ordered_ids}")
        changed = {cid: n for n, cid in enumerate(ordered_ids, 1) if by_id[cid].order != n}
        per_item = 1 if parent_id is None else 3  # the category, and its child item's delete and put
        if len(changed) * per_item > MAX_TRANSACTION_ITEMS:
            raise TooManyItems(f"reordering {len(changed)} categories needs more than one transaction")
        with self.db.transaction() as tx:
            for cid, order in changed.items():
                tx.update(by_id[cid], order=order)
        return {cid: n for n, cid in enumerate(ordered_ids, 1)}

    def move_subcategory(self, category_id: str, new_parent_id: str, order: int | None = None) -> Category:
        """Re-parent a subcategory (last among its new siblings unless ``order`` is given).

        One transaction updates the category (GSI1PK and GSI1SK), deletes the old parent-child item, puts
        the new one and checks the new parent is a root; the version check catches a concurrent change.
        """
        sub = self.db.get(Category, category_id=category_id, consistent=True)
        if sub is None:
            raise NotFound(f"no category {category_id}")
        if sub.parent_id is None:
            raise InvalidCategory(f"{category_id} is a root category; only subcategories move")
        if new_parent_id in (category_id, sub.parent_id):
            raise InvalidCategory(f"{category_id} cannot move under {new_parent_id}")
        if order is None:
            order = max((c.order for c in self.subcategories(new_parent_id)), default=0) + 1
        try:
            with self.db.transaction() as tx:
                tx.update(sub, parent_id=new_parent_id, order=order)
                tx.check(Category.key(category_id=new_parent_id), _is_root())
        except VersionConflict:
            raise
        except ConditionFailed:
            raise InvalidCategory(f"{new_parent_id} is not a root category") from None
        return self.db.must_get(Category, category_id=category_id, consistent=True)

    # -- posts ---------------------------------------------------------------------------------------------

    def write_post(
        self,
        author_id: str,
        title: str,
        body: str,
        subcategory_id: str,
        *,
        post_id: str | None = None,
        publish: bool = True,
        at: datetime | None = None,
    ) -> Post:
        """A post (published now, or a draft), by an author or admin, in an existing subcategory."""
        now = self._now(at)
        post = Post(
            post_id=post_id or self.ids("p", now),
            title=title,
            body=body,
            subcategory_id=subcategory_id,
            author_id=author_id,
            published_at=now if publish else None,
            created_at=now,
        )
        try:
            with self.db.transaction() as tx:
                created = tx.create(post)
                tx.check(Category.key(category_id=subcategory_id), _is_subcategory())
                tx.check(User.key(cognito_sub=author_id), User.f.role.is_in(list(WRITERS)))
        except AlreadyExists:
            raise
        except ConditionFailed:
            # Only on failure: find out which check it was, for a precise error.
            category = self.db.get(Category, category_id=subcategory_id, consistent=True)
            if category is None or category.parent_id is None:
                raise InvalidCategory(f"posts go in a subcategory; {subcategory_id} is not one") from None
            raise NotAllowed(f"{author_id} is not an author") from None
        return created

    def publish(self, post_id: str, *, at: datetime | None = None) -> Post:
        """A draft enters both GSIs (its GSI1SK and GSI2SK are written in the same UpdateItem)."""
        try:
            return self.db.update(
                Post.key(post_id=post_id),
                published_at=self._now(at),
                condition=Post.f.published_at.not_exists(),
            )
        except ConditionFailed:
            raise BlogError(f"post {post_id} is already published") from None

    def post(self, post_id: str) -> Post | None:
        return self.db.get(Post, post_id=post_id)

    def posts_in_category(self, subcategory_id: str, *, size: int = 10, cursor: str | None = None) -> Page:
        """Padrão 2: newest first, ``size`` a page (the design's Limit 10), ``begins_with(GSI1SK, POST#)``."""
        return self.db.page(Post.in_category(subcategory_id=subcategory_id), size=size, cursor=cursor)

    def posts_by_author(self, author_id: str, *, size: int = 10, cursor: str | None = None) -> Page:
        """Padrão 3: ``begins_with(GSI2SK, POST#)`` keeps the author's comments and likes out."""
        return self.db.page(Post.by_author(author_id=author_id), size=size, cursor=cursor)

    def _post(self, post_id: str) -> Post:
        return self.db.must_get(Post, post_id=post_id)

    # -- comments ------------------------------------------------------------------------------------------

    def _notify(
        self,
        tx: Any,
        to: str,
        kind: NotificationKind,
        actor: str,
        post_id: str,
        comment_id: str | None,
        now: datetime,
    ) -> None:
        if to != actor:  # nobody is notified of their own activity
            tx.create(
                Notification(
                    user_id=to,
                    notification_id=self.ids("n", now),
                    kind=kind,
                    actor_id=actor,
                    post_id=post_id,
                    comment_id=comment_id,
                    created_at=now,
                )
            )

    def comment(self, post_id: str, author_id: str, body: str, *, at: datetime | None = None) -> Comment:
        """A root comment; the post's commentCount and the post author's notification go with it."""
        post, now = self._post(post_id), self._now(at)
        comment = Comment(
            post_id=post_id, comment_id=self.ids("c", now), author_id=author_id, body=body, created_at=now
        )
        with self.db.transaction() as tx:
            created = tx.create(comment)
            tx.update(Post.key(post_id=post_id), Post.f.comment_count.add(1))
            self._notify(
                tx, post.author_id, NotificationKind.COMMENT, author_id, post_id, comment.comment_id, now
            )
        return created

    def reply(
        self, post_id: str, comment_id: str, author_id: str, body: str, *, at: datetime | None = None
    ) -> Reply:
        """A reply to a root comment (replies are one level deep, as the design shows)."""
        parent = self.db.get(Comment, post_id=post_id, comment_id=comment_id)
        if parent is None:
            raise NotFound(f"no root comment {comment_id} on post {post_id} (replies are one level deep)")
        now = self._now(at)
        reply = Reply(
            post_id=post_id,
            parent_id=comment_id,
            reply_id=self.ids("r", now),
            author_id=author_id,
            body=body,
            created_at=now,
        )
        with self.db.transaction() as tx:
            created = tx.create(reply)
            tx.check(parent.key(), Comment.f.comment_id.exists())
            tx.update(Post.key(post_id=post_id), Post.f.comment_count.add(1))
            self._notify(
                tx, parent.author_id, NotificationKind.REPLY, author_id, post_id, reply.reply_id, now
            )
        return created

    def root_comments(self, post_id: str) -> list[Comment]:
        """Padrão 4, first query. ``begins_with(SK, COMMENT#)`` also reads the replies; they are skipped."""
        return list(self.db.query(Comment.of_post(post_id=post_id)))

    def replies(self, post_id: str, comment_id: str) -> list[Reply]:
        """Padrão 4, second query: ``begins_with(SK, COMMENT#<commentId>#)``."""
        return list(self.db.query(Reply.to_comment(post_id=post_id, parent_id=comment_id)))

    def threaded_comments(self, post_id: str) -> list[Comment | Reply]:
        """Padrão 4 as the design runs it: the root comments, then one query per root for its replies."""
        out: list[Comment | Reply] = []
        for root in self.root_comments(post_id):
            out.append(root)
            out.extend(self.replies(post_id, root.comment_id))
        return out

    def thread(self, post_id: str) -> list[Comment | Reply]:
        """The same thread in one query: the sort key already puts each root's replies right after it."""
        return list(self.db.collect(thread(post_id=post_id)))

    def comments_by(self, author_id: str, *, size: int = 20, cursor: str | None = None) -> Page:
        """A user's comments and replies, newest first (GSI2, ``begins_with(GSI2SK, COMMENT#)``)."""
        return self.db.page(comments_by_author(author_id=author_id).newest_first(), size=size, cursor=cursor)

    def find_comment(self, comment_id: str) -> Comment | Reply | None:
        """A comment or reply by id alone (GSI1 ``COMMENT#<id>``, eventually consistent)."""
        return next(iter(self.db.collect(comment_by_id(comment_id=comment_id))), None)

    def delete_comment(self, comment_id: str) -> int:
        """Delete a comment (with the replies it has) or a reply; returns how many items went.

        commentCount drops by the same number in the same transaction. A reply written between listing the
        replies and the transaction would stay behind (and keep its count); the window is one round trip.
        """
        found = self.find_comment(comment_id)
        if found is None:
            raise NotFound(f"no comment {comment_id}")
        doomed: list[Comment | Reply] = [found]
        if isinstance(found, Comment):
            doomed += self.replies(found.post_id, found.comment_id)
        if len(doomed) + 1 > MAX_TRANSACTION_ITEMS:
            raise TooManyItems(f"comment {comment_id} has {len(doomed) - 1} replies; delete some first")
        with self.db.transaction() as tx:
            for item in doomed:
                tx.delete(item.key(), condition=type(item).f.post_id.exists())
            tx.update(Post.key(post_id=found.post_id), Post.f.comment_count.add(-len(doomed)))
        return len(doomed)

    # -- likes ---------------------------------------------------------------------------------------------

    def like(self, post_id: str, user_id: str, *, at: datetime | None = None) -> bool:
        """Like a post; False if this user already likes it (then nothing changes)."""
        post, now = self._post(post_id), self._now(at)
        try:
            with self.db.transaction() as tx:
                tx.create(
                    Like(post_id=post_id, user_id=user_id, post_author_id=post.author_id, created_at=now)
                )
                tx.update(Post.key(post_id=post_id), Post.f.like_count.add(1))
                self._notify(tx, post.author_id, NotificationKind.LIKE, user_id, post_id, None, now)
        except AlreadyExists:
            return False
        return True

    def unlike(self, post_id: str, user_id: str) -> bool:
        """False if the user did not like the post (then nothing changes)."""
        try:
            with self.db.transaction() as tx:
                tx.delete(Like, post_id=post_id, user_id=user_id, condition=Like.f.user_id.exists())
                tx.update(Post.key(post_id=post_id), Post.f.like_count.add(-1))
        except ConditionFailed:
            return False
        return True

    def has_liked(self, post_id: str, user_id: str) -> bool:
        """One strongly consistent GetItem: the like's key is ``POST#<postId>`` / ``LIKE#<userId>``."""
        return self.db.get(Like, post_id=post_id, user_id=user_id, consistent=True) is not None

    def like_count(self, post_id: str) -> int:
        return self._post(post_id).like_count

    def likes_received(self, author_id: str, *, size: int = 20, cursor: str | None = None) -> Page:
        return self.db.page(Like.received_by(post_author_id=author_id), size=size, cursor=cursor)

    # -- bookmarks -----------------------------------------------------------------------------------------

    def bookmark(self, user_id: str, post_id: str, *, at: datetime | None = None) -> bool:
        """Bookmark an existing post; False if already bookmarked."""
        try:
            with self.db.transaction() as tx:
                tx.create(Bookmark(user_id=user_id, post_id=post_id, created_at=self._now(at)))
                tx.check(Post.key(post_id=post_id), Post.f.post_id.exists())
        except AlreadyExists:
            return False
        except ConditionFailed:
            raise NotFound(f"no post {post_id}") from None
        return True

    def remove_bookmark(self, user_id: str, post_id: str) -> bool:
        try:
            self.db.delete(Bookmark, user_id=user_id, post_id=post_id, condition=Bookmark.f.post_id.exists())
        except ConditionFailed:
            return False
        return True

    def my_bookmarks(self, user_id: str, *, size: int = 20, cursor: str | None = None) -> Page:
        return self.db.page(Bookmark.of_user(user_id=user_id), size=size, cursor=cursor)

    def bookmarked_by(self, post_id: str) -> list[Bookmark]:
        return list(self.db.query(Bookmark.of_post(post_id=post_id)))

    # -- notifications -------------------------------------------------------------------------------------

    def notifications(self, user_id: str, *, size: int = 20, cursor: str | None = None) -> Page:
        return self.db.page(Notification.latest(user_id=user_id), size=size, cursor=cursor)

    def mark_read(self, user_id: str, notification_id: str) -> Notification:
        """NotFound if there is no such notification (the update never creates one)."""
        return self.db.update(Notification.key(user_id=user_id, notification_id=notification_id), read=True)
