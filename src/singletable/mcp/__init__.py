"""singletable.mcp: an MCP server that speaks a single-table design, not raw DynamoDB.

An agent gets one tool per access pattern and collection of the design (input schemas from the key fields'
types), ``get_<entity>``, ``count`` and ``describe_design``; writes (``put_``/``update_<entity>``) and deletes
only when the :class:`Policy` allows them, always through the model; ``query_raw``/``scan_raw`` from typed
conditions only for the tables the policy lists. Over a DB or an AsyncDB. docs/mcp.md describes the tools
and the safety rules.

    from singletable.model import connect
    from singletable.mcp import DesignTools, Policy, mcp_server, serve_stdio

    tools = DesignTools(connect(design.table, "app.db"), Policy(allow_writes=True))
    tools.call("post_by_user", {"author_id": "john"})      # in-process (await tools.call_async(...))
    anyio.run(serve_stdio, mcp_server(tools))               # or as an MCP server
"""

from singletable import _extras

if _extras.missing(("pydantic", "mcp", "mcp_types", "jsonschema")):
    raise _extras.MissingExtra("mcp", "singletable.mcp")

from singletable.mcp._calls import DesignTools, ToolError
from singletable.mcp._outputs import output_schema
from singletable.mcp._schema import ArgumentError
from singletable.mcp._server import (
    http_app,
    mcp_server,
    serve_http,
    serve_http_async,
    serve_stdio,
    tool_list,
)
from singletable.mcp._tools import Policy, ToolSpec, unknown_entities

__all__ = [
    "ArgumentError",
    "DesignTools",
    "Policy",
    "ToolError",
    "ToolSpec",
    "http_app",
    "mcp_server",
    "output_schema",
    "serve_http",
    "serve_http_async",
    "serve_stdio",
    "tool_list",
    "unknown_entities",
]
