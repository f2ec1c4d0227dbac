"""Export, import and copy: the library calls behind ``singletable export``, ``import`` and ``copy``.

Each takes targets as :class:`Target` objects or as TARGET strings (a database file or an endpoint URL,
opened and closed here; a file opened here is opened ``durable``, so each committed chunk is on disk before
its checkpoint is written), reports progress through ``progress(items, bytes)`` when given, and returns a
:class:`TransferSummary`. A transfer that stops raises :class:`TransferError` (or
:class:`TransferInterrupted`) whose ``summary`` says how many items were committed; import and copy keep a
checkpoint (see :mod:`._checkpoint`) and continue from it with ``resume=True``.

Input lines the destination cannot take -- not JSON, not an item, refused by DynamoDB (over 400 KB, a key
missing, a wrong key type) -- are reported with file, line and key. ``on_error="stop"`` (the default) stops
at the first, after committing every line before it; ``on_error="reject"`` writes each to a reject file
(JSON Lines: file, line, key, error, the line's text) and goes on. Nothing is dropped silently.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from singletable.data._checkpoint import (
    Checkpoint,
    Interrupts,
    TransferError,
    TransferInterrupted,
    TransferSummary,
    default_checkpoint,
)
from singletable.data._formats import FormatError, SourceFile, SourceLine, read_lines, source_files
from singletable.data._item_json import dumps, item_from_json, item_to_json, plain_value, render_item
from singletable.data._loader import ItemLoader, LoadRefused
from singletable.data._look import count, scan_pages
from singletable.data._tables import TableError, describe, ensure_table, key_names
from singletable.data._targets import Target, TargetError, open_target
from singletable.data._writers import open_writer

Progress = Callable[[int, int], None]
Item = dict[str, Any]
ON_ERROR = ("stop", "reject")


@contextlib.contextmanager
def _opened(target: Target | str) -> Iterator[Target]:
    if isinstance(target, Target):
        yield target
        return
    opened = open_target(target, durable=True)
    try:
        yield opened
    finally:
        opened.close()


def describe_key(item: Item | None, keys: list[str]) -> str:
    """`` (key PK="a", SK="b")`` for messages, from whatever key attributes the item has."""
    if not item:
        return ""
    parts = [f"{name}={dumps(plain_value(item[name]))}" for name in keys if name in item]
    return f" (key {', '.join(parts)})" if parts else " (no key attributes)"


# -- export ----------------------------------------------------------------------------------------------


def export_table(
    target: Target | str,
    table: str,
    destination: str | Path,
    *,
    format: str = "dynamodb",
    plain: bool = False,
    segments: int = 1,
    progress: Progress | None = None,
) -> TransferSummary:
    """Write every item of ``table`` to ``destination`` as ``format`` (``dynamodb``: the S3 export layout,
    a directory; ``jsonl``; ``csv``), scanning ``segments`` parallel-scan segments at once."""
    summary = TransferSummary("export", table)
    started = time.monotonic()
    with _opened(target) as source:
        description = describe(source, table)
        if description is None:
            raise TransferError(f"table {table} does not exist in {source.name}", summary)
        writer = open_writer(format, destination, description, plain)
        try:
            for _segment, items, _last in scan_pages(source, {"TableName": table}, segments):
                for item in items:
                    summary.bytes += writer.write(item)
                summary.items += len(items)
                if progress is not None:
                    progress(summary.items, summary.bytes)
        except BaseException:
            writer.abort()
            raise
        summary.destination = str(writer.close())
    summary.seconds = time.monotonic() - started
    return summary


# -- import ----------------------------------------------------------------------------------------------


class _Rejects:
    """The reject file: one JSON line per refused input line, fsynced before the checkpoint that covers it."""

    def __init__(self, path: Path | None, keep_bytes: int) -> None:
        self.path = path
        self.handle = None
        if path is not None:
            self.handle = open(path, "a+b")  # noqa: SIM115 (open for the whole import)
            self.handle.truncate(keep_bytes)  # rejects of a chunk whose checkpoint was never written
            self.handle.seek(keep_bytes)

    def add(self, line: SourceLine, key: str, error: str) -> None:
        record = {"file": line.file, "line": line.line, "key": key.strip(), "error": error, "text": line.text}
        # called only with on_error="reject", which opens the file
        self.handle.write((dumps(record, spaced=True) + "\n").encode("utf-8"))  # type: ignore[union-attr]

    def sync(self) -> int:
        if self.handle is None:
            return 0
        self.handle.flush()
        import os

        os.fsync(self.handle.fileno())
        return self.handle.tell()

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()


def import_table(
    target: Target | str,
    table: str,
    source: str | Path,
    *,
    format: str = "dynamodb",
    plain: bool = False,
    schema: str | dict[str, Any] | None = None,
    on_error: str = "stop",
    reject_file: str | Path | None = None,
    checkpoint: str | Path | None = None,
    resume: bool = False,
    chunk_size: int | None = None,
    progress: Progress | None = None,
    stop_after_chunks: int | None = None,
    loader_options: dict[str, Any] | None = None,
) -> TransferSummary:
    """Load ``source`` (``format``: ``dynamodb`` export layout, ``jsonl`` or ``csv``) into ``table``,
    creating the table from ``schema`` when it is missing. See the module docstring for errors and resume;
    ``stop_after_chunks`` stops (as Ctrl-C would) after that many committed chunks."""
    if on_error not in ON_ERROR:
        raise ValueError(f"on_error must be one of {', '.join(ON_ERROR)}, not {on_error!r}")
    source_name = str(source)
    files = source_files(source, format)
    point = Path(checkpoint) if checkpoint else default_checkpoint(source_name, table, "import")
    state = _start_checkpoint(point, "import", source_name, table, resume)
    summary = TransferSummary("import", table, items=state.items, rejected=state.rejected)
    summary.resumed_from = state.items
    if on_error == "reject" and reject_file is None:
        reject_file = f"{source_name.rstrip('/')}.{table}.rejects.jsonl"
    rejects = _Rejects(
        Path(reject_file) if on_error == "reject" and reject_file is not None else None, state.reject_bytes
    )
    started = time.monotonic()
    try:
        with _opened(target) as destination:
            description = _ensure(destination, table, schema, summary)
            loader = ItemLoader(destination, table, **(loader_options or {}))
            run = _ImportRun(
                files, format, plain, state, point, summary, rejects, on_error, key_names(description)
            )
            run.go(loader, chunk_size or loader.chunk_size, progress, stop_after_chunks)
            summary.retries = loader.retries
    finally:
        rejects.close()
        summary.seconds = time.monotonic() - started
    point.unlink(missing_ok=True)
    return summary


def _ensure(target: Target, table: str, schema: Any, summary: TransferSummary) -> dict[str, Any]:
    try:
        return ensure_table(target, table, schema)
    except (TableError, TargetError) as error:
        raise TransferError(str(error), summary) from None


def _start_checkpoint(point: Path, operation: str, source: str, table: str, resume: bool) -> Checkpoint:
    if point.exists():
        if not resume:
            raise FormatError(
                f"checkpoint {point} exists (an interrupted {operation}): resume it, or delete it to restart"
            )
        state = Checkpoint.load(point)
        state.check_matches(operation, source, table, point)
        return state
    return Checkpoint(operation, source, table)


class _ImportRun:
    """One import's loop: chunks of lines -> loader -> rejects -> checkpoint."""

    def __init__(
        self,
        files: list[SourceFile],
        format: str,
        plain: bool,
        state: Checkpoint,
        point: Path,
        summary: TransferSummary,
        rejects: _Rejects,
        on_error: str,
        keys: list[str],
    ) -> None:
        self.files, self.format, self.plain = files, format, plain
        self.state, self.point, self.summary = state, point, summary
        self.rejects, self.stop = rejects, on_error == "stop"
        self.keys = keys

    def lines(self) -> Iterator[tuple[int, SourceLine]]:
        position = self.state.position
        first = position.get("file", 0)
        for index in range(first, len(self.files)):
            skip = position.get("line", 0) if index == first else 0
            for line in read_lines(self.files[index], self.format, plain=self.plain, skip=skip):
                yield index, line

    def go(self, loader: ItemLoader, size: int, progress: Progress | None, stop_after: int | None) -> None:
        chunk: list[tuple[int, SourceLine]] = []
        try:
            with Interrupts(stop_after) as interrupts:
                for entry in self.lines():
                    chunk.append(entry)
                    if len(chunk) >= size:
                        self.commit(loader, chunk, progress)
                        chunk = []
                        interrupts.chunk_done()
                if chunk:
                    self.commit(loader, chunk, progress)
        except KeyboardInterrupt:
            raise TransferInterrupted("interrupted", self.summary, self.point) from None

    def commit(
        self, loader: ItemLoader, chunk: list[tuple[int, SourceLine]], progress: Progress | None
    ) -> None:
        bad = [(i, e.error) for i, (_, e) in enumerate(chunk) if e.error is not None]
        end = bad[0][0] if self.stop and bad else len(chunk)
        good = [(i, e) for i, (_, e) in enumerate(chunk[:end]) if e.item is not None]
        try:
            result = loader.write([e.item for _, e in good if e.item is not None], stop_at_error=self.stop)
        except LoadRefused as refused:
            self.summary.items += refused.written
            raise TransferError(
                f"{self.summary.table} refused writes: {refused.code}: {refused.message}",
                self.summary,
                self.point,
            ) from None
        refusals = [(good[p][0], f"{code}: {message}") for p, code, message in result.errors]
        problems = sorted(bad + refusals) if not self.stop else sorted(refusals + bad[:1])
        self.summary.items += result.written
        if self.stop and problems:
            self.stop_at(chunk, problems[0])
        for position, error in problems:
            line = chunk[position][1]
            self.rejects.add(line, describe_key(line.item, self.keys), error)
        self.summary.rejected += len(problems)
        self.summary.bytes += sum(len(e.text) + 1 for _, e in chunk)
        self.save(chunk[-1])
        if progress is not None:
            progress(self.summary.items, self.summary.bytes)

    def stop_at(self, chunk: list[tuple[int, SourceLine]], problem: tuple[int, str]) -> None:
        position, error = problem
        line = chunk[position][1]
        if position > 0:
            self.save(chunk[position - 1])
        raise TransferError(
            f"{line.file} line {line.line}{describe_key(line.item, self.keys)}: {error}",
            self.summary,
            self.point,
        )

    def save(self, last: tuple[int, SourceLine]) -> None:
        state = self.state
        state.items, state.rejected = self.summary.items, self.summary.rejected
        state.reject_bytes = self.rejects.sync()
        state.position = {"file": last[0], "line": last[1].line}
        state.save(self.point)


