"""Opaque, signed pagination cursors.

A cursor is the key of the last entity handed to the caller, so "limit" can mean entities returned rather
than items read. It is signed with HMAC-SHA256 and bound to the query it came from: a client that edits it
(to read another partition) or replays it on another query gets :class:`InvalidCursor`, not someone
else's data. URL-safe base64, no padding, so it can sit in a query string.

``db.page()`` uses it for every pattern. It is public (``from singletable.model import cursor``) for pages an
application assembles itself -- hustlehub's newest listings merged from several shards: ``encode`` a key
under a scope naming the query, ``decode`` it back, with the same secret.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
from typing import Any

from singletable.model._errors import InvalidCursor

__all__ = ["decode", "default_secret", "encode"]

_TAG = 16


def default_secret() -> bytes:
    """``SINGLETABLE_CURSOR_SECRET`` if set; else a per-process key (cursors then die with the process)."""
    configured = os.environ.get("SINGLETABLE_CURSOR_SECRET")
    return configured.encode() if configured else secrets.token_bytes(32)


def _plain(key: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for name, av in key.items():
        ((kind, value),) = av.items()
        out[name] = {"b": base64.b64encode(value).decode()} if kind == "B" else {kind.lower(): value}
    return out


def _typed(data: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for name, av in data.items():
        ((kind, value),) = av.items()
        out[name] = {"B": base64.b64decode(value)} if kind == "b" else {kind.upper(): value}
    return out


def encode(secret: bytes, scope: str, key: dict[str, Any]) -> str:
    """A signed cursor for ``key`` (AttributeValues, usually a LastEvaluatedKey) bound to ``scope``."""
    body = json.dumps(_plain(key), separators=(",", ":"), sort_keys=True).encode()
    tag = hmac.new(secret, scope.encode() + b"\0" + body, hashlib.sha256).digest()[:_TAG]
    return base64.urlsafe_b64encode(tag + body).rstrip(b"=").decode()


def decode(secret: bytes, scope: str, cursor: str) -> dict[str, Any]:
    """The key ``encode`` signed; :class:`InvalidCursor` if the cursor was altered or has another scope."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
    except (ValueError, TypeError) as error:
        raise InvalidCursor("the cursor is not one this application issued") from error
    tag, body = raw[:_TAG], raw[_TAG:]
    expected = hmac.new(secret, scope.encode() + b"\0" + body, hashlib.sha256).digest()[:_TAG]
    if len(tag) != _TAG or not hmac.compare_digest(tag, expected):
        raise InvalidCursor("the cursor was altered, or belongs to another query or key")
    try:
        return _typed(json.loads(body))
    except (ValueError, TypeError, AttributeError) as error:
        raise InvalidCursor("the cursor is malformed") from error
