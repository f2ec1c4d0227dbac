"""Who may talk to singletable's servers: the Host names they answer and the web origins they let in.

One policy for ``singletable serve`` (the API, and the console it mounts with ``--ui``) and for
``singletable ui`` (shared by ``_server`` and ``ui``), so one Host value gets one answer whichever of them is
asked. Two attacks from a web page
the developer happens to visit, and the rule that stops each:

- **DNS rebinding.** The page's own name is re-pointed to 127.0.0.1; the browser then thinks the server *is*
  ``evil.example``, and neither CORS nor a same-origin check applies. What still names the attacker is the
  ``Host`` header, so a server answers only loopback Host names, the address it was started on (``--host``)
  and those named with ``--allow-host`` (``*``: any, for containers whose clients use a service name).
  Anything else is a 400 before any handler runs.
- **Cross-origin calls.** A page on ``evil.example`` asks the browser to POST to ``http://127.0.0.1:8000``.
  serve's API lets in (CORS) only loopback origins (``http(s)://localhost``, ``*.localhost``, ``127.x.y.z``,
  ``[::1]``, any port), the page's own origin and those named with ``--cors-origin``
  (:meth:`AccessPolicy.allows_origin`); the console takes a write only from its own origin
  (:func:`request_origin` compared with :func:`url_origin`, in ``singletable.ui``).

IP literals count by what they are, not how they are spelled: ``127.1``, ``0x7f.0.0.1``, ``2130706433`` and
``[::ffff:127.0.0.1]`` are loopback, as browsers read them (WHATWG URL's IPv4 parser). Rebinding needs a DNS
name the attacker controls; no attacker controls what a literal means, so all of 127.0.0.0/8 is safe (and so
is the literal a server was bound to, ``0.0.0.0`` included). A request with no Host at all (HTTP/1.0) names
nothing to rebind: it is served when it came over a loopback connection.

serve's direct API path checks a Host header by one set lookup of its raw bytes (:attr:`AccessPolicy.
known_hosts`, the values already found allowed); only a value not seen before is parsed.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

ANY = "*"
# Raw Host values remembered as allowed (the direct path's one-lookup check); past this, parsed every time.
KNOWN_HOSTS_LIMIT = 1024
# The port an origin does not write because its scheme implies it (browsers send http://x, not http://x:80).
DEFAULT_PORTS = {"http": "80", "https": "443"}
# How much of a refused value a message repeats.
SHOWN_LIMIT = 100
_NAME = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?")
_PORT = re.compile(r"[0-9]{0,5}")
_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*")
_IPV4_PART = {10: re.compile(r"[0-9]+"), 8: re.compile(r"[0-7]+"), 16: re.compile(r"[0-9a-f]*")}
_AUTHORITY_END = re.compile(r"[/?#]")
ANSWERED = (
    "this server answers only loopback names (localhost, 127.0.0.1, [::1]), the address it listens on and "
    "names given with --allow-host NAME (a guard against DNS rebinding)"
)


class HostForm(ValueError):
    """``str()`` says why a Host value, an ``--allow-host`` name or a ``--cors-origin`` is not well formed."""


def _ipv4(name: str) -> ipaddress.IPv4Address | None:
    """``name`` read as a browser reads an IPv4 host (1 to 4 parts; decimal, 0x hex or 0-led octal; the last
    part fills the remaining bytes; one trailing dot), or None when it is not one."""
    parts = name.split(".")
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()
    if not 1 <= len(parts) <= 4:
        return None
    numbers = []
    for part in parts:
        if part.startswith("0x"):
            base, digits = 16, part[2:]
        elif len(part) > 1 and part.startswith("0"):
            base, digits = 8, part[1:]
        else:
            base, digits = 10, part
        if not _IPV4_PART[base].fullmatch(digits):
            return None
        numbers.append(int(digits or "0", base))
    *leading, last = numbers
    if any(number > 255 for number in leading) or last >= 256 ** (5 - len(numbers)):
        return None
    value = last
    for position, number in enumerate(leading):
        value += number << (8 * (3 - position))
    return ipaddress.IPv4Address(value)


def canonical_host(host: str) -> str:
    """A host (no port) as compared: lower case, no trailing dot, an IPv4 literal as a dotted quad, an IPv6
    literal bracketed and compressed. Raises :class:`HostForm` for anything that is not a host name or IP."""
    host = host.lower()
    if host.startswith("["):
        if not host.endswith("]"):
            raise HostForm(f"{host!r} opens an IPv6 literal it does not close")
        try:
            return f"[{ipaddress.IPv6Address(host[1:-1]).compressed}]"
        except ValueError:
            raise HostForm(f"{host!r} is not an IPv6 address") from None
    if not _NAME.fullmatch(host):
        raise HostForm(f"{host!r} is not a host name")
    address = _ipv4(host)
    if address is not None:
        return str(address)
    return host[:-1] if host.endswith(".") else host


def configured_host(name: str) -> str:
    """A host named on the command line (``--host``, ``--allow-host``): a name or an IP literal, IPv6 with or
    without brackets, no scheme, no port. Raises :class:`HostForm`."""
    try:
        return canonical_host(f"[{name}]" if ":" in name and not name.startswith("[") else name)
    except HostForm:
        raise HostForm(
            f"{name!r} is not a host name or IP address (give the name alone: no scheme, no port)"
        ) from None


def split_host_header(value: str) -> tuple[str, str | None]:
    """A Host header's canonical host and its port (None when it has none). Raises :class:`HostForm`."""
    if value.startswith("["):
        close = value.find("]")
        host, rest = (value, "") if close < 0 else (value[: close + 1], value[close + 1 :])
    else:
        host, colon, port = value.partition(":")
        rest = colon + port
    if rest and (not rest.startswith(":") or not _PORT.fullmatch(rest[1:])):
        raise HostForm(f"{value!r} has no valid port after its host")
    return canonical_host(host), rest[1:] if rest else None


