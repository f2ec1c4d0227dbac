"""The ``singletable`` command line (the ``singletable`` script and ``python -m singletable``).

Thin click commands over documented calls: ``demo`` runs a seed design, ``serve`` the HTTP server. Expected
failures -- a missing extra, a database or port that ``serve`` cannot use, an unknown demo -- end with one
line on stderr and exit code 1, never a traceback.
"""

from __future__ import annotations

import click

from singletable._extras import MissingExtra, require

# What each seed design imports beyond the engine, all installed by the ``examples`` extra.
DEMO_NEEDS = {"quickstart": (), "wavyblog": ("pydantic", "bcrypt")}
DEMO_NEEDS_DEFAULT = ("pydantic",)


class _Commands(click.Group):
    """The command group; a missing optional dependency ends a command with its one-line message."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except MissingExtra as missing:
            raise click.ClickException(str(missing)) from None


@click.group(cls=_Commands)
@click.version_option(package_name="singletable")
def main() -> None:
    """singletable: DynamoDB single-table design on an embedded, DynamoDB-compatible engine."""


@main.command()
@click.argument("name", default="quickstart")
@click.option("--db", "db", default=":memory:", show_default=True, help="SQLite file for the engine.")
@click.option(
    "--endpoint",
    default=None,
    metavar="URL",
    help="Run against this DynamoDB endpoint (DynamoDB Local, singletable serve, AWS) instead of the engine; "
    "credentials and region come from the usual AWS environment.",
)
@click.option("--reset", is_flag=True, help="Delete and recreate the demo's table if it already exists.")
def demo(name: str, db: str, endpoint: str | None, reset: bool) -> None:
    """Run a design end to end: NAME is quickstart (default), fus-main, hustlehub, places, wavyblog or
    blog-api. Each access pattern prints its DynamoDB request, results and consumed capacity."""
    require("examples", DEMO_NEEDS.get(name, DEMO_NEEDS_DEFAULT), f"singletable demo {name}")
    if endpoint and name != "quickstart":
        require("client", ("boto3",), "singletable demo --endpoint")
    from singletable.examples import DemoError, run_demo

    try:  # the quickstart drives the embedded engine itself: it runs on --db, whatever --endpoint says
        run_demo(name, target=db if name == "quickstart" else endpoint or db, reset=reset, echo=click.echo)
    except DemoError as error:
        raise click.ClickException(str(error)) from None


@main.command()
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
    )
    try:
        check_can_serve(options.db, host, port, credentials)
    except CannotServe as problem:
        raise click.ClickException(str(problem)) from None
    click.echo(
        f"singletable serving {options.db} on http://{host}:{port} ({server}, {workers} worker(s))",
        err=True,
    )
    run_server(options)


if __name__ == "__main__":  # pragma: no cover
    main()
