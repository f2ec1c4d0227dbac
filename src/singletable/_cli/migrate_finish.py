"""``singletable migrate finish MODULE TARGET``: close a re-keying's dual-write window -- a thin click layer
over :func:`singletable.migrate.finish` (docs/migrations.md, "Dual-write window"). It writes (it deletes the
old shapes), so like ``up`` it asks for ``--yes`` before touching anything but a local file or a loopback
endpoint."""

from __future__ import annotations

import click

from singletable._cli.migrate import (
    _failing,
    _local,
    _opened,
    _units,
    max_rcu_option,
    max_wcu_option,
    page_size_option,
    table_option,
    yes_option,
)
from singletable._extras import require


@click.command()
@click.argument("module")
@click.argument("target")
@table_option
@max_rcu_option
@max_wcu_option
@page_size_option
@yes_option
def finish(
    module: str,
    target: str,
    table_name: str | None,
    max_rcu: tuple[float, bool] | None,
    max_wcu: tuple[float, bool] | None,
    page_size: int,
    yes: bool,
) -> None:
    """Close the dual-write window of MODULE's rekey(..., keep_old=True) steps on TARGET: verify that every
    old-shape item has an equal new-shape twin (else name them and delete nothing), then delete the old
    shapes and record the finish. Run it again after any interruption."""
    require("model", ("pydantic",), "singletable migrate")
    if not _local(target) and not yes:
        raise click.UsageError(f"{target} is not local: pass --yes to finish a migration there")
    from singletable.migrate import finish as close

    def run() -> None:
        with _opened(module, target, table_name, read_only=False) as (migrations, db):
            for done in close(
                migrations,
                db,
                max_rcu=_units(db, max_rcu, "read"),
                max_wcu=_units(db, max_wcu, "write"),
                page_size=page_size,
            ):
                click.echo(
                    f"{done.id}: finished ({', '.join(done.pairs)}): {done.verified:,} old-shape items"
                    f" verified, {done.deleted:,} deleted"
                )

    _failing(run)
