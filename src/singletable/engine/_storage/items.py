"""Storage's item and index data: items, index entries, the Query and Scan statements, sizes and tokens.

``st_items`` holds every item of every table, ``st_index_entries`` one row per item per secondary index it
appears in, carrying the item as that index projects it (the whole item for ALL, the named attributes for
INCLUDE, the keys for KEYS_ONLY), as DynamoDB's indexes do: a Query on an index reads one contiguous range
of entries and never joins back to the items, which at millions of items are scattered through a file far
larger than any cache (docs/performance.md, "Reads at ten million items"). Only a local index asked for
attributes it does not project fetches the items from the table (``fetch``).

Keys are stored as order-preserving byte strings (see ``codec``), so SQLite's memcmp ordering of BLOBs
*is* DynamoDB's sort order and a Query reads only the rows of the page it returns. A ``hash`` column
(CRC-32 of the partition key) leads each primary key: it spreads partitions the way DynamoDB's scan order
does and lets a parallel Scan's segment be a contiguous range.

Statement texts are constants of this module, chosen by flags, never by data.
"""

from __future__ import annotations

import sqlite3
import zlib
from functools import partial
from typing import Any, NamedTuple

from singletable.engine._storage.connection import Connection

HASH_SPACE = 1 << 32
# Greater than every stored key: keys are at most 2048 bytes and encodings add at most a few bytes.
KEY_MAX = b"\xff" * 4096

# The records item writes hand to storage (see ``WriteRows`` on the write path): named tuples, unpacked by
# storage under their field names. The write path builds them with :func:`new_row`.


class ItemRow(NamedTuple):
    """An item to store: ``st_items``' row."""

    table_id: int
    pk: bytes
    sk: bytes
    data: bytes
    size: int


class ItemKey(NamedTuple):
    """An item to delete."""

    table_id: int
    pk: bytes
    sk: bytes


class EntryRow(NamedTuple):
    """An index entry to store: ``st_index_entries``' row. ``ipk``/``isk`` are the entry's index key,
    ``tpk``/``tsk`` its item's table key, ``data`` the item as the index projects it, ``size`` that size."""

    table_id: int
    index_id: int
    ipk: bytes
    isk: bytes
    tpk: bytes
    tsk: bytes
    size: int
    data: bytes


class EntryKey(NamedTuple):
    """An index entry to delete."""

    table_id: int
    index_id: int
    ipk: bytes
    isk: bytes
    tpk: bytes
    tsk: bytes


class ScannedItem(NamedTuple):
    """A table's item in scan order (:meth:`ItemData.table_chunk`): stored bytes, size, key columns."""

    data: bytes
    size: int
    hash: int
    pk: bytes
    sk: bytes

    @property
    def position(self) -> tuple[int, bytes, bytes]:
        """Where a scan resumes after this item (``after`` of :meth:`ItemData.table_chunk`)."""
        return self.hash, self.pk, self.sk


# Where a whole-table walk starts: before every item.
TABLE_START: tuple[int, bytes, bytes] = (-1, b"", b"")

# ``new_row(EntryRow, (table_id, ...))``: a named tuple built as its own constructor builds it, without
# that constructor's Python frame -- ~1,500 instructions less per row, on every item write.
new_row = tuple.__new__
_scanned_item = partial(new_row, ScannedItem)


# Keys and items are bound as bytearray, not bytes: Python 3.11's sqlite3 binds str, int, float and
# bytearray directly but sends every bytes parameter through its adapter lookup, which fails an attribute
# lookup on a type (raising and clearing an AttributeError) -- ~3,500 instructions per parameter against
# ~1,300 for the copy. Both store the same BLOB.
_blob = bytearray


def partition_hash(pk: bytes) -> int:
    """Stable across processes and Python versions (unlike ``hash()``), and cheap."""
    return zlib.crc32(pk)


# Where a Query or Scan reads its rows: a table's items, an index's entries, or an index's entries joined to
# their items (a local index asked for attributes it does not project).
TABLE, INDEX, INDEX_FETCH = 0, 1, 2
_ENTRY_COLUMNS = {INDEX: "x.item, x.size", INDEX_FETCH: "i.item, x.size"}
_ENTRY_SOURCE = {
    INDEX: "st_index_entries x",
    INDEX_FETCH: "st_index_entries x JOIN st_items i"
    " ON i.table_id = x.table_id AND i.hash = x.thash AND i.pk = x.tpk AND i.sk = x.tsk",
}


