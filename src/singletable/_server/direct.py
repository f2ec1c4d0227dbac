"""DynamoDB API calls answered inside the HTTP parser's callbacks, without the ASGI round trip.

A DynamoDB call is "POST / with X-Amz-Target and a JSON body -> one JSON body". Through ASGI each one cost
uvicorn a scope dict, an ``asyncio.Event``, a ``RequestResponseCycle``, a Task with its coroutines, two
``receive``/``send`` message dicts and a header walk -- measured (docs/performance.md, "The HTTP floor, and
what a p99 is made of") as more instructions than our whole dispatcher. :class:`DirectApiProtocol` is
uvicorn's httptools protocol (through :class:`~singletable._server.coalesce.CoalescingHttpToolsProtocol`,
handed to uvicorn by its documented ``http=`` setting); when the headers of a request show a plain API call,
it collects the body and answers when the parser reports the message complete: ``DynamoDBApp.handle_api`` (the
same function the ASGI path calls: SigV4, gzip, dispatcher, recording), then one write of the status line,
uvicorn's default headers (``date``) and ours. uvicorn still owns everything else: the server's lifecycle,
signals, workers, logging, keep-alive timeouts, and every request that is not a plain API call.

What takes the ASGI path unchanged: any method but POST, any target but ``/`` (the web console, health
checks), HTTP/1.0, ``Expect: 100-continue``, a chunked or length-less body, a body over the 16 MB limit (the
app answers 413), an ``Origin`` header (CORS), a ``Host`` the app's
:class:`~singletable._access.AccessPolicy` does not answer (the app answers 400; an allowed one costs
one set lookup of its raw bytes), a request while an ASGI response on the same connection is still in flight
(so pipelined answers keep their order), and a transport whose writes are paused.
"""

from __future__ import annotations

import logging
from types import MappingProxyType
from typing import Any

from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from singletable._protocol import error_reply
from singletable._server.app import MAX_BODY_BYTES, DynamoDBApp
from singletable._server.coalesce import CoalescingHttpToolsProtocol
from singletable.engine import DynamoDBError

log = logging.getLogger("singletable.server")

_CONNECTION_CLOSE = b"connection: close\r\n"
# What SigV4 reads of a request besides its headers; the same for every call the direct path takes.
_DIRECT_SCOPE = MappingProxyType(
    {"type": "http", "method": "POST", "path": "/", "raw_path": b"/", "query_string": b""}
)


# The parts of uvicorn's httptools protocol this class overrides or calls by name (uvicorn 0.54). They are not
# uvicorn's documented API, so ``serve`` checks them first (:func:`fits_uvicorn`): a uvicorn without them,
# older or newer, serves through its own protocol -- every answer the same, only slower.
UVICORN_PARTS = (
    "_start_asgi_task",
    "_unset_keepalive_if_required",
    "timeout_keep_alive_handler",
    "on_response_complete",
    "on_message_begin",
    "on_header",
    "on_headers_complete",
    "on_body",
    "on_message_complete",
    "shutdown",
    "connection_lost",
)


def fits_uvicorn(protocol: type = HttpToolsProtocol) -> bool:
    """True when uvicorn's httptools ``protocol`` has every part :class:`DirectApiProtocol` relies on."""
    return all(callable(getattr(protocol, part, None)) for part in UVICORN_PARTS)


def _plain_api_call(headers: list[tuple[bytes, bytes]]) -> dict[bytes, bytes] | None:
    """The request's headers as a dict when they describe a call the direct path answers, else None."""
    by_name = dict(headers)
    length = by_name.get(b"content-length")
    if (
        length is None
        or not length.isdigit()
        or int(length) > MAX_BODY_BYTES
        or b"x-amz-target" not in by_name
        or b"transfer-encoding" in by_name
        or b"origin" in by_name
        or b"expect" in by_name  # 100-continue (or an expectation uvicorn ignores): ASGI answers it
        or len(by_name) != len(headers)  # a repeated header: let uvicorn and the app see every copy
    ):
        return None
    return by_name


