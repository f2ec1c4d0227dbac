"""``singletable migrate plan|up|status MODULE TARGET``: a thin click layer over ``singletable.migrate``
(docs/migrations.md). MODULE is a migration file, a directory of them, or a dotted module; TARGET a database
file or an endpoint URL. ``plan`` and ``status`` only read (a file is opened read-only); ``up`` writes, and
asks for ``--yes`` before writing to anything but a local file or a loopback endpoint."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlparse

import click

from singletable._extras import require

LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})


def _local(target: str) -> bool:
    if not target.startswith(("http://", "https://")):
        return True
    host = urlparse(target).hostname or ""
    return host in LOOPBACK or host.startswith("127.") or host.endswith(".localhost")


@contextmanager
def _opened(
    module: str, target: str, table_name: str | None, *, read_only: bool
) -> Iterator[tuple[list[Any], Any]]:
    """The migrations in MODULE and a DB for their table on TARGET (a file read-only when asked), closed when
    the command ends: a file's engine then checkpoints its WAL and stops its thread, as a command run
    in-process (a test's, an application's) needs."""
    from singletable.data import open_target
    from singletable.migrate import load_migrations, one_table
    from singletable.model import connect

    migrations = load_migrations(module)
    table = one_table(migrations, module)
    if not target.startswith(("http://", "https://")):
        with open_target(target, read_only=read_only, create=False) as target_file:
            yield migrations, connect(table, target_file.engine, name=table_name)
        return
    db = connect(table, target, name=table_name)
    try:
        yield migrations, db
    finally:
        db.close()


def _units(
    db: Any, rate: tuple[float, bool] | None, kind: str, observed: float | None = None
) -> float | None:
    """A ``--max-rcu``/``--max-wcu`` value in units per second (a percentage: of the table's capacity, said
    on stderr with where the capacity comes from)."""
    from singletable.migrate import share_of_capacity

    if rate is None:
        return None
    number, percent = rate
    if not percent:
        return number
    share = share_of_capacity(db, number, kind, observed)
    click.echo(share.describe(), err=True)
    return share.units


def _failing(run: Any) -> Any:
    """Run ``run()``; a migration's refusal, a refused request or a file that cannot be used is one line on
    stderr and exit 1; Ctrl-C exit 130."""
    from singletable.migrate import MigrationError
    from singletable.model import ModelError

    try:
        return run()
    except KeyboardInterrupt:
        click.echo(
            "interrupted: the checkpoint holds the last page done; run the same command to resume", err=True
        )
        sys.exit(130)
    except (MigrationError, ModelError, OSError) as error:
        raise click.ClickException(str(error)) from None


table_option = click.option("--table", "table_name", default=None, help="Table name, if not the design's.")


class _Rate(click.ParamType):
    """Units per second (``50``) or a share of the table's capacity (``10%``)."""

    name = "UNITS|PCT%"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, tuple):
            return value
        text = str(value).strip()
        percent = text.endswith("%")
        try:
            number = float(text.rstrip("%"))
        except ValueError:
            self.fail(f"{value!r} is not a number of units per second nor a percentage like 10%", param, ctx)
        if number <= 0 or (percent and number > 100):
            self.fail(f"{value!r}: give units above 0, or a percentage above 0 and at most 100", param, ctx)
        return (number, percent)


RATE = _Rate()
max_rcu_option = click.option(
    "--max-rcu",
    type=RATE,
    default=None,
    help="Read units per second at most, or a share of the table's capacity (10%).",
)

max_wcu_option = click.option(
    "--max-wcu",
    type=RATE,
    default=None,
    help="Write units per second at most, or a share of the table's capacity (10%).",
)
page_size_option = click.option(
    "--page-size", type=click.IntRange(1, 1000), default=100, show_default=True, help="Items per Scan page."
)
yes_option = click.option(
    "--yes", is_flag=True, help="Write to a target that is not a local file or a loopback endpoint."
)


@click.group()
def migrate() -> None:
    """Plan, apply and inspect migrations of a single-table design (docs/migrations.md)."""


@migrate.command()
@click.argument("module")
@click.argument("target")
@table_option
@max_rcu_option
@click.option(
    "--sample", type=click.IntRange(1), default=None, help="Read at most N items per step and scale."
)
@click.option(
    "--prices", "prices_file", default=None, type=click.Path(dir_okay=False), help="TOML prices file."
)
def plan(
    module: str,
    target: str,
    table_name: str | None,
    max_rcu: tuple[float, bool] | None,
    sample: int | None,
    prices_file: str | None,
) -> None:
    """Show what the pending migrations in MODULE would do to TARGET, without writing: items scanned and
    touched per entity, read and write units and their on-demand price, the indexes affected, and index-key
    values DynamoDB would refuse or leave out of an index."""
    require("model", ("pydantic",), "singletable migrate")
    from singletable.design import load_prices
    from singletable.migrate import plan as make_plan

    def run() -> None:
        with _opened(module, target, table_name, read_only=True) as (migrations, db):
            rcu = _units(db, max_rcu, "read")
            report = make_plan(migrations, db, sample=sample, prices=load_prices(prices_file), max_rcu=rcu)
            _show_plan(report)

    _failing(run)


