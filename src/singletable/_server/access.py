"""Who may talk to ``singletable serve``: the Host names it answers and the web origins it lets in (CORS).

Two attacks from a web page the developer happens to visit, and the rule that stops each:

- **Cross-origin calls.** A page on ``evil.example`` asks the browser to POST to ``http://127.0.0.1:8000``.
  DynamoDB calls need ``X-Amz-Target``, so the browser first sends a CORS preflight; serve answers it only
  for loopback origins (``http(s)://localhost``, ``*.localhost``, ``127.x.y.z``, ``[::1]``, any port), the
  page's own origin, and those named with ``--cors-origin``. Any other ``Origin`` is refused with 403 (the
  preflight and the request itself), so nothing a foreign page sends is executed.
- **DNS rebinding.** The page's own name is re-pointed to 127.0.0.1; the browser then thinks serve *is*
  ``evil.example`` and CORS never applies. What still names the attacker is the ``Host`` header, so serve
  answers only loopback Host names, the address it was started on (``--host``) and those named with
  ``--allow-host`` (``*``: any, for containers whose clients use a service name). Anything else is a 400
  before any handler runs.

IP literals count by what they are, not how they are spelled: ``127.1``, ``0x7f.0.0.1``, ``2130706433`` and
``[::ffff:127.0.0.1]`` are loopback, as browsers read them (WHATWG URL's IPv4 parser). Rebinding needs a DNS
name the attacker controls; no attacker controls what a literal means, so all of 127.0.0.0/8 is safe. A
request with no Host at all (HTTP/1.0) names nothing to rebind: it is served when it came over a loopback
connection.

The direct API path checks a Host header by one set lookup of its raw bytes (:attr:`AccessPolicy.known_hosts`,
the values already found allowed); only a value not seen before is parsed.
"""

from __future__ import annotations

import ipaddress
import json
import re
from dataclasses import dataclass, field

ANY = "*"
# Raw Host values remembered as allowed (the direct path's one-lookup check); past this, parsed every time.
KNOWN_HOSTS_LIMIT = 1024
_NAME = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?")
_PORT = re.compile(r"[0-9]{0,5}")
_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*")
_IPV4_PART = {10: re.compile(r"[0-9]+"), 8: re.compile(r"[0-7]+"), 16: re.compile(r"[0-9a-f]*")}


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
    without brackets, no port. Raises :class:`HostForm`."""
    if ":" in name and not name.startswith("["):
        try:
            return canonical_host(f"[{name}]")
        except HostForm:
            raise HostForm(f"{name!r} is not a host name or IP address (give no port)") from None
    return canonical_host(name)


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


def canonical_origin(origin: str) -> str:
    """An ``Origin`` as compared: ``null``, or ``scheme://host[:port]`` in lower case with its host made
    canonical. Raises :class:`HostForm` for anything else (a path, userinfo, no scheme)."""
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
    return f"{scheme}://{host}" + (f":{port}" if port is not None else "")


def _peer_is_loopback(peer: str | None) -> bool:
    if peer is None:
        return False
    try:
        return is_loopback(ipaddress.ip_address(peer.split("%", 1)[0]).compressed)
    except ValueError:
        return False


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
        names = [bound] if bound else []
        names += [name for name in allow_hosts if name != ANY]
        hosts = frozenset(configured_host(name) for name in names)
        return cls(
            hosts=hosts,
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
            return self.any_host or _peer_is_loopback(peer)
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

    def allows_origin(self, origin: bytes, host: bytes | None) -> bool:
        """Whether a browser page at ``origin`` may call this server: a loopback http(s) origin, the page's
        own origin (its authority is the request's Host), or one configured with ``--cors-origin``."""
        if self.any_origin:
            return True
        try:
            canonical = canonical_origin(origin.decode("ascii"))
        except (HostForm, UnicodeDecodeError):
            return False
        if canonical in self.origins:
            return True
        scheme, _, authority = canonical.partition("://")
        if host is not None and authority == _canonical_authority(host):
            return True
        return scheme in ("http", "https") and is_loopback(split_host_header(authority)[0])


def _canonical_authority(raw: bytes) -> str | None:
    try:
        host, port = split_host_header(raw.decode("ascii"))
    except (HostForm, UnicodeDecodeError):
        return None
    return host + (f":{port}" if port is not None else "")


def host_refusal(raw: bytes | None, *, several: bool = False) -> str:
    """The message of the 400 a refused Host gets: what was refused, what is answered, how to allow it."""
    if several:
        return "a request with more than one Host header is not served"
    shown = "no Host header" if raw is None else f"Host {raw.decode('latin-1')!r}"
    return (
        f"{shown} is not served: singletable serve answers only loopback names (localhost, 127.0.0.1, "
        "[::1]), the address it listens on and names given with --allow-host NAME (a guard against DNS "
        "rebinding)"
    )


def origin_refusal(origin: bytes) -> str:
    """The message of the 403 a refused Origin gets."""
    return (
        f"Origin {origin.decode('latin-1')!r} is not allowed: singletable serve lets in only loopback "
        "origins and those given with --cors-origin ORIGIN"
    )
