"""The MCP server: :class:`~singletable.mcp.DesignTools` behind the official MCP Python SDK's low-level
``Server``, over stdio or streamable HTTP (bound to 127.0.0.1, loopback Host and Origin headers only).

A tool's result is its JSON text and the same data as structured content; a call that cannot be answered
is a tool error (``isError``) whose text says why, never a protocol error, so the agent can correct itself.
Calls do not wait for each other: over an AsyncDB they are awaited on the event loop, over a DB their
requests run on worker threads (:meth:`DesignTools.call_async <singletable.mcp.DesignTools.call_async>`).
"""

from __future__ import annotations

import functools
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import anyio
import mcp_types as types
import orjson
from mcp.server import Server
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings

from singletable.mcp._calls import DesignTools, ToolError
from singletable.mcp._outputs import output_schema

INSTRUCTIONS = (
    "This server reads (and, where allowed, writes) one DynamoDB single-table design's data through its "
    "declared access patterns. Call describe_design first: it lists the entities, their key templates, and "
    "which tool serves each access pattern. There is no free-form query expression: query_raw and "
    "scan_raw, where offered, take typed conditions on allowlisted tables."
)


def _version() -> str:
    try:
        return version("singletable")
    except PackageNotFoundError:
        return "0"


def tool_list(tools: DesignTools) -> list[types.Tool]:
    """The design's tools as MCP declares them."""
    return [
        types.Tool(
            name=spec.name,
            description=spec.description,
            input_schema=spec.input_schema,
            output_schema=output_schema(spec, tools.policy),
            annotations=types.ToolAnnotations(
                read_only_hint=spec.read_only,
                destructive_hint=spec.destructive if not spec.read_only else None,
                open_world_hint=False,
            ),
        )
        for spec in tools.tools.values()
    ]


def mcp_server(tools: DesignTools, *, name: str = "singletable") -> Server[Any]:
    """An MCP ``Server`` offering ``tools``."""
    declared = tool_list(tools)

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=declared)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            result = await tools.call_async(params.name, params.arguments)
        except ToolError as error:
            words = [types.TextContent(type="text", text=str(error))]
            return types.CallToolResult(content=words, is_error=True)
        text = orjson.dumps(result).decode()
        structured = result if isinstance(result, dict) else {"result": result}
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], structured_content=structured
        )

    return Server(
        name,
        version=_version(),
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve_stdio(server: Server[Any]) -> None:
    """Serve one client on this process's stdin and stdout until it closes them."""
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def http_app(server: Server[Any], port: int) -> Any:
    """The streamable HTTP app (path ``/mcp``), answering only loopback Host and Origin headers."""
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"127.0.0.1:{port}", f"localhost:{port}", "127.0.0.1", "localhost"],
        allowed_origins=[f"http://127.0.0.1:{port}", f"http://localhost:{port}"],
    )
    return server.streamable_http_app(host="127.0.0.1", transport_security=security)


def serve_http(server: Server[Any], port: int, *, log_level: str = "warning") -> None:
    """Serve streamable HTTP on http://127.0.0.1:PORT/mcp until interrupted."""
    anyio.run(functools.partial(serve_http_async, server, port, log_level=log_level))


async def serve_http_async(server: Server[Any], port: int, *, log_level: str = "warning") -> None:
    """:func:`serve_http` inside a running event loop: where an AsyncDB was connected."""
    import uvicorn

    config = uvicorn.Config(http_app(server, port), host="127.0.0.1", port=port, log_level=log_level)
    await uvicorn.Server(config).serve()
