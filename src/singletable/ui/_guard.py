"""What the console lets in, decided before any page, route or static file runs: the Host a request names,
where an unsafe request comes from, and how large its body may grow.

**Host (DNS rebinding).** A page on ``evil.example`` can have its name re-pointed at 127.0.0.1; the browser
then treats the console as that page's own origin, reads its CSRF token and posts with it. The request still
says ``Host: evil.example``: the console answers exactly the Host values ``singletable serve`` answers --
loopback names and literals, the address it listens on, the names given with ``--allow-host`` -- by the
same :class:`~singletable._access.AccessPolicy`, and refuses anything else with 400 in the same words.

**Origin.** A POST (any method but GET, HEAD, OPTIONS) whose ``Origin`` (or, without one, ``Referer``) is not
the console's own ``scheme://host:port`` is refused with 403, even with a valid CSRF token: a second lock
beside the token, against other sites and other local servers (``localhost:3000`` is same-site, not
same-origin). Both sides are compared in the canonical form :mod:`singletable._access` gives an origin.

**Body size.** A body is counted as it arrives, whether it declares its ``Content-Length`` or comes chunked:
a declared length over the limit is refused (413) before a byte of it is read, and a chunked one the moment
it passes the limit (:class:`BodyTooLarge` from ``receive``). A response sent before the body was read to
its end closes the connection, so the server never reads (or buffers) the rest.
"""

from __future__ import annotations

import html
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

from singletable._access import AccessPolicy, host_refusal, request_origin, scope_peer, shown, url_origin

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# A form holds at most one item (DynamoDB's limit is 400 KB; more as JSON text, URL-encoded) and a few fields.
MAX_BODY_BYTES = 4 * 1024 * 1024
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
PLAIN_HEADERS = [
    (b"content-type", b"text/html; charset=utf-8"),
    (b"content-security-policy", b"default-src 'none'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
]


class BodyTooLarge(Exception):
    """A request body passed :data:`MAX_BODY_BYTES` while it was being read (not a ValueError: no form
    handler may take it for a bad value)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the request body is larger than {limit} bytes")
        self.limit = limit


@dataclass(slots=True)
class _Body:
    """How much of one request's body has arrived, and whether all of it has."""

    pending: bool  # a body was announced and its end has not been read
    received: int = 0


class RequestGuard:
    """The console's outermost ASGI layer: Host, Origin and body size, checked before the app sees a
    request (see the module docstring). Refusals are small self-contained pages (no template, no app)."""

    def __init__(self, app: ASGIApp, policy: AccessPolicy, *, max_body: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.policy = policy
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        hosts = headers.get(b"host", [])
        host = hosts[0] if hosts else None
        if len(hosts) > 1 or not self.policy.allows_host(host, scope_peer(scope)):
            await _refuse(send, 400, host_refusal(host, several=len(hosts) > 1))
            return
        method = scope["method"]
        if method not in SAFE_METHODS and not _same_origin(headers, host, scope):
            await _refuse(send, 403, _origin_message(headers))
            return
        declared = _content_length(headers)
        if declared is not None and declared > self.max_body:
            await _refuse(send, 413, too_large(self.max_body))
            return
        chunked = any(b"chunked" in value.lower() for value in headers.get(b"transfer-encoding", []))
        body = _Body(pending=chunked or bool(declared))
        await self._run(scope, receive, send, body)

    async def _run(self, scope: Scope, receive: Receive, send: Send, body: _Body) -> None:
        async def counted_receive() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                body.received += len(message.get("body", b""))
                if body.received > self.max_body:
                    raise BodyTooLarge(self.max_body)
                if not message.get("more_body", False):
                    body.pending = False
            return message

        async def closing_send(message: Message) -> None:
            if message["type"] == "http.response.start" and body.pending:
                # The body was not read to its end: close after this answer rather than read the rest.
                message = {**message, "headers": [*message.get("headers", []), (b"connection", b"close")]}
            await send(message)

        try:
            await self.app(scope, counted_receive, closing_send)
        except BodyTooLarge:
            pass  # answered by the app's error handler (413) before it reached here; nothing to log


def _headers(scope: Scope) -> dict[bytes, list[bytes]]:
    found: dict[bytes, list[bytes]] = {}
    for name, value in scope.get("headers", ()):
        found.setdefault(name.lower(), []).append(value)
    return found


def _content_length(headers: dict[bytes, list[bytes]]) -> int | None:
    values = headers.get(b"content-length", [])
    text = values[0].decode("latin-1").strip() if values else ""
    return int(text) if text.isascii() and text.isdigit() else None


def _same_origin(headers: dict[bytes, list[bytes]], host: bytes | None, scope: Scope) -> bool:
    """Whether an unsafe request comes from the console's own pages: its Origin (else its Referer) is the
    origin the request was sent to. A request with neither is not a browser's cross-site form (the CSRF
    token still applies)."""
    for header in (b"origin", b"referer"):
        values = headers.get(header)
        if values:
            own = request_origin(scope.get("scheme", "http"), host)
            source = url_origin(values[0].decode("latin-1")) if len(values) == 1 else None
            return own is not None and source == own
    return True


def _origin_message(headers: dict[bytes, list[bytes]]) -> str:
    sent = (headers.get(b"origin") or headers.get(b"referer") or [b""])[0].decode("latin-1")
    return (
        f"this request comes from another site ({shown(sent)}), not from the console's own pages: "
        "nothing was written"
    )


def too_large(limit: int) -> str:
    """Why a body over ``limit`` bytes is refused."""
    return (
        f"the form is larger than {limit // (1024 * 1024)} MB ({limit} bytes); DynamoDB items are at most "
        "400 KB: nothing was written"
    )


TITLES = {400: "Bad request", 403: "Refused", 413: "Too large", 500: "Server error"}


def plain_page(status: int, message: str) -> bytes:
    """A small error page that needs nothing from the app (no template, no stylesheet)."""
    title = TITLES.get(status, "Error")
    return (
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{status} {title}</title></head>'
        f"<body><h1>{status} {title}</h1><p>{html.escape(message)}</p></body></html>\n"
    ).encode()


async def _refuse(send: Send, status: int, message: str) -> None:
    body = plain_page(status, message)
    headers = [*PLAIN_HEADERS, (b"content-length", str(len(body)).encode()), (b"connection", b"close")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