def is_loopback(canonical: str) -> bool:
    """True for ``localhost``, ``*.localhost`` and any loopback IP literal (canonical, see canonical_host)."""
    if canonical == "localhost" or canonical.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(canonical.strip("[]"))
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


def peer_is_loopback(peer: str | None) -> bool:
    """Whether the other end of a connection (its IP address, as the server reports it) is this machine."""
    if peer is None:
        return False
    try:
        return is_loopback(ipaddress.ip_address(peer.split("%", 1)[0]).compressed)
    except ValueError:
        return False


def scope_peer(scope: Mapping[str, Any]) -> str | None:
    """The address of an ASGI request's other end (the server's ``client``), if known."""
    client = scope.get("client")
    return client[0] if client else None


def canonical_origin(origin: str) -> str:
    """An ``Origin`` as compared: ``null``, or ``scheme://host[:port]`` in lower case with its host made
    canonical and its scheme's default port left out (as browsers send it). Raises :class:`HostForm` for
    anything else (a path, userinfo, no scheme)."""
    origin = origin.strip().lower().removesuffix("/")
    if origin == "null":
        return origin
    scheme, separator, authority = origin.partition("://")
    try:
        if not separator or not _SCHEME.fullmatch(scheme) or not authority:
            raise HostForm("no scheme://")
        host, port = split_host_header(authority)
    except HostForm:
        raise HostForm(f"{origin!r} is not an origin (scheme://host[:port])") from None
    port = str(int(port)) if port else None
    return f"{scheme}://{host}" + (
        f":{port}" if port is not None and port != DEFAULT_PORTS.get(scheme) else ""
    )


def url_origin(url: str) -> str | None:
    """The canonical origin of an ``Origin`` or of a URL such as a ``Referer`` (its path, query and fragment
    dropped); None for ``null`` or anything that names no ``scheme://host``."""
    scheme, separator, rest = url.strip().partition("://")
    if not separator:
        return None
    try:
        return canonical_origin(f"{scheme}://{_AUTHORITY_END.split(rest, maxsplit=1)[0]}")
    except HostForm:
        return None


def request_origin(scheme: str, host: bytes | None) -> str | None:
    """The origin a request was sent to: its scheme and its Host header, canonical as :func:`url_origin`
    gives an origin; None without a Host that parses."""
    if host is None:
        return None
    try:
        return canonical_origin(f"{scheme}://{host.decode('ascii')}")
    except (HostForm, UnicodeDecodeError):
        return None


