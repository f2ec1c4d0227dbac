"""Import into a table the import creates in a database file: CREATING until every item is in and checked.

This is DynamoDB's ImportTable, locally. The table is created ``CREATING`` (``engine/_import_state.py``):
no request can read or write it, DescribeTable shows it ``CREATING``. A reader process
(:mod:`._import_reader`) reads, parses and checks the source -- PutItem's own checks, with the same
refusals a bulk load gives, each with its file, line and key -- while this process stages the rows it sends
(``engine/_storage/imports.py``). Then the engine builds the table and each index in sorted passes, checks
each against what was staged, and makes the table ``ACTIVE``, in one transaction (``engine/_imports.py``).

What the caller sees differs from an import into an existing table in two ways, both following from the
table not existing before: there is no checkpoint (an import that stops leaves no table, so there is nothing
to resume: it is run again), and a process killed mid-import leaves the table ``CREATING`` -- never usable
half-filled -- which the next import of it replaces (or DeleteTable removes). With ``on_error="stop"`` a
bad line makes the caller load the source in chunks instead (:class:`StoppedAtBadLine`), which stops at it
exactly as an import into an existing table does.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

from singletable.data._checkpoint import TransferError, TransferInterrupted, TransferSummary
from singletable.data._formats import SourceFile, SourceLine
from singletable.data._import_reader import (
    QUEUED,
    Batch,
    ReadEnd,
    RefusedLine,
    read_source,
    received,
)
from singletable.data._import_run import Rejects, RejectsUnwritable
from singletable.data._settings import TableSettings
from singletable.data._targets import Target

Progress = Callable[[int, int], None]
NOTHING_IMPORTED = "nothing was imported: the import removed the table it was creating"
FINISHED_WHEN_INTERRUPTED = "interrupted as the import ended: the table is complete"
# Reader processes for a source of several files (an S3 export): each takes every other file. Two keep
# both cores of a two-core machine busy reading while this process stages what they send.
READERS = 2


class StoppedAtBadLine(Exception):
    """``on_error="stop"`` met a line it cannot import: the table is removed, and the caller loads the
    source in chunks instead, which commits every line before that one and stops there (with its file, line
    and key, and a checkpoint to resume from), as an import into an existing table does."""


def can_create(target: Target, table: str, settings: TableSettings | None) -> bool:
    """Whether this import creates ``table`` in a database file (the table is missing, or an abandoned
    import left it CREATING) with settings the sorted build covers (no stream, no vector index)."""
    engine = target.engine
    if engine is None or settings is None or settings.stream_view is not None or settings.vector_indexes:
        return False
    engine.refresh_catalog()
    return engine.find_table(table) is None


class NewTableImport:
    """One import into a table it creates (see the module docstring)."""

    def __init__(
        self,
        target: Target,
        table: str,
        settings: TableSettings,
        summary: TransferSummary,
        rejects: Rejects,
        on_error: str,
    ) -> None:
        assert target.engine is not None, "a database file"
        self.engine = target.engine
        self.target = target
        self.table = table
        self.settings = settings
        self.summary = summary
        self.rejects = rejects
        self.stop = on_error == "stop"
        self.keys = [name for name, _ in settings.key_schema]

    def run(self, files: list[SourceFile], format: str, plain: bool, progress: Progress | None) -> None:
        description = self._begin()
        try:
            late = self._build(files, format, plain, description, progress)
        except KeyboardInterrupt:  # as _build returned (it words one that comes before), or a second one
            if self.engine.find_table(self.table) is None:  # still CREATING: not a finished import's
                raise
            late = True
        try:
            with interrupts_held():  # quick, and the table is complete: a Ctrl-C waits for them
                self._settle()
        except KeyboardInterrupt:
            late = True
        if late:
            raise TransferInterrupted(FINISHED_WHEN_INTERRUPTED, self.summary)

    def _settle(self) -> None:
        """What follows the build: the rejects on disk, then the table's time to live."""
        try:
            self.rejects.sync()
        except RejectsUnwritable as error:
            raise TransferError(str(error), self.summary) from None
        self.settings.apply_ttl(self.target, self.table, self.summary.warnings.append)

    def _begin(self) -> dict[str, Any]:
        """Create the table ``CREATING``; its description."""
        from singletable.engine import DynamoDBError
        from singletable.engine.shared import abandon_import, begin_import

        try:
            description, replaced = begin_import(self.engine, self.settings.create_params(self.table))
        except DynamoDBError as error:
            raise TransferError(f"{self.table}: {error.code}: {error.message}", self.summary) from None
        except KeyboardInterrupt:  # perhaps as the table's creation returned: then it goes
            abandon_import(self.engine, self.table)
            raise TransferInterrupted(f"interrupted: {NOTHING_IMPORTED}", self.summary) from None
        if replaced:
            self.summary.warnings.append(
                f"{self.table} was left CREATING by an import that stopped: imported again from the start"
            )
        return description

    def _build(
        self,
        files: list[SourceFile],
        format: str,
        plain: bool,
        description: dict[str, Any],
        progress: Progress | None,
    ) -> bool:
        """Read, stage and build the table; whether Ctrl-C came only as the build returned (the table is
        then ``ACTIVE`` with every item: the import is done, and the command says it was interrupted)."""
        from singletable.engine.shared import abandon_import, finish_import

        readers: list[Any] = []
        try:  # from the table's creation on, an interrupt (even while the readers start) removes the table
            queue = self._start_readers(files, format, plain, description, readers)
            self._stage(queue, len(readers), progress)
            self.summary.overwritten = finish_import(self.engine, self.table)
        except BaseException as error:
            for reader in readers:
                reader.kill()
            if not abandon_import(self.engine, self.table) and isinstance(error, KeyboardInterrupt):
                return True
            self._lost()
            if isinstance(error, StoppedAtBadLine):
                raise
            if isinstance(error, KeyboardInterrupt):
                raise TransferInterrupted(f"interrupted: {NOTHING_IMPORTED}", self.summary) from None
            raise
        finally:
            for reader in readers:
                reader.join()
        return False

    def _start_readers(
        self,
        files: list[SourceFile],
        format: str,
        plain: bool,
        description: dict[str, Any],
        started: list[Any],
    ) -> Any:
        """The queue the reader processes (one per share of the files, see ``READERS``) fill; each reader is
        added to ``started`` once it runs, so that an interrupt while they start stops those running."""
        # fork: a reader starts at once, its modules already imported (it touches no connection).
        methods = multiprocessing.get_all_start_methods()
        context: Any = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        queue = context.Queue(QUEUED)
        shares = [list(enumerate(files))[first::READERS] for first in range(min(READERS, len(files)))]
        readers = [
            context.Process(
                target=read_source,
                args=(share, format, plain, description, self.keys, self.stop, queue, os.getpid()),
                name="singletable-import-reader",
                daemon=True,
            )
            for share in shares
        ]
        with interrupts_held():
            for reader in readers:
                reader.start()
                started.append(reader)
        return queue

    def _stage(self, queue: Any, readers: int, progress: Progress | None) -> None:
        storage = self.engine.storage
        while readers:
            message = received(queue.get())
            if isinstance(message, ReadEnd):
                if message.failure is not None:
                    raise TransferError(f"reading the source failed:\n{message.failure}", self.summary)
                readers -= 1
                continue
            batch: Batch = message
            if batch.refused:
                self._refuse(batch)
            storage.stage_import_rows(batch.items, batch.entries)
            self.summary.items += len(batch.items)
            self.summary.read += len(batch.items)
            self.summary.bytes += batch.bytes
            if progress is not None:
                progress(self.summary.items, self.summary.bytes)

    def _refuse(self, batch: Batch) -> None:
        if self.stop:
            raise StoppedAtBadLine()
        for refused in batch.refused:
            try:
                self.rejects.add(_as_line(refused), refused.key, refused.error)
            except RejectsUnwritable as error:
                raise TransferError(str(error), self.summary) from None
            self.summary.rejected += refused.count
            self.summary.read += refused.count
            if refused.lost and refused.file not in self.summary.damaged:
                self.summary.damaged.append(refused.file)

    def _lost(self) -> None:
        """The table is gone with everything staged: the summary says nothing was imported."""
        self.summary.items = self.summary.read = self.summary.rejected = 0
        self.summary.overwritten = 0