# -- copy ------------------------------------------------------------------------------------------------


def copy_table(
    source: Target | str,
    destination: Target | str,
    table: str,
    *,
    destination_table: str | None = None,
    segments: int = 1,
    checkpoint: str | Path | None = None,
    resume: bool = False,
    progress: Progress | None = None,
    stop_after_chunks: int | None = None,
    loader_options: dict[str, Any] | None = None,
) -> TransferSummary:
    """Copy every item of ``table`` from ``source`` to ``destination`` (as ``destination_table``), creating
    the destination table like the source's when missing; counts both sides at the end."""
    into = destination_table or table
    summary = TransferSummary("copy", into)
    started = time.monotonic()
    with _opened(source) as src, _opened(destination) as dst:
        description = describe(src, table)
        if description is None:
            raise TransferError(f"table {table} does not exist in {src.name}", summary)
        _ensure(dst, into, description, summary)
        point = Path(checkpoint) if checkpoint else default_checkpoint(src.name, into, "copy")
        state = _start_checkpoint(point, "copy", f"{src.name}#{table}", into, resume)
        summary.items = summary.resumed_from = state.items
        loader = ItemLoader(dst, into, **(loader_options or {}))
        keys = key_names(description)
        _copy_pages(src, table, loader, segments, state, point, summary, progress, stop_after_chunks, keys)
        summary.retries = loader.retries
        summary.source_count = count(src, table)
        summary.destination_count = count(dst, into)
    point.unlink(missing_ok=True)
    summary.seconds = time.monotonic() - started
    return summary


