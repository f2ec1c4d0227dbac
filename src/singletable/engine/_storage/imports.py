"""Storage's side of an import into a table it creates: stage the rows, then build the table in sorted passes.

An import into a new table (see ``engine/_import_state.py``) does not write its items and index entries one
by one into the B-trees of ``st_items`` and ``st_index_entries``: every item lands at a random place there
(keys lead with a hash), so each insert walks a cold path and dirties a page that the WAL then takes again
at every commit. Instead the rows are *staged*: appended, in input order, to two TEMP tables of this
connection (``import_items``, ``import_entries``), which live in SQLite's temporary file, outside the
database and its WAL. Once the source has been read, :meth:`ImportData.build_import` fills the table in one
write transaction: the items in one pass sorted by their key (SQLite's own external sort, bounded memory),
then each index in one pass sorted by its key, each B-tree written in key order (appends, full pages), and
then checks that every B-tree holds what was staged.

Two staged items with the same key: the later one wins (the order of the source, as a sequence of PutItems
would leave it), and the earlier one's index entries are dropped before the index passes.

Statement texts are constants; the rows bound are the engine's encodings (see ``items``).
"""

from __future__ import annotations

from typing import NamedTuple

from singletable.engine._storage.connection import Connection

# While an import builds a table: SQLite's sorter may use a helper thread (the import's reader is done by
# then, so the second core is free), and a larger page cache keeps more of each sorted run in memory. Both
# are bounded, and reset when the import ends.
_BUILD_SETTINGS = ("PRAGMA threads = 2", "PRAGMA cache_size = -65536")
_USUAL_SETTINGS = ("PRAGMA threads = 0", "PRAGMA cache_size = -2000")
_STAGE = (
    "DROP TABLE IF EXISTS temp.import_items",
    "DROP TABLE IF EXISTS temp.import_entries",
    "CREATE TEMP TABLE import_items (seq INTEGER PRIMARY KEY, hash INTEGER, pk BLOB, sk BLOB, size INTEGER,"
    " item BLOB)",
    "CREATE TEMP TABLE import_entries (seq INTEGER, index_id INTEGER, hash INTEGER, pk BLOB, sk BLOB,"
    " size INTEGER, item BLOB)",
)
_STAGE_ITEM = "INSERT INTO temp.import_items VALUES (?, ?, ?, ?, ?, ?)"
_STAGE_ENTRY = "INSERT INTO temp.import_entries VALUES (?, ?, ?, ?, ?, ?, ?)"
# The later of two items with one key replaces the earlier (INSERT OR REPLACE, in key then input order).
_ITEMS_PASS = (
    "INSERT OR REPLACE INTO st_items (table_id, hash, pk, sk, size, item)"
    " SELECT ?, hash, pk, sk, size, item FROM temp.import_items ORDER BY hash, pk, sk, seq"
)
_DROP_REPLACED = (
    "DELETE FROM temp.import_items WHERE seq NOT IN"
    " (SELECT max(seq) FROM temp.import_items GROUP BY hash, pk, sk)"
)
_DROP_REPLACED_ENTRIES = (
    "DELETE FROM temp.import_entries WHERE seq NOT IN (SELECT seq FROM temp.import_items)"
)
# An entry whose item is NULL holds its item's own bytes (an ALL index).
_INDEX_PASS = (
    "INSERT INTO st_index_entries (table_id, index_id, hash, pk, sk, tpk, tsk, thash, size, item)"
    " SELECT ?, e.index_id, e.hash, e.pk, e.sk, i.pk, i.sk, i.hash, e.size, coalesce(e.item, i.item)"
    " FROM temp.import_entries e JOIN temp.import_items i ON i.seq = e.seq WHERE e.index_id = ?"
    " ORDER BY e.hash, e.pk, e.sk, i.pk, i.sk"
)
_STAGED_ITEMS = (
    "SELECT count(*), coalesce(sum(hash), 0), coalesce(sum(size), 0), coalesce(sum(length(item)), 0)"
    " FROM temp.import_items"
)
_STORED_ITEMS = (
    "SELECT count(*), coalesce(sum(hash), 0), coalesce(sum(size), 0), coalesce(sum(length(item)), 0)"
    " FROM st_items WHERE table_id = ?"
)
_STAGED_ENTRIES = (
    "SELECT count(*), coalesce(sum(i.hash), 0), coalesce(sum(e.size), 0),"
    " coalesce(sum(length(coalesce(e.item, i.item))), 0)"
    " FROM temp.import_entries e JOIN temp.import_items i ON i.seq = e.seq WHERE e.index_id = ?"
)
_STORED_ENTRIES = (
    "SELECT count(*), coalesce(sum(thash), 0), coalesce(sum(size), 0), coalesce(sum(length(item)), 0)"
    " FROM st_index_entries"
    " WHERE table_id = ? AND index_id = ?"
)


