"""Reading the file formats of import: JSON Lines, CSV, and DynamoDB's export-to-S3 layout on disk.

Reading yields :class:`SourceLine`\\ s -- an item, or the reason a line is not one -- each naming its file and
line number, so every refusal downstream can say where the bad input is. Nothing is skipped silently: a
line that is not JSON, not an object, not an item, not UTF-8 or longer than any item
(:data:`~singletable.data._lines.MAX_LINE_BYTES`, refused without being read into memory) comes back with
``error`` set, and a damaged gzip stream comes back as one last line saying so (the file's remaining items
cannot be read). An export's data file that does not match its manifest entry (MD5, item count, a damaged
stream) comes back as one ``whole_file`` line standing for all of its items, before any of them is read.
Blank lines are skipped.

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
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from singletable._words import counted
from singletable.data._json_items import (
    NotJSON,
    attribute_value,
    from_plain,
    item_from_json,
    loads,
    value_from_json,
)
from singletable.data._lines import MAX_LINE_BYTES, PREFIX_CHARS, LineProblem, LineReader, decode, prefix
from singletable.data._manifest import (
    FILES,
    SUMMARY,
    DataFile,
    FormatError,
    check_data_file,
    export_directory,
    export_files,
)

__all__ = ["FILES", "FORMATS", "SUMMARY", "FormatError", "SourceFile", "SourceLine", "read_lines"]

FORMATS = ("dynamodb", "jsonl", "csv")
# A line that may hold a B or BS value (base64 text to decode): one naming "B" or "BS" as a member, or
# spelling any name with a \u escape. Lines it misses hold none; what it catches goes through line_item.
_MAY_HOLD_BINARY = re.compile(r'"BS?"\s*:|\\u')

Item = dict[str, Any]


@dataclass(slots=True)
class SourceLine:
    """One line of input: ``item`` (DynamoDB JSON) or ``error``; ``file`` and ``line`` (1-based) say where.
    ``text``: the line (of a refused over-long line, its start only); ``size``: its bytes; ``seen``: the
    SHA-256 of the file's lines up to and including this one (for the checkpoint). ``whole_file``: the error
    is the file's, standing for ``count`` lines none of which is imported. ``lost``: the file is damaged,
    items of it cannot be read at all (they are not in a reject file either). ``parsed``: ``item`` is the
    line's JSON as parsed, not yet checked or converted (see :func:`read_lines`' ``as_parsed``)."""

    file: str
    line: int
    item: Item | None = None
    error: str | None = None
    text: str = ""
    size: int = 0
    seen: Any = None
    count: int = 1
    whole_file: bool = False
    lost: bool = False
    parsed: bool = False


@dataclass(slots=True)
class SourceFile:
    """One file of a source, in reading order; ``manifest``: what an export's manifest says of it."""

    path: Path
    manifest: DataFile | None = None


@dataclass(slots=True)
class Resume:
    """Where a resumed import picks a file up: after line ``line``, whose lines hashed to ``seen``."""

    line: int
    seen: str | None = None


class SourceChanged(FormatError):
    """A file a resumed import had read part of is not what it was."""


def source_files(source: str | Path, format: str) -> list[SourceFile]:
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
    return [SourceFile(data.path, data) for data in export_files(export_directory(path))]


def read_lines(
    source: SourceFile,
    format: str,
    *,
    plain: bool = False,
    resume: Resume | None = None,
    fingerprint: bool = True,
    as_parsed: bool = False,
) -> Iterator[SourceLine]:
    """The items of one source file; with ``resume``, its first ``resume.line`` lines (done before) are read
    past and checked to be the lines read then (:class:`SourceChanged` when not). ``fingerprint=False``:
    the lines' ``seen`` is not kept (an import that writes no checkpoint). ``as_parsed``: a DynamoDB JSON
    line holding no binary value comes back as parsed, not checked or converted (``SourceLine.parsed``):
    for a caller that checks it as the engine does, and converts it with :func:`line_item` only when that
    check fails, for the message a converted line would get."""
    name = str(source.path)
    if source.manifest is not None:
        check = check_data_file(source.manifest)
        if check.problem is not None:
            error = f"{source.manifest.entry}: data file {name}: {check.problem}; none of its items imported"
            yield SourceLine(name, 0, error=error, count=check.lines, whole_file=True, lost=True)
            return
    gzipped = format == "dynamodb" or name.endswith(".gz")
    checked = source.manifest is not None and source.manifest.md5 is not None
    with LineReader(source.path, gzipped, md5=checked, fingerprint=fingerprint) as reader:
        if format == "csv":
            lines = _csv_lines(reader, name, plain)
        else:
            lines = _json_lines(reader, name, plain, as_parsed and not plain)
        skip = resume.line if resume is not None else 0
        for line in lines:
            if line.line > skip:
                yield line
            elif line.line == skip and resume is not None:
                _check_resume(name, reader, resume)
        if reader.number < skip:
            raise SourceChanged(
                f"{name} changed since the import stopped: it has {counted(reader.number, 'line')}, fewer "
                f"than the {counted(skip, 'line')} read then; delete the checkpoint to start over"
            )
        changed = _changed_while_read(source, reader)
        if changed is not None:
            yield SourceLine(name, reader.number + 1, error=changed, lost=True)


def _check_resume(name: str, reader: LineReader, resume: Resume) -> None:
    if resume.seen is not None and reader.seen.hexdigest() != resume.seen:
        raise SourceChanged(
            f"{name} changed since the import stopped: its first {counted(resume.line, 'line')} "
            f"{'is' if resume.line == 1 else 'are'} not the ones imported then; delete the checkpoint to "
            "start over"
        )


