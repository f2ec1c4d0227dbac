"""DynamoDB's export to S3 on disk: finding the export, reading its manifests, checking its data files.

A manifest is input like any other: each ``manifest-files.json`` entry is checked field by field and a
wrong one is refused naming the file and line. ``dataFileS3Key`` is an S3 key; on disk the file is the part
from ``data/`` on, under the export's directory -- and it must stay there: a key that leads elsewhere
(``../``, an absolute path, a symbolic link out) is refused, so a manifest cannot make import read, or copy
into a reject file, any other file on the machine.

Before a data file's first line is imported, :func:`check_data_file` reads it once: the MD5 of the file as
stored against ``md5Checksum`` (base64, as AWS writes it), the gzip stream whole, and its lines against
``itemCount``. A file that fails is never partly imported.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from singletable._words import counted
from singletable.data._lines import LineProblem, LineReader

SUMMARY = "manifest-summary.json"
FILES = "manifest-files.json"


class FormatError(Exception):
    """A source or destination that cannot be used at all (missing manifest, unknown format...)."""


@dataclass(slots=True)
class DataFile:
    """One data file of an export, with what its manifest entry promises (``None``: not said)."""

    path: Path
    entry: str  # "manifest-files.json line N", for messages
    item_count: int | None = None
    md5: bytes | None = None


@dataclass(slots=True)
class DataFileCheck:
    """What reading a data file once found: its lines, and what is wrong with it (``None``: nothing)."""

    lines: int
    problem: str | None = None


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


def export_files(directory: Path) -> list[DataFile]:
    """The data files ``manifest-files.json`` lists, in its order, each checked to be inside ``directory``."""
    summary = _read_summary(directory / SUMMARY)
    output_format = summary.get("outputFormat", "DYNAMODB_JSON")
    if output_format != "DYNAMODB_JSON":
        raise FormatError(f"{directory / SUMMARY}: outputFormat {output_format} (only DYNAMODB_JSON is read)")
    export_type = summary.get("exportType", "FULL_EXPORT")
    if export_type != "FULL_EXPORT":
        raise FormatError(f"{directory / SUMMARY}: exportType {export_type} (only FULL_EXPORT is read)")
    manifest = directory / FILES
    if not manifest.is_file():
        raise FormatError(f"{manifest}: missing (it lists the export's data files)")
    root = directory.resolve()
    files: list[DataFile] = []
    named: dict[Path, int] = {}
    with LineReader(manifest, gzipped=False) as lines:
        while True:
            try:
                raw = next(lines, None)
            except LineProblem as problem:
                raise FormatError(f"{manifest} line {problem.line}: {problem.message}") from None
            if raw is None:
                return files
            if raw.strip():
                where = f"{manifest} line {lines.number}"
                data_file = _entry(raw, where, directory, root)
                if data_file.path in named:
                    raise FormatError(
                        f"{where}: names the same data file as line {named[data_file.path]} "
                        f"({data_file.path.relative_to(root)})"
                    )
                named[data_file.path] = lines.number
                files.append(data_file)


def _read_summary(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_bytes()[: 1024 * 1024])
    except (ValueError, RecursionError) as error:
        raise FormatError(f"{path}: not JSON ({error})") from None
    if not isinstance(value, dict):
        raise FormatError(f"{path}: not a JSON object")
    return value


def _entry(raw: bytes, where: str, directory: Path, root: Path) -> DataFile:
    try:
        entry = json.loads(raw)
    except (ValueError, RecursionError):
        raise FormatError(f"{where}: not JSON (each line is one JSON object naming a data file)") from None
    if not isinstance(entry, dict):
        raise FormatError(f"{where}: a JSON {type(entry).__name__}, not an object naming a data file")
    key = entry.get("dataFileS3Key")
    if not isinstance(key, str) or not key:
        raise FormatError(f"{where}: dataFileS3Key must be the data file's S3 key (text), not {key!r:.80}")
    # The key is the S3 object key (prefix/AWSDynamoDB/<ExportId>/data/<name>.json.gz): on disk the file
    # sits under this export's directory, at the part from data/ on.
    relative = key[key.rindex("data/") :] if "data/" in key else key
    try:
        path = (directory / relative).resolve()
        inside, present = path.is_relative_to(root), path.is_file()
    except (ValueError, OSError) as error:  # a NUL byte, a name too long, a link loop...
        raise FormatError(f"{where}: dataFileS3Key {key!r:.200} is not a file name here ({error})") from None
    if not inside:
        raise FormatError(
            f"{where}: dataFileS3Key {key!r:.200} leads out of the export directory {directory}: refused"
        )
    if not present:
        raise FormatError(f"{where}: data file {relative} is missing")
    return DataFile(path, where, _item_count(entry, where), _md5(entry, where))


def _item_count(entry: dict[str, Any], where: str) -> int | None:
    count = entry.get("itemCount")
    if count is None:
        return None
    if type(count) is not int or count < 0:
        raise FormatError(f"{where}: itemCount must be a whole number of items, not {count!r:.80}")
    return count


def _md5(entry: dict[str, Any], where: str) -> bytes | None:
    text = entry.get("md5Checksum")
    if text is None:
        return None
    digest = None
    if isinstance(text, str):
        try:
            digest = bytes.fromhex(text) if len(text) == 32 else base64.b64decode(text, validate=True)
        except (ValueError, binascii.Error):
            digest = None
    if digest is None or len(digest) != 16:
        raise FormatError(
            f"{where}: md5Checksum must be an MD5 in base64 (as AWS writes it), not {text!r:.80}"
        )
    return digest


def check_data_file(data_file: DataFile) -> DataFileCheck:
    """Read ``data_file`` once (see the module docstring): its line count and what is wrong with it. An
    over-long line is counted (it is reported on its own when imported); a damaged gzip stream is a problem
    of the whole file. ``lines`` of a file with a problem is what it holds or promises, the larger."""
    lines, broken = 0, None
    md5 = data_file.md5 is not None
    with LineReader(data_file.path, gzipped=True, md5=md5, fingerprint=False) as reader:
        while True:
            try:
                for raw in reader:
                    lines += bool(raw.strip())
                break
            except LineProblem as problem:
                if problem.fatal:
                    broken = problem.message
                    break
                lines += 1
        _finish(reader)
        problem_text = _md5_problem(data_file, reader) or broken
    promised = data_file.item_count
    if problem_text is None and promised is not None and lines != promised:
        problem_text = (
            f"holds {counted(lines, 'item')} but its manifest entry says itemCount {promised:,}: "
            "the export is incomplete or not the one its manifest describes"
        )
    return DataFileCheck(lines if problem_text is None else max(lines, promised or 0), problem_text)


def _finish(reader: LineReader) -> None:
    """Read the stored bytes to the end, for their MD5, after the gzip stream broke."""
    while reader.stored.read(1024 * 1024):
        pass


def _md5_problem(data_file: DataFile, reader: LineReader) -> str | None:
    if data_file.md5 is None:
        return None
    found = reader.stored.md5.digest()  # type: ignore[union-attr]  # a file with a manifest MD5 is read with one
    if found == data_file.md5:
        return None
    return (
        f"its MD5 is {base64.b64encode(found).decode()} but its manifest entry's md5Checksum is "
        f"{base64.b64encode(data_file.md5).decode()}: the file is damaged or not the one exported"
    )
