"""``singletable ui TARGET``: the web console (singletable.ui) for a database file or an endpoint URL."""

from __future__ import annotations

import click

from singletable._cli._options import target_argument
from singletable._extras import require


@click.command()
@target_argument()
@click.option("--design", metavar="MODULE", help="A design module: entities, decoded keys, access patterns.")
@click.option("--table", help="With --design: the design's table name on TARGET (default: the design's).")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Interface to bind; loopback unless told. Its name is also one the console answers to.",
)
@click.option("--port", default=8001, show_default=True, type=int)
@click.option(
    "--allow-host",
    "allow_hosts",
    multiple=True,
    metavar="NAME",
    help="Also answer requests for this host name or address (repeatable; '*': any). By default only "
    "localhost, 127.0.0.1, [::1] and --host are answered, any other Host header gets 400 (DNS rebinding).",
)
@click.option("--read-only", is_flag=True, help="Show everything, write nothing.")
@click.option(
    "--log-level",
    default="warning",
    show_default=True,
    type=click.Choice(["critical", "error", "warning", "info", "debug"]),
)
def ui(
    target: str,
    design: str | None,
    table: str | None,
    host: str,
    port: int,
    allow_hosts: tuple[str, ...],
    read_only: bool,
    log_level: str,
) -> None:
    """Browse and edit TARGET's tables in a web browser, as item collections of entities."""
    require("ui", ("starlette", "jinja2", "uvicorn", "pydantic", "botocore"), "singletable ui")
    from singletable.data import DesignError
    from singletable.ui import HostPolicy, console_app, run_console

    if table and not design:
        raise click.UsageError("--table names the design's table: it needs --design MODULE")
    hosts = (host, *allow_hosts)
    try:
        HostPolicy.of(hosts)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--allow-host or --host") from None
    try:
        app = console_app(target, design=design, table=table, read_only=read_only, allowed_hosts=hosts)
    except (DesignError, OSError) as error:  # OSError: a database file it cannot open
        raise click.ClickException(str(error)) from None
    click.echo(f"singletable console for {target} on http://{host}:{port}/", err=True)
    run_console(app, host=host, port=port, log_level=log_level)
