"""``singletable migrate rehearse MODULE SOURCE``: the migrations run on a new local copy of SOURCE, then
verified (``singletable.migrate.rehearse``); SOURCE itself is only read. Exit 0 when the verification finds
nothing, 1 when it finds problems (the first ones listed, by item key) or the migration stops."""

from __future__ import annotations

from typing import Any

import click

from singletable._cli.migrate import _failing, table_option
from singletable._extras import require


@click.command()
@click.argument("module")
@click.argument("source")
@table_option
@click.option(
    "--copy-to",
    type=click.Path(dir_okay=False),
    default=None,
    help="Make the copy in this new file and keep it (default: a temporary file, removed at the end).",
)
@click.option(
    "--schema",
    default=None,
    help="For an export directory: the table to import it into (DescribeTable JSON or a design module; "
    "default: the migrations' table as declared).",
)
@click.option(
    "--copy-source",
    "copy_sources",
    multiple=True,
    callback=lambda ctx, param, values: _named_places(values),
    metavar="TABLE=WHERE",
    help="Where a table a copy_from reads is, when not in SOURCE: a database file, an endpoint URL or an "
    "export directory (repeatable; default: SOURCE).",
)
@click.option(
    "--page-size", type=click.IntRange(1, 1000), default=100, show_default=True, help="Items per Scan page."
)
@click.option(
    "--segments", type=click.IntRange(1, 1000), default=1, show_default=True, help="Parallel-scan segments."
)
def rehearse(
    module: str,
    source: str,
    table_name: str | None,
    copy_to: str | None,
    schema: str | None,
    copy_sources: dict[str, str],
    page_size: int,
    segments: int,
) -> None:
    """Copy SOURCE (a database file, an endpoint URL, or a directory holding a DynamoDB export to S3) into a
    new database file, apply the migrations in MODULE there, and verify the result: keys as the templates
    compute them, guards and derived items beside their owners, no item of a retired type, index-key values
    DynamoDB would leave out of an index; with the items per entity type before and after. The tables
    copy_from steps read are copied too (from SOURCE, or --copy-source) and must be left as copied. SOURCE
    is only read."""
    require("model", ("pydantic",), "singletable migrate")
    from singletable.migrate import load_migrations
    from singletable.migrate import rehearse as run_rehearsal

    def run() -> Any:
        migrations = load_migrations(module)
        return run_rehearsal(
            migrations,
            source,
            table_name=table_name,
            copy_to=copy_to,
            schema=schema,
            copy_sources=copy_sources,
            page_size=page_size,
            segments=segments,
        )

    found = _failing(run)
    _show(found, source)
    if not found.ok:
        raise SystemExit(1)


def _named_places(values: tuple[str, ...]) -> dict[str, str]:
    """``TABLE=WHERE`` options as a dict; a malformed or repeated one is a usage error."""
    places: dict[str, str] = {}
    for value in values:
        table, sep, where = value.partition("=")
        if not sep or not table or not where:
            raise click.BadParameter(f"{value!r}: give TABLE=WHERE", param_hint="--copy-source")
        if table in places:
            raise click.BadParameter(f"{table} is named twice", param_hint="--copy-source")
        places[table] = where
    return places


def _show(found: Any, source: str) -> None:
    for result in found.results:
        if result.state == "applied":
            click.echo(
                f"{result.id}: applied to the copy: {result.scanned:,} scanned, {result.written:,} written"
            )
        else:
            click.echo(f"{result.id}: {result.state} (recorded in the source)")
    where = f"kept in {found.copy}" if found.kept else "removed"
    if found.created:
        click.echo(f"{found.table} is not in {source}: created empty from the design; the copy {where}")
    else:
        click.echo(f"copy of {source} ({found.transfer.items:,} items): {where}")
    for one in found.sources:
        state = "unchanged" if one.unchanged else "CHANGED by the migrations"
        click.echo(f"copy_from source {one.name}: {one.items:,} items from {one.origin}, {state}")
    click.echo(_counts_table(found.counts))
    if found.unverified:
        listed = ", ".join(f"{kind} ({count:,})" for kind, count in found.unverified.items())
        click.echo(f"not verified (no migration declares them): {listed}")
    if found.ok:
        click.echo(f"verified: {found.checked:,} items as declared, no problems")
        return
    noun = "problem" if found.problem_count == 1 else "problems"
    click.echo(f"verification failed: {found.problem_count:,} {noun}", err=True)
    for problem in found.problems:
        click.echo(f"  {problem.key}: {problem.check}: {problem.detail}", err=True)
    if found.problem_count > len(found.problems):
        click.echo(f"  ... and {found.problem_count - len(found.problems):,} more", err=True)


def _counts_table(counts: list[Any]) -> str:
    """Items per entity type before and after, in aligned columns."""
    rows = [("entity", "before", "after")] + [(c.type, f"{c.before:,}", f"{c.after:,}") for c in counts]
    width = [max(len(row[n]) for row in rows) for n in range(3)]
    return "\n".join(
        f"{row[0]:<{width[0]}}  {row[1]:>{width[1]}}  {row[2]:>{width[2]}}".rstrip() for row in rows
    )
