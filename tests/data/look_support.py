"""What the data commands' tests share: TARGETs of every kind, and the command line run in process."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from singletable._cli import main

TARGETS = ["file", "serve", "reference"]


@dataclass
class Place:
    kind: str  # file, serve or reference
    url: str  # the TARGET argument
    table: str


def place_for(kind: str, request: pytest.FixtureRequest, tmp_path: Path, table_name: str) -> Place:
    """A database file in ``tmp_path``, the session's ``singletable serve``, or DynamoDB Local."""
    if kind == "file":
        return Place(kind, str(tmp_path / "app.db"), table_name)
    if kind == "serve":
        return Place(kind, request.getfixturevalue("http_server").endpoint, table_name)
    return Place(kind, request.getfixturevalue("reference_server").endpoint, table_name)


def run(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input, env={"COLUMNS": "300"})


def ok(*args: str, input: str | None = None) -> str:
    result = run(*args, input=input)
    assert result.exit_code == 0, result.output
    return result.stdout


def lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def header(output: str) -> list[str]:
    """The column names of a rich table (the line above its rule)."""
    rows = output.splitlines()
    rule = next(i for i, row in enumerate(rows) if set(row.strip()) == {"─"})
    return rows[rule - 1].split()
