"""Reading the file formats of import: JSON Lines, CSV, and DynamoDB's export-to-S3 layout on disk.

Reading yields :class:`SourceLine`\\ s -- an item, or the reason a line is not one -- each naming its file and
line number, so every refusal downstream can say where the bad input is. Nothing is skipped silently: a
line that is not JSON, not an object or not an item comes back with ``error`` set, and a truncated gzip
stream comes back as one last line saying so (the file's remaining items cannot be read).

Formats (``FORMATS``):

- ``dynamodb``: DynamoDB's export to S3 (``DYNAMODB_JSON``) copied to disk -- a directory holding
  ``manifest-summary.json``, ``manifest-files.json`` (one JSON object per line, each naming a
  ``dataFileS3Key``) and ``data/*.json.gz``, whose lines are ``{"Item": {...DynamoDB JSON...}}``. Reading
  accepts the export directory itself (``.../AWSDynamoDB/<ExportId>``) or any directory above it holding
  exactly one export. See :mod:`singletable.data._writers` for the writing side.
- ``jsonl``: one item per line, DynamoDB JSON (``{"PK": {"S": "a"}}``; the export's ``{"Item": ...}``
  wrapper is accepted too), or plain JSON with ``plain=True``. ``.gz`` files are read and written gzipped.
- ``csv``: a header row of attribute names, one item per row. A cell holds the attribute in DynamoDB JSON
  (``{"N":"3"}``: lossless), or with ``plain=True`` a plain value (text as is; numbers, booleans, lists and
  maps as JSON); an empty cell is an absent attribute.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from singletable.data._item_json import (
    NotJSON,
    attribute_value,
    from_plain,
    item_from_json,
    loads,
    value_from_json,
)

FORMATS = ("dynamodb", "jsonl", "csv")
SUMMARY = "manifest-summary.json"
FILES = "manifest-files.json"

Item = dict[str, Any]


class FormatError(Exception):
    """A source or destination that cannot be used at all (missing manifest, unknown format...)."""


@dataclass
class SourceLine:
    """One line of input: ``item`` (DynamoDB JSON) or ``error``; ``file`` and ``line`` (1-based) say where."""

    file: str
    line: int
    item: Item | None = None
    error: str | None = None
    text: str = ""


@dataclass
class SourceFile:
    """One file of a source, in reading order, with the item count its manifest promises (if any)."""

    path: Path
    expected_items: int | None = None


def source_files(source: str | os.PathLike[str], format: str) -> list[SourceFile]:
    """The files a source is read from, in a fixed order (a checkpoint counts positions in it)."""
    path = Path(source)
    if format not in FORMATS:
        raise FormatError(f"unknown format {format!r}: use one of {', '.join(FORMATS)}")
    if not path.exists():
        raise FormatError(f"{path}: no such file or directory")
    if format != "dynamodb":
        if path.is_dir():
            raise FormatError(f"{path} is a directory: a {format} source is one file")
        return [SourceFile(path)]
    return _export_files(export_directory(path))


def export_directory(path: Path) -> Path:
    """The directory holding ``manifest-summary.json``: ``path`` itself or the one export below it."""
    if (path / SUMMARY).is_file():
        return path
    found = sorted(p.parent for p in path.rglob(SUMMARY))
    if not found:
        raise FormatError(f"{path}: no {SUMMARY} here or below: not a DynamoDB export to S3")
    if len(found) > 1:
        raise FormatError(f"{path} holds {len(found)} exports ({', '.join(map(str, found))}): name one")
    return found[0]


def _export_files(directory: Path) -> list[SourceFile]:
    summary = _read_json(directory / SUMMARY)
    output_format = summary.get("outputFormat", "DYNAMODB_JSON")
    if output_format != "DYNAMODB_JSON":
        raise FormatError(f"{directory / SUMMARY}: outputFormat {output_format} (only DYNAMODB_JSON is read)")
    export_type = summary.get("exportType", "FULL_EXPORT")
    if export_type != "FULL_EXPORT":
        raise FormatError(f"{directory / SUMMARY}: exportType {export_type} (only FULL_EXPORT is read)")
    manifest = directory / FILES
    if not manifest.is_file():
        raise FormatError(f"{manifest}: missing (it lists the export's data files)")
    files = []
    for number, text in enumerate(manifest.read_text().splitlines(), 1):
        if not text.strip():
            continue
        try:
            entry = json.loads(text)
            key = entry["dataFileS3Key"]
        except (ValueError, KeyError, TypeError):
            raise FormatError(
                f"{manifest} line {number}: not a manifest entry with a dataFileS3Key"
            ) from None
        # The key is the S3 object key (prefix/AWSDynamoDB/<ExportId>/data/<name>.json.gz): on disk the
        # file sits under this export's directory, at the part from data/ on.
        relative = key[key.rindex("data/") :] if "data/" in key else key
        data_file = directory / relative
        if not data_file.is_file():
            raise FormatError(f"{manifest} line {number}: data file {relative} is missing")
        files.append(SourceFile(data_file, entry.get("itemCount")))
    return files


def _read_json(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text())
    except ValueError as error:
        raise FormatError(f"{path}: not JSON ({error})") from None
    if not isinstance(value, dict):
        raise FormatError(f"{path}: not a JSON object")
    return value


def read_lines(
    source: SourceFile, format: str, *, plain: bool = False, skip: int = 0
) -> Iterator[SourceLine]:
    """The items of one source file; ``skip`` lines already done (a resumed import) are read past."""
    name = str(source.path)
    if format == "csv":
        yield from _csv_lines(source.path, name, plain, skip)
        return
    gzipped = format == "dynamodb" or name.endswith(".gz")
    number = 0
    try:
        with _open_text(source.path, gzipped) as handle:
            for number, text in enumerate(handle, 1):
                if number <= skip:
                    continue
                if text.strip():
                    yield _json_line(name, number, text.rstrip("\n"), plain)
    except (EOFError, zlib.error, gzip.BadGzipFile, UnicodeDecodeError) as error:
        what = "truncated gzip" if isinstance(error, EOFError) else "unreadable data"
        yield SourceLine(
            name, number + 1, error=f"{what} after line {number} ({error}): the rest of this file is lost"
        )


def _open_text(path: Path, gzipped: bool) -> TextIO:
    if gzipped:
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    return open(path, encoding="utf-8")


def _json_line(name: str, number: int, text: str, plain: bool) -> SourceLine:
    try:
        value = loads(text, fast=not plain)  # plain JSON numbers need Decimal to keep their 38 digits
    except NotJSON as error:
        return SourceLine(name, number, error=f"not JSON ({error.detail})", text=text)
    try:
        item = line_item(value, plain)
    except ValueError as error:
        return SourceLine(name, number, error=str(error), text=text)
    return SourceLine(name, number, item=item, text=text)


def line_item(value: Any, plain: bool) -> Item:
    """A decoded JSON line as an item of AttributeValues (raises ValueError saying what is wrong)."""
    if not isinstance(value, dict):
        raise ValueError(f"not an item: a JSON {type(value).__name__}, not an object")
    if plain:
        return from_plain(value)
    if set(value) == {"Item"} and isinstance(value["Item"], dict):
        value = value["Item"]
    return item_from_json(value, hint="; for plain JSON use --plain")


def _csv_lines(path: Path, name: str, plain: bool, skip: int) -> Iterator[SourceLine]:
    gzipped = name.endswith(".gz")
    with _open_text(path, gzipped) as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None:
            return
        for row in reader:
            number = reader.line_num
            if number <= skip:
                continue
            text = ",".join(row)
            if len(row) != len(header):
                yield SourceLine(name, number, error=f"{len(row)} cells for {len(header)} columns", text=text)
                continue
            try:
                cells = zip(header, row, strict=True)
                item = {column: _cell(column, cell, plain) for column, cell in cells if cell}
                yield SourceLine(name, number, item=item, text=text)
            except ValueError as error:
                yield SourceLine(name, number, error=str(error), text=text)


def _cell(column: str, cell: str, plain: bool) -> dict[str, Any]:
    try:
        value = loads(cell)
    except NotJSON:
        if plain:
            return {"S": cell}
        raise ValueError(f"cell {cell[:40]!r} is not DynamoDB JSON; for plain values use --plain") from None
    if not plain:
        return value_from_json(value, column, "; for plain values use --plain")
    return {"S": value} if isinstance(value, str) else attribute_value(value)
