"""``singletable infer``: a design module inferred from a live table, a thin layer over
:func:`singletable.design.infer` (docs/design-tools.md, "Infer a design from a table").

Reads only (DescribeTable and a parallel Scan of at most ``--sample`` items); writes the module to ``-o``
(created private, as every file holding data from a table) or prints it.
"""

from __future__ import annotations

import os

import click

from singletable._cli._options import target_argument


@click.command("infer", short_help="A design module inferred from a table's items.")
@target_argument()
@click.argument("table")
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False), help="Write the module here (default: stdout)."
)
@click.option("--sample", default=1000, show_default=True, type=click.IntRange(min=1), help="Items to read.")
def infer(target: str, table: str, output: str | None, sample: int) -> None:
    """Infer the design of TABLE on TARGET (a database file or an endpoint URL) from at most --sample of its
    items: entity types, key templates for the table and every index, attribute types, uniqueness guards.
    Every guess in the module says its evidence; nothing is written to the table."""
    from singletable.design import infer as infer_design

    source = infer_design(target, table, sample=sample).source
    if output is None:
        click.echo(source, nl=False)
        return
    try:
        descriptor = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            out.write(source)
    except OSError as error:
        raise click.ClickException(f"cannot write {output}: {error.strerror or error}") from None
    click.echo(f"wrote {output}", err=True)
