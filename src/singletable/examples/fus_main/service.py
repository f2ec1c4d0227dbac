"""The site catalog's service layer: what the app's API handlers call, with the design's roles enforced here.

Roles, as the design states them and as decided where it is silent (README.md):

- An **admin** is a signed-in user whose token carries the Cognito group ``admin``; admins may do everything
  except write another user's ratings or comments (nobody may; moderation is not in the design).
- Only admins create or update sites -- or members of a **custom group** whose ``permissions`` grant the
  action (``sites:create``, ``sites:update``). Managing custom groups (create, list, read, add and remove
  members) takes ``groups:manage``.
- Any **signed-in** user writes their own ratings and comments, reads their own ratings and groups.
- Everyone, signed in or not, reads sites, sites by tag, ratings by star value and comments.

A refused action raises :class:`NotAuthorized` (:class:`NotSignedIn` when there is no user) before any write
is sent; bad input raises :class:`InvalidInput` before any request at all.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from singletable.examples.fus_main.design import Comment, Group, Membership, Rating, Site, SiteTag
from singletable.model import DB, AlreadyExists, ConditionFailed, NotFound, Page

ADMIN_ROLE = "admin"


class Permission(StrEnum):
    """Actions a custom group can grant (a group's ``permissions`` list holds these values)."""

    CREATE_SITES = "sites:create"
    UPDATE_SITES = "sites:update"
    MANAGE_GROUPS = "groups:manage"


@dataclass(frozen=True)
class Actor:
    """The signed-in user: the Cognito ``sub`` and the Cognito groups (roles) from the verified token."""

    user_id: str
    roles: frozenset[str] = field(default_factory=frozenset)

    @property
    def is_admin(self) -> bool:
        return ADMIN_ROLE in self.roles


class NotAuthorized(PermissionError):
    """The actor may not do this; ``action`` names what was refused so handlers can answer 403 clearly."""

    def __init__(self, action: str, message: str) -> None:
        super().__init__(message)
        self.action = action


class NotSignedIn(NotAuthorized):
    """The action needs a signed-in user (handlers answer 401)."""


class InvalidInput(ValueError):
    """A value the design does not allow (stars outside 1-5, a tag or group name that cannot be a key)."""


_TAG = re.compile(r"[a-z0-9][a-z0-9+.\-]{0,49}")
_NAME = re.compile(r"[a-z0-9][a-z0-9_\-]{0,62}")
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_\-]{0,63}")
SITE_FIELDS = frozenset({"url", "title", "description", "scraped_content", "tags"})
MAX_TAGS = 20
MAX_NOTE = 2000
MAX_BODY = 4000


def time_ordered_id(db: DB) -> Callable[[str], str]:
    """Ids whose text order is creation order (ms timestamp, then random): ``COMMENT#<id>`` sorts by time."""

    def new_id(kind: str) -> str:
        return f"{int(db.clock().timestamp() * 1000):012x}{secrets.token_hex(4)}"

    return new_id


