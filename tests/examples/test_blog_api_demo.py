"""``singletable demo blog-api`` prints the same on the embedded engine and on DynamoDB Local, stops when its
table is already there, and starts over with ``--reset``."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from demo_support import cli_stops_unless_reset, demo_lines

from singletable.examples import DemoError


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> str:
    """A table name of our own: DynamoDB Local is shared by the whole test session."""
    name = f"demo{os.getpid()}"
    monkeypatch.setenv("StackName", name)
    monkeypatch.setenv("Environment", "test")
    for variable, value in (
        ("AWS_DEFAULT_REGION", "us-east-1"),
        ("AWS_ACCESS_KEY_ID", "demo"),
        ("AWS_SECRET_ACCESS_KEY", "demo"),
    ):
        monkeypatch.setenv(variable, value)
    return f"{name}-test-blog"


def transactional_capacity_normalised(lines: list[str]) -> list[str]:
    """Blank the capacity of steps that ran a TransactWriteItems, and of the sample-data load (which does).

    The one known departure (docs/compatibility.md, "TransactWriteItems capacity"): DynamoDB Local bills
    transactions ad hoc (creates as 4 units on the table and each index), the engine bills AWS's rule (2 units
    per write unit on the table, each index as outside a transaction). Every other line,
    including every other capacity, must match exactly.
    """
    out: list[str] = []
    transactional = False
    for line in lines:
        if line.startswith("== "):
            transactional = False
        if "request: TransactWriteItems" in line:
            transactional = True
        if line.startswith("table ") and "loaded the sample data" in line:
            line = re.sub(r"\([\d.]+ capacity units\)", "(transactional capacity)", line)
        elif transactional and line.startswith("   capacity: "):
            line = "   capacity: (transactional)"
        out.append(line)
    return out


def run(target: object, *, reset: bool = False) -> list[str]:
    return demo_lines("blog-api", target, reset=reset)


def test_the_demo_prints_the_same_on_the_engine_and_on_dynamodb_local(
    stack: str, reference_server, tmp_path: Path
) -> None:
    engine = run(str(tmp_path / "demo.db"))
    reference = run(reference_server.endpoint, reset=True)
    assert engine[1].startswith(f"table {stack}:")
    assert "error" not in "\n".join(engine[:3])
    names = [line for line in engine if line.startswith("== ")]
    assert len(names) >= 45
    assert transactional_capacity_normalised(engine) == transactional_capacity_normalised(reference)
    assert sum(line.startswith("   capacity: ") for line in engine) == len(names)
    again = run(reference_server.endpoint, reset=True)
    assert again == reference


def test_a_second_run_stops_without_reset(stack: str, tmp_path: Path) -> None:
    db = str(tmp_path / "demo.db")
    first = run(db)
    with pytest.raises(DemoError, match=f"table {stack} already exists.*--reset"):
        run(db)
    assert run(db, reset=True) == first


def test_the_cli_says_so_and_exits_non_zero(stack: str, tmp_path: Path) -> None:
    output = cli_stops_unless_reset("blog-api", str(tmp_path / "cli.db"), stack)
    assert "== Padrão 1: user profile (ana)" in output
