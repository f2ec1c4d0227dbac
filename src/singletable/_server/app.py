"""The ASGI application: DynamoDB's HTTP front end around :class:`~singletable._protocol.Dispatcher`.

Transport rules live here -- the Host and Origin gate (:mod:`singletable._access`: a Host that is not loopback
or configured is a 400, a foreign Origin a 403, before anything else runs; the console's pages under ``--ui``
take no CORS and judge a write's Origin themselves), health checks on ``GET /`` (naming
the endpoint the client called, as AWS's ``healthy: dynamodb.us-east-1.amazonaws.com`` does; any other GET
path is a 404), CORS headers for browser tools (only for an allowed ``Origin``; a preflight echoes the method
and headers it asks for), the 16 MB body limit, gzip request bodies, SigV4 authentication -- so that the
protocol layer stays identical for the in-process client. Engine calls run inline on the event loop: they
are short SQLite transactions, and a thread hop would cost more than it saves; parallelism comes from worker
processes sharing one WAL database.
"""

from __future__ import annotations

import gc
import os
import zlib
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from singletable._access import AccessPolicy, host_refusal, origin_refusal, scope_peer
from singletable._protocol import Dispatcher, Reply, coral_error, error_reply, request_id
from singletable._server.console import is_console_path  # stdlib only: nothing new at start-up
from singletable.engine import DynamoDBError, Engine

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

MAX_BODY_BYTES = 16 * 1024 * 1024
HEALTH_PREFIX = b"healthy: "

EXPOSE_HEADERS = (b"access-control-expose-headers", b"x-amzn-RequestId,x-amzn-ErrorType,x-amz-crc32,Date")
ANY_ORIGIN_HEADERS = [(b"access-control-allow-origin", b"*"), EXPOSE_HEADERS]
MAX_AGE = (b"access-control-max-age", b"172800")
DEFAULT_METHODS = b"GET,POST,OPTIONS"

ENV_DB = "SINGLETABLE_SERVE_DB"
ENV_CREDENTIALS = "SINGLETABLE_CREDENTIALS"
ENV_RECORD = "SINGLETABLE_SERVE_RECORD"
ENV_ACCESS = "SINGLETABLE_SERVE_ACCESS"

Headers = list[tuple[bytes, bytes]]


class _TooLarge(Exception):
    pass


def _too_large() -> DynamoDBError:
    return coral_error(
        "RequestEntityTooLarge",
        f"Request body exceeds the maximum allowed size of {MAX_BODY_BYTES} bytes",
        413,
    )


