"""``singletable serve``: DynamoDB's HTTP API on the engine, once it can open the database and bind."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from singletable._cli._options import access_policy, host_options, log_level_option
from singletable._extras import require

if TYPE_CHECKING:
    from singletable._server.console import ConsoleOptions


@click.command()
@click.option(
    "--db", "db", type=click.Path(dir_okay=False), help="SQLite database file (created if missing)."
)
@click.option("--in-memory", is_flag=True, help="Keep data in memory only (the default without --db).")
@host_options(port=8000)
@click.option(
    "--cors-origin",
    "cors_origins",
    multiple=True,
    metavar="ORIGIN",
    help="Also let web pages at ORIGIN (scheme://host[:port]) call the API from a browser (repeatable; '*': "
    "any page on any site). By default only loopback origins (http://localhost:PORT, http://127.0.0.1:PORT...).",
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
    "singletable check --traffic. FILE is private (0600): it holds item values. If it cannot be written, "
    "the server says so once on stderr and stops recording; requests are answered as without it.",
)
@log_level_option()
@click.option("--ui", is_flag=True, help="Serve the web console beside the API, under /ui/ (the 'ui' extra).")
@click.option("--ui-design", metavar="MODULE", help="With --ui: a design module for the console.")
@click.option("--ui-read-only", is_flag=True, help="With --ui: the console writes nothing.")
def serve(
    db: str | None,
    in_memory: bool,
    host: str,
    port: int,
    allow_hosts: tuple[str, ...],
    cors_origins: tuple[str, ...],
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
    access = access_policy(host, allow_hosts, cors_origins)
    console = _console_options(ui, ui_design, ui_read_only, credentials, (host, *allow_hosts))
    from singletable._server.checks import CannotServe, check_can_serve, check_record
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
        access=access,
    )
    try:
        check_can_serve(options.db, host, port, credentials)
        if record:
            notice = check_record(record)
            if notice:
                click.echo(notice, err=True)
    except CannotServe as problem:
        raise click.ClickException(str(problem)) from None
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

    if design:
        try:
            load_design(design)
        except DesignError as error:
            raise click.ClickException(str(error)) from None
    return ConsoleOptions(design=design, read_only=read_only, hosts=hosts)
