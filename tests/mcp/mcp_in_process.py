"""The MCP server served inside the test's own process, on the wire all the same: the SDK's server speaking
JSON lines on two OS pipes through the SDK's own stdio transport (:func:`over_pipes`), or streamable HTTP by
uvicorn on a loopback socket (:func:`over_loopback`), each driven by the SDK's client as :func:`session`
drives a ``singletable mcp`` subprocess.

What a subprocess adds (starting the command, its options, its exit) costs more than a second of imports per
start; test_mcp_protocol.py runs the real processes. Here many designs cross the same wire cheaply: every
message is serialized, framed and parsed exactly as between processes.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import AsyncIterator
from typing import Any

import anyio
import mcp_types
import uvicorn
from mcp.server import Server
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_wire import session

from singletable.mcp import http_app


async def over_pipes(server: Server[Any], calls: list[tuple[str, dict[str, Any]]]) -> tuple[list, list]:
    """``server`` on the SDK's stdio transport over two OS pipes; the tool list and the calls' results."""
    to_server_read, to_server_write = os.pipe()
    to_client_read, to_client_write = os.pipe()

    async def serve() -> None:
        async with (
            await anyio.open_file(to_server_read, encoding="utf-8") as server_in,
            await anyio.open_file(to_client_write, "w", encoding="utf-8") as server_out,  # closed when done,
            stdio_server(server_in, server_out) as (read, write),  # as a process's stdout is
        ):
            await server.run(read, write, server.create_initialization_options())

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(serve)
        return await session(json_lines(to_client_read, to_server_write), calls)


@contextlib.asynccontextmanager
async def json_lines(reading: int, writing: int) -> AsyncIterator[tuple[Any, Any]]:
    """A client transport on two pipe ends: one JSON-RPC message a line each way, as a stdio client
    speaks to its server process; closing it closes the server's input (its end of the session)."""
    to_session, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, from_session = anyio.create_memory_object_stream[SessionMessage](0)

    async def read() -> None:
        async with await anyio.open_file(reading, encoding="utf-8") as incoming, to_session:
            async for line in incoming:
                try:
                    message: SessionMessage | Exception = SessionMessage(
                        mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                    )
                except ValueError as error:
                    message = error
                with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                    await to_session.send(message)  # after the session: read on to the server's end

    async def write() -> None:
        async with await anyio.open_file(writing, "w", encoding="utf-8") as outgoing, from_session:
            async for message in from_session:
                line = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                await outgoing.write(line + "\n")
                await outgoing.flush()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read)
        tasks.start_soon(write)
        try:
            yield read_stream, write_stream
        finally:
            write_stream.close()
            read_stream.close()


async def over_loopback(server: Server[Any], calls: list[tuple[str, dict[str, Any]]]) -> tuple[list, list]:
    """``server``'s streamable HTTP app (loopback Host and Origin only) served by uvicorn on a free
    loopback port; the tool list and the calls' results. The socket listens before uvicorn starts, so the
    client's first request waits for the server instead of failing; uvicorn logs through the root logger
    (``log_config=None``), where the test can see any error it logs."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    web = uvicorn.Server(uvicorn.Config(http_app(server, port), log_config=None, log_level="warning"))
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(web.serve, [listener])
        try:
            return await session(f"http://127.0.0.1:{port}/mcp", calls)
        finally:
            web.should_exit = True