@contextmanager
def interrupts_held() -> Iterator[None]:
    """Hold Ctrl-C back while the readers fork (or the import settles), then raise it here, where the import
    handles it.

    During a fork, the at-fork hooks (logging's) run Python code that swallows a KeyboardInterrupt
    ("Exception ignored in ..."), and the interrupted import would go on and succeed. So while the readers
    start, SIGINT only sets a flag (from the main thread, the only one that can set a handler) and is blocked
    in this thread, so each reader starts with it blocked until it ignores it (``ignore_interrupts`` in
    :mod:`._import_reader`).
    A Ctrl-C pressed meanwhile raises KeyboardInterrupt once they run."""
    pressed: list[int] = []
    # Not when the handler there is one set outside Python (None): it could not be put back.
    in_main = threading.current_thread() is threading.main_thread()
    handler = in_main and signal.getsignal(signal.SIGINT) is not None
    if handler:
        previous = signal.signal(signal.SIGINT, lambda number, frame: pressed.append(number))
    blocks = hasattr(signal, "pthread_sigmask")
    if blocks:
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        if blocks:  # a SIGINT that came while blocked arrives now, to the flag
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        if handler:
            signal.signal(signal.SIGINT, previous)
    if pressed:
        signal.raise_signal(signal.SIGINT)  # to the handler there was: Python's raises KeyboardInterrupt


def _as_line(refused: RefusedLine) -> SourceLine:
    return SourceLine(
        refused.file,
        refused.line,
        error=refused.error,
        text=refused.text,
        count=refused.count,
        whole_file=refused.whole_file,
        lost=refused.lost,
    )


class NewTable(NamedTuple):
    """What an import into a table it creates reads, and how: see :func:`import_table`'s parameters."""

    files: list[SourceFile]
    format: str
    plain: bool
    settings: TableSettings
    on_error: str
    rejects: Rejects


def import_new_table(
    target: Target, table: str, build: NewTable, summary: TransferSummary, progress: Progress | None
) -> None:
    """Run :class:`NewTableImport`; ``summary`` is filled in as it goes (and its seconds at the end)."""
    started = time.monotonic()
    try:
        run = NewTableImport(target, table, build.settings, summary, build.rejects, build.on_error)
        run.run(build.files, build.format, build.plain, progress)
    finally:
        summary.seconds = time.monotonic() - started
