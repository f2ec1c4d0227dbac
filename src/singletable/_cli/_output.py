"""How the data commands print: a rich table for a person, JSON or JSON Lines for a script.

``--json`` writes one JSON array, ``--jsonl`` one item per line, both in DynamoDB JSON (binary as base64) or,
with ``--plain``, in plain JSON; both stream, so a scan of a million items never sits in memory. The table
a person reads puts the entity (with ``--design``) and the key attributes first, then every other attribute
in the order items first show it, and goes through a pager when it is taller than the terminal. On a narrow
terminal it shows the attributes that fit, never at the expense of the entity and key columns (each as wide as
its values, up to :data:`KEY_COLUMN_WIDTH`), and its caption says how many it left out: ``--json`` shows them.
"""

from __future__ import annotations

import datetime
import json
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import click
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text  # item text is shown as is, never read as rich markup

from singletable.data import render_item
from singletable.data.shared import value_text

Item = dict[str, Any]


@dataclass(frozen=True)
class Format:
    """What the user asked for: ``"table"``, ``"json"`` or ``"jsonl"``, and plain JSON or DynamoDB JSON."""

    kind: str = "table"
    plain: bool = False
    pager: bool = True

    @classmethod
    def of(cls, as_json: bool, as_jsonl: bool, plain: bool, pager: bool = True) -> Format:
        if as_json and as_jsonl:
            raise click.UsageError("choose one of --json and --jsonl")
        return cls("json" if as_json else "jsonl" if as_jsonl else "table", plain, pager)


def write_items(
    items: Iterable[Item],
    form: Format,
    *,
    keys: list[str],
    label: Callable[[Item], str] | None = None,
    title: str = "",
) -> int:
    """Print items in the chosen format; returns how many."""
    if form.kind == "jsonl":
        return _write_lines(render_item(item, plain=form.plain) for item in items)
    if form.kind == "json":
        return _write_array(render_item(item, plain=form.plain) for item in items)
    rows = list(items)
    show(_items_table(rows, keys, label, title, width=Console().width), form)
    return len(rows)


def _write_lines(lines: Iterator[str]) -> int:
    written = 0
    for line in lines:
        click.echo(line)
        written += 1
    return written


def _write_array(lines: Iterator[str]) -> int:
    """``[`` and ``]`` on lines of their own, an item per line between them (still streamed)."""
    click.echo("[")
    written, pending = 0, None
    for line in lines:
        if pending is not None:
            click.echo(pending + ",")
        pending, written = line, written + 1
    if pending is not None:
        click.echo(pending)
    click.echo("]")
    return written


KEY_COLUMN_WIDTH = 40  # key and entity columns are kept as wide as their values, up to this
OTHER_COLUMN_WIDTH = 30  # other attributes wrap (fold) at this width
COLUMN_COST = 3  # what rich puts around a column of a SIMPLE_HEAD table: padding and the gap
TABLE_EDGES = 2


def _items_table(
    rows: list[Item],
    keys: list[str],
    label: Callable[[Item], str] | None,
    title: str,
    width: int | None = None,
) -> Table:
    """The items as a table ``width`` columns wide (None: every attribute, however wide)."""
    present = [k for k in keys if any(k in row for row in rows)]
    others: dict[str, None] = {}
    for row in rows:
        for name in row:
            if name not in others and name not in present:
                others[name] = None
    labels = [label(row).translate(_VISIBLE) for row in rows] if label is not None else None
    label_width = min(max([len("entity"), *map(len, labels)]), KEY_COLUMN_WIDTH) if labels is not None else 0
    key_widths = {k: _natural_width(rows, k, KEY_COLUMN_WIDTH) for k in present}
    required = TABLE_EDGES + sum(w + COLUMN_COST for w in key_widths.values())
    required += label_width + COLUMN_COST if labels is not None else 0
    shown = _fitting(rows, list(others), required, width)
    keys_fit = width is None or required <= width  # else the key columns share the width, their values folded
    caption = _count(len(rows))
    if len(shown) < len(others):
        caption += (
            f"; {len(others) - len(shown)} more attribute(s) not shown at this width (--json shows them all)"
        )
    table = Table(box=box.SIMPLE_HEAD, title=title or None, caption=caption, caption_justify="left")
    if labels is not None:
        table.add_column("entity", style="bold magenta", overflow="fold", min_width=label_width)
    for name in present:
        table.add_column(
            Text(name.translate(_VISIBLE)),
            style="bold cyan",
            overflow="fold",
            min_width=key_widths[name] if keys_fit else None,
        )
    for name in shown:
        table.add_column(
            Text(name.translate(_VISIBLE)),
            overflow="fold",
            min_width=min(len(name), OTHER_COLUMN_WIDTH),
            max_width=OTHER_COLUMN_WIDTH,
        )
    for n, row in enumerate(rows):
        cells = [Text(cell_text(row[name])) if name in row else Text() for name in (*present, *shown)]
        table.add_row(*([Text(labels[n])] if labels is not None else []), *cells)
    return table


