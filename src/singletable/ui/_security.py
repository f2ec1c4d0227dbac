"""What keeps the console safe to leave open: a per-session CSRF token, and page cursors nobody can forge.

Every page sets a random session cookie (HttpOnly, SameSite=Strict); every form that writes carries a CSRF
token derived from that session with the console's secret (HMAC-SHA256), and a write is refused unless the
token it posts matches the one its cookie implies (compared in constant time). Another site can neither read
the token nor make the browser send the cookie with its own form.

A page cursor is the trail of ExclusiveStartKeys that led to a page (so "back" works on a Scan, which cannot
be read backwards), signed with :mod:`singletable.model.cursor` and bound to the listing it came from (table,
index, partition, filter): an altered cursor, or one pasted into another listing, is a clear error page.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from typing import Any

from singletable.data import item_from_json, item_to_json
from singletable.model import InvalidCursor
from singletable.model import cursor as cursors

SESSION_COOKIE = "singletable_console"
# ``singletable serve --ui --workers N`` shares one secret between its worker processes through this.
SECRET_ENV = "SINGLETABLE_UI_SECRET"
# How many earlier pages a cursor remembers for "back"; older ones are dropped (the first page stays linked).
TRAIL_PAGES = 30

Item = dict[str, Any]


def console_secret() -> bytes:
    """``SINGLETABLE_UI_SECRET`` when set (several worker processes), else a fresh per-process key."""
    configured = os.environ.get(SECRET_ENV)
    return configured.encode() if configured else secrets.token_bytes(32)


def new_session() -> str:
    return secrets.token_urlsafe(32)


def csrf_token(secret: bytes, session: str) -> str:
    """The token a session's forms carry: it cannot be made without the console's secret."""
    return hmac.new(secret, b"csrf\0" + session.encode(), hashlib.sha256).hexdigest()


def csrf_valid(secret: bytes, session: str | None, given: str | None) -> bool:
    """Whether a posted token belongs to this session (constant-time comparison)."""
    if not session or not given:
        return False
    return hmac.compare_digest(csrf_token(secret, session).encode(), given.encode("utf-8", "replace"))


class BadCursor(ValueError):
    """A page cursor that was altered, or belongs to another listing."""


def encode_trail(secret: bytes, scope: str, trail: list[Item | None]) -> str:
    """A signed cursor for a page: the start keys of the pages that led to it, the last one its own."""
    kept = trail[-TRAIL_PAGES:]
    body = json.dumps([None if key is None else item_to_json(key) for key in kept], separators=(",", ":"))
    return cursors.encode(secret, scope, {"trail": {"S": body}})


def decode_trail(secret: bytes, scope: str, token: str) -> list[Item | None]:
    """The trail :func:`encode_trail` signed for ``scope``; :class:`BadCursor` for anything else."""
    try:
        body = cursors.decode(secret, scope, token)["trail"]["S"]
        trail = json.loads(body)
        if not isinstance(trail, list) or not trail:
            raise ValueError("empty trail")
        return [None if key is None else item_from_json(key) for key in trail]
    except (InvalidCursor, KeyError, TypeError, ValueError):
        raise BadCursor(
            "this page cursor was altered, or belongs to another listing: start again from the first page"
        ) from None
