"""``singletable serve``: DynamoDB's HTTP API on the engine, once it can open the database and bind."""

from __future__ import annotations

import click

from singletable._extras import require


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
    "--server",
    type=click.Choice(["uvicorn", "granian"]),
    default="uvicorn",
    show_default=True,
    help="HTTP server implementation (see docs/performance.md for why uvicorn).",
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
def serve(
    db: str | None,
    in_memory: bool,
    host: str,
    port: int,
    workers: int,
    credentials: str | None,
    server: str,
    log_level: str,
    record: str | None,
) -> None:
    """Serve DynamoDB's JSON API over HTTP (boto3, AWS CLI and SDKs with --endpoint-url)."""
    if db and in_memory:
        raise click.UsageError("choose one of --db FILE and --in-memory")
    if not db and workers > 1:
        raise click.UsageError(
            "--workers > 1 needs --db FILE: worker processes cannot share a memory database"
        )
    if server == "granian":
        require("granian", ("granian", "botocore"), "singletable serve --server granian")
    else:
        require("server", ("uvicorn", "botocore"), "singletable serve")
    from singletable._server.checks import CannotServe, check_can_serve
    from singletable._server.run import ServeOptions
    from singletable._server.run import serve as run_server

    options = ServeOptions(
        db=db or ":memory:",
        host=host,
        port=port,
        workers=workers,
        credentials=credentials,
        server=server,
        log_level=log_level,
        record=record,
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
        f"singletable serving {options.db} on http://{host}:{port} ({server}, {workers} worker(s))",
        err=True,
    )
    run_server(options)
