"""CoalescedWrites: a response's writes in one loop step reach the socket as one write, in order.

The transport underneath is a real asyncio socket transport; a subclass counts its ``write`` calls.
"""

from __future__ import annotations

import asyncio
import socket

from singletable._server.coalesce import CoalescedWrites


async def _pair() -> tuple[asyncio.Transport, socket.socket, list[bytes]]:
    ours, theirs = socket.socketpair()
    loop = asyncio.get_running_loop()
    transport, _ = await loop.create_connection(asyncio.Protocol, sock=ours)
    writes: list[bytes] = []
    real_write = transport.write

    def counting_write(data: bytes) -> None:
        writes.append(bytes(data))
        real_write(data)

    transport.write = counting_write  # type: ignore[method-assign]
    return transport, theirs, writes


def _read(peer: socket.socket, size: int) -> bytes:
    peer.settimeout(5)
    out = b""
    while len(out) < size:
        out += peer.recv(size - len(out))
    return out


def test_writes_of_one_step_leave_as_one():
    async def scenario() -> None:
        transport, peer, writes = await _pair()
        coalesced = CoalescedWrites(transport, asyncio.get_running_loop())
        coalesced.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n")
        coalesced.write(b"{}")
        assert writes == []  # nothing sent inside the step
        assert coalesced.get_write_buffer_size() == 40
        await asyncio.sleep(0)
        assert writes == [b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}"]
        assert _read(peer, 40).endswith(b"\r\n\r\n{}")
        coalesced.write(b"next")
        await asyncio.sleep(0)
        assert writes[1:] == [b"next"]
        coalesced.close()
        peer.close()

    asyncio.run(scenario())


def test_close_sends_what_is_queued_and_abort_drops_it():
    async def scenario() -> None:
        transport, peer, writes = await _pair()
        coalesced = CoalescedWrites(transport, asyncio.get_running_loop())
        coalesced.write(b"last words")
        coalesced.close()  # e.g. Connection: close right after the body
        assert writes == [b"last words"]
        assert _read(peer, 10) == b"last words"
        await asyncio.sleep(0)  # the scheduled flush finds nothing left to send
        assert writes == [b"last words"]
        peer.close()

        transport, peer, writes = await _pair()
        coalesced = CoalescedWrites(transport, asyncio.get_running_loop())
        coalesced.write(b"never sent")
        coalesced.abort()
        await asyncio.sleep(0)
        assert writes == []
        assert coalesced.is_closing()  # everything else is the real transport's
        peer.close()

    asyncio.run(scenario())


def test_the_whole_transport_api_is_passed_on():
    """uvicorn may call any of asyncio's transport methods on the wrapper; each reaches the real transport
    (the wrapper names them one by one, with no ``__getattr__`` fallback)."""
    api = {
        name
        for name in dir(asyncio.Transport)
        if not name.startswith("_") and callable(getattr(asyncio.Transport, name))
    }
    assert api <= {name for name in dir(CoalescedWrites) if callable(getattr(CoalescedWrites, name))}

    async def scenario() -> None:
        transport, peer, _ = await _pair()
        coalesced = CoalescedWrites(transport, asyncio.get_running_loop())
        assert coalesced.get_extra_info("peername") == transport.get_extra_info("peername")
        assert coalesced.get_protocol() is transport.get_protocol()
        coalesced.pause_reading()
        assert not coalesced.is_reading()
        coalesced.resume_reading()
        assert coalesced.is_reading()
        coalesced.set_write_buffer_limits(high=4096)
        assert coalesced.get_write_buffer_limits() == transport.get_write_buffer_limits()
        assert coalesced.can_write_eof()
        coalesced.write(b"before eof")
        coalesced.write_eof()  # what was queued leaves first
        assert _read(peer, 10) == b"before eof"
        assert peer.recv(10) == b""
        coalesced.close()
        peer.close()

    asyncio.run(scenario())
