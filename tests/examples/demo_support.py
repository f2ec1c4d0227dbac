"""What the ``singletable demo`` tests share: a demo's printed lines, and the command line's guard of a table
that already exists (it stops, naming the table, until ``--reset``)."""

from __future__ import annotations

from typing import Any

from click.testing import CliRunner

from singletable._cli import main
from singletable.examples import run_demo


def demo_lines(name: str, target: Any, *, reset: bool = False) -> list[str]:
    """The lines demo ``name`` prints on ``target`` (a database file, an endpoint or a client)."""
    lines: list[str] = []
    run_demo(name, target=target, reset=reset, echo=lines.append)
    return lines


def cli_stops_unless_reset(name: str, db: str, table: str) -> str:
    """Run ``singletable demo NAME --db DB`` three times: the first prints the demo; the second stops (exit
    code 1) because ``table`` exists; the third, with ``--reset``, prints the same as the first. Returns that
    output."""
    runner = CliRunner()
    first = runner.invoke(main, ["demo", name, "--db", db])
    assert first.exit_code == 0, first.output
    again = runner.invoke(main, ["demo", name, "--db", db])
    assert again.exit_code == 1
    assert f"table {table} already exists at this endpoint; run again with --reset" in again.output
    reset = runner.invoke(main, ["demo", name, "--db", db, "--reset"])
    assert reset.exit_code == 0 and reset.output == first.output
    return first.output