@dataclass(slots=True)
class AccessPolicy:
    """The Host names and origins one server answers, beyond the loopback ones it always does."""

    hosts: frozenset[str] = frozenset()  # canonical hosts from --host and --allow-host
    any_host: bool = False  # --allow-host '*'
    origins: frozenset[str] = frozenset()  # canonical origins from --cors-origin
    any_origin: bool = False  # --cors-origin '*': answered with Access-Control-Allow-Origin: *
    known_hosts: set[bytes] = field(default_factory=set)  # raw Host values already found allowed

    @classmethod
    def build(
        cls,
        *,
        bound: str | None = None,
        allow_hosts: tuple[str, ...] = (),
        cors_origins: tuple[str, ...] = (),
    ) -> AccessPolicy:
        """The policy for a server bound to ``bound`` with these ``--allow-host`` and ``--cors-origin``
        values. Raises :class:`HostForm` naming a value that is not a host name or an origin."""
        names = [name for name in (bound, *allow_hosts) if name and name != ANY]
        return cls(
            hosts=frozenset(configured_host(name) for name in names),
            any_host=ANY in allow_hosts,
            origins=frozenset(canonical_origin(origin) for origin in cors_origins if origin != ANY),
            any_origin=ANY in cors_origins,
        )

    def to_json(self) -> str:
        """For worker processes (through the environment); :meth:`from_json` reads it back."""
        hosts = [*sorted(self.hosts), *([ANY] if self.any_host else [])]
        origins = [*sorted(self.origins), *([ANY] if self.any_origin else [])]
        return json.dumps({"hosts": hosts, "origins": origins})

    @classmethod
    def from_json(cls, text: str) -> AccessPolicy:
        found = json.loads(text)
        return cls.build(allow_hosts=tuple(found["hosts"]), cors_origins=tuple(found["origins"]))

    def allows_host(self, raw: bytes | None, peer: str | None) -> bool:
        """Whether a request whose Host header is ``raw`` (None: it had none), from the address ``peer``,
        is answered. An allowed value is remembered in :attr:`known_hosts`, up to a bound."""
        if raw is None:
            return self.any_host or peer_is_loopback(peer)
        if raw in self.known_hosts or self.any_host:
            return True
        try:
            host, _ = split_host_header(raw.decode("ascii"))
        except (HostForm, UnicodeDecodeError):
            return False
        allowed = host in self.hosts or is_loopback(host)
        if allowed and len(self.known_hosts) < KNOWN_HOSTS_LIMIT:
            self.known_hosts.add(raw)
        return allowed

    def allows_origin(self, origin: bytes, host: bytes | None, scheme: str = "http") -> bool:
        """Whether a browser page at ``origin`` may call this server (CORS): a loopback http(s) origin, the
        page's own origin (the request's ``scheme`` and Host), or one configured with ``--cors-origin``."""
        if self.any_origin:
            return True
        try:
            canonical = canonical_origin(origin.decode("ascii"))
        except (HostForm, UnicodeDecodeError):
            return False
        if canonical in self.origins or canonical == request_origin(scheme, host):
            return True
        web, _, authority = canonical.partition("://")
        return web in ("http", "https") and is_loopback(split_host_header(authority)[0])


def shown(value: str, limit: int = SHOWN_LIMIT) -> str:
    """A value a message repeats, quoted, cut at ``limit`` characters."""
    return repr(value if len(value) <= limit else value[:limit] + "…")


def host_refusal(raw: bytes | None, *, several: bool = False) -> str:
    """Why a request's Host is refused (400), in the same words on every server: what was refused, what is
    answered, and the ``--allow-host`` that would answer this name."""
    if several:
        return "a request with more than one Host header is not served"
    if raw is None:
        return f"no Host header is not served: {ANSWERED}"
    text = raw.decode("latin-1")
    refused = f"Host {shown(text)} is not served: {ANSWERED}"
    try:
        host, _ = split_host_header(text)
    except HostForm:
        return refused
    return f"{refused}; to be reached by that name, start it with --allow-host {host}"


def origin_refusal(origin: bytes) -> str:
    """Why serve's API refuses an ``Origin`` (403)."""
    return (
        f"Origin {shown(origin.decode('latin-1'))} is not allowed: singletable serve lets in only loopback "
        "origins and those given with --cors-origin ORIGIN"
    )
