"""``singletable demo``: the quick-start or a seed design, end to end (``singletable.examples.run_demo``)."""

from __future__ import annotations

import click

from singletable._extras import require

# What each seed design imports beyond the engine, all installed by the ``examples`` extra.
DEMO_NEEDS = {"quickstart": (), "wavyblog": ("pydantic", "bcrypt"), "docsearch": ("pydantic", "numpy")}
DEMO_NEEDS_DEFAULT = ("pydantic",)


@click.command()
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
    """Run a design end to end: NAME is quickstart (default), fus-main, hustlehub, places, wavyblog,
    blog-api or docsearch. Each access pattern prints its DynamoDB request, results and consumed capacity."""
    require("examples", DEMO_NEEDS.get(name, DEMO_NEEDS_DEFAULT), f"singletable demo {name}")
    if endpoint and name != "quickstart":
        require("client", ("boto3",), "singletable demo --endpoint")
    from singletable.examples import DemoError, run_demo

    try:  # the quickstart drives the embedded engine itself: it runs on --db, whatever --endpoint says
        run_demo(name, target=db if name == "quickstart" else endpoint or db, reset=reset, echo=click.echo)
    except DemoError as error:
        raise click.ClickException(str(error)) from None