def _show_plan(report: Any) -> None:
    for mid in report.applied:
        click.echo(f"{mid}: already applied")
    if not report.steps:
        click.echo("nothing to do: every migration is applied")
        return
    for step in report.steps:
        click.echo(f"{step.migration}: {step.step}")
        if step.skipped:
            click.echo(f"  {step.skipped}")
        for kind, count in sorted(step.scanned.items()):
            click.echo(f"  {kind}: {count:,} scanned, {step.touched.get(kind, 0):,} to write")
        for what, count in sorted(step.touched.items()):
            if what not in step.scanned:
                click.echo(f"  {what}: {count:,}")
        click.echo(f"  read units {step.read_units:,.1f}, write units {step.write_units:,.1f}")
        if step.indexes:
            click.echo(f"  indexes affected: {', '.join(sorted(step.indexes))}")
        if step.problem_count:
            click.echo(f"  items this step refuses (up would stop at the first): {step.problem_count:,}")
            for problem in step.problems[:5]:
                click.echo(f"    {problem}")
        if step.violation_count:
            click.echo(f"  index-key violations: {step.violation_count:,} (left out of the index or refused)")
            for v in step.violations[:10]:
                click.echo(f"    {v.key}: {v.attribute} for index {v.index} {v.problem}")
    scale = report.scale
    if scale > 1:
        click.echo(
            f"estimated from a sample of {report.sampled:,} of about {report.item_count:,} items"
            f" (x{scale:,.1f})"
        )
    prices = report.prices
    click.echo(
        f"total: {report.read_units * scale:,.1f} read units, {report.write_units * scale:,.1f} write units, "
        f"{report.price:,.4f} {prices.currency} on-demand ({prices.region})"
    )


@migrate.command()
@click.argument("module")
@click.argument("target")
@table_option
@max_rcu_option
@max_wcu_option
@page_size_option
@click.option(
    "--segments",
    type=click.IntRange(1, 1000000),
    default=1,
    show_default=True,
    help="Parallel-scan segments read at once (a resumed step keeps its own).",
)
@click.option(
    "--max-share",
    type=RATE,
    default=None,
    help="Both rates at most this share of the table's capacity (25%): provisioned, warm or observed; "
    "--max-rcu/--max-wcu win.",
)
@click.option(
    "--observed-rcu",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Read capacity to take a share of.",
)
@click.option(
    "--observed-wcu",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Write capacity to take a share of (units per second the table takes, e.g. from CloudWatch).",
)
@click.option(
    "--items",
    type=click.IntRange(0),
    default=None,
    help="The table's item count, for the ETA (default: DescribeTable's ItemCount estimate).",
)
@click.option(
    "--progress-every",
    type=click.FloatRange(0),
    default=10.0,
    show_default=True,
    help="Seconds between progress lines when stderr is not a terminal.",
)
@click.option("--dry-run", is_flag=True, help="Plan instead: show what would be written, write nothing.")
@yes_option
def up(
    module: str,
    target: str,
    table_name: str | None,
    max_rcu: tuple[float, bool] | None,
    max_wcu: tuple[float, bool] | None,
    page_size: int,
    segments: int,
    max_share: tuple[float, bool] | None,
    observed_rcu: float | None,
    observed_wcu: float | None,
    items: int | None,
    progress_every: float,
    dry_run: bool,
    yes: bool,
) -> None:
    """Apply the pending migrations in MODULE to TARGET, in id order. Resumes from the table's checkpoint
    after a crash or Ctrl-C; every write is conditional, so a redone page changes nothing twice. Shows a
    progress bar with an ETA on a terminal, plain lines on stderr elsewhere."""
    require("model", ("pydantic",), "singletable migrate")
    if dry_run:
        plan.callback(module, target, table_name, max_rcu, None, None)  # type: ignore[misc]  # click types a command's callback as optional; this one is set
        return
    if not _local(target) and not yes:
        raise click.UsageError(f"{target} is not local: pass --yes to migrate it")
    if max_share is not None and not max_share[1]:
        raise click.BadParameter("give a percentage, like 25%", param_hint="--max-share")
    from singletable._cli.migrate_progress import progress
    from singletable.migrate import expected_reads
    from singletable.migrate import up as apply

    def run() -> None:
        with _opened(module, target, table_name, read_only=False) as (migrations, db):
            rcu = _units(db, max_rcu or max_share, "read", observed_rcu)
            wcu = _units(db, max_wcu or max_share, "write", observed_wcu)
            with progress(expected_reads(migrations, db, items), progress_every) as on_page:
                results = apply(
                    migrations,
                    db,
                    max_rcu=rcu,
                    max_wcu=wcu,
                    page_size=page_size,
                    segments=segments,
                    on_page=on_page,
                )
            for result in results:
                if result.state == "applied":
                    resumed = " (resumed)" if result.resumed else ""
                    throttled = (
                        f", {result.throttled:,} throttled requests sent again" if result.throttled else ""
                    )
                    click.echo(
                        f"{result.id}: applied{resumed}: {result.scanned:,} items scanned,"
                        f" {result.written:,} written; {result.read_units:,.1f} read units,"
                        f" {result.write_units:,.1f} write units{throttled}"
                    )
                else:
                    click.echo(f"{result.id}: {result.state}")

    _failing(run)


@migrate.command()
@click.argument("module")
@click.argument("target")
@table_option
def status(module: str, target: str, table_name: str | None) -> None:
    """Show each migration of MODULE on TARGET: applied (when), running (where it stopped), pending, or
    changed since it was applied."""
    require("model", ("pydantic",), "singletable migrate")
    from singletable.migrate import status as states

    def run() -> None:
        with _opened(module, target, table_name, read_only=True) as (migrations, db):
            for one in states(migrations, db):
                click.echo(_status_line(one))

    _failing(run)


def _status_line(one: Any) -> str:
    detail = ""
    if one.state == "applied":
        detail = f" at {one.applied_at}, {one.written:,} items written"
    elif one.state == "running":
        step = one.step + 1 if one.step is not None else "?"
        detail = f": step {step}, {one.scanned:,} items scanned"
        if one.segments > 1:
            detail += f" in {one.segments} scan segments"
    return f"{one.id}: {one.state}{detail}  {one.description}"


COMMANDS = [migrate]
