"""Bulk load: many PutRequests into one table in one SQLite transaction, on the engine's one write path.

``singletable import`` and ``singletable copy`` into a database file load items by the thousand. Through
BatchWriteItem every 25 items pay a request's shape check, a lock, a catalog check and a COMMIT; here a whole
chunk does, once. Nothing else differs: every item is prepared by PutItem's own :func:`prepare_put` (the same
validation, key and index-key checks, the same messages) and applied by :meth:`PreparedWrite.apply` into one
:class:`WriteRows` collector (old item, index entries, stream record, capacity), flushed by
``Storage.write_rows`` -- so a bulk-loaded item is stored exactly as a PutItem would store it.

Bad items do not abort the chunk: their position and DynamoDB error come back, and the caller decides
(stop at the first, or reject each and go on). With ``stop_at_error`` nothing after the first bad item is
written, so "the items before line N are in, N is not" holds.

The chunk commits as one transaction: after :func:`bulk_put` returns, all of ``written`` is committed (and
durable as far as the engine's ``durable`` setting says), which is what an import's checkpoint relies on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from singletable.engine._capacity import Capacity
from singletable.engine._errors import DynamoDBError
from singletable.engine._item_writes import prepare_put
from singletable.engine._write_path import PreparedWrite, WriteRows, conflict_error

Item = dict[str, Any]


class Refused(NamedTuple):
    """An item of the chunk that was not written: its position in the chunk and PutItem's error for it."""

    position: int
    error: DynamoDBError


@dataclass
class BulkResult:
    """What one chunk did: ``written`` items committed, ``replaced`` of them over an item with the same key
    (stored before, or earlier in the chunk); ``errors`` the items refused."""

    written: int = 0
    errors: list[Refused] = field(default_factory=list)
    replaced: int = 0


def bulk_put(engine: Any, table_name: str, items: list[Item], *, stop_at_error: bool = False) -> BulkResult:
    """Put ``items`` into ``table_name`` in one transaction; see the module docstring.

    ``engine`` is an :class:`~singletable.engine.Engine`. The table's absence, or another process holding
    the write lock past the busy timeout, raises :class:`DynamoDBError` (ResourceNotFoundException,
    TransactionConflictException) with nothing written.
    """
    with engine.storage.lock:
        return engine.execute_write(  # the item writes' catalog check inside the transaction
            lambda eng, _params: _load(eng, table_name, items, stop_at_error), {}
        )


def _load(engine: Any, table_name: str, items: list[Item], stop_at_error: bool) -> BulkResult:
    result = BulkResult()
    writes: list[PreparedWrite] = []
    engine.table(table_name)  # ResourceNotFoundException before any item is looked at
    for position, item in enumerate(items):
        try:
            writes.append(prepare_put(engine, {"TableName": table_name, "Item": item}))
        except DynamoDBError as error:
            result.errors.append(Refused(position, error))
            if stop_at_error:
                break
    storage = engine.storage
    capacity = Capacity(table_name)
    with storage.write(conflict_error):
        rows = WriteRows()
        seen: set[tuple[int, bytes, bytes]] = set()
        for write in writes:
            if write.identity in seen:  # the same item twice: the second must see the first as its old item
                rows.flush(storage)
                seen.clear()
            seen.add(write.identity)
            old, _new = write.apply(storage, capacity, rows)
            result.replaced += old is not None
        rows.flush(storage)
    result.written = len(writes)
    return result
