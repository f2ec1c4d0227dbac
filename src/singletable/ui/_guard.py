"""What the console lets in, decided before any page, route or static file runs: the Host a request names,
where an unsafe request comes from, and how large its body may grow.

**Host (DNS rebinding).** A page on ``evil.example`` can have its name re-pointed at 127.0.0.1; the browser
then treats the console as that page's own origin, reads its CSRF token and posts with it. The request still
says ``Host: evil.example``: the console answers only Host names that can only mean this machine --
``localhost`` and ``*.localhost``, ``127.0.0.0/8`` and ``[::1]`` literals (an attacker controls DNS names,
not address literals) -- and the names it was told (``--host``, ``--allow-host``). Anything else is 400.

**Origin.** A POST (any method but GET, HEAD, OPTIONS) whose ``Origin`` (or, without one, ``Referer``) is not
the console's own ``scheme://host:port`` is refused with 403, even with a valid CSRF token: a second lock
beside the token, against other sites and other local servers (``localhost:3000`` is same-site, not
same-origin).

**Body size.** A body is counted as it arrives, whether it declares its ``Content-Length`` or comes chunked:
a declared length over the limit is refused (413) before a byte of it is read, and a chunked one the moment
it passes the limit (:class:`BodyTooLarge` from ``receive``). A response sent before the body was read to
its end closes the connection, so the server never reads (or buffers) the rest.
"""

from __future__ import annotations

import html
import ipaddress
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# A form holds at most one item (DynamoDB's limit is 400 KB; more as JSON text, URL-encoded) and a few fields.
MAX_BODY_BYTES = 4 * 1024 * 1024
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
DEFAULT_PORTS = {"http": 80, "https": 443}
# Addresses a server binds to mean "every interface": no request names them as its Host.
WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", ""})
# ``--allow-host '*'``: any Host is answered (containers reached by a service name); the guard is then off.
ANY_HOST = "*"
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


def host_name(authority: str) -> str | None:
    """The host name of a ``Host`` header (``name``, ``name:port``, ``[v6]:port``), lowercased, an IPv6
    literal without its brackets (in its short form); None when it is not well formed."""
    found = _host_and_port(authority)
    return found[0] if found is not None else None


def _host_and_port(authority: str) -> tuple[str, int | None] | None:
    text = authority.strip().lower()
    if text.startswith("["):
        end = text.find("]")
        if end < 0 or not _is_ipv6(text[1:end]):
            return None
        name, rest = str(ipaddress.IPv6Address(text[1:end])), text[end + 1 :]
    else:
        name, colon, port = text.partition(":")
        rest = colon + port
        if not name or not all(c.isascii() and (c.isalnum() or c in "-._") for c in name):
            return None
        name = name.removesuffix(".")
    if not rest:
        return name, None
    digits = rest[1:]
    if not (rest.startswith(":") and digits.isascii() and digits.isdigit() and len(digits) <= 5):
        return None
    return name, int(digits)


def _is_ipv6(text: str) -> bool:
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def is_loopback_name(name: str) -> bool:
    """``localhost``, ``*.localhost``, an IPv4 literal in 127.0.0.0/8, or ``::1``: names only this machine
    answers to, whatever any DNS server says."""
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def allowed_host_option(value: str) -> str:
    """An ``--allow-host``/``--host`` value as :func:`host_name` gives it; ValueError when it is not a host
    name or address alone (a URL, a port, spaces)."""
    text = value.strip()
    if _is_ipv6(text.strip("[]")):
        return str(ipaddress.IPv6Address(text.strip("[]")).compressed)
    name = host_name(text) if ":" not in text else None
    if name is None:
        raise ValueError(f"{value!r} is not a host name or address (give the name alone: no scheme, no port)")
    return name


@dataclass(frozen=True, slots=True)
class HostPolicy:
    """The Host names the console answers to: the loopback names, and ``extra`` (from ``--host`` and
    ``--allow-host``; a wildcard bind address such as 0.0.0.0 adds nothing); every name with ``any_host``."""

    extra: frozenset[str] = frozenset()
    any_host: bool = False

    @classmethod
    def of(cls, names: Iterable[str]) -> HostPolicy:
        """The policy for ``--host`` and ``--allow-host`` values; ValueError names one that is not a host."""
        chosen, any_host = set(), False
        for name in names:
            if name.strip() == ANY_HOST:
                any_host = True
            elif name.strip() not in WILDCARD_HOSTS:
                chosen.add(allowed_host_option(name))
        return cls(frozenset(chosen), any_host)

    def allows(self, name: str) -> bool:
        return self.any_host or is_loopback_name(name) or name in self.extra


@dataclass(slots=True)
class _Body:
    """How much of one request's body has arrived, and whether all of it has."""

    pending: bool  # a body was announced and its end has not been read
    received: int = 0


class RequestGuard:
    """The console's outermost ASGI layer: Host, Origin and body size, checked before the app sees a
    request (see the module docstring). Refusals are small self-contained pages (no template, no app)."""

    def __init__(self, app: ASGIApp, policy: HostPolicy, *, max_body: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.policy = policy
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        hosts = headers.get(b"host", [])
        host = hosts[0].decode("latin-1") if len(hosts) == 1 else ""
        name = host_name(host) if host else None
        if name is None or not self.policy.allows(name):
            await _refuse(send, 400, _host_message(host, len(hosts)))
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


def _origin(url: str) -> tuple[str, int] | None:
    """The host and port an Origin or Referer names (its scheme's default port when it says none)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    found = _host_and_port(f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname)
    return (found[0], port or DEFAULT_PORTS[parts.scheme]) if found is not None else None


def _same_origin(headers: dict[bytes, list[bytes]], host: str, scope: Scope) -> bool:
    """Whether an unsafe request comes from the console's own pages: its Origin (else its Referer) names
    this Host. A request with neither is not a browser's cross-site form (the CSRF token still applies)."""
    for header in (b"origin", b"referer"):
        values = headers.get(header)
        if values:
            own = _host_and_port(host)
            source = _origin(values[0].decode("latin-1")) if len(values) == 1 else None
            if own is None or source is None:
                return False
            return source == (own[0], own[1] or DEFAULT_PORTS.get(scope.get("scheme", "http"), 80))
    return True


def _shown(value: str, limit: int = 100) -> str:
    text = value if len(value) <= limit else value[:limit] + "…"
    return repr(text)


def _host_message(host: str, count: int) -> str:
    if count > 1:
        return "this request names more than one Host: the console answers only requests for one of its names"
    if not host:
        return "this request names no Host: the console answers only requests for its own address"
    name = host_name(host)
    suggestion = f"; to reach it by that name, start it with --allow-host {name}" if name is not None else ""
    return (
        f"this console answers only to its own host names (localhost, 127.0.0.1, [::1], and those given "
        f"with --host or --allow-host), not to Host {_shown(host)}{suggestion}"
    )


def _origin_message(headers: dict[bytes, list[bytes]]) -> str:
    sent = (headers.get(b"origin") or headers.get(b"referer") or [b""])[0].decode("latin-1")
    return (
        f"this request comes from another site ({_shown(sent)}), not from the console's own pages: "
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
