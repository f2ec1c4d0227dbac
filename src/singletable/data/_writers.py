"""Export destinations: DynamoDB's export-to-S3 layout on disk, a JSON Lines file, a CSV file.

Each writer takes items one at a time (``write(item) -> bytes written``) and finishes with ``close()``;
``abort()`` leaves a partial export recognisable as such (no manifests for the S3 layout, so an importer
refuses it rather than reading half a table).

The S3 layout is what DynamoDB's ExportTableToPointInTime writes with ``ExportFormat=DYNAMODB_JSON``
(AWS's "DynamoDB table export output format"), under the destination directory standing for the bucket
and prefix::

    DEST/AWSDynamoDB/<ExportId>/_started
    DEST/AWSDynamoDB/<ExportId>/manifest-summary.json      (+ manifest-summary.checksum)
    DEST/AWSDynamoDB/<ExportId>/manifest-files.json        (+ manifest-files.checksum)
    DEST/AWSDynamoDB/<ExportId>/data/<name>.json.gz        lines of {"Item": {...}}

``manifest-files.json`` has one JSON object per line: ``itemCount``, ``md5Checksum`` (base64 MD5 of the
data file), ``etag`` (its hex MD5, as S3 gives a single-part object) and ``dataFileS3Key``.
"""

from __future__ import annotations

import base64
import csv
import gzip
import hashlib
import json
import os
import secrets
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from singletable.data._formats import FILES, SUMMARY, FormatError
from singletable.data._json_items import dumps, render_item, value_text, value_to_json

Item = dict[str, Any]
ITEMS_PER_DATA_FILE = 250_000


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class S3LayoutWriter:
    """DynamoDB's export to S3 (DYNAMODB_JSON), written under ``destination`` (see the module docstring)."""

    def __init__(self, destination: Path, table: dict[str, Any], items_per_file: int = ITEMS_PER_DATA_FILE):
        self.export_id = f"{int(time.time() * 1000):014d}-{secrets.token_hex(4)}"
        self.prefix = f"AWSDynamoDB/{self.export_id}"
        self.directory = destination / self.prefix
        (self.directory / "data").mkdir(parents=True, exist_ok=False)
        (self.directory / "_started").touch()
        self.table = table
        self.items_per_file = items_per_file
        self.started = _now()
        self.files: list[dict[str, Any]] = []
        self.items = 0
        self.bytes = 0
        self._handle: gzip.GzipFile | None = None
        self._raw: BinaryIO | None = None
        self._path: Path | None = None
        self._count = 0

    def write(self, item: Item) -> int:
        if self._handle is None or self._count >= self.items_per_file:
            self._finish_file()
            self._open_file()
        line = ('{"Item":' + render_item(item, spaced=True) + "}\n").encode("utf-8")
        self._handle.write(line)  # type: ignore[union-attr]  # _open_file just opened it
        self._count += 1
        self.items += 1
        self.bytes += len(line)
        return len(line)

    def _open_file(self) -> None:
        name = base64.b32encode(secrets.token_bytes(15)).decode("ascii").lower()
        self._path = self.directory / "data" / f"{name}.json.gz"
        self._raw = open(self._path, "wb")  # noqa: SIM115 (closed by _finish_file)
        self._handle = gzip.GzipFile(fileobj=self._raw, mode="wb", mtime=0)
        self._count = 0

    def _finish_file(self) -> None:
        if self._handle is None or self._path is None or self._raw is None:
            return
        self._handle.close()
        self._raw.close()
        digest = hashlib.md5(self._path.read_bytes()).digest()
        self.files.append(
            {
                "itemCount": self._count,
                "md5Checksum": base64.b64encode(digest).decode("ascii"),
                "etag": digest.hex(),
                "dataFileS3Key": f"{self.prefix}/data/{self._path.name}",
            }
        )
        self._handle = None

    def close(self) -> Path:
        """Finish the last data file and write the manifests; returns the export's directory."""
        if self._handle is None:
            self._open_file()  # an empty table still gets one (empty) data file, as DynamoDB writes
        self._finish_file()
        files_text = "".join(json.dumps(entry) + "\n" for entry in self.files)
        self._write_manifest(FILES, files_text)
        table_arn = self.table.get("TableArn", "")
        summary = {
            "version": "2020-06-30",
            "exportArn": f"{table_arn}/export/{self.export_id}",
            "startTime": self.started,
            "endTime": _now(),
            "tableArn": table_arn,
            "tableId": self.table.get("TableId", ""),
            "exportTime": self.started,
            "s3Bucket": None,
            "s3Prefix": None,
            "s3SseAlgorithm": None,
            "s3SseKmsKeyId": None,
            "manifestFilesS3Key": f"{self.prefix}/{FILES}",
            "billedSizeBytes": self.bytes,
            "itemCount": self.items,
            "outputFormat": "DYNAMODB_JSON",
            "exportType": "FULL_EXPORT",
        }
        self._write_manifest(SUMMARY, json.dumps(summary, indent=None) + "\n")
        return self.directory

    def _write_manifest(self, name: str, text: str) -> None:
        data = text.encode("utf-8")
        (self.directory / name).write_bytes(data)
        checksum = name.replace(".json", ".checksum")
        (self.directory / checksum).write_text(hashlib.md5(data).hexdigest())

    def abort(self) -> None:
        if self._handle is not None and self._raw is not None:
            self._handle.close()
            self._raw.close()


