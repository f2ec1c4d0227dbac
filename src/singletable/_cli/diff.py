"""``singletable diff``: a design against a live table, a thin layer over
:func:`singletable.design.diff_table` (docs/design-tools.md, "diff").

The exit code says the answer, as diff(1)'s does: 0 when the table matches the design, 1 when it differs
(each difference listed with its fix), 2 when the comparison could not be made (the module does not load,
the target refuses) -- so a deploy pipeline can tell "drifted" from "broken".
"""

from __future__ import annotations

import json

import click

from singletable._cli._options import json_option, target_argument


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
    from singletable.data import TargetError
    from singletable.data._design import load_design
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


def _print(name: str, target: str, differences: list) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(soft_wrap=False)
    if not differences:
        console.print(f"{name} on {target} matches the design", highlight=False)
        return
    title = f"{name} on {target}: {len(differences)} differences from the design"
    grid = Table(title=title, title_justify="left")
    for column in ("kind", "of", "design", "table", "fix"):
        grid.add_column(column, overflow="fold")
    for d in differences:
        grid.add_row(d.kind, d.subject, d.design, d.table, d.fix)
    console.print(grid)