def _copy_pages(
    src: Target,
    table: str,
    loader: ItemLoader,
    segments: int,
    state: Checkpoint,
    point: Path,
    summary: TransferSummary,
    progress: Progress | None,
    stop_after: int | None,
    keys: list[str],
) -> None:
    saved = state.position.get("segments")
    start = None if saved is None else {int(s): _decode_key(k) for s, k in saved.items()}
    if saved is not None and state.position.get("total") != segments:
        raise TransferError(
            f"checkpoint {point} was taken with {state.position.get('total')} segments", summary, point
        )
    positions = {str(s): None for s in range(segments)} if saved is None else dict(saved)
    try:
        with Interrupts(stop_after) as interrupts:
            for segment, items, last in scan_pages(src, {"TableName": table}, segments, start):
                _copy_chunk(loader, items, summary, point, keys)
                if progress is not None:
                    summary.bytes += sum(len(render_item(i, spaced=True)) for i in items)
                if last is None:
                    positions.pop(str(segment), None)
                else:
                    positions[str(segment)] = item_to_json(last)
                state.items = summary.items
                state.position = {"segments": positions, "total": segments}
                state.save(point)
                if progress is not None:
                    progress(summary.items, summary.bytes)
                interrupts.chunk_done()
    except KeyboardInterrupt:
        raise TransferInterrupted("interrupted", summary, point) from None


def _copy_chunk(
    loader: ItemLoader, items: list[Item], summary: TransferSummary, point: Path, keys: list[str]
) -> None:
    try:
        result = loader.write(items, stop_at_error=True)
    except LoadRefused as refused:
        summary.items += refused.written
        raise TransferError(
            f"{loader.table} refused writes: {refused.code}: {refused.message}", summary, point
        ) from None
    summary.items += result.written
    if result.errors:
        position, code, message = result.errors[0]
        raise TransferError(f"item{describe_key(items[position], keys)}: {code}: {message}", summary, point)


def _decode_key(key: Item | None) -> Item | None:
    return None if key is None else item_from_json(key)
