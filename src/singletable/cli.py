"""The ``singletable`` command line."""

from __future__ import annotations

import click


@click.group()
@click.version_option(package_name="singletable")
def main() -> None:
    """singletable: DynamoDB single-table design on an embedded, DynamoDB-compatible engine."""


@main.command()
@click.option("--db", "db", default=":memory:", show_default=True, help="SQLite file for the engine.")
def demo(db: str) -> None:
    """Run the quick-start design on the embedded engine: create, write, query, print capacity."""
    from singletable.examples_quickstart import run_quickstart

    run_quickstart(db, echo=click.echo)


if __name__ == "__main__":  # pragma: no cover
    main()