class JsonLinesWriter:
    """One item per line, DynamoDB JSON or plain; gzipped when the file name ends in ``.gz``."""

    def __init__(self, destination: Path, plain: bool = False) -> None:
        self.path = destination
        self.plain = plain
        raw = open(destination, "wb")  # noqa: SIM115 (closed by close/abort)
        self._handle: Any = (
            gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) if str(destination).endswith(".gz") else raw
        )
        self._raw = raw
        self.items = 0

    def write(self, item: Item) -> int:
        line = (render_item(item, plain=self.plain, spaced=True) + "\n").encode("utf-8")
        self._handle.write(line)
        self.items += 1
        return len(line)

    def close(self) -> Path:
        self.abort()
        return self.path

    def abort(self) -> None:
        if self._handle is not self._raw:
            self._handle.close()
        self._raw.close()


class CsvWriter:
    """A header of every attribute name seen (key attributes first), one item per row.

    The columns are only known once every item is seen, so rows go to a spool file first (JSON Lines, in
    the destination's directory) and the CSV is written at ``close()``.
    """

    def __init__(self, destination: Path, key_names: list[str], plain: bool = False) -> None:
        self.path = destination
        self.plain = plain
        self.columns: dict[str, None] = dict.fromkeys(key_names)
        directory = destination.parent if str(destination.parent) else Path(".")
        handle, spool = tempfile.mkstemp(prefix=".export-", suffix=".jsonl", dir=directory)
        self._spool_path = Path(spool)
        self._spool = os.fdopen(handle, "w", encoding="utf-8")
        self.items = 0

    def write(self, item: Item) -> int:
        for name in item:
            if name not in self.columns:
                self.columns[name] = None
        row = {name: self._cell(value) for name, value in item.items()}
        line = json.dumps(row, ensure_ascii=False)
        self._spool.write(line + "\n")
        self.items += 1
        return len(line.encode("utf-8")) + 1

    def _cell(self, value: dict[str, Any]) -> str:
        """The attribute in DynamoDB JSON (lossless), or with ``plain`` text as is and the rest plain JSON."""
        return value_text(value, spaced=True) if self.plain else dumps(value_to_json(value), spaced=True)

    def close(self) -> Path:
        self._spool.close()
        columns = list(self.columns)
        with (
            open(self.path, "w", newline="", encoding="utf-8") as out,
            open(self._spool_path, encoding="utf-8") as rows,
        ):
            writer = csv.writer(out)
            writer.writerow(columns)
            for line in rows:
                row = json.loads(line)
                writer.writerow([row.get(name, "") for name in columns])
        self._spool_path.unlink()
        return self.path

    def abort(self) -> None:
        self._spool.close()
        self._spool_path.unlink(missing_ok=True)


def open_writer(format: str, destination: str | os.PathLike[str], table: dict[str, Any], plain: bool) -> Any:
    """The writer for ``format`` at ``destination`` (``table`` is the source's TableDescription)."""
    path = Path(destination)
    if format == "dynamodb":
        if path.exists() and not path.is_dir():
            raise FormatError(f"{path} is a file: the S3 export layout is written into a directory")
        if plain:
            raise FormatError(
                "--plain does not apply to the S3 export layout (it is DynamoDB JSON by definition)"
            )
        return S3LayoutWriter(path, table)
    if path.is_dir():
        raise FormatError(f"{path} is a directory: a {format} export is one file")
    if format == "jsonl":
        return JsonLinesWriter(path, plain)
    if format == "csv":
        return CsvWriter(path, [k["AttributeName"] for k in table.get("KeySchema", [])], plain)
    raise FormatError(f"unknown format {format!r}: use one of dynamodb, jsonl, csv")