class DirectApiProtocol(CoalescingHttpToolsProtocol):
    """uvicorn's httptools protocol, answering plain DynamoDB API calls itself (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        app = self.app
        # Only our own app, unwrapped (uvicorn wraps it for trace logging or proxy headers: then ASGI it is).
        self._api: DynamoDBApp | None = (
            app if isinstance(app, DynamoDBApp) and self.limit_concurrency is None else None
        )
        self._direct_headers: dict[bytes, bytes] | None = None
        self._direct_body: list[bytes] = []
        self._stopping = False
        self._idle_since: float | None = None  # loop time of the last response; None while a request arrives
        # The status line and uvicorn's default headers (its ``date``), encoded once per status and date.
        self._head_status = 0
        self._head_defaults: list[tuple[bytes, bytes]] | None = None
        self._head = b""
        # The app's Host rule; its set of raw Host values already found allowed is the one lookup per call.
        self._access = app.access if self._api is not None else None
        self._known_hosts: set[bytes] = self._access.known_hosts if self._access is not None else set()

    def _peer(self) -> str | None:
        client = getattr(self, "client", None)  # uvicorn's (host, port) of the other end, or None
        return client[0] if client else None

    def shutdown(self) -> None:
        """uvicorn's graceful stop: a direct call whose body is still arriving is answered, then closed,
        as uvicorn does with an ASGI request in flight."""
        if self._direct_headers is not None:
            self._stopping = True
        else:
            super().shutdown()

    # -- keep-alive: one timer per idle spell, not one per request ----------------------------------------
    # uvicorn cancels its keep-alive timer whenever data arrives and arms a new one after every response
    # (~13,000 instructions a request with uvloop). Here the timer, once armed, stays: data arriving marks
    # the connection busy, a response marks it idle since then, and the timer, when it fires, closes the
    # connection only if it has been idle for the whole timeout -- else it waits out the rest, or (busy)
    # lets the next response arm it again. The same closing times as uvicorn's.

    def _unset_keepalive_if_required(self) -> None:  # uvicorn calls it when data arrives
        self._idle_since = None

    def on_response_complete(self) -> None:
        self.server_state.total_requests += 1
        if self.transport.is_closing():
            return
        if self.flow.read_paused:
            self.flow.resume_reading()
        if self.pipeline:
            cycle, app = self.pipeline.pop()
            self._start_asgi_task(cycle, app)
            return
        self._idle_since = self.loop.time()
        if self.timeout_keep_alive_task is None:
            self.timeout_keep_alive_task = self.loop.call_later(
                self.timeout_keep_alive, self.timeout_keep_alive_handler
            )

    def timeout_keep_alive_handler(self) -> None:
        self.timeout_keep_alive_task = None
        idle_since = self._idle_since
        if idle_since is None or self.transport.is_closing():
            return  # busy: the response that ends it arms the timer again
        remaining = idle_since + self.timeout_keep_alive - self.loop.time()
        if remaining > 0:
            self.timeout_keep_alive_task = self.loop.call_later(remaining, self.timeout_keep_alive_handler)
        else:
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if self.timeout_keep_alive_task is not None:
            self.timeout_keep_alive_task.cancel()
            self.timeout_keep_alive_task = None

    # -- requests ---------------------------------------------------------------------------------------

    def on_message_begin(self) -> None:
        # uvicorn's own builds the ASGI scope (a dict, a copy of the app state) for every request; only a
        # request that takes the ASGI path needs it, so it is built in on_headers_complete, for those.
        self._heads += 1  # head_began(), inline
        self.url = b""
        self.headers = []

    def on_header(self, name: bytes, value: bytes) -> None:
        # uvicorn's, less its test of every header for ``Expect: 100-continue`` (~40% of its bytecodes, for
        # each of a request's headers): a request with an Expect header takes the ASGI path, which
        # _begin_asgi gives uvicorn's flag.
        self.headers.append((name.lower(), value))

    def _begin_asgi(self) -> None:
        """uvicorn's on_message_begin, late: its scope, holding the URL and headers already parsed."""
        url, headers = self.url, self.headers
        super().on_message_begin()
        self.url, self.headers = url, headers
        self.expect_100_continue = any(
            name == b"expect" and value.lower() == b"100-continue" for name, value in headers
        )
        self.scope["headers"] = headers

    def on_headers_complete(self) -> None:
        self._heads_done = self._heads  # head_done(), inline: a call per request saved
        headers = None
        if (
            self._api is not None
            and self.url == b"/"
            and self.parser.get_method() == b"POST"
            and self.parser.get_http_version() == "1.1"
            and (self.cycle is None or self.cycle.response_complete)
            and not self.pipeline
            and not self.flow.write_paused
        ):
            headers = _plain_api_call(self.headers)
            if (
                headers is not None
                and headers.get(b"host") not in self._known_hosts
                # _access is set whenever _api is, and _api was checked above
                and not self._access.allows_host(headers.get(b"host"), self._peer())  # type: ignore[union-attr]
            ):
                headers = None  # the app refuses it, with its 400
        self._direct_headers = headers
        if headers is None:
            self._begin_asgi()
            super().on_headers_complete()
            return
        self._direct_body = []

    def on_body(self, body: bytes) -> None:
        if self._direct_headers is None:
            super().on_body(body)
        else:
            self._direct_body.append(body)

    def on_message_complete(self) -> None:
        headers = self._direct_headers
        if headers is None:
            super().on_message_complete()
            return
        self._direct_headers = None
        chunks = self._direct_body
        self._direct_body = []
        body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        try:
            # A request takes this path only when _api is set (on_headers_complete)
            status, reply_headers, payload = self._api.handle_api(_DIRECT_SCOPE, headers, body)  # type: ignore[union-attr]
        except Exception:  # handle_api's dispatcher never raises; a bug elsewhere is still no traceback
            log.exception("internal error serving %s", headers.get(b"x-amz-target"))
            status, reply_headers, payload = error_reply(
                DynamoDBError("InternalServerError", "Internal server error", status=500)
            )
        keep_alive = self.parser.should_keep_alive() and not self._stopping
        self._write_reply(status, reply_headers, payload, keep_alive)
        if not keep_alive:
            self.transport.close()
        self.on_response_complete()

    def _write_reply(
        self, status: int, headers: list[tuple[str, str]], payload: bytes, keep_alive: bool
    ) -> None:
        defaults = self.server_state.default_headers  # uvicorn swaps in a new list when the date changes
        if status != self._head_status or defaults is not self._head_defaults:
            self._head_status, self._head_defaults = status, defaults
            self._head = STATUS_LINE[status] + b"".join(
                name + b": " + value + b"\r\n" for name, value in defaults
            )
        ours = "\r\n".join(map(": ".join, headers)).encode("latin-1")
        end = b"\r\n\r\n" if keep_alive else b"\r\n" + _CONNECTION_CLOSE + b"\r\n"
        # uvicorn types its transport as asyncio's; ours is CoalescedWrites (connection_made), with write_now
        self.transport.write_now(b"".join((self._head, ours, end, payload)))  # type: ignore[attr-defined]