class DynamoDBApp:
    """One worker's ASGI app. ``engine`` may be given, or opened lazily from ``path`` at start-up; or a
    ``dispatcher`` answering the API calls (the testing module's server hands each call to the engine of the
    test running at that moment), whose engine is then the app's."""

    def __init__(
        self,
        path: str = ":memory:",
        *,
        engine: Engine | None = None,
        dispatcher: Dispatcher | None = None,
        verifier: Any = None,
        own_process: bool = False,
        record: str | None = None,
        console: Any = None,
        access: AccessPolicy | None = None,
    ) -> None:
        self.path = path
        # The Host names and origins answered (``--allow-host``, ``--cors-origin``); loopback only by default.
        self.access = access if access is not None else AccessPolicy()
        self.record = record  # serve --record FILE: every request as a JSON line (_server/record.py)
        self.verifier = verifier
        # ``serve --ui``: a MountedConsole answering /ui/ (singletable._server.console); None otherwise.
        # Chosen once here, so the API's path costs what it did before the console existed.
        self.console = console
        self._route = self._http if console is None else self._http_or_console
        # Set by ``singletable serve``, whose worker processes run nothing but this app.
        self.own_process = own_process
        if dispatcher is not None:
            engine = dispatcher.engine
        self._engine = engine
        self._owns_engine = engine is None
        if dispatcher is None and engine is not None:
            dispatcher = self._new_dispatcher(engine)
        self._dispatcher: Dispatcher | None = dispatcher

    def _new_dispatcher(self, engine: Engine) -> Dispatcher:
        if self.record is None:
            return Dispatcher(engine)
        from singletable._server.record import RecordingDispatcher

        return RecordingDispatcher(engine, self.record)

    @property
    def dispatcher(self) -> Dispatcher:
        if self._dispatcher is None:
            self._engine = Engine(self.path)
            self._dispatcher = self._new_dispatcher(self._engine)
        return self._dispatcher

    def close(self) -> None:
        closing = getattr(self._dispatcher, "close", None)
        if closing is not None:
            closing()  # the recording file
        if self._owns_engine and self._engine is not None:
            self._engine.close()
            self._engine = None
            self._dispatcher = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            headers = dict(scope["headers"])  # the last of a repeated header: what every handler here reads
            cors = self._gate(scope, headers)
            if isinstance(cors, tuple):  # refused: the Host or the Origin is not one this server answers
                status, refusal_headers, payload = cors
                await _respond(send, status, _encode(refusal_headers), payload)
            else:
                await self._route(scope, receive, send, headers, cors)
        elif kind == "lifespan":
            await self._lifespan(receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self.dispatcher  # noqa: B018 -- open the database before the first request
                if self.own_process:
                    # What start-up built (the engine, botocore's service model) lives as long as the
                    # process: keep it out of the cyclic collector's full passes. Not in someone else's
                    # process, whose objects are not ours to pin.
                    gc.freeze()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.close()
                await send({"type": "lifespan.shutdown.complete"})
                return

    def _gate(self, scope: Scope, by_name: dict[bytes, bytes]) -> Headers | Reply:
        """Before any handler: the CORS headers the answer carries (none without an ``Origin``), or the
        refusal -- a 400 for a Host this server does not answer, a 403 for an Origin it does not let in."""
        headers = scope["headers"]
        host = by_name.get(b"host")
        access = self.access
        if len(by_name) != len(headers) and sum(name == b"host" for name, _ in headers) > 1:
            return error_reply(coral_error("AccessDeniedException", host_refusal(host, several=True)))
        if host not in access.known_hosts and not access.allows_host(host, scope_peer(scope)):
            return error_reply(coral_error("AccessDeniedException", host_refusal(host)))
        origin = by_name.get(b"origin")
        if origin is None or (self.console is not None and is_console_path(scope["path"])):
            return []  # the console's pages are same-origin: its own guard judges where a write comes from
        if not access.allows_origin(origin, host, scope.get("scheme", "http")):
            return error_reply(coral_error("AccessDeniedException", origin_refusal(origin), 403))
        if access.any_origin:
            return ANY_ORIGIN_HEADERS
        return [(b"access-control-allow-origin", origin), (b"vary", b"Origin"), EXPOSE_HEADERS]

    async def _http_or_console(
        self, scope: Scope, receive: Receive, send: Send, headers: dict[bytes, bytes], cors: Headers
    ) -> None:
        if is_console_path(scope["path"]):  # the console's pages are same-origin: no CORS headers
            await self.console(scope, receive, send, self.path, self.dispatcher.engine)
        else:
            await self._http(scope, receive, send, headers, cors)

    async def _http(
        self, scope: Scope, receive: Receive, send: Send, headers: dict[bytes, bytes], cors: Headers
    ) -> None:
        """``headers``: the request's, by (lower-case) name; ``cors``: what the gate allows the answer."""
        method = scope["method"]
        if method == "OPTIONS":
            await _respond(send, 200, _preflight_headers(headers, cors), b"")
        elif method in ("GET", "HEAD"):
            await _health(scope, send, method, headers, cors)
        else:
            await self._post(scope, receive, send, headers, cors)

    async def _post(
        self, scope: Scope, receive: Receive, send: Send, headers: dict[bytes, bytes], cors: Headers
    ) -> None:
        try:
            body = await _read_body(receive, scope)
        except _TooLarge:
            status, reply_headers, payload = error_reply(_too_large())
            await _respond(send, status, _encode(reply_headers) + cors, payload)
            return
        status, reply_headers, payload = self.handle_api(scope, headers, body)
        await _respond(send, status, _encode(reply_headers) + cors, payload)

    def handle_api(self, scope: Mapping[str, Any], headers: dict[bytes, bytes], body: bytes) -> Any:
        """One API call's reply from its (lower-cased) headers and whole body: SigV4, gzip, then the
        dispatcher. Shared by the ASGI path and the direct one (``_server/direct.py``)."""
        if self.verifier is not None:  # the signature covers the bytes as sent, before gunzip
            problem = self.verifier.check(scope, headers, body)
            if problem is not None:
                return error_reply(problem)
        encoding = headers.get(b"content-encoding", b"").lower()
        if encoding == b"gzip":
            try:
                body = _gunzip(body)
            except _TooLarge:
                return error_reply(_too_large())
            except (OSError, EOFError, zlib.error):
                return error_reply(coral_error("SerializationException"))
        target = headers.get(b"x-amz-target")
        dispatcher = self._dispatcher or self.dispatcher
        return dispatcher.handle(target.decode("latin-1") if target else None, body)


def _gunzip(body: bytes) -> bytes:
    decompressor = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    out = decompressor.decompress(body, MAX_BODY_BYTES + 1)
    if len(out) > MAX_BODY_BYTES:
        raise _TooLarge
    if not decompressor.eof:
        raise EOFError("truncated gzip body")
    return out


async def _read_body(receive: Receive, scope: Scope) -> bytes:
    for name, value in scope["headers"]:
        if name == b"content-length" and value.isdigit() and int(value) > MAX_BODY_BYTES:
            raise _TooLarge
    chunks = []
    size = 0
    while True:
        message = await receive()
        chunk = message.get("body", b"")
        if chunk:
            size += len(chunk)
            if size > MAX_BODY_BYTES:
                raise _TooLarge
            chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


async def _health(scope: Scope, send: Send, method: str, headers: dict[bytes, bytes], cors: Headers) -> None:
    """``GET /`` answers ``healthy: HOST`` naming the endpoint called; any other path is not found."""
    reply = [(b"content-type", b"text/plain"), (b"x-amzn-requestid", request_id().encode()), *cors]
    if scope.get("path", "/") != "/":
        await _respond(send, 404, reply, b"")
        return
    host = headers.get(b"host")
    if not host:
        server = scope.get("server") or ("localhost", None)
        host = (server[0] if server[1] is None else f"{server[0]}:{server[1]}").encode("latin-1")
    await _respond(send, 200, reply, HEALTH_PREFIX + host + b" " if method == "GET" else b"")


def _preflight_headers(headers: dict[bytes, bytes], cors: Headers) -> Headers:
    """A CORS preflight's answer for an allowed origin: allow what it asks for (SDKs send x-amz-*, amz-sdk-*,
    authorization...). Without an ``Origin`` it is no preflight, and gets no CORS headers."""
    if not cors:
        return []
    return [
        *cors,
        MAX_AGE,
        (b"access-control-allow-methods", headers.get(b"access-control-request-method", DEFAULT_METHODS)),
        (b"access-control-allow-headers", headers.get(b"access-control-request-headers", b"*")),
    ]


def _encode(headers: list[tuple[str, str]]) -> list[tuple[bytes, bytes]]:
    return [(name.encode("latin-1"), value.encode("latin-1")) for name, value in headers]


async def _respond(send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
    if not any(name == b"content-length" for name, _ in headers):
        headers = [*headers, (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def create_app() -> DynamoDBApp:
    """Factory for ASGI servers' worker processes: configuration comes from the environment."""
    from singletable._server.console import ConsoleOptions, MountedConsole
    from singletable._server.sigv4 import load_verifier

    console = ConsoleOptions.from_environment()
    return DynamoDBApp(
        os.environ.get(ENV_DB, ":memory:"),
        verifier=load_verifier(os.environ.get(ENV_CREDENTIALS)),
        own_process=True,
        record=os.environ.get(ENV_RECORD) or None,
        console=MountedConsole(console) if console is not None else None,
        access=AccessPolicy.from_json(os.environ[ENV_ACCESS]) if os.environ.get(ENV_ACCESS) else None,
    )
