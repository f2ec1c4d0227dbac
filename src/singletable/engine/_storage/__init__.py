"""How everything persists: one SQLite database, WAL-journaled, behind one object, :class:`Storage`.

This package is the only place that speaks SQL or touches the sqlite3 connection: operations, the write
path, the background threads and the stream operations call :class:`Storage`'s methods. Statement texts are
constants, chosen by flags, never built from a user's table or attribute name. The package is split by job,
and :class:`Storage` is assembled from the parts:

- ``connection``: opening, pragmas and WAL, the lock and the write transaction, waiting out other
  processes' write locks (:class:`BusyTimeout`, :func:`retry_while_busy`), the background checkpointer;
- ``catalog``: the SQL schema and the DynamoDB tables' definitions, with the catalog version;
- ``migration``: the storage schema's version, and the upgrade of a file written by an older singletable;
- ``items``: items and index entries, the Query and Scan statements, sizes, TransactWriteItems tokens;
- ``streams``: DynamoDB Streams' streams and change records;
- ``vectors``: vector index entries (packed float32 vectors) and their versions;
- ``imports``: an import's staged rows, and the sorted passes that build a table an import creates.
"""

from __future__ import annotations

from singletable.engine._storage.catalog import Catalog
from singletable.engine._storage.connection import (
    BusyTimeout,
    ReadOnlyDatabase,
    is_busy,
    retry_while_busy,
)
from singletable.engine._storage.imports import BuildCheck, ImportData, StagedEntry, StagedItem, Tally
from singletable.engine._storage.items import (
    HASH_SPACE,
    KEY_MAX,
    TABLE_START,
    EntryKey,
    EntryRow,
    ItemData,
    ItemKey,
    ItemRow,
    ScannedItem,
    new_row,
    partition_hash,
)
from singletable.engine._storage.streams import StreamData
from singletable.engine._storage.vectors import StoredVector, VectorChange, VectorData, VectorEntry

__all__ = [
    "HASH_SPACE",
    "KEY_MAX",
    "TABLE_START",
    "BuildCheck",
    "BusyTimeout",
    "EntryKey",
    "EntryRow",
    "ItemKey",
    "ItemRow",
    "ReadOnlyDatabase",
    "ScannedItem",
    "StagedEntry",
    "StagedItem",
    "Storage",
    "StoredVector",
    "Tally",
    "VectorChange",
    "VectorEntry",
    "is_busy",
    "new_row",
    "partition_hash",
    "retry_while_busy",
]


class Storage(Catalog, ItemData, ImportData, StreamData, VectorData):
    """The engine's database: one SQLite connection shared by the engine's threads under ``lock``.

    ``Storage(":memory:")`` or ``Storage("app.db")`` (created if missing); ``durable=True`` fsyncs every
    commit; ``read_only=True`` opens an existing file without changing it in any way (no schema created or
    upgraded, no checkpointer; ``write()`` raises :class:`ReadOnlyDatabase`; see ``connection``'s
    ``ReadOnlyOpening``). Everything that writes runs inside ``with storage.write():``; several reads that
    must agree run inside ``with storage.read():``. The methods come from the package's modules, one job
    each (see above); they are plain methods of this one class, so the write path pays no indirection for
    the split.
    """

    def __init__(
        self, path: str, *, durable: bool = False, read_only: bool = False, copy_of: Storage | None = None
    ) -> None:
        super().__init__(path, durable=durable, read_only=read_only)
        try:
            if copy_of is not None:  # Engine.copy: the source's pages first, so the schema below is all there
                with copy_of.lock:
                    copy_of.backup_to(self)
            if read_only:
                with self.read():
                    self.check_schema()
            else:
                with self.write():
                    self.create_schema()
        except BaseException:
            self.close()
            raise
        self.finish_opening()
