"""``singletable ui TARGET``: the web console (singletable.ui) for a database file or an endpoint URL."""

from __future__ import annotations

import click

from singletable._cli._options import access_policy, host_options, log_level_option, target_argument
from singletable._extras import require


@click.command()
@target_argument()
@click.option("--design", metavar="MODULE", help="A design module: entities, decoded keys, access patterns.")
@click.option("--table", help="With --design: the design's table name on TARGET (default: the design's).")
@host_options(port=8001)
@click.option("--read-only", is_flag=True, help="Show everything, write nothing.")
@log_level_option()
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
    from singletable.ui import console_app, run_console

    if table and not design:
        raise click.UsageError("--table names the design's table: it needs --design MODULE")
    access_policy(host, allow_hosts)
    hosts = (host, *allow_hosts)
    try:
        app = console_app(target, design=design, table=table, read_only=read_only, allowed_hosts=hosts)
    except (DesignError, OSError) as error:  # OSError: a database file it cannot open
        raise click.ClickException(str(error)) from None
    click.echo(f"singletable console for {target} on http://{host}:{port}/", err=True)
    run_console(app, host=host, port=port, log_level=log_level)
