"""``singletable serve``: DynamoDB's HTTP API on the engine, once it can open the database and bind."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from singletable._extras import require

if TYPE_CHECKING:
    from singletable._server.console import ConsoleOptions


@click.command()
@click.option(
    "--db", "db", type=click.Path(dir_okay=False), help="SQLite database file (created if missing)."
)
@click.option("--in-memory", is_flag=True, help="Keep data in memory only (the default without --db).")
@click.option(
    "--host", default="127.0.0.1", show_default=True, help="Interface to bind; loopback unless told."
)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option(
    "--allow-host",
    "allow_hosts",
    multiple=True,
    metavar="NAME",
    help="Also answer requests for this host name or address (repeatable; '*': any). By default only "
    "localhost, 127.0.0.1, [::1] and --host are answered, any other Host header gets 400 (DNS rebinding).",
)
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=click.IntRange(min=1),
    help="Worker processes sharing one database file (needs --db).",
)
@click.option(
    "--credentials",
    type=click.Path(exists=True, dir_okay=False),
    envvar="SINGLETABLE_CREDENTIALS",
    help="File of ACCESS_KEY:SECRET lines; when set, every request needs a valid SigV4 signature.",
)
@click.option(
    "--record",
    type=click.Path(dir_okay=False, writable=True),
    help="Append every request to FILE as a JSON line (operation, params, capacity, time) for "
    "singletable check --traffic.",
)
@click.option(
    "--log-level",
    default="warning",
    show_default=True,
    type=click.Choice(["critical", "error", "warning", "info", "debug"]),
)
@click.option("--ui", is_flag=True, help="Serve the web console beside the API, under /ui/ (the 'ui' extra).")
@click.option("--ui-design", metavar="MODULE", help="With --ui: a design module for the console.")
@click.option("--ui-read-only", is_flag=True, help="With --ui: the console writes nothing.")
def serve(
    db: str | None,
    in_memory: bool,
    host: str,
    port: int,
    allow_hosts: tuple[str, ...],
    workers: int,
    credentials: str | None,
    log_level: str,
    record: str | None,
    ui: bool,
    ui_design: str | None,
    ui_read_only: bool,
) -> None:
    """Serve DynamoDB's JSON API over HTTP (boto3, AWS CLI and SDKs with --endpoint-url)."""
    if db and in_memory:
        raise click.UsageError("choose one of --db FILE and --in-memory")
    if not db and workers > 1:
        raise click.UsageError(
            "--workers > 1 needs --db FILE: worker processes cannot share a memory database"
        )
    require("server", ("uvicorn", "botocore"), "singletable serve")
    console = _console_options(ui, ui_design, ui_read_only, credentials, (host, *allow_hosts))
    from singletable._server.checks import CannotServe, check_can_serve
    from singletable._server.run import ServeOptions
    from singletable._server.run import serve as run_server

    options = ServeOptions(
        db=db or ":memory:",
        host=host,
        port=port,
        workers=workers,
        credentials=credentials,
        log_level=log_level,
        record=record,
        console=console,
    )
    try:
        check_can_serve(options.db, host, port, credentials)
    except CannotServe as problem:
        raise click.ClickException(str(problem)) from None
    if record:
        try:
            open(record, "a").close()  # only to know it can be written before serving
        except OSError as error:
            raise click.ClickException(f"cannot record to {record}: {error.strerror}") from None
    click.echo(
        f"singletable serving {options.db} on http://{host}:{port} (uvicorn, {workers} worker(s))"
        + (f", console on http://{host}:{port}/ui/" if console else ""),
        err=True,
    )
    run_server(options)


def _console_options(
    ui: bool, design: str | None, read_only: bool, credentials: str | None, hosts: tuple[str, ...]
) -> ConsoleOptions | None:
    """``--ui``'s ConsoleOptions (None without it), its design loaded once here so a bad one fails now."""
    if not ui:
        if design or read_only:
            raise click.UsageError("--ui-design and --ui-read-only go with --ui")
        return None
    if credentials:
        raise click.UsageError(
            "--ui cannot be combined with --credentials: the console has no sign-in, so it would bypass "
            "the API's signatures"
        )
    require("ui", ("starlette", "jinja2", "pydantic"), "singletable serve --ui")
    from singletable._server.console import ConsoleOptions
    from singletable.data import DesignError, load_design
    from singletable.ui import HostPolicy

    try:
        HostPolicy.of(hosts)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--allow-host or --host") from None

    if design:
        try:
            load_design(design)
        except DesignError as error:
            raise click.ClickException(str(error)) from None
    return ConsoleOptions(design=design, read_only=read_only, hosts=hosts)