class SiteCatalog:
    """Sites, ratings, comments and custom groups on the ``fus-main`` table."""

    def __init__(self, db: DB, *, new_id: Callable[[str], str] | None = None) -> None:
        self.db = db
        self.new_id = new_id or time_ordered_id(db)

    # -- authorization ----------------------------------------------------------------------------------

    def permissions(self, actor: Actor | None) -> frozenset[str]:
        """What the actor may do beyond the defaults: everything for admins, else their groups' grants."""
        if actor is None:
            return frozenset()
        if actor.is_admin:
            return frozenset(Permission)
        names = [m.group_name for m in self.db.query(Membership.of_user(user_id=actor.user_id))]
        if not names:
            return frozenset()
        groups = self.db.batch_get([Group.key(name=name) for name in names])
        known = {p.value for p in Permission}
        return frozenset(p for group in groups for p in group.permissions if p in known)

    def _signed_in(self, actor: Actor | None, action: str) -> Actor:
        if actor is None:
            raise NotSignedIn(action, f"sign in to {action}")
        return actor

    def _require(self, actor: Actor | None, permission: Permission) -> Actor:
        actor = self._signed_in(actor, permission.value)
        if actor.is_admin or permission in self.permissions(actor):
            return actor
        raise NotAuthorized(
            permission.value,
            f"user {actor.user_id} may not {permission.value}: it needs the {ADMIN_ROLE} role or "
            f"a custom group granting {permission.value}",
        )

    def _own(self, actor: Actor | None, user_id: str | None, action: str) -> str:
        """The user whose data is written: only ever the actor themself."""
        actor = self._signed_in(actor, action)
        if user_id is not None and user_id != actor.user_id:
            raise NotAuthorized(
                action,
                f"user {actor.user_id} may not {action} for user {user_id}: users write only their own",
            )
        return actor.user_id

    # -- sites ------------------------------------------------------------------------------------------

    def create_site(
        self,
        actor: Actor | None,
        *,
        url: str,
        title: str,
        description: str = "",
        scraped_content: str | None = None,
        tags: Iterable[str] = (),
        site_id: str | None = None,
    ) -> Site:
        """A new catalog entry and one site-tag item per tag, in one transaction."""
        fields = {
            "url": _url(url),
            "title": _text(title, "title", 300),
            "description": description,
            "scraped_content": scraped_content,
            "tags": normalize_tags(tags),
        }
        if site_id is not None:
            _identifier(site_id, "site id")
        self._require(actor, Permission.CREATE_SITES)
        return self.db.create(Site(site_id=site_id or self.new_id("site"), **fields))

    def update_site(self, actor: Actor | None, site_id: str, /, **changes: Any) -> Site:
        """Change some of a site's fields; changed tags rewrite its site-tag items in the same transaction."""
        unknown = set(changes) - SITE_FIELDS
        if unknown or not changes:
            raise InvalidInput(f"update_site takes some of {sorted(SITE_FIELDS)}; got {sorted(changes)}")
        if "tags" in changes:
            changes["tags"] = normalize_tags(changes["tags"] or ())
        if "url" in changes:
            changes["url"] = _url(changes["url"])
        if "title" in changes:
            changes["title"] = _text(changes["title"], "title", 300)
        self._require(actor, Permission.UPDATE_SITES)
        return self.db.update(Site.key(site_id=site_id), **changes)

    def get_site(self, site_id: str) -> Site | None:
        return self.db.get(Site, site_id=site_id)

    def list_sites(self, *, size: int = 25, cursor: str | None = None, newest_first: bool = False) -> Page:
        """All sites in the order they were added (byEntity sorts on ``SITE#<createdAt>#<id>``)."""
        query = Site.all_sites()
        return self.db.page(query.newest_first() if newest_first else query, size=size, cursor=cursor)

    def sites_by_tag(self, tag: str) -> list[Site]:
        """byTag gives the site ids (ordered by id); one BatchGetItem fetches the sites."""
        (tag,) = normalize_tags([tag])
        ids = [item.site_id for item in self.db.query(SiteTag.with_tag(tag=tag))]
        return self.db.batch_get([Site.key(site_id=site_id) for site_id in ids]) if ids else []

    # -- ratings ----------------------------------------------------------------------------------------

    def rate_site(
        self,
        actor: Actor | None,
        site_id: str,
        stars: int,
        note: str | None = None,
        *,
        user_id: str | None = None,
    ) -> Rating:
        """Create or replace the actor's rating; the site must exist (checked in the same transaction)."""
        rating = Rating(
            user_id=self._own(actor, user_id, "rate sites"),
            site_id=site_id,
            stars=validate_stars(stars),
            note=None if note is None else _text(note, "note", MAX_NOTE, empty=True),
        )
        try:
            with self.db.transaction() as tx:
                tx.check(Site.key(site_id=site_id), Site.f.site_id.exists())
                stored = tx.put(rating)
        except ConditionFailed:
            raise NotFound(f"no site {site_id}") from None
        return stored

    def my_rating(self, actor: Actor | None, site_id: str) -> Rating | None:
        user_id = self._signed_in(actor, "read your ratings").user_id
        return self.db.get(Rating, user_id=user_id, site_id=site_id)

    def my_ratings(self, actor: Actor | None) -> list[Rating]:
        """The actor's ratings. Their comments share the ``SITE#`` prefix: read too, dropped by type."""
        user_id = self._signed_in(actor, "read your ratings").user_id
        return list(self.db.query(Rating.mine(user_id=user_id)))

    def ratings_with_stars(self, stars: int) -> list[Rating]:
        return list(self.db.query(Rating.with_stars(stars=validate_stars(stars))))

    # -- comments ---------------------------------------------------------------------------------------

    def add_comment(
        self, actor: Actor | None, site_id: str, body: str, *, user_id: str | None = None
    ) -> Comment:
        comment = Comment(
            user_id=self._own(actor, user_id, "comment"),
            site_id=site_id,
            comment_id=self.new_id("comment"),
            body=_text(body, "body", MAX_BODY),
        )
        try:
            with self.db.transaction() as tx:
                tx.check(Site.key(site_id=site_id), Site.f.site_id.exists())
                stored = tx.create(comment)
        except AlreadyExists:
            raise  # an id collision, not a missing site
        except ConditionFailed:
            raise NotFound(f"no site {site_id}") from None
        return stored

    def edit_comment(
        self,
        actor: Actor | None,
        site_id: str,
        comment_id: str,
        body: str,
        *,
        user_id: str | None = None,
    ) -> Comment:
        owner = self._own(actor, user_id, "edit comments")
        body = _text(body, "body", MAX_BODY)
        return self.db.update(Comment.key(user_id=owner, site_id=site_id, comment_id=comment_id), body=body)

    def user_comments(self, user_id: str, site_id: str) -> list[Comment]:
        """One user's comments on one site, oldest first (the design's own key)."""
        return list(self.db.query(Comment.by_user_on_site(user_id=user_id, site_id=site_id)))

    def comments_for_site(self, site_id: str, *, size: int = 25, cursor: str | None = None) -> Page:
        """Every user's comments on a site, oldest first, through the bySite GSI."""
        return self.db.page(Comment.for_site(site_id=site_id), size=size, cursor=cursor)

    # -- custom groups ----------------------------------------------------------------------------------

    def create_group(
        self, actor: Actor | None, name: str, *, description: str = "", permissions: Iterable[str] = ()
    ) -> Group:
        group = Group(name=_group_name(name), description=description, permissions=_permissions(permissions))
        self._require(actor, Permission.MANAGE_GROUPS)
        return self.db.create(group)

    def get_group(self, actor: Actor | None, name: str) -> Group | None:
        self._require(actor, Permission.MANAGE_GROUPS)
        return self.db.get(Group, name=name)

    def list_groups(self, actor: Actor | None) -> list[Group]:
        self._require(actor, Permission.MANAGE_GROUPS)
        return list(self.db.query(Group.all_groups()))

    def add_member(self, actor: Actor | None, group_name: str, user_id: str) -> Membership:
        """Add a user to an existing group, recording who added them and when."""
        by = self._require(actor, Permission.MANAGE_GROUPS)
        membership = Membership(
            user_id=_identifier(user_id, "user id"),
            group_name=_group_name(group_name),
            added_at=self.db.clock(),
            added_by=by.user_id,
        )
        try:
            with self.db.transaction() as tx:
                tx.check(Group.key(name=group_name), Group.f.name.exists())
                stored = tx.create(membership)
        except AlreadyExists as error:
            raise AlreadyExists(error.code, f"{user_id} is already in {group_name}") from None
        except ConditionFailed:
            raise NotFound(f"no group {group_name}") from None
        return stored

    def remove_member(self, actor: Actor | None, group_name: str, user_id: str) -> None:
        self._require(actor, Permission.MANAGE_GROUPS)
        try:
            self.db.delete(
                Membership, user_id=user_id, group_name=group_name, condition=Membership.f.added_by.exists()
            )
        except ConditionFailed:
            raise NotFound(f"{user_id} is not in {group_name}") from None

    def groups_of(self, actor: Actor | None, user_id: str | None = None) -> list[Membership]:
        """A user's memberships; your own need only a sign-in, anyone else's need ``groups:manage``."""
        me = self._signed_in(actor, "read group memberships")
        if user_id is not None and user_id != me.user_id:
            self._require(actor, Permission.MANAGE_GROUPS)
        return list(self.db.query(Membership.of_user(user_id=user_id or me.user_id)))

    def members(self, actor: Actor | None, group_name: str) -> list[Membership]:
        self._require(actor, Permission.MANAGE_GROUPS)
        return list(self.db.query(Membership.members(group_name=group_name)))


