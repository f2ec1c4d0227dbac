"""``singletable diff``: a design against a live table, a thin layer over
:func:`singletable.design.diff_table` (docs/design-tools.md, "diff").

The exit code says the answer, as diff(1)'s does: 0 when the table matches the design, 1 when it differs
(each difference listed with its fix), 2 when the comparison could not be made (the module does not load,
the target refuses) -- so a deploy pipeline can tell "drifted" from "broken".
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from singletable._cli._options import json_option, target_argument

if TYPE_CHECKING:
    from singletable.design import Difference


class _Trouble(click.ClickException):
    exit_code = 2


@click.command("diff")
@click.argument("module")
@target_argument()
@click.option("--table", "table_name", help="The live table's name (default: the design's).")
@json_option("Print the differences as JSON.")
def diff(module: str, target: str, table_name: str | None, as_json: bool) -> None:
    """Compare the design MODULE (myapp.design, myapp.design:TABLE or a .py file) with its table on TARGET
    (a database file or an endpoint URL): indexes, keys, attribute types, projections, TTL, stream and
    billing. Exit code 0 when they match, 1 when they differ, 2 when they cannot be compared."""
    from singletable._designs import load_design
    from singletable.data import TargetError
    from singletable.design import diff_table

    try:
        table = load_design(module).table
        name = table_name or table.resolved_name()
        differences = diff_table(table, target, name)
    except TargetError as error:
        raise _Trouble(f"{error.code}: {error.message}") from None
    except (ValueError, OSError) as error:
        raise _Trouble(str(error)) from None
    if as_json:
        shown = {"table": name, "target": target, "equal": not differences}
        click.echo(json.dumps({**shown, "differences": [d.as_dict() for d in differences]}, indent=2))
    else:
        _print(name, target, differences)
    if differences:
        raise click.exceptions.Exit(1)


def _print(name: str, target: str, differences: list[Difference]) -> None:
    """One block per difference -- what, where, both sides, the fix -- readable in a terminal or a log."""
    if not differences:
        click.echo(f"{name} on {target} matches the design")
        return
    count = f"{len(differences)} difference{'s' if len(differences) > 1 else ''}"
    click.echo(f"{name} on {target}: {count} from the design")
    for d in differences:
        click.echo("")
        click.secho(f"  {d.kind}: {d.subject}", bold=True)
        click.echo(f"    design: {d.design}\n    table:  {d.table}\n    fix:    {d.fix}")