def _fitting(rows: list[Item], others: list[str], used: int, width: int | None) -> list[str]:
    """The other attributes that fit beside the entity and key columns (``used`` wide), in order (a wide one
    is skipped, narrower ones after it still shown)."""
    if width is None:
        return others
    shown = []
    for name in others:
        need = _natural_width(rows, name, OTHER_COLUMN_WIDTH) + COLUMN_COST
        if used + need <= width:
            shown.append(name)
            used += need
    return shown


def _natural_width(rows: list[Item], name: str, cap: int) -> int:
    """How wide a column wants to be: its name or its longest value line, at most ``cap``."""
    widest = len(name)
    for row in rows:
        if name in row:
            widest = max(widest, *(len(line) for line in cell_text(row[name]).splitlines() or [""]))
            if widest >= cap:
                return cap
    return widest


def _count(n: int) -> str:
    return f"{n} item" if n == 1 else f"{n} items"


# Control characters in item text would drive the terminal (ESC starts escape sequences): shown as \xNN.
_VISIBLE = str.maketrans({c: f"\\x{c:02x}" for c in (*range(32), 127) if chr(c) not in "\t\n"})


def cell_text(value: dict[str, Any]) -> str:
    """An attribute value as a person reads it in a table cell: text as is, the rest as plain JSON."""
    return value_text(value).translate(_VISIBLE)


def show(renderable: Any, form: Format) -> None:
    """Print a rich renderable, through a pager when it is taller than the terminal."""
    console = Console(soft_wrap=False)
    if form.pager and sys.stdout.isatty():
        lines = console.render_lines(renderable, pad=False)
        if len(lines) > console.size.height:
            with console.pager(styles=True):
                console.print(renderable)
            return
    console.print(renderable)


def write_json(value: Any, form: Format) -> None:
    """A JSON document (DescribeTable's answer, a list of names): pretty for --json, one line for --jsonl."""
    indent = 2 if form.kind == "json" else None
    click.echo(json.dumps(value, indent=indent, default=_json_default, ensure_ascii=False))


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime.datetime):  # boto3 parses DynamoDB's epoch seconds; print them back
        return value.timestamp()
    return str(value)


def description_table(description: dict[str, Any]) -> Table:
    """DescribeTable's answer as a person reads it: the facts first, then each index."""
    table = Table(box=box.SIMPLE_HEAD, show_header=False, title=description["TableName"])
    table.add_column(style="bold")
    table.add_column()
    types = {d["AttributeName"]: d["AttributeType"] for d in description.get("AttributeDefinitions", ())}

    def key(elements: list[dict[str, str]]) -> str:
        return ", ".join(
            f"{e['AttributeName']} ({types.get(e['AttributeName'], '?')}, {e['KeyType']})" for e in elements
        )

    table.add_row("key", Text(key(description["KeySchema"])))
    table.add_row("status", description.get("TableStatus", ""))
    table.add_row("items", str(description.get("ItemCount", "")))
    table.add_row("size (bytes)", str(description.get("TableSizeBytes", "")))
    billing = description.get("BillingModeSummary", {}).get("BillingMode", "PROVISIONED")
    table.add_row("billing", billing)
    for kind in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        for index in description.get(kind, ()):
            projection = index.get("Projection", {}).get("ProjectionType", "")
            label = "GSI" if kind.startswith("Global") else "LSI"
            table.add_row(
                f"{label} {index['IndexName']}", Text(f"{key(index['KeySchema'])}; projects {projection}")
            )
    stream = description.get("StreamSpecification", {})
    if stream.get("StreamEnabled"):
        table.add_row("stream", stream.get("StreamViewType", ""))
    return table
