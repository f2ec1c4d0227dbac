"""An import's reader process: source lines in, batches of staged rows and refused lines out.

Reading, parsing and checking each item (PutItem's checks, through the engine's ``staged_rows``) is most
of an import's work; the other part is SQLite's. So an import into a table it creates reads in a process of
its own while the importing process stages and builds: the two halves use both cores (and a source of
several files, such as an S3 export, is shared among two readers, see ``_fast_import``). A reader sends
:class:`Batch`\\ es through a bounded queue (memory stays bounded: at most ``QUEUED`` batches wait), in
source order, ending with a :class:`ReadEnd`. Every line is accounted for in its batch: staged, refused
(:class:`RefusedLine`, with file, line, key and the reason, as a bulk load would refuse it), or blank.

A reader ignores Ctrl-C: the terminal sends it to the whole process group, and the importing process decides
what an interrupt means (it stops the readers and removes the table). A reader whose importing process is
gone (killed) stops by itself.
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from queue import Full
from typing import Any

from singletable.data._formats import SourceFile, SourceLine, line_item, read_lines
from singletable.data._import_run import describe_key
from singletable.engine import DynamoDBError

BATCH_ITEMS = 2_000
QUEUED = 8
# A staged item's ``seq`` is its file's place in the source, shifted by this, plus its place in the file.
FILE_SHIFT = 36


@dataclass(slots=True)
class RefusedLine:
    """A line that is not imported: where it is, the key it names (`` (key PK="a")`` or empty), why, and its
    text; ``count``/``whole_file``/``lost`` as :class:`~singletable.data._formats.SourceLine` says."""

    file: str
    line: int
    key: str
    error: str
    text: str
    count: int = 1
    whole_file: bool = False
    lost: bool = False


@dataclass(slots=True)
class Batch:
    """Consecutive lines of the source: the staged rows of its items, the lines refused among them (in
    order), and the bytes read. ``refused_before``: for each refused line, how many of ``items`` come
    before it (so a stop at the first refusal knows what preceded it)."""

    items: list[Any] = field(default_factory=list)
    entries: list[Any] = field(default_factory=list)
    refused: list[RefusedLine] = field(default_factory=list)
    refused_before: list[int] = field(default_factory=list)
    bytes: int = 0
    seq: int = 0  # the next staged item's place in the source


@dataclass(slots=True)
class ReadEnd:
    """The reader is done: ``failure`` is the traceback of what stopped it, if anything did."""

    failure: str | None = None


def read_source(
    files: list[tuple[int, SourceFile]],
    format: str,
    plain: bool,
    description: dict[str, Any],
    keys: list[str],
    stop_at_error: bool,
    queue: Any,
    importer: int,
) -> None:
    """The reader process's work (see the module docstring) on ``files``, each with its place in the source
    (an import may share a source's files among several readers); ``description`` is the table's;
    ``importer``: the importing process's pid, taken before the fork (after it, the importer may already be
    dead and this process handed to another parent)."""
    ignore_interrupts()
    from singletable.engine.shared import ImportCatalog, staged_rows

    # What this process inherited from the importing one is never garbage: the collector need not walk it.
    gc.freeze()
    queue = _Outbox(queue, importer)
    try:
        catalog = ImportCatalog(description)
        batch = Batch()
        for index, source in files:
            batch.seq = index << FILE_SHIFT  # the items' order in the source, whichever reader reads them
            for line in read_lines(source, format, plain=plain, fingerprint=False, as_parsed=True):
                batch.bytes += line.size
                refusal = _take(staged_rows, catalog, line, keys, batch)
                if refusal is not None:
                    batch.refused.append(refusal)
                    batch.refused_before.append(len(batch.items))
                    if stop_at_error:
                        queue.put(batch)
                        queue.put(ReadEnd())
                        return
                if len(batch.items) >= BATCH_ITEMS:
                    queue.put(batch)
                    batch = Batch(seq=batch.seq)
        queue.put(batch)
        queue.put(ReadEnd())
    except BaseException:  # the importing process reports it; nothing of it is staged
        queue.put(ReadEnd(traceback.format_exc()))


def ignore_interrupts() -> None:
    """Ignore SIGINT from here on, and let through one the importer held back while it forked this
    process (ignored, it is dropped): see :func:`~singletable.data._fast_import.interrupts_held`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def received(data: bytes) -> Batch | ReadEnd:
    """A message of a reader's, as the importing process takes it off the queue."""
    message: Batch | ReadEnd = pickle.loads(data)
    return message


class _Outbox:
    """The queue to the importing process, given up when that process is gone (killed: a reader blocked on
    a full queue would otherwise wait for ever). A message goes pickled with pickle's newest protocol, which
    writes the rows' ``bytearray`` keys and items as they are (the queue's own, older protocol rebuilds
    each by a call: three times the cost of the whole batch, measured), and :func:`received` reads it."""

    def __init__(self, queue: Any, importer: int) -> None:
        self.queue = queue
        self.importer = importer

    def put(self, message: Batch | ReadEnd) -> None:
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        while True:
            try:
                self.queue.put(data, timeout=1.0)
                return
            except Full:
                if os.getppid() != self.importer:
                    # At once: a normal exit would wait for the queue's feeder thread to flush into a
                    # pipe nobody reads any more.
                    os._exit(1)


def _take(
    staged_rows: Callable[..., Any], catalog: Any, line: SourceLine, keys: list[str], batch: Batch
) -> RefusedLine | None:
    """Add ``line``'s item to ``batch`` as staged rows (``staged_rows``: the engine's, looked up once, not
    per line), or say why it is refused."""
    if line.error is not None:
        key = "" if line.whole_file else describe_key(line.item, keys)
        return RefusedLine(
            line.file, line.line, key, line.error, line.text, line.count, line.whole_file, line.lost
        )
    if line.item is None:  # a blank line, or a CSV header
        return None
    if line.parsed:
        try:  # the engine's checks on the line's JSON as parsed: what nearly every line passes
            rows = staged_rows(catalog, batch.seq, line.item)
        except Exception:
            pass  # checked again below as the line's item, for the message that one gets
        else:
            _add(batch, rows)
            return None
        try:
            line.item = line_item(line.item, False)
        except ValueError as error:  # what reading the line as an item says (read_lines' own refusal)
            return RefusedLine(line.file, line.line, "", str(error), line.text)
    try:
        rows = staged_rows(catalog, batch.seq, line.item)
    except DynamoDBError as error:
        key = describe_key(line.item, keys)
        return RefusedLine(line.file, line.line, key, f"{error.code}: {error.message}", line.text)
    _add(batch, rows)
    return None


def _add(batch: Batch, rows: tuple[Any, list[Any]]) -> None:
    item, entries = rows
    batch.seq += 1
    batch.items.append(item)
    batch.entries.extend(entries)
