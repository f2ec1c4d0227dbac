"""Export, import and copy: the library calls behind ``singletable export``, ``import`` and ``copy``.

Each takes targets as :class:`Target` objects or as TARGET strings (a database file or an endpoint URL,
opened and closed here; a file read from is opened read-only, so reading it changes nothing; a file written
to is opened ``durable``, so each committed chunk is on disk before its checkpoint is written, and is created
only when a table is to be created in it), reports progress through ``progress(items, bytes)`` when given,
and returns a :class:`TransferSummary`. A transfer that stops raises :class:`TransferError` (or
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
    check_writable,
    default_checkpoint,
    unwritable,
)
from singletable.data._fast_import import NewTable, StoppedAtBadLine, can_create, import_new_table
from singletable.data._formats import FormatError, source_files
from singletable.data._import_run import ImportRun, Rejects, check_unchanged, describe_key
from singletable.data._json_items import item_from_json, item_to_json, render_item
from singletable.data._loader import ItemLoader, LoadRefused
from singletable.data._look import count, scan_pages
from singletable.data._settings import TableSettings
from singletable.data._tables import TableError, describe, ensure_table, key_names, schema_settings
from singletable.data._targets import Target, TargetError, open_target
from singletable.data._writers import open_writer

Progress = Callable[[int, int], None]
Item = dict[str, Any]
ON_ERROR = ("stop", "reject")


@contextlib.contextmanager
def _opened(target: Target | str, *, read_only: bool = False, create: bool = True) -> Iterator[Target]:
    """``target`` as a Target: a source ``read_only``; a destination durable, created only if ``create``."""
    if isinstance(target, Target):
        yield target
        return
    opened = (
        open_target(target, read_only=True) if read_only else open_target(target, durable=True, create=create)
    )
    try:
        yield opened
    finally:
        opened.close()


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
    with _opened(target, read_only=True) as source:
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
    sorted_build: bool = True,
) -> TransferSummary:
    """Load ``source`` (``format``: ``dynamodb`` export layout, ``jsonl`` or ``csv``) into ``table``,
    creating the table from ``schema`` when it is missing. See the module docstring for errors and resume;
    ``stop_after_chunks`` stops (as Ctrl-C would) after that many committed chunks.

    A table the import creates in a database file is built as DynamoDB's ImportTable builds one
    (:mod:`._fast_import`): CREATING, unusable, until every item is in and each index is built and checked;
    no checkpoint. ``sorted_build=False`` (or ``chunk_size``, ``stop_after_chunks``, ``loader_options``, or
    a checkpoint to resume from) loads it as an existing table is loaded (chunks, checkpoints)."""
    if on_error not in ON_ERROR:
        raise ValueError(f"on_error must be one of {', '.join(ON_ERROR)}, not {on_error!r}")
    # A schema that cannot be read fails before anything (database, checkpoint, reject file) is created.
    settings = None if schema is None else _schema(schema, TransferSummary("import", table))
    source_name = str(source)
    files = source_files(source, format)
    point = Path(checkpoint) if checkpoint else default_checkpoint(source_name, table, "import")
    if on_error == "reject" and reject_file is None:
        reject_file = f"{source_name.rstrip('/')}.{table}.rejects.jsonl"
    chunked = not sorted_build or chunk_size or stop_after_chunks or loader_options or point.exists()
    if settings is not None and not chunked:
        # Refused before anything is created, as below: the checkpoint a stop at a bad line would write,
        # and the reject file.
        check_writable(point)
        rejects = Rejects(Path(reject_file) if on_error == "reject" and reject_file is not None else None, 0)
        try:
            new_table = NewTable(files, format, plain, settings, on_error, rejects)
            built = _import_new(target, table, new_table, progress)
        finally:
            rejects.close()
        if built is not None:
            return built
    state = _start_checkpoint(point, "import", source_name, table, resume)
    check_unchanged(files, state)
    summary = TransferSummary("import", table, items=state.items, rejected=state.rejected, read=state.read)
    summary.overwritten, summary.damaged = state.overwritten, list(state.damaged)
    summary.resumed_from = state.items
    rejects = Rejects(
        Path(reject_file) if on_error == "reject" and reject_file is not None else None, state.reject_bytes
    )
    started = time.monotonic()
    try:
        with _opened(target, create=settings is not None) as destination:
            description = _ensure(destination, table, settings, summary)
            loader = ItemLoader(destination, table, **(loader_options or {}))
            run = ImportRun(
                files, format, plain, state, point, summary, rejects, on_error, key_names(description)
            )
            run.go(loader, chunk_size or loader.chunk_size, progress, stop_after_chunks)
            summary.retries = loader.retries
            if settings is not None:
                settings.apply_ttl(destination, table, summary.warnings.append)
    finally:
        rejects.close()
        summary.seconds = time.monotonic() - started
    point.unlink(missing_ok=True)
    return summary


def _import_new(
    target: Target | str, table: str, build: NewTable, progress: Progress | None
) -> TransferSummary | None:
    """The import into a table it creates, built CREATING (:mod:`._fast_import`); None when the table
    exists, or when a bad line stopped it with ``on_error="stop"`` (the table removed): the caller then
    loads in chunks, which commits every line before that one and stops at it with a checkpoint."""
    with _opened(target, create=True) as destination:
        if not can_create(destination, table, build.settings):
            return None
        summary = TransferSummary("import", table)
        try:
            import_new_table(destination, table, build, summary, progress)
        except StoppedAtBadLine:
            return None
        return summary


def _schema(schema: str | dict[str, Any] | TableSettings, summary: TransferSummary) -> TableSettings:
    try:
        return schema_settings(schema)
    except TableError as error:
        raise TransferError(str(error), summary) from None


def _ensure(
    target: Target, table: str, settings: TableSettings | None, summary: TransferSummary
) -> dict[str, Any]:
    try:
        return ensure_table(target, table, settings, summary.warnings.append)
    except (TableError, TargetError) as error:
        raise TransferError(str(error), summary) from None


def _start_checkpoint(point: Path, operation: str, source: str, table: str, resume: bool) -> Checkpoint:
    check_writable(point)
    if point.exists():
        if not resume:
            raise FormatError(
                f"checkpoint {point} exists (an interrupted {operation}): resume it, or delete it to restart"
            )
        state = Checkpoint.load(point)
        state.check_matches(operation, source, table, point)
    else:
        state = Checkpoint(operation, source, table)
    return state


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
    warn = summary.warnings.append
    with _opened(source, read_only=True) as src:
        settings = _capture(src, table, summary)
        if settings is None:
            raise TransferError(f"table {table} does not exist in {src.name}", summary)
        with _opened(destination) as dst:
            # Beside the destination (what the copy writes), never beside the source, which may sit in a
            # directory nothing can be written to; found writable before the destination table is made.
            point = Path(checkpoint) if checkpoint else default_checkpoint(dst.name, into, "copy")
            state = _start_checkpoint(point, "copy", f"{src.name}#{table}", into, resume)
            _ensure_copy(dst, into, settings, f"{table} on {src.name}", summary)
            summary.items = summary.resumed_from = state.items
            loader = ItemLoader(dst, into, **(loader_options or {}))
            keys = [name for name, _ in settings.key_schema]
            _copy_pages(
                src, table, loader, segments, state, point, summary, progress, stop_after_chunks, keys
            )
            summary.retries = loader.retries
            summary.source_count = count(src, table)
            summary.destination_count = count(dst, into)
            # Last, once both sides are counted: expiring copied items sooner would make them disagree.
            _target_call(lambda: settings.apply_ttl(dst, into, warn), summary, point)
    point.unlink(missing_ok=True)
    summary.seconds = time.monotonic() - started
    return summary


def _capture(target: Target, table: str, summary: TransferSummary) -> TableSettings | None:
    return _target_call(lambda: TableSettings.capture(target, table, summary.warnings.append), summary)


def _target_call(call: Callable[[], Any], summary: TransferSummary, point: Path | None = None) -> Any:
    """``call()``, a refusal of the target's (unreachable, bad credentials) stopping the transfer."""
    try:
        return call()
    except (TableError, TargetError) as error:
        raise TransferError(str(error), summary, point) from None


def _ensure_copy(
    dst: Target, into: str, settings: TableSettings, source: str, summary: TransferSummary
) -> None:
    """Create the destination table like the source's; an existing one keeps its settings, and each that
    differs from the source's is a warning (but TTL, which the copy turns on at its end when off)."""
    existing = _capture(dst, into, summary)
    if existing is None:
        _ensure(dst, into, settings, summary)
        return
    differing = [
        name
        for name in settings.differences(existing)
        if not (name == "ttl_attribute" and existing.ttl_attribute is None)
    ]
    for name in differing:
        summary.warnings.append(
            f"{into} on {dst.name} already exists, and its {name.replace('_', ' ')} "
            f"({existing.describe_setting(name)}) differs from {source}'s "
            f"({settings.describe_setting(name)}): left as it is"
        )


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
                try:
                    state.save(point)
                except OSError as error:
                    raise unwritable(point, error, summary) from None
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
