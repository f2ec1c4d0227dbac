"""``singletable synth`` and ``singletable import-workbench``: a design module to the text that declares its
table elsewhere, and a NoSQL Workbench model back to a design module. Thin layers over
:func:`singletable.design.export_design` and :func:`singletable.design.import_workbench`
(docs/design-tools.md, "synth").

``synth`` is named after ``cdk synth``, which turns code into the CloudFormation that deploys it: here the
code is the design, and the text is CloudFormation, Terraform, a CDK app or a Workbench model. ``export``
moves a table's items (``_cli/transfer.py``); its old design spelling (``export MODULE --format
terraform``) still runs :func:`synthesize`, after one deprecation line on stderr.

Both write to a file when given one and to stdout otherwise, so ``singletable synth app.design --format
terraform > table.tf`` works; what the format can only approximate (a Workbench model's one type per
attribute) is said on stderr as ``warning: ...``.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import click

from singletable._cli._options import Decorator

# The formats synth writes (singletable.design's export_design takes the same names).
SYNTH_FORMATS = ("cloudformation", "terraform", "cdk", "workbench")


def _write(text: str, destination: str | None, what: str) -> None:
    if destination is None or destination == "-":
        click.echo(text, nl=False)
        return
    Path(destination).write_text(text, encoding="utf-8")
    click.echo(f"wrote {what} to {destination}", err=True)


def synthesize(format_: str, module: str, destination: str | None, without_lsi: bool) -> None:
    """What ``synth MODULE [DESTINATION] --format FORMAT`` does, for it and for export's old spelling."""
    from singletable.design import WorkbenchWarning, export_design

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", WorkbenchWarning)
        text = export_design(module, format_, include_local_indexes=not without_lsi)
    for warning in caught:
        click.echo(f"warning: {warning.message}", err=True)
    _write(text, destination, f"the {format_} export of {module}")


def without_lsi_option(hidden: bool = False) -> Decorator:
    """``--without-lsi`` (Workbench has no local secondary indexes); hidden on export's old spelling."""
    return click.option(
        "--without-lsi",
        is_flag=True,
        hidden=hidden,
        help="workbench: leave local secondary indexes out (Workbench has none).",
    )


@click.command("synth", short_help="A design as CloudFormation, Terraform, CDK or Workbench.")
@click.argument("module")
@click.argument("destination", required=False)
@click.option(
    "--format",
    "format_",
    required=True,
    type=click.Choice(SYNTH_FORMATS),
    help="cloudformation (YAML), terraform (HCL), cdk (a Python app) or workbench (a NoSQL Workbench model).",
)
@without_lsi_option()
def synth(module: str, destination: str | None, format_: str, without_lsi: bool) -> None:
    """Write the design MODULE (myapp.design, myapp.design:TABLE or a .py file) as CloudFormation,
    Terraform, a CDK app or a NoSQL Workbench model, to DESTINATION (stdout when none or -)."""
    synthesize(format_, module, destination, without_lsi)


@click.command("import-workbench", short_help="A NoSQL Workbench model as a Python design module.")
@click.argument("model")
@click.option("-o", "--output", help="Write the module to this file (default: stdout).")
@click.option("--table", help="The table to import, when the model holds several.")
def import_workbench(model: str, output: str | None, table: str | None) -> None:
    """Generate a Python design module (Table, GSIs, entities with key templates and typed fields, the
    sample rows as SAMPLE_ITEMS) from a NoSQL Workbench data model MODEL (its JSON file); synth --format
    workbench writes one."""
    from singletable.design import import_workbench as generate

    _write(generate(model, table=table), output, f"the design module of {model}")


COMMANDS = (synth, import_workbench)