def _changed_while_read(source: SourceFile, reader: LineReader) -> str | None:
    """An export's data file whose bytes stopped matching its manifest after it was checked."""
    data = source.manifest
    # a file with a manifest MD5 is read keeping one (reader.stored.md5)
    if data is None or data.md5 is None or reader.stored.md5.digest() == data.md5:  # type: ignore[union-attr]
        return None
    return f"{data.entry}: data file {source.path} changed while it was imported (its MD5 no longer matches)"


def _problem(name: str, problem: LineProblem, seen: Any) -> SourceLine:
    return SourceLine(
        name, problem.line, error=problem.message, text=problem.prefix, seen=seen, lost=problem.fatal
    )


def _json_lines(reader: LineReader, name: str, plain: bool, as_parsed: bool) -> Iterator[SourceLine]:
    while True:
        try:
            raw = next(reader, None)
        except LineProblem as problem:
            yield _problem(name, problem, reader.seen.copy())
            continue
        if raw is None:
            return
        number = reader.number
        if not raw.strip():
            yield SourceLine(name, number, seen=reader.seen.copy(), count=0)
            continue
        try:
            text = decode(raw, number).rstrip("\r\n")
        except LineProblem as problem:
            yield _problem(name, problem, reader.seen.copy())
            continue
        line = _json_line(name, number, text, plain, as_parsed)
        line.size, line.seen = len(raw), reader.seen.copy()
        yield line


def _json_line(name: str, number: int, text: str, plain: bool, as_parsed: bool = False) -> SourceLine:
    try:
        value = loads(text, fast=not plain)  # plain JSON numbers need Decimal to keep their 38 digits
    except NotJSON as error:
        message = str(error) if error.too_deep else f"not JSON ({error.detail})"
        return SourceLine(name, number, error=message, text=text)
    if as_parsed and type(value) is dict and _MAY_HOLD_BINARY.search(text) is None:
        if len(value) == 1 and type(value.get("Item")) is dict:
            value = value["Item"]
        return SourceLine(name, number, item=value, text=text, parsed=True)
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


class _CsvText:
    """The physical lines of a CSV file as text for ``csv.reader``. Bytes that are not UTF-8 are carried
    through (as surrogates) and noted in ``undecodable``, so a record spanning lines still parses as one
    and is refused as a whole; a line (or a record over several lines) over the bound raises
    :class:`LineProblem`, after which a fresh ``csv.reader`` goes on."""

    def __init__(self, reader: LineReader) -> None:
        self.reader = reader
        self.record_bytes = 0
        self.undecodable: str | None = None

    def __iter__(self) -> _CsvText:
        return self

    def __next__(self) -> str:
        raw = next(self.reader)
        self.record_bytes += len(raw)
        if self.record_bytes > MAX_LINE_BYTES:
            raise LineProblem(
                self.reader.number,
                f"a CSV record over {MAX_LINE_BYTES:,} bytes (a DynamoDB item is at most 400 KB): not read",
                prefix(raw),
            )
        try:
            return decode(raw, self.reader.number)
        except LineProblem as problem:
            self.undecodable = self.undecodable or problem.message
            return raw.decode("utf-8", errors="surrogateescape")

    def next_record(self) -> None:
        self.record_bytes = 0
        self.undecodable = None


def _csv_lines(reader: LineReader, name: str, plain: bool) -> Iterator[SourceLine]:
    csv.field_size_limit(MAX_LINE_BYTES)  # the csv module's default (131,072) is under one item's size
    text = _CsvText(reader)
    rows = csv.reader(text)
    header: list[str] | None = None
    while True:
        try:
            row = next(rows, None)
        except (LineProblem, csv.Error) as problem:
            if isinstance(problem, LineProblem):
                line = _problem(name, problem, reader.seen.copy())
            else:
                line = SourceLine(name, reader.number, error=f"not CSV ({problem})", seen=reader.seen.copy())
            if header is None or line.lost:
                line.error = f"{line.error}; the rest of this file is not read"
                line.lost = True
                yield line
                return
            yield line
            text.next_record()
            rows = csv.reader(text)
            continue
        if row is None:
            return
        undecodable = text.undecodable
        text.next_record()
        number = reader.number
        if undecodable is not None:
            shown = ",".join(row).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            yield SourceLine(
                name, number, error=undecodable, text=shown[:PREFIX_CHARS], seen=reader.seen.copy()
            )
            if header is None:
                return
            continue
        if header is None:
            header = row
            yield SourceLine(name, number, seen=reader.seen.copy(), count=0)
            continue
        yield _csv_row(name, number, header, row, plain, reader.seen.copy())


def _csv_row(name: str, number: int, header: list[str], row: list[str], plain: bool, seen: Any) -> SourceLine:
    text = ",".join(row)
    if not row:
        return SourceLine(name, number, seen=seen, count=0)
    if len(row) != len(header):
        error = f"{len(row)} cells for {len(header)} columns"
        return SourceLine(name, number, error=error, text=text, seen=seen)
    try:
        cells = zip(header, row, strict=True)
        item = {column: _cell(column, cell, plain) for column, cell in cells if cell}
    except ValueError as error:
        return SourceLine(name, number, error=str(error), text=text, seen=seen)
    return SourceLine(name, number, item=item, text=text, seen=seen, size=len(text) + 1)


def _cell(column: str, cell: str, plain: bool) -> dict[str, Any]:
    try:
        value = loads(cell)
    except NotJSON as error:
        if error.too_deep:
            raise ValueError(f"{column}: {error}") from None
        if plain:
            return {"S": cell}
        raise ValueError(f"cell {cell[:40]!r} is not DynamoDB JSON; for plain values use --plain") from None
    if not plain:
        return value_from_json(value, column, "; for plain values use --plain")
    return {"S": value} if isinstance(value, str) else attribute_value(value)
