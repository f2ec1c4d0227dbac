"""``singletable mcp MODULE TARGET``: an MCP server over a design's data (singletable.mcp, docs/mcp.md)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

import click

from singletable._cli._options import log_level_option, target_argument
from singletable._extras import require


@click.command("mcp")
@click.argument("module", metavar="MODULE")
@target_argument()
@click.option("--table", "table_name", help="The design's table name on TARGET (default: the design's).")
@click.option("--allow-writes", is_flag=True, help="Offer put_ and update_ tools for every entity.")
@click.option(
    "--write", "write_entities", multiple=True, metavar="ENTITY", help="Offer write tools for this entity."
)
@click.option("--allow-deletes", is_flag=True, help="Also offer delete_ tools for the entities written.")
@click.option("--confirm", is_flag=True, help="Write tools answer with the requests they would send.")
@click.option(
    "--raw-table",
    "raw_tables",
    multiple=True,
    metavar="NAME",
    help="Offer query_raw and scan_raw (typed conditions, no expression text) on this table.",
)
@click.option("--max-page-size", default=100, show_default=True, type=click.IntRange(1, 1000))
@click.option(
    "--max-rcu-per-call",
    default=50.0,
    show_default=True,
    type=click.FloatRange(min=0.5),
    help="A call sends no more reads once its reads consumed this many capacity units.",
)
@click.option("--record", metavar="FILE", help="Append one JSON line per call (created private, 0600).")
@click.option(
    "--http",
    "http_port",
    type=click.IntRange(1, 65535),
    metavar="PORT",
    help="Serve streamable HTTP on 127.0.0.1:PORT/mcp instead of stdio.",
)
@log_level_option()
def mcp_command(
    module: str,
    target: str,
    table_name: str | None,
    allow_writes: bool,
    write_entities: tuple[str, ...],
    allow_deletes: bool,
    confirm: bool,
    raw_tables: tuple[str, ...],
    max_page_size: int,
    max_rcu_per_call: float,
    record: str | None,
    http_port: int | None,
    log_level: str,
) -> None:
    """Serve MODULE's design over TARGET (a database file or an http(s):// endpoint) to MCP clients: one
    tool per access pattern and collection, read-only unless writes are allowed."""
    require("mcp", ("pydantic", "mcp", "mcp_types", "jsonschema"), "singletable mcp")
    import anyio

    from singletable._designs import DesignError, load_design
    from singletable.mcp import Policy, unknown_entities

    if allow_deletes and not (allow_writes or write_entities):
        raise click.UsageError("--allow-deletes needs --allow-writes or --write ENTITY")
    bad_names = [name for name in raw_tables if not TABLE_NAME.fullmatch(name)]
    if bad_names:
        wrong = bad_names[0]
        raise click.UsageError(f"--raw-table {wrong!r}: not a table name (3 to 255 of a-z A-Z 0-9 _ . -)")
    remote = target.startswith(("http://", "https://"))
    if not remote and not os.path.isfile(target):
        raise click.ClickException(f"no database file {target} (give an existing file or an http(s):// URL)")
    try:
        design = load_design(module)
    except DesignError as error:
        raise click.ClickException(str(error)) from None
    unknown = unknown_entities(design.table, frozenset(write_entities))
    if unknown:
        known = ", ".join(sorted(m.cls.__name__ for m in design.table.entities.values()))
        raise click.UsageError(f"--write {', '.join(unknown)}: the design has no such entity ({known})")
    policy = Policy(
        allow_writes=allow_writes,
        write_entities=frozenset(write_entities),
        allow_deletes=allow_deletes,
        confirm=confirm,
        max_page_size=max_page_size,
        max_rcu_per_call=max_rcu_per_call,
        raw_tables=frozenset(raw_tables),
    )
    serving = Serving(design.table, target, table_name, policy, record, http_port, log_level)
    try:
        anyio.run(serving.run)
    except KeyboardInterrupt:  # Ctrl-C in a terminal: the server stops, no traceback
        raise SystemExit(130) from None


TABLE_NAME = re.compile(r"[a-zA-Z0-9_.-]{3,255}")


@dataclass(slots=True)
class Serving:
    """What ``singletable mcp`` serves, and :meth:`run`, which connects and serves inside one event loop
    (an AsyncDB's client belongs to the loop it was made in)."""

    table: Any
    target: str
    table_name: str | None
    policy: Any
    record: str | None
    http_port: int | None
    log_level: str

    async def connect(self) -> Any:
        """An AsyncDB on the target; a DB (requests on worker threads) on an endpoint when the ``async``
        extra (aiobotocore) is not installed."""
        from singletable._extras import missing
        from singletable.model import ModelError, connect, connect_async

        try:
            if self.target.startswith(("http://", "https://")) and missing(("aiobotocore",)):
                return connect(self.table, self.target, name=self.table_name)
            return await connect_async(self.table, self.target, name=self.table_name)
        except (ModelError, OSError, ValueError) as error:
            raise click.ClickException(str(error)) from None

    async def run(self) -> None:
        from singletable.mcp import DesignTools, mcp_server, serve_http_async, serve_stdio
        from singletable.model import DB

        db = await self.connect()
        try:
            try:
                tools = DesignTools(db, self.policy, record=self.record)
            except OSError as error:
                raise click.ClickException(
                    f"cannot open the record file {self.record}: {error.strerror or error}"
                ) from None
            server = mcp_server(tools)
            try:
                if self.http_port is not None:
                    click.echo(f"singletable mcp on http://127.0.0.1:{self.http_port}/mcp", err=True)
                    await serve_http_async(server, self.http_port, log_level=self.log_level)
                else:
                    await serve_stdio(server)
            finally:
                tools.close()
        finally:
            if isinstance(db, DB):
                db.close()
            else:
                await db.close()
