"""The items table on narrow and wide terminals: the entity and key columns always whole, the attributes
that fit after them, and a caption counting those left out.

Seed 001's listings (about thirty attributes each) rendered by rich at 80, 120 and 200 columns, and once
through ``singletable scan --design`` with ``COLUMNS=120``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from singletable._cli import main
from singletable._cli._output import _items_table
from singletable.data import load_design
from singletable.examples.hustlehub import sample
from singletable.examples.hustlehub.design import hub
from singletable.model import connect

DESIGN = "singletable.examples.hustlehub.design"


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("columns") / "hub.db"
    db = connect(hub, str(path))
    db.ensure_table()
    sample.load(sample.open_service(db))
    db.close()
    return path


@pytest.fixture(scope="module")
def rows(database: Path) -> list[dict]:
    from singletable.engine import Engine

    with Engine(str(database)) as engine:
        items = engine.scan(TableName=hub.resolved_name())["Items"]
    listings = [i for i in items if i.get("entityType") == {"S": "listing"}][:3]
    assert len(listings) == 3 and min(len(i) for i in listings) > 25
    return listings


def rendered(rows: list[dict], width: int) -> tuple[str, list[str]]:
    """The table's text at ``width`` columns, and its header's column names."""
    console = Console(width=width, record=True, color_system=None)
    console.print(_items_table(rows, ["PK", "SK"], load_design(DESIGN).label, "t", width=width))
    text = console.export_text()
    header = next(line for line in text.splitlines() if line.strip().startswith("entity"))
    return text, header.split()


@pytest.mark.parametrize("width", [80, 120, 200])
def test_key_columns_are_whole_at_every_width(rows: list[dict], width: int) -> None:
    text, header = rendered(rows, width)
    assert header[:3] == ["entity", "PK", "SK"]
    assert all(len(line) <= width for line in text.splitlines())
    for row in rows:
        assert row["PK"]["S"] in text  # never cut or folded: keys fit at these widths
    assert text.count("Listing") == 3 and "METADATA" in text
    left_out = int(re.search(r"; (\d+) more attribute\(s\) not shown at this width \(--json", text)[1])
    shown = len(header) - 3
    everything = {name for row in rows for name in row} - {"PK", "SK"}
    assert shown + left_out == len(everything)
    for name in header[3:]:
        assert name in everything  # every header is a whole attribute name, on one line


def test_wider_terminals_show_more(rows: list[dict]) -> None:
    shown = [len(rendered(rows, width)[1]) for width in (80, 120, 200)]
    assert shown[0] <= shown[1] < shown[2]


def test_every_attribute_when_the_width_allows(rows: list[dict]) -> None:
    text, header = rendered(rows, 2000)
    assert "not shown" not in text and text.count("3 items") == 1
    assert len(header) - 3 == len({name for row in rows for name in row} - {"PK", "SK"})


def test_keys_too_wide_for_the_terminal_fold_but_stay(rows: list[dict]) -> None:
    long_key = [{**rows[0], "SK": {"S": "S" * 70}}]
    text, header = rendered(long_key, 60)
    assert header[:3] == ["entity", "PK", "SK"]
    assert text.count("S") >= 70  # folded over several lines, never cut
    assert "…" not in text and "S" * 10 in text


def test_scan_with_a_design_on_a_120_column_terminal(database: Path) -> None:
    result = CliRunner().invoke(
        main, ["scan", str(database), hub.resolved_name(), "--design", DESIGN], env={"COLUMNS": "120"}
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert all(len(line) <= 120 for line in lines)
    header = next(line for line in lines if line.strip().startswith("entity")).split()
    assert header[:3] == ["entity", "PK", "SK"]
    assert "LISTING#uber-driver" in result.output and "CATEGORY#teach-and-tutor" in result.output
    assert re.search(
        r"\d+ items; \d+ more attribute\(s\) not shown at this width \(--json shows them all\)", result.output
    )
