"""``singletable export``, ``import`` and ``copy``: thin click layers over ``singletable.data``'s
:func:`export_table`, :func:`import_table` and :func:`copy_table` (docs/data.md).

On a terminal a rich progress line shows items, bytes and rate on stderr; in a pipe nothing but the final
one-line summary (stdout) is printed. A transfer that stops prints why (file, line, key) and how many items
were committed, on stderr, and exits 1 (130 when interrupted with Ctrl-C); import and copy then say how to
resume. The command group words these failures, as every command's (:mod:`singletable._cli._failures`).

``export`` moves items only; a design's infrastructure code is ``synth``'s (``_cli/synth.py``). The old
spelling, ``export MODULE [DESTINATION] --format cloudformation|terraform|cdk|workbench``, still works: one
deprecation line on stderr, then exactly what synth does.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click

from singletable._cli._options import (
    FORMATS,
    checkpoint_options,
    format_option,
    json_option,
    plain_option,
    segments_option,
    target_argument,
)
from singletable._cli.synth import SYNTH_FORMATS, synthesize, without_lsi_option
from singletable._words import counted


def _guess_format(path: str) -> str:
    name = path.lower().removesuffix(".gz")
    if name.endswith(".csv"):
        return "csv"
    if name.endswith((".jsonl", ".json", ".ndjson")):
        return "jsonl"
    return "dynamodb"


@contextlib.contextmanager
def _progress(label: str) -> Iterator[Callable[[int, int], None] | None]:
    """A rich progress line on an interactive stderr, or None (quiet) in a pipe or a file."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    columns = (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        TextColumn("{task.completed:,.0f} items"),
        TextColumn("{task.fields[size]}"),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=None, size="", rate="")

        def update(items: int, size: int) -> None:
            elapsed = bar.tasks[task].elapsed or 1e-9
            bar.update(task, completed=items, size=_bytes(size), rate=f"{items / elapsed:,.0f} items/s")

        yield update


def _bytes(size: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:,.0f} {unit}" if unit == "B" else f"{size:,.1f} {unit}"
        size /= 1024
    return ""


def _count(arguments: tuple[str, ...]) -> str:
    return f"{len(arguments)} argument" + ("" if len(arguments) == 1 else "s")


def _report(summary: Any, as_json: bool, text: str) -> None:
    for warning in summary.warnings:
        click.echo(f"warning: {warning}", err=True)
    click.echo(json.dumps(summary.as_dict()) if as_json else text)


class _ExportFormat(click.Choice):
    """export's ``--format``: the data formats, as help and errors list them; the design formats of the old
    spelling (``export MODULE --format terraform``, now ``synth``) are still accepted, unlisted."""

    def __init__(self) -> None:
        super().__init__(FORMATS.choices)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if value in SYNTH_FORMATS:
            return value
        return super().convert(value, param, ctx)


@click.command("export", short_help="A table's items to S3 export layout, JSON Lines or CSV.")
@click.argument("arguments", nargs=-1, metavar="TARGET TABLE DESTINATION")
@format_option(
    "dynamodb (S3 export layout, a directory), jsonl or csv. "
    "Default: from DESTINATION's name (.jsonl, .csv, [.gz]), else dynamodb.",
    _ExportFormat(),
)
@plain_option("Plain JSON values instead of DynamoDB JSON (jsonl, csv).")
@segments_option()
@json_option("Print the summary as JSON.")
@without_lsi_option(hidden=True)
def export(
    arguments: tuple[str, ...],
    format_: str | None,
    plain: bool,
    segments: int,
    as_json: bool,
    without_lsi: bool,
) -> None:
    """Export TABLE's items, from TARGET (a database file or an endpoint URL), to DESTINATION.

    A design module is written as infrastructure code by singletable synth.
    """
    if format_ in SYNTH_FORMATS:
        _old_design_export(arguments, format_, plain, segments, as_json, without_lsi)
        return
    if without_lsi:
        raise click.UsageError("--without-lsi: only for singletable synth --format workbench")
    if len(arguments) != 3:
        hint = ""
        if len(arguments) in (1, 2):  # export MODULE [DESTINATION], no design format: synth is wanted
            formats = "|".join(SYNTH_FORMATS)
            hint = f"; for a design module: singletable synth MODULE [DESTINATION] --format {formats}"
        raise click.UsageError(f"export takes TARGET TABLE DESTINATION, not {_count(arguments)}{hint}")
    target, table, destination = arguments
    from singletable.data import export_table

    format_ = format_ or _guess_format(destination)
    with _progress(f"export {table}") as progress:
        summary = export_table(
            target, table, destination, format=format_, plain=plain, segments=segments, progress=progress
        )
    _report(
        summary,
        as_json,
        f"exported {counted(summary.items, 'item')} ({_bytes(summary.bytes)}) from {table} to "
        f"{summary.destination} in {summary.seconds:.1f} s",
    )


def _old_design_export(
    arguments: tuple[str, ...], format_: str, plain: bool, segments: int, as_json: bool, without_lsi: bool
) -> None:
    """``export MODULE [DESTINATION] --format FORMAT``, the old spelling of synth: one deprecation line on
    stderr, then what synth does."""
    click.echo(
        f"`singletable export --format {format_}` is now `singletable synth MODULE --format {format_}`; "
        "the old spelling will be removed",
        err=True,
    )
    given = (("--plain", plain), ("--segments", segments != 1), ("--json", as_json))
    data_only = [name for name, present in given if present]
    if data_only:
        raise click.UsageError(f"{', '.join(data_only)}: only for a table's items, not --format {format_}")
    if len(arguments) not in (1, 2):
        raise click.UsageError(f"--format {format_} takes MODULE [DESTINATION], not {_count(arguments)}")
    synthesize(format_, arguments[0], arguments[1] if len(arguments) > 1 else None, without_lsi)