# -- validation -------------------------------------------------------------------------------------------


def validate_stars(stars: Any) -> int:
    """Whole stars from 1 to 5; ``True`` and ``4.5`` are refused rather than coerced."""
    if isinstance(stars, bool) or not isinstance(stars, int) or not 1 <= stars <= 5:
        raise InvalidInput(f"stars must be a whole number from 1 to 5, not {stars!r}")
    return stars


def normalize_tags(tags: Iterable[str]) -> list[str]:
    """Lower-case, trimmed, de-duplicated (two items with one key in a transaction are refused)."""
    if isinstance(tags, str):
        raise InvalidInput("tags is a list of strings, not a string")
    out: list[str] = []
    for raw in tags:
        tag = str(raw).strip().lower()
        if not _TAG.fullmatch(tag):
            raise InvalidInput(f"tag {raw!r}: use 1-50 of a-z, 0-9, '+', '.', '-', starting with a-z or 0-9")
        if tag not in out:
            out.append(tag)
    if len(out) > MAX_TAGS:
        raise InvalidInput(f"at most {MAX_TAGS} tags per site, got {len(out)}")
    return out


def _permissions(permissions: Iterable[str]) -> list[str]:
    known = {p.value for p in Permission}
    out = []
    for permission in permissions:
        if permission not in known:
            raise InvalidInput(f"unknown permission {permission!r}; known: {', '.join(sorted(known))}")
        if permission not in out:
            out.append(str(permission))
    return out


def _group_name(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise InvalidInput(f"group name {name!r}: use 1-63 of a-z, 0-9, '_', '-'")
    return name


def _identifier(value: str, what: str) -> str:
    if not _ID.fullmatch(value):
        raise InvalidInput(f"{what} {value!r}: use 1-64 of A-Z, a-z, 0-9, '_', '-'")
    return value


def _url(url: str) -> str:
    if not re.fullmatch(r"https?://\S+", url):
        raise InvalidInput(f"url {url!r} must be an http(s) URL")
    return url


def _text(value: str, what: str, limit: int, *, empty: bool = False) -> str:
    text = value.strip()
    if (not text and not empty) or len(text) > limit:
        raise InvalidInput(f"{what} must be {'' if empty else '1-'}{limit} characters")
    return text