def _query_sql(source: int, lo_strict: bool, hi_strict: bool, forward: bool, after: bool) -> str:
    lo = ">" if lo_strict else ">="
    hi = "<" if hi_strict else "<="
    direction = "" if forward else " DESC"
    if source == TABLE:
        sql = (
            "SELECT item, size FROM st_items WHERE table_id = ? AND hash = ? AND pk = ?"
            f" AND sk {lo} ? AND sk {hi} ?"
        )
        if after:
            sql += " AND sk > ?" if forward else " AND sk < ?"
        return sql + f" ORDER BY sk{direction}"
    sql = (
        f"SELECT {_ENTRY_COLUMNS[source]} FROM {_ENTRY_SOURCE[source]}"
        " WHERE x.table_id = ? AND x.index_id = ? AND x.hash = ? AND x.pk = ?"
        f" AND x.sk {lo} ? AND x.sk {hi} ?"
    )
    if after:
        sql += " AND (x.sk, x.tpk, x.tsk) > (?, ?, ?)" if forward else " AND (x.sk, x.tpk, x.tsk) < (?, ?, ?)"
    return sql + f" ORDER BY x.sk{direction}, x.tpk{direction}, x.tsk{direction}"


_QUERY_SQL = {
    flags: _query_sql(*flags)
    for flags in (
        (a, b, c, d, e)
        for a in (TABLE, INDEX, INDEX_FETCH)
        for b in (False, True)
        for c in (False, True)
        for d in (False, True)
        for e in (False, True)
    )
}

_SCAN_TABLE_SQL = (
    "SELECT item, size, hash, pk, sk FROM st_items WHERE table_id = ? AND (hash, pk, sk) > (?, ?, ?)"
    " AND hash < ? ORDER BY hash, pk, sk"
)
_SCAN_INDEX_SQL = {
    source: f"SELECT {_ENTRY_COLUMNS[source]}, x.hash, x.pk, x.sk, x.tpk, x.tsk FROM {_ENTRY_SOURCE[source]}"
    " WHERE x.table_id = ? AND x.index_id = ? AND (x.hash, x.pk, x.sk, x.tpk, x.tsk) > (?, ?, ?, ?, ?)"
    " AND x.hash < ? ORDER BY x.hash, x.pk, x.sk, x.tpk, x.tsk"
    for source in (INDEX, INDEX_FETCH)
}

