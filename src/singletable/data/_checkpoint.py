"""Checkpoints of an import or a copy, and the summary and errors every transfer answers with.

A checkpoint is a small JSON file saying how far a transfer got: for an import, the file and line of the
last input line whose item is committed (or rejected into the reject file, whose length is recorded so a
resume can cut off rejects of a chunk that never got its checkpoint); for a copy, each scan segment's last
committed LastEvaluatedKey. It is written after the chunk it describes is committed, atomically (a
temporary file, fsynced, renamed over the old one, the directory fsynced), so a killed transfer resumes from
a state that is true: nothing committed is written twice and nothing is skipped.

A checkpoint that cannot be written (a full disk, a file size limit, a read-only directory) stops the
transfer with :func:`unwritable`: one line naming the file and the system's reason, the items committed so
far counted (the chunk whose checkpoint failed among them). The old checkpoint, if any, stays whole: a
resume starts from it and writes that last chunk's items again (the same items under the same keys, so
nothing is stored twice). Whether the checkpoint can be written at all is tried before anything is
committed (:func:`check_writable`).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from singletable.data._manifest import FormatError


@dataclass
class TransferSummary:
    """What a transfer did. ``items``: items exported, or committed to the destination (including those of
    earlier runs it resumed); ``rejected``: input lines written to the reject file; ``read``: an import's
    input lines dealt with, ``items + rejected``; ``overwritten``: of an import's ``items``, those that
    replaced an item with the same key (``None`` when the target cannot say: an endpoint's BatchWriteItem
    does not); ``damaged``: an import's source files that could not be read whole (their lost items are in
    no reject file); ``bytes``: data written (export) or read (import), and for a copy the items' size as
    DynamoDB JSON, counted only when progress is reported; ``source_count``/``destination_count``: a
    copy's final count on both sides; ``warnings``: a table setting the destination did not take, or an
    existing destination table's differing settings."""

    operation: str
    table: str
    items: int = 0
    rejected: int = 0
    read: int = 0
    overwritten: int | None = 0
    damaged: list[str] = field(default_factory=list)
    bytes: int = 0
    seconds: float = 0.0
    resumed_from: int = 0
    retries: int = 0
    destination: str | None = None
    source_count: int | None = None
    destination_count: int | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def counts_match(self) -> bool | None:
        if self.source_count is None or self.destination_count is None:
            return None
        return self.source_count == self.destination_count

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "counts_match": self.counts_match}


class TransferError(Exception):
    """A transfer stopped: ``summary`` says what was committed before it (``summary.items``); a transfer with
    a checkpoint can be resumed from there."""

    def __init__(self, message: str, summary: TransferSummary, checkpoint: Path | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.summary = summary
        self.checkpoint = checkpoint


class TransferInterrupted(TransferError):
    """Stopped by the caller (Ctrl-C, or the ``stop_after_chunks`` hook) between two committed chunks."""


class Interrupts:
    """Ctrl-C between chunks: the first SIGINT is remembered and honoured once the chunk in flight is
    committed and its checkpoint written (so an interrupted transfer never leaves a committed chunk
    unrecorded); a second SIGINT interrupts at once. Only the main thread takes signals; elsewhere this
    does nothing."""

    def __init__(self, stop_after_chunks: int | None) -> None:
        self.requested = False
        self.stop_after = stop_after_chunks
        self.chunks = 0
        self._previous: Any = None
        self._installed = False

    def __enter__(self) -> Interrupts:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
            self._installed = True
        return self

    def _handle(self, signum: int, frame: Any) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def __exit__(self, *exc: object) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, self._previous)

    def chunk_done(self) -> None:
        """After a chunk and its checkpoint: stop here if asked to (Ctrl-C, or ``stop_after_chunks``)."""
        self.chunks += 1
        if self.requested or (self.stop_after is not None and self.chunks >= self.stop_after):
            raise KeyboardInterrupt


@dataclass
class Checkpoint:
    """Where a transfer stands. ``position`` is the operation's own: ``{"file": i, "line": n, "seen": hash of
    file i's lines 1..n}`` for an import, ``{"segments": {segment: last key}}`` for a copy."""

    operation: str
    source: str
    table: str
    items: int = 0
    rejected: int = 0
    reject_bytes: int = 0
    position: dict[str, Any] = field(default_factory=dict)
    read: int = 0
    overwritten: int | None = 0
    damaged: list[str] = field(default_factory=list)
    sources: list[dict[str, Any]] = field(default_factory=list)  # an import's files read so far: fingerprints

    def save(self, path: Path) -> None:
        """Write atomically: whatever fails, ``path`` holds the old checkpoint or the new one, whole, and no
        temporary file is left behind. Raises the OSError of what failed."""
        temporary = _temporary(path)
        try:
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with open(descriptor, "w", encoding="utf-8") as handle:
                json.dump(asdict(self), handle)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                temporary.unlink(missing_ok=True)
            raise
        _sync_directory(path.parent)

    @classmethod
    def load(cls, path: Path) -> Checkpoint:
        try:
            return cls(**json.loads(path.read_text()))
        except (OSError, ValueError, TypeError) as error:
            raise ValueError(f"checkpoint {path} cannot be read ({error}): delete it to start over") from None

    def check_matches(self, operation: str, source: str, table: str, path: Path) -> None:
        if (self.operation, self.source, self.table) != (operation, source, table):
            raise ValueError(
                f"checkpoint {path} is for {self.operation} of {self.source} into table {self.table}, not "
                f"{operation} of {source} into {table}: delete it or give another --checkpoint"
            )


def _temporary(path: Path) -> Path:
    return path.with_name(path.name + ".tmp")


def _sync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` durable (where a directory can be opened: not on Windows)."""
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def os_reason(error: OSError) -> str:
    """The system's words for ``error`` (``No space left on device``), without the path it may repeat."""
    return error.strerror or str(error)


def unwritable(path: Path, error: OSError, summary: TransferSummary) -> TransferError:
    """The error that stops a transfer whose checkpoint ``path`` could not be written."""
    return TransferError(f"checkpoint {path} cannot be written ({os_reason(error)})", summary, path)


def check_writable(path: Path) -> None:
    """Refuse, before anything is committed, a checkpoint whose directory cannot take a file, or a path that
    is not a regular file (a device such as ``/dev/full`` would be renamed over; a directory cannot be)."""
    if path.exists() and not path.is_file():
        raise FormatError(f"checkpoint {path} is not a regular file: give --checkpoint a file")
    temporary = _temporary(path)
    try:
        os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
        temporary.unlink()
    except OSError as error:
        raise FormatError(
            f"checkpoint {path} cannot be written ({os_reason(error)}): give --checkpoint a file in a "
            "directory that can be written to"
        ) from None


def default_checkpoint(source: str, table: str, operation: str) -> Path:
    """``<source>.<table>.<operation>-checkpoint.json`` beside a source path, or in the current directory."""
    name = source.rstrip("/\\")
    if "://" in name:
        name = name.split("://", 1)[1].replace("/", "_").replace(":", "_")
    return Path(f"{name}.{table}.{operation}-checkpoint.json")
