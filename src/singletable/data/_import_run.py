"""One import's loop: chunks of source lines -> loader -> reject file -> checkpoint.

Every line read is accounted for: committed (``items``, of which ``overwritten`` replaced an item already
stored with the same key), or rejected (``rejected``: into the reject file with ``on_error="reject"``; the
first one stops the import with ``on_error="stop"``). ``read == items + rejected`` when the import ends. A
data file rejected whole (it does not match its manifest, its gzip stream is damaged) counts as the items it
holds or promises, whichever is more, and is named in ``summary.damaged``: its items are not in the reject
file, so the import does not call itself a success.

A chunk is committed when it holds ``size`` lines or :data:`CHUNK_BYTES` of text, so memory stays bounded
whatever the lines' sizes. The checkpoint written after each chunk also fingerprints the source files read
so far (size and modification time of each; for the file being read, the SHA-256 of its lines up to the
checkpoint), and a resumed import refuses a file that changed (:func:`check_unchanged`,
:class:`SourceChanged`) instead of skipping lines that are no longer the ones committed.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from singletable.data._checkpoint import (
    Checkpoint,
    Interrupts,
    TransferError,
    TransferInterrupted,
    TransferSummary,
    os_reason,
    unwritable,
)
from singletable.data._formats import FormatError, Resume, SourceChanged, SourceFile, SourceLine, read_lines
from singletable.data._json_items import dumps, plain_value
from singletable.data._loader import ItemLoader, LoadRefused

Progress = Callable[[int, int], None]
Item = dict[str, Any]
CHUNK_BYTES = 16 * 1024 * 1024  # of line text held at once, whatever --chunk-size says


class Entry(NamedTuple):
    """A line and the index of its file in the source."""

    index: int  # type: ignore[assignment]  # shadows tuple.index, which nothing here calls
    line: SourceLine


def describe_key(item: Item | None, keys: list[str]) -> str:
    """`` (key PK="a", SK="b")`` for messages, from whatever key attributes the item has."""
    if not item:
        return ""
    parts = [f"{name}={dumps(plain_value(item[name]))}" for name in keys if name in item]
    return f" (key {', '.join(parts)})" if parts else " (no key attributes)"


class RejectsUnwritable(Exception):
    """The reject file could not take a line (a full disk, a file size limit): ``error`` says why."""

    def __init__(self, path: Path, error: OSError) -> None:
        super().__init__(f"reject file {path} cannot be written ({os_reason(error)})")


class Rejects:
    """The reject file: one JSON line per refused input line, fsynced before the checkpoint that covers it.
    Created private (0600): it holds the data's own text. A write that fails raises
    :class:`RejectsUnwritable`; what the last checkpoint counted is on disk (fsynced), and a resume cuts the
    file back to it."""

    def __init__(self, path: Path | None, keep_bytes: int) -> None:
        self.path = path
        self.handle = None
        if path is not None:
            try:
                descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            except OSError as error:  # before anything is written
                raise FormatError(
                    f"reject file {path} cannot be written ({os_reason(error)}): give --reject-file a file "
                    "in a directory that can be written to"
                ) from None
            self.handle = os.fdopen(descriptor, "r+b")
            self.handle.truncate(keep_bytes)  # rejects of a chunk whose checkpoint was never written
            self.handle.seek(keep_bytes)

    def add(self, line: SourceLine, key: str, error: str) -> None:
        record: dict[str, Any] = {"file": line.file, "line": line.line or None, "key": key.strip()}
        record["error"] = error
        record["text"] = line.text
        if line.whole_file:
            record["lines"] = line.count
        try:  # called only with on_error="reject", which opens the file
            self.handle.write((dumps(record, spaced=True) + "\n").encode("utf-8"))  # type: ignore[union-attr]
        except OSError as error:
            raise RejectsUnwritable(self.path, error) from None  # type: ignore[arg-type]  # path is set: add runs only with the file open

    def sync(self) -> int:
        if self.handle is None:
            return 0
        try:
            self.handle.flush()
            os.fsync(self.handle.fileno())
        except OSError as error:
            raise RejectsUnwritable(self.path, error) from None  # type: ignore[arg-type]  # path is set: the handle is open
        return self.handle.tell()

    def close(self) -> None:
        """Close; lines a failed write left in the buffer are dropped (no checkpoint counts them)."""
        if self.handle is not None:
            with contextlib.suppress(OSError):
                self.handle.close()


def fingerprint(path: Path) -> dict[str, Any]:
    """What the checkpoint keeps of a source file to tell it again: path, size, modification time."""
    status = os.stat(path)
    return {"path": str(path), "size": status.st_size, "mtime_ns": status.st_mtime_ns}


def check_unchanged(files: list[SourceFile], state: Checkpoint) -> None:
    """Refuse to resume when a file read before (in part or whole) is not the same size and age."""
    for index, before in enumerate(state.sources):
        if index >= len(files) or str(files[index].path) != before["path"]:
            raise SourceChanged(
                f"the source's files changed since the import stopped ({before['path']} is no longer file "
                f"{index + 1}): delete the checkpoint to start over"
            )
        now = fingerprint(files[index].path)
        if now["size"] != before["size"]:
            what = f"its size was {before['size']:,} bytes, now {now['size']:,}"
        elif now["mtime_ns"] != before["mtime_ns"]:
            what = "it was modified (same size, new modification time)"
        else:
            continue
        raise SourceChanged(
            f"{before['path']} changed since the import stopped: {what}; the lines already imported may not "
            "be the ones it holds now: delete the checkpoint to start over"
        )


class ImportRun:
    """One import's loop over ``files`` (see the module docstring)."""

    def __init__(
        self,
        files: list[SourceFile],
        format: str,
        plain: bool,
        state: Checkpoint,
        point: Path,
        summary: TransferSummary,
        rejects: Rejects,
        on_error: str,
        keys: list[str],
    ) -> None:
        self.files, self.format, self.plain = files, format, plain
        self.state, self.point, self.summary = state, point, summary
        self.rejects, self.stop = rejects, on_error == "stop"
        self.keys = keys

    def lines(self) -> Iterator[Entry]:
        position = self.state.position
        first = position.get("file", 0)
        for index in range(first, len(self.files)):
            resume = None
            if index == first and position.get("line"):
                resume = Resume(position["line"], position.get("seen"))
            if index >= len(self.state.sources):
                self.state.sources.append(fingerprint(self.files[index].path))
            for line in read_lines(self.files[index], self.format, plain=self.plain, resume=resume):
                yield Entry(index, line)

    def go(self, loader: ItemLoader, size: int, progress: Progress | None, stop_after: int | None) -> None:
        chunk: list[Entry] = []
        held = 0
        try:
            with Interrupts(stop_after) as interrupts:
                for entry in self.lines():
                    chunk.append(entry)
                    held += len(entry.line.text)
                    if len(chunk) >= size or held >= CHUNK_BYTES:
                        self.commit(loader, chunk, progress)
                        chunk, held = [], 0
                        interrupts.chunk_done()
                if chunk:
                    self.commit(loader, chunk, progress)
        except KeyboardInterrupt:
            raise TransferInterrupted("interrupted", self.summary, self.point) from None

    def commit(self, loader: ItemLoader, chunk: list[Entry], progress: Progress | None) -> None:
        bad = [(i, e.line.error) for i, e in enumerate(chunk) if e.line.error is not None]
        end = bad[0][0] if self.stop and bad else len(chunk)
        good = [(i, e.line) for i, e in enumerate(chunk[:end]) if e.line.item is not None]
        try:
            # good holds only lines with an item (built above)
            result = loader.write([line.item for _, line in good], stop_at_error=self.stop)  # type: ignore[misc]
        except LoadRefused as refused:
            self.summary.items += refused.written
            self.summary.read += refused.written
            raise TransferError(
                f"{self.summary.table} refused writes: {refused.code}: {refused.message}",
                self.summary,
                self.point,
            ) from None
        refusals = [(good[p][0], f"{code}: {message}") for p, code, message in result.errors]
        problems = sorted(refusals + bad[:1]) if self.stop else sorted(bad + refusals)
        self._count_written(result.written, result.replaced)
        if self.stop and problems:
            self.stop_at(chunk, problems[0])
        try:
            self.reject(chunk, problems)
        except RejectsUnwritable as error:
            raise self.rejects_failed(error) from None
        self.summary.bytes += sum(e.line.size for e in chunk)
        self.save(chunk[-1])
        if progress is not None:
            progress(self.summary.items, self.summary.bytes)

    def reject(self, chunk: list[Entry], problems: list[tuple[int, str]]) -> None:
        """Write each refused line of ``chunk`` to the reject file, and count it."""
        for position, error in problems:
            line = chunk[position].line
            self.rejects.add(line, describe_key(line.item, self.keys), error)
            self.summary.rejected += line.count
            self.summary.read += line.count
            if line.lost and line.file not in self.summary.damaged:
                self.summary.damaged.append(line.file)

    def rejects_failed(self, error: RejectsUnwritable) -> TransferError:
        """Only what the last checkpoint counted is surely in the reject file: the chunk's items are
        committed and counted, its rejected lines are not (a resume does the chunk again)."""
        summary = self.summary
        summary.rejected, summary.damaged = self.state.rejected, list(self.state.damaged)
        summary.read = summary.items + summary.rejected
        return TransferError(str(error), summary, self.point)

    def _count_written(self, written: int, replaced: int | None) -> None:
        self.summary.items += written
        self.summary.read += written
        if replaced is None or self.summary.overwritten is None:
            self.summary.overwritten = None
        else:
            self.summary.overwritten += replaced

    def stop_at(self, chunk: list[Entry], problem: tuple[int, str]) -> None:
        position, error = problem
        line = chunk[position].line
        if position > 0:
            self.save(chunk[position - 1])
        if line.whole_file:  # the message names the manifest entry and the file
            raise TransferError(error, self.summary, self.point)
        where = f"{line.file} line {line.line}{describe_key(line.item, self.keys)}"
        raise TransferError(f"{where}: {error}", self.summary, self.point)

    def save(self, last: Entry) -> None:
        state, summary = self.state, self.summary
        try:
            reject_bytes = self.rejects.sync()
        except RejectsUnwritable as error:
            raise self.rejects_failed(error) from None
        state.items, state.rejected, state.read = summary.items, summary.rejected, summary.read
        state.overwritten, state.damaged = summary.overwritten, list(summary.damaged)
        state.reject_bytes = reject_bytes
        if last.line.whole_file:  # a file rejected whole: a resumed import goes on with the next one
            state.position = {"file": last.index + 1, "line": 0}
        else:
            seen = last.line.seen.hexdigest() if last.line.seen is not None else None
            state.position = {"file": last.index, "line": last.line.line, "seen": seen}
        try:
            state.save(self.point)
        except OSError as error:
            raise unwritable(self.point, error, summary) from None