# Public: bench/floor.py runs the same statements with no engine around them.
GET_ITEM_SQL = "SELECT item, size FROM st_items WHERE table_id = ? AND hash = ? AND pk = ? AND sk = ?"
PUT_ITEM_SQL = (
    "INSERT OR REPLACE INTO st_items (table_id, hash, pk, sk, size, item) VALUES (?, ?, ?, ?, ?, ?)"
)
PUT_ENTRY_SQL = (
    "INSERT OR REPLACE INTO st_index_entries"
    " (table_id, index_id, hash, pk, sk, tpk, tsk, thash, size, item) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_DELETE_ITEM_SQL = "DELETE FROM st_items WHERE table_id = ? AND hash = ? AND pk = ? AND sk = ?"
_DELETE_ENTRY_SQL = (
    "DELETE FROM st_index_entries WHERE table_id = ? AND index_id = ? AND hash = ? AND pk = ?"
    " AND sk = ? AND tpk = ? AND tsk = ?"
)


class ItemData(Connection):
    """Items, index entries and what is read from them; part of ``Storage``."""

    # -- the write path -----------------------------------------------------------------------------------

    def get_item(self, table_id: int, pk: bytes, sk: bytes) -> tuple[bytes, int] | None:
        """An item's ``(stored bytes, size)``, or None. (A plain pair, unpacked by its readers: a named
        tuple built from the fetched row would cost every GetItem ~2%.)"""
        return self._cursor.execute(GET_ITEM_SQL, (table_id, zlib.crc32(pk), _blob(pk), _blob(sk))).fetchone()

    def write_rows(
        self,
        items: list[ItemRow],
        item_deletes: list[ItemKey],
        entries: list[EntryRow],
        entry_deletes: list[EntryKey],
    ) -> None:
        """Store item writes' rows (see ``WriteRows``), one ``executemany`` per statement when a batch has
        several rows for it. Rows must be of distinct items, so their order does not matter. Must run inside
        :meth:`write`."""
        if len(items) == 1 and not item_deletes and not entry_deletes:
            # One item put (most UpdateItems): its entries are that item's; no lists for executemany.
            table_id, pk, sk, data, size = items[0]
            self.put_item_rows(table_id, pk, sk, data, size, entries)
            return
        crc32 = zlib.crc32
        b = _blob
        if item_deletes:
            self._run(
                _DELETE_ITEM_SQL, [(table_id, crc32(pk), b(pk), b(sk)) for table_id, pk, sk in item_deletes]
            )
        if items:
            self._run(
                PUT_ITEM_SQL,
                [
                    (table_id, crc32(pk), b(pk), b(sk), size, b(data))
                    for table_id, pk, sk, data, size in items
                ],
            )
        if entry_deletes:
            self._run(
                _DELETE_ENTRY_SQL,
                [
                    (table_id, index_id, crc32(ipk), b(ipk), b(isk), b(tpk), b(tsk))
                    for table_id, index_id, ipk, isk, tpk, tsk in entry_deletes
                ],
            )
        if entries:
            self._run(
                PUT_ENTRY_SQL,
                [
                    (tid, index_id, crc32(ipk), b(ipk), b(isk), b(tpk), b(tsk), crc32(tpk), size, b(data))
                    for tid, index_id, ipk, isk, tpk, tsk, size, data in entries
                ],
            )

    def put_item_rows(
        self,
        table_id: int,
        pk: bytes,
        sk: bytes,
        data: bytes,
        size: int,
        entries: list[EntryRow],
    ) -> None:
        """Store one item and its index entries now; inside :meth:`write`.

        ``entries`` are that item's index entries (their ``tpk``/``tsk`` are ``pk``/``sk``). One call for the
        item's rows, so each of its keys is bound once (and the item's bytes once, for every entry that holds
        those very bytes: an ALL index's); most PutItems store all their rows here."""
        crc32, b = zlib.crc32, _blob
        execute = self._cursor.execute
        thash, bpk, bsk, bdata = crc32(pk), b(pk), b(sk), b(data)
        execute(PUT_ITEM_SQL, (table_id, thash, bpk, bsk, size, bdata))
        for _table_id, index_id, ipk, isk, _tpk, _tsk, entry_size, projected in entries:
            execute(
                PUT_ENTRY_SQL,
                (
                    table_id,
                    index_id,
                    crc32(ipk),
                    b(ipk),
                    b(isk),
                    bpk,
                    bsk,
                    thash,
                    entry_size,
                    bdata if projected is data else b(projected),
                ),
            )

    def _run(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        if len(rows) == 1:
            self._cursor.execute(sql, rows[0])
        else:
            self._cursor.executemany(sql, rows)

    def client_token(self, token: str, since: float) -> bytes | None:
        """The request digest a TransactWriteItems ClientRequestToken was used with, if since ``since``."""
        row = self._conn.execute(
            "SELECT digest FROM st_client_tokens WHERE token = ? AND created > ?", (token, since)
        ).fetchone()
        return None if row is None else row[0]

    def remember_client_token(self, token: str, digest: bytes, now: float, expire_before: float) -> None:
        """Record a committed transaction's token (inside its write) and forget expired ones."""
        self._conn.execute("DELETE FROM st_client_tokens WHERE created <= ?", (expire_before,))
        self._conn.execute(
            "INSERT OR REPLACE INTO st_client_tokens (token, digest, created) VALUES (?, ?, ?)",
            (token, digest, now),
        )

    # -- reads --------------------------------------------------------------------------------------------

    def query(
        self,
        table_id: int,
        index_id: int | None,
        pk: bytes,
        lo: bytes,
        lo_strict: bool,
        hi: bytes,
        hi_strict: bool,
        forward: bool,
        after: tuple[bytes, ...] | None,
        *,
        fetch: bool = False,
    ) -> sqlite3.Cursor:
        """Rows of one partition between two sort-key bounds, in order, resuming after ``after``.

        Rows are ``(item, size)``: for an index, item is the projected item the entry holds -- or, with
        ``fetch``, the whole item from the table -- and size is the projected item's size. Nothing else is
        selected: Python 3.11's sqlite3 releases and retakes the GIL for every column of every row it
        fetches (and names every column in the cursor's description), so a page's unused keys cost ~1,000
        instructions a row. ``after`` is ``(sk,)`` for a table and ``(sk, tpk, tsk)`` for an index.
        """
        source = TABLE if index_id is None else INDEX_FETCH if fetch else INDEX
        sql = _QUERY_SQL[(source, lo_strict, hi_strict, forward, after is not None)]
        params: tuple[Any, ...]
        if source != TABLE:
            params = (table_id, index_id, zlib.crc32(pk), _blob(pk), _blob(lo), _blob(hi))
        else:
            params = (table_id, zlib.crc32(pk), _blob(pk), _blob(lo), _blob(hi))
        if after is not None:
            params += tuple(_blob(key) for key in after)
        return self._conn.execute(sql, params)

    def scan(
        self,
        table_id: int,
        index_id: int | None,
        after: tuple[Any, ...],
        hash_end: int,
        *,
        fetch: bool = False,
    ) -> sqlite3.Cursor:
        """Rows in scan order after ``after`` and below ``hash_end``.

        Table rows are ``(item, size, hash, pk, sk)`` with ``after = (hash, pk, sk)``; index rows
        ``(item, size, hash, pk, sk, tpk, tsk)`` with ``after = (hash, pk, sk, tpk, tsk)``, the item as the
        entry holds it or, with ``fetch``, from the table (see :meth:`query`).
        """
        if index_id is None:
            return self._conn.execute(_SCAN_TABLE_SQL, (table_id, *after, hash_end))
        sql = _SCAN_INDEX_SQL[INDEX_FETCH if fetch else INDEX]
        return self._conn.execute(sql, (table_id, index_id, *after, hash_end))

    def table_chunk(self, table_id: int, after: tuple[int, bytes, bytes], limit: int) -> list[ScannedItem]:
        """Up to ``limit`` of a table's items in scan order after ``after`` (:data:`TABLE_START`, or the last
        chunk's last ``position``): how the background workers (TTL sweep, index backfill) walk a table a
        transaction at a time. Fewer than ``limit`` means the walk is done."""
        rows = self.scan(table_id, None, after, HASH_SPACE).fetchmany(limit)
        return [_scanned_item(row) for row in rows]

    # -- sizes --------------------------------------------------------------------------------------------

    def table_stats(self, table_id: int) -> tuple[int, int]:
        """(item count, bytes) of a table."""
        count, size = self._conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM st_items WHERE table_id = ?", (table_id,)
        ).fetchone()
        return count, size

    def index_stats(self, table_id: int, index_id: int) -> tuple[int, int]:
        """(entry count, bytes) of a secondary index."""
        count, size = self._conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM st_index_entries"
            " WHERE table_id = ? AND index_id = ?",
            (table_id, index_id),
        ).fetchone()
        return count, size

    def collection_size(self, table_id: int, pk: bytes, lsi_ids: tuple[int, ...]) -> int:
        """Bytes in one item collection: the partition's items plus their local index entries."""
        size = self._conn.execute(
            "SELECT COALESCE(SUM(size), 0) FROM st_items WHERE table_id = ? AND hash = ? AND pk = ?",
            (table_id, zlib.crc32(pk), pk),
        ).fetchone()[0]
        for index_id in lsi_ids:
            size += self._conn.execute(
                "SELECT COALESCE(SUM(size), 0) FROM st_index_entries"
                " WHERE table_id = ? AND index_id = ? AND hash = ? AND pk = ?",
                (table_id, index_id, zlib.crc32(pk), pk),
            ).fetchone()[0]
        return size