@click.command("import")
@target_argument()
@click.argument("table")
@click.argument("source")
@format_option(
    "dynamodb (an S3 export copied to disk), jsonl or csv. "
    "Default: a directory is dynamodb, else from SOURCE's name."
)
@plain_option("The lines hold plain JSON values, not DynamoDB JSON.")
@click.option(
    "--schema",
    help="Create TABLE when missing: a DescribeTable JSON file, or a design module "
    "(python.module.path) declaring one singletable.model.Table.",
)
@click.option(
    "--on-error",
    type=click.Choice(["stop", "reject"]),
    default="stop",
    show_default=True,
    help="At a bad line: stop (after committing every line before it), or write it to the reject "
    "file and go on.",
)
@click.option("--reject-file", help="Where rejected lines go (default SOURCE.TABLE.rejects.jsonl).")
@checkpoint_options("import", "Checkpoint file (default SOURCE.TABLE.import-checkpoint.json).")
@click.option("--chunk-size", type=click.IntRange(1, 1000000), help="Items per committed chunk.")
@click.option(
    "--chunked",
    is_flag=True,
    help="A table this import creates in a database file is loaded in committed chunks with a checkpoint "
    "(usable while it fills, resumable) instead of built CREATING and made ACTIVE once checked.",
)
@json_option("Print the summary as JSON.")
def import_(
    target: str,
    table: str,
    source: str,
    format_: str | None,
    plain: bool,
    schema: str | None,
    on_error: str,
    reject_file: str | None,
    checkpoint: str | None,
    resume: bool,
    chunk_size: int | None,
    chunked: bool,
    as_json: bool,
) -> None:
    """Import SOURCE into TABLE of TARGET (a database file or an endpoint URL)."""
    from singletable.data import import_table

    format_ = format_ or ("dynamodb" if Path(source).is_dir() else _guess_format(source))
    with _progress(f"import {table}") as progress:
        summary = import_table(
            target,
            table,
            source,
            format=format_,
            plain=plain,
            schema=schema,
            on_error=on_error,
            reject_file=reject_file,
            checkpoint=checkpoint,
            resume=resume,
            chunk_size=chunk_size,
            progress=progress,
            sorted_build=not chunked,
        )
    _report(summary, as_json, _import_text(summary, table))
    if summary.damaged:
        files = ", ".join(summary.damaged)
        raise click.ClickException(
            f"{counted(len(summary.damaged), 'source file')} could not be read whole (what could not be "
            f"read is in no reject file): {files}"
        )


def _import_text(summary: Any, table: str) -> str:
    """The summary line: every line read is counted once, as new, replacing, or rejected; they add up."""
    text = f"imported {counted(summary.read, 'line')} into {table} in {summary.seconds:.1f} s: "
    if summary.overwritten is None:
        text += f"{counted(summary.items, 'item')} written (an endpoint does not say which replaced an item)"
    else:
        new = summary.items - summary.overwritten
        text += f"{counted(new, 'new item')}, {summary.overwritten:,} replacing an item with the same key"
    text += f", {summary.rejected:,} rejected"
    if summary.resumed_from:
        text += f" ({counted(summary.resumed_from, 'item')} committed before resuming)"
    return text


@click.command("copy")
@target_argument("source")
@target_argument("destination")
@click.option("--table", "tables", multiple=True, help="A table to copy (repeat for several; default: all).")
@segments_option()
@checkpoint_options(
    "copy",
    "Checkpoint file (one table only; default DESTINATION.TABLE.copy-checkpoint.json: beside a destination "
    "file, else in the current directory).",
)
@json_option("Print each table's summary as JSON.")
def copy(
    source: str,
    destination: str,
    tables: tuple[str, ...],
    segments: int,
    checkpoint: str | None,
    resume: bool,
    as_json: bool,
) -> None:
    """Copy tables from SOURCE to DESTINATION (each a database file or an endpoint URL), creating missing
    tables like the source's (keys, indexes, billing, stream, TTL, tags...), and compare the item counts of
    both sides at the end. SOURCE is only read: a file is opened read-only and never changes."""
    from singletable.data import TableSettings, open_target
    from singletable.data import tables as table_names

    if checkpoint and len(tables) != 1:
        raise click.UsageError("--checkpoint needs exactly one --table")
    with open_target(source, read_only=True) as src:
        names = list(tables) or list(table_names(src))
        for name in names:  # every table is found before DESTINATION is opened (or created)
            if TableSettings.capture(src, name, lambda _: None) is None:
                raise click.ClickException(f"table {name} does not exist in {source}")
        with open_target(destination, durable=True) as dst:
            mismatched = _copy_tables(src, dst, names, segments, checkpoint, resume, as_json)
    if mismatched:
        raise click.ClickException(f"item counts differ after the copy for: {', '.join(mismatched)}")


def _copy_tables(
    src: Any,
    dst: Any,
    names: list[str],
    segments: int,
    checkpoint: str | None,
    resume: bool,
    as_json: bool,
) -> list[str]:
    """Copy each table; the names of those whose counts differ at the end."""
    from singletable.data import copy_table

    mismatched = []
    for name in names:
        with _progress(f"copy {name}") as progress:
            summary = copy_table(
                src, dst, name, segments=segments, checkpoint=checkpoint, resume=resume, progress=progress
            )
        if not summary.counts_match:
            mismatched.append(name)
        _report(
            summary,
            as_json,
            f"copied {counted(summary.items, 'item')} of {name} in {summary.seconds:.1f} s; count: "
            f"{summary.source_count:,} in {src.name}, {summary.destination_count:,} in {dst.name}",
        )
    return mismatched


COMMANDS = (export, import_, copy)