class StagedItem(NamedTuple):
    """An item of an import, as staged: ``seq`` its place in the source (a later one with the same key
    replaces it), the key columns and the stored item as ``st_items`` holds them."""

    seq: int
    hash: int
    pk: bytearray
    sk: bytearray
    size: int
    item: bytearray


class StagedEntry(NamedTuple):
    """An index entry of a staged item (``seq``): the index's key columns, the projected item's size and
    bytes (None: the item's own bytes, for an ALL index)."""

    seq: int
    index_id: int
    hash: int
    pk: bytearray
    sk: bytearray
    size: int
    item: bytearray | None


class Tally(NamedTuple):
    """What a B-tree holds, to compare with what was staged: rows, and sums of their table-key hashes,
    sizes and stored bytes."""

    rows: int
    hashes: int
    sizes: int
    bytes: int


class BuildCheck(NamedTuple):
    """One B-tree after the build: ``index_id`` (None: the table's items), what was staged for it and what
    it holds."""

    index_id: int | None
    staged: Tally
    stored: Tally


class ImportData(Connection):
    """Staging and building a table an import creates; part of ``Storage``."""

    def start_import_stage(self) -> None:
        """Empty staging tables on this connection (a new import)."""
        with self.lock:
            for statement in _STAGE + _BUILD_SETTINGS:
                self._conn.execute(statement)

    def stage_import_rows(self, items: list[StagedItem], entries: list[StagedEntry]) -> None:
        """Append a batch of staged rows (to TEMP tables: the database does not change; no write lock)."""
        with self.lock:
            conn = self._conn
            try:  # BEGIN inside: a Ctrl-C raised as BEGIN returns still rolls back
                conn.execute("BEGIN")
                conn.executemany(_STAGE_ITEM, items)
                conn.executemany(_STAGE_ENTRY, entries)
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def roll_back_stopped(self) -> None:
        """Roll back a transaction left open on this connection by an import that stopped: a Ctrl-C can
        raise KeyboardInterrupt between a BEGIN and the ``try`` that would roll it back, and dropping the
        table must then still work."""
        with self.lock:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")

    def build_import(self, table_id: int, index_ids: list[int]) -> tuple[int, list[BuildCheck]]:
        """Fill the table from the staged rows; inside :meth:`write`. Returns how many staged items another
        staged item with the same key replaced, and each B-tree's tally against what was staged for it."""
        execute = self._conn.execute
        execute(_ITEMS_PASS, (table_id,))
        staged_rows = execute("SELECT count(*) FROM temp.import_items").fetchone()[0]
        stored = Tally(*execute(_STORED_ITEMS, (table_id,)).fetchone())
        replaced = staged_rows - stored.rows
        if replaced:
            execute(_DROP_REPLACED)
            execute(_DROP_REPLACED_ENTRIES)
        checks = [BuildCheck(None, Tally(*execute(_STAGED_ITEMS).fetchone()), stored)]
        for index_id in index_ids:
            execute(_INDEX_PASS, (table_id, index_id))
            staged = Tally(*execute(_STAGED_ENTRIES, (index_id,)).fetchone())
            built = Tally(*execute(_STORED_ENTRIES, (table_id, index_id)).fetchone())
            checks.append(BuildCheck(index_id, staged, built))
        return replaced, checks

    def end_import_stage(self) -> None:
        """Drop the staging tables (their temporary file goes with them)."""
        with self.lock:
            for statement in _STAGE[:2] + _USUAL_SETTINGS:
                self._conn.execute(statement)
