"""One send per response under uvicorn: writes made in one event-loop step leave together.

uvicorn writes a response's status line and headers, then its body, as two ``transport.write`` calls, and
uvloop sends each at once: two ``write`` system calls and two TCP segments per response, which the client then
reads with two ``recv`` calls. For DynamoDB's small JSON answers that second round trip through the kernel
cost 7-8% of the throughput (docs/performance.md, "One send per response"). This transport wrapper collects
the writes of one loop step and sends them as one; uvicorn takes it through its documented ``http=``
protocol-class setting, with its own httptools protocol underneath unchanged.
"""

from __future__ import annotations

import asyncio
from typing import Any

from singletable._server.head_limit import BoundedHeadProtocol


class CoalescedWrites:
    """Wraps a transport: ``write`` queues, and the queue is sent at the loop's next turn (or on close)."""

    __slots__ = ("_loop", "_pending", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] = []

    def write(self, data: bytes) -> None:
        if not self._pending:
            self._loop.call_soon(self.flush)
        self._pending.append(data)

    def write_now(self, data: bytes) -> None:
        """A whole response, built as one buffer: sent at once, unless earlier writes are still queued
        (then behind them, in order). Saves the loop turn that ``write`` waits for."""
        if self._pending:
            self._pending.append(data)
        elif not self._transport.is_closing():
            self._transport.write(data)

    def writelines(self, chunks: Any) -> None:
        for chunk in chunks:
            self.write(chunk)

    def flush(self) -> None:
        pending = self._pending
        if pending:
            self._pending = []
            if not self._transport.is_closing():
                self._transport.write(pending[0] if len(pending) == 1 else b"".join(pending))

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def abort(self) -> None:
        self._pending = []
        self._transport.abort()

    def is_closing(self) -> bool:  # asked around every response: spelled out, not through __getattr__
        return self._transport.is_closing()

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size() + sum(len(chunk) for chunk in self._pending)

    # The rest of asyncio's transport API, passed on by name. Not by ``__getattr__``: a class that has one
    # sends every attribute access on its instances -- ``self._pending`` in write_now included, ~16 a
    # request -- through CPython's slow getattr hook (~150 instructions each) instead of a slot read.

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._transport.get_extra_info(name, default)

    def pause_reading(self) -> None:
        self._transport.pause_reading()

    def resume_reading(self) -> None:
        self._transport.resume_reading()

    def is_reading(self) -> bool:
        return self._transport.is_reading()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self._transport.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self._transport.get_protocol()

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self._transport.set_write_buffer_limits(high, low)

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return self._transport.get_write_buffer_limits()

    def can_write_eof(self) -> bool:
        return self._transport.can_write_eof()

    def write_eof(self) -> None:
        self.flush()
        self._transport.write_eof()


class CoalescingHttpToolsProtocol(BoundedHeadProtocol):
    """uvicorn's httptools protocol, writing through :class:`CoalescedWrites` (and refusing an oversized
    request head: :mod:`singletable._server.head_limit`)."""

    # uvicorn's signature (asyncio.Transport) narrows asyncio's (BaseTransport), hence the override ignore;
    # CoalescedWrites is a transport by the methods uvicorn calls, not by class.
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(CoalescedWrites(transport, self.loop))  # type: ignore[arg-type]
