"""The design side of ``singletable export`` (``--format cloudformation|terraform|cdk|workbench``) and
``singletable import-workbench``: thin layers over :func:`singletable.design.export_design` and
:func:`singletable.design.import_workbench` (docs/design-tools.md, "export").

Both write to a file when given one and to stdout otherwise, so ``singletable export app.design --format
terraform > table.tf`` works; what the format can only approximate (a Workbench model's one type per
attribute) is said on stderr as ``warning: ...``.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import click


def _write(text: str, destination: str | None, what: str) -> None:
    if destination is None or destination == "-":
        click.echo(text, nl=False)
        return
    Path(destination).write_text(text, encoding="utf-8")
    click.echo(f"wrote {what} to {destination}", err=True)


def write_design_export(format_: str, module: str, destination: str | None, without_lsi: bool) -> None:
    """``export --format FORMAT MODULE [DESTINATION]``."""
    from singletable.design import WorkbenchWarning, export_design

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", WorkbenchWarning)
        text = export_design(module, format_, include_local_indexes=not without_lsi)
    for warning in caught:
        click.echo(f"warning: {warning.message}", err=True)
    _write(text, destination, f"the {format_} export of {module}")


@click.command("import-workbench")
@click.argument("model")
@click.option("-o", "--output", help="Write the module to this file (default: stdout).")
@click.option("--table", help="The table to import, when the model holds several.")
def import_workbench(model: str, output: str | None, table: str | None) -> None:
    """Generate a Python design module (Table, GSIs, entities with key templates and typed fields, the
    sample rows as SAMPLE_ITEMS) from a NoSQL Workbench data model MODEL (its JSON file)."""
    from singletable.design import import_workbench as generate

    _write(generate(model, table=table), output, f"the design module of {model}")
