"""A bound on a request's head (request line and headers) under uvicorn's httptools protocol.

httptools keeps a header's name and value in memory until the header ends, and uvicorn sets no limit, so
one endless header line (100 MB sent in 64 KB pieces) used to be held whole -- and, built by joining piece
after piece, took a minute of CPU. :class:`BoundedHeadProtocol` counts the bytes a request's head takes
while it arrives and, past :data:`MAX_HEAD_BYTES`, answers 400 with a DynamoDB JSON error and closes the
connection. A body is bounded elsewhere (the app's 16 MB limit, refused while it arrives: ``app``).

The count is exact for what it counts: the reads that arrive while a head is being read (none of their
bytes can be a body's). The read in which a head begins is not counted (part of it may be the end of the
request before), so a head is refused somewhere between :data:`MAX_HEAD_BYTES` and that plus one read
(at most 256 KB): memory stays bounded, and no head under the limit is ever refused.
"""

from __future__ import annotations

from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from singletable._protocol import coral_error, error_reply

# Far above any real request's head (an SDK's SigV4-signed call sends about 1 KB), far below harm.
MAX_HEAD_BYTES = 64 * 1024


def head_too_large_reply() -> bytes:
    """The whole HTTP answer to a head over the limit: 400, DynamoDB's JSON error, then the close."""
    status, headers, payload = error_reply(
        coral_error(
            "SerializationException",
            f"Request headers exceed the maximum allowed size of {MAX_HEAD_BYTES} bytes",
        )
    )
    head = STATUS_LINE[status] + b"".join(f"{name}: {value}\r\n".encode("latin-1") for name, value in headers)
    return head + b"connection: close\r\n\r\n" + payload


class BoundedHeadProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, refusing a request head over :data:`MAX_HEAD_BYTES` as it arrives.

    A subclass that overrides ``on_message_begin`` or ``on_headers_complete`` without calling these calls
    :meth:`head_began` and :meth:`head_done` itself.

    Two counters say where the connection is: ``_heads`` (heads begun) and ``_heads_done`` (heads whose
    headers ended); a head is open while they differ. A read that arrives with no head open (nearly every
    read: a request's head and body usually come in one) is handed to the parser at the cost of one
    comparison; only a read that continues an open head is counted."""

    _heads = 0  # heads begun on this connection: tells whether a read began a new one
    _heads_done = 0  # heads whose headers have ended
    _counted_head = 0  # the head _head_bytes counts
    _head_bytes = 0
    _refused = False

    def head_began(self) -> None:
        self._heads += 1

    def head_done(self) -> None:
        self._heads_done = self._heads

    def on_message_begin(self) -> None:
        self.head_began()
        super().on_message_begin()

    def on_headers_complete(self) -> None:
        self.head_done()
        super().on_headers_complete()

    def data_received(self, data: bytes) -> None:
        heads = self._heads
        if heads == self._heads_done:  # no head open (and never one refused: that one stays open)
            HttpToolsProtocol.data_received(self, data)  # not super(): no proxy object built for every read
            return
        if self._refused:
            return
        HttpToolsProtocol.data_received(self, data)
        if self._heads == heads and self._heads_done != heads:  # every byte of ``data`` was this head's
            if self._counted_head != heads:  # the first read counted for it (the one it began in is not)
                self._counted_head, self._head_bytes = heads, 0
            self._head_bytes += len(data)
            if self._head_bytes > MAX_HEAD_BYTES:
                self._refused = True
                self.transport.write(head_too_large_reply())
                self.transport.close()
