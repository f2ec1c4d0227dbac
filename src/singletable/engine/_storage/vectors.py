"""Storage's vector index entries: one row per item per vector index, its vector as packed float32.

``st_vector_entries`` holds, for every item a vector index holds, the vector as a little-endian float32
array (4 bytes a dimension: what the index searches, never decoded from the item's JSON), the item's value
of the index's SearchSchema HASH attribute as key bytes (``part``, empty without one), its INLINE_FILTER
values (``filters``, JSON) and the entry's billed size. ``st_vector_versions`` counts, per vector index,
the transactions that changed its entries: a process's in-memory copy of an index (the search matrix) is
current exactly when it was built or patched at the version SQLite holds now, so another process's writes,
a rolled-back transaction or a restart can never leave a search looking at vectors SQLite does not hold.

Every change made inside a write transaction is also recorded in ``vector_changes`` (the write transaction
stamps the versions before COMMIT and hands the changes to ``on_vector_commit`` after it; a ROLLBACK drops
them), which is how the in-memory copies are patched instead of rebuilt.
"""

from __future__ import annotations

import sqlite3
from typing import NamedTuple

from singletable.engine._storage.connection import Connection

VECTOR_SCHEMA = """
CREATE TABLE IF NOT EXISTS st_vector_entries (
    table_id INTEGER NOT NULL,
    index_id INTEGER NOT NULL,
    pk BLOB NOT NULL,
    sk BLOB NOT NULL,
    part BLOB NOT NULL,
    filters BLOB NOT NULL,
    size INTEGER NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (table_id, index_id, pk, sk)
);
CREATE TABLE IF NOT EXISTS st_vector_versions (
    table_id INTEGER NOT NULL,
    index_id INTEGER NOT NULL,
    version INTEGER NOT NULL,
    PRIMARY KEY (table_id, index_id)
) WITHOUT ROWID
"""


class VectorEntry(NamedTuple):
    """What a vector index holds of one item: ``part`` the SearchSchema HASH value's key bytes (b"" without
    one), ``filters`` its INLINE_FILTER values as JSON, ``size`` the entry's billed bytes, ``vector`` the
    packed float32 array."""

    part: bytes
    filters: bytes
    size: int
    vector: bytes


class VectorChange(NamedTuple):
    """One committed change to a vector index: ``entry`` None means the item left the index."""

    table_id: int
    index_id: int
    pk: bytes
    sk: bytes
    entry: VectorEntry | None


class StoredVector(NamedTuple):
    """A row of :meth:`VectorData.vector_rows`: an entry with its item's table key."""

    pk: bytes
    sk: bytes
    part: bytes
    filters: bytes
    vector: bytes


_PUT = (
    "INSERT OR REPLACE INTO st_vector_entries (table_id, index_id, pk, sk, part, filters, size, vector)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
_DELETE = "DELETE FROM st_vector_entries WHERE table_id = ? AND index_id = ? AND pk = ? AND sk = ?"
_GET = (
    "SELECT part, filters, size, vector FROM st_vector_entries"
    " WHERE table_id = ? AND index_id = ? AND pk = ? AND sk = ?"
)
_BUMP = (
    "INSERT INTO st_vector_versions (table_id, index_id, version) VALUES (?, ?, 1)"
    " ON CONFLICT (table_id, index_id) DO UPDATE SET version = version + 1"
)


class VectorData(Connection):
    """Vector index entries and their versions; part of ``Storage``."""

    def vector_entry(self, table_id: int, index_id: int, pk: bytes, sk: bytes) -> VectorEntry | None:
        row = self._cursor.execute(_GET, (table_id, index_id, pk, sk)).fetchone()
        return None if row is None else VectorEntry(*row)

    def put_vector_entry(
        self, table_id: int, index_id: int, pk: bytes, sk: bytes, entry: VectorEntry
    ) -> None:
        """Store (or replace) an item's entry; inside :meth:`write`."""
        part, filters, size, vector = entry
        self._cursor.execute(_PUT, (table_id, index_id, pk, sk, part, filters, size, vector))
        self.vector_changes.append(VectorChange(table_id, index_id, pk, sk, entry))

    def delete_vector_entry(self, table_id: int, index_id: int, pk: bytes, sk: bytes) -> None:
        """Remove an item's entry; inside :meth:`write`."""
        self._cursor.execute(_DELETE, (table_id, index_id, pk, sk))
        self.vector_changes.append(VectorChange(table_id, index_id, pk, sk, None))

    def stamp_vector_versions(self) -> None:
        """Bump the version of every vector index this transaction changed (just before COMMIT)."""
        touched = {(change.table_id, change.index_id) for change in self.vector_changes}
        for table_id, index_id in touched:
            self._cursor.execute(_BUMP, (table_id, index_id))

    def vector_version(self, table_id: int, index_id: int) -> int:
        row = self._conn.execute(
            "SELECT version FROM st_vector_versions WHERE table_id = ? AND index_id = ?", (table_id, index_id)
        ).fetchone()
        return 0 if row is None else int(row[0])

    def vector_rows(self, table_id: int, index_id: int) -> sqlite3.Cursor:
        """Every entry of a vector index (rows shaped as :class:`StoredVector`), for building its matrix."""
        return self._conn.execute(
            "SELECT pk, sk, part, filters, vector FROM st_vector_entries WHERE table_id = ? AND index_id = ?",
            (table_id, index_id),
        )

    def vector_partition_sizes(self, table_id: int, index_id: int) -> dict[bytes, int]:
        """Entries per HASH value of a vector index (so its matrices are allocated once, at their size)."""
        rows = self._conn.execute(
            "SELECT part, COUNT(*) FROM st_vector_entries WHERE table_id = ? AND index_id = ? GROUP BY part",
            (table_id, index_id),
        ).fetchall()
        return {bytes(part): count for part, count in rows}

    def vector_stats(self, table_id: int, index_id: int) -> tuple[int, int]:
        """(entry count, billed bytes) of a vector index."""
        count, size = self._conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM st_vector_entries"
            " WHERE table_id = ? AND index_id = ?",
            (table_id, index_id),
        ).fetchone()
        return count, size

    def drop_vector_index(self, table_id: int, index_id: int) -> None:
        """Delete a vector index's entries (inside :meth:`write`); its version moves on, so no in-memory copy
        of it stays current."""
        self._conn.execute(
            "DELETE FROM st_vector_entries WHERE table_id = ? AND index_id = ?", (table_id, index_id)
        )
        self._conn.execute(_BUMP, (table_id, index_id))

    def drop_vector_entries(self, table_id: int) -> None:
        """Delete every vector entry of a table (DeleteTable); every version of its indexes moves on."""
        self._conn.execute("DELETE FROM st_vector_entries WHERE table_id = ?", (table_id,))
        self._conn.execute(
            "UPDATE st_vector_versions SET version = version + 1 WHERE table_id = ?", (table_id,)
        )
