"""How tables, items and index entries persist: one SQLite database, WAL-journaled.

Three SQL tables hold everything, whatever the DynamoDB tables are called, so no SQL is ever built from a
user's table or attribute name: ``st_tables`` (the catalog), ``st_items`` (every item of every table) and
``st_index_entries`` (one row per item per secondary index it appears in). Keys are stored as
order-preserving byte strings (see ``codec``), so SQLite's memcmp ordering of BLOBs *is* DynamoDB's sort order
and a Query reads only the rows of the page it returns. A ``hash`` column (CRC-32 of the partition key) leads
each primary key: it spreads partitions the way DynamoDB's scan order does and lets a parallel Scan's
segment be a contiguous range.

Operations never write SQL: everything goes through this module's methods. Statement texts are constants of
this module, chosen by flags, never by data.
"""

from __future__ import annotations

import sqlite3
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import orjson

from singletable.engine.checkpoint import Checkpointer

SCHEMA = """
CREATE TABLE IF NOT EXISTS st_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS st_tables (
    table_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    description BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS st_items (
    table_id INTEGER NOT NULL,
    hash INTEGER NOT NULL,
    pk BLOB NOT NULL,
    sk BLOB NOT NULL,
    size INTEGER NOT NULL,
    item BLOB NOT NULL,
    PRIMARY KEY (table_id, hash, pk, sk)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS st_index_entries (
    table_id INTEGER NOT NULL,
    index_id INTEGER NOT NULL,
    hash INTEGER NOT NULL,
    pk BLOB NOT NULL,
    sk BLOB NOT NULL,
    tpk BLOB NOT NULL,
    tsk BLOB NOT NULL,
    thash INTEGER NOT NULL,
    size INTEGER NOT NULL,
    PRIMARY KEY (table_id, index_id, hash, pk, sk, tpk, tsk)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS st_streams (
    stream_id INTEGER PRIMARY KEY AUTOINCREMENT,
    table_name TEXT NOT NULL,
    description BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS st_stream_records (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    stream_id INTEGER NOT NULL,
    created REAL NOT NULL,
    record BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS st_stream_records_by_stream ON st_stream_records (stream_id, seq);
CREATE TABLE IF NOT EXISTS st_client_tokens (
    token TEXT PRIMARY KEY,
    digest BLOB NOT NULL,
    created REAL NOT NULL
) WITHOUT ROWID;
"""

SCHEMA_VERSION = "1"
HASH_SPACE = 1 << 32
# Greater than every stored key: keys are at most 2048 bytes and encodings add at most a few bytes.
KEY_MAX = b"\xff" * 4096


def partition_hash(pk: bytes) -> int:
    """Stable across processes and Python versions (unlike ``hash()``), and cheap."""
    return zlib.crc32(pk)


def _query_sql(on_index: bool, lo_strict: bool, hi_strict: bool, forward: bool, after: bool) -> str:
    lo = ">" if lo_strict else ">="
    hi = "<" if hi_strict else "<="
    direction = "" if forward else " DESC"
    if not on_index:
        sql = (
            "SELECT item, size, sk FROM st_items WHERE table_id = ? AND hash = ? AND pk = ?"
            f" AND sk {lo} ? AND sk {hi} ?"
        )
        if after:
            sql += " AND sk > ?" if forward else " AND sk < ?"
        return sql + f" ORDER BY sk{direction}"
    sql = (
        "SELECT i.item, x.size, x.sk, x.tpk, x.tsk FROM st_index_entries x JOIN st_items i"
        " ON i.table_id = x.table_id AND i.hash = x.thash AND i.pk = x.tpk AND i.sk = x.tsk"
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
        for a in (False, True)
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
_SCAN_INDEX_SQL = (
    "SELECT i.item, x.size, x.hash, x.pk, x.sk, x.tpk, x.tsk FROM st_index_entries x JOIN st_items i"
    " ON i.table_id = x.table_id AND i.hash = x.thash AND i.pk = x.tpk AND i.sk = x.tsk"
    " WHERE x.table_id = ? AND x.index_id = ? AND (x.hash, x.pk, x.sk, x.tpk, x.tsk) > (?, ?, ?, ?, ?)"
    " AND x.hash < ? ORDER BY x.hash, x.pk, x.sk, x.tpk, x.tsk"
)


_PUT_ITEM_SQL = (
    "INSERT OR REPLACE INTO st_items (table_id, hash, pk, sk, size, item) VALUES (?, ?, ?, ?, ?, ?)"
)
_DELETE_ITEM_SQL = "DELETE FROM st_items WHERE table_id = ? AND hash = ? AND pk = ? AND sk = ?"
_PUT_ENTRY_SQL = (
    "INSERT OR REPLACE INTO st_index_entries"
    " (table_id, index_id, hash, pk, sk, tpk, tsk, thash, size) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_DELETE_ENTRY_SQL = (
    "DELETE FROM st_index_entries WHERE table_id = ? AND index_id = ? AND hash = ? AND pk = ?"
    " AND sk = ? AND tpk = ? AND tsk = ?"
)


# How long a write waits for another connection's write lock before giving up (seconds).
BUSY_TIMEOUT = 30.0
# The first retry after a busy write lock, doubled up to the cap: a PutItem holds the lock ~50 µs.
_FIRST_RETRY = 20e-6
_MAX_RETRY = 0.002
_BUSY_CODES = frozenset((5, 6))  # SQLITE_BUSY, SQLITE_LOCKED
_T = TypeVar("_T")


class BusyTimeout(sqlite3.OperationalError):
    """Another connection held the write lock for the whole of ``Storage.busy_timeout``."""


def is_busy(error: sqlite3.OperationalError) -> bool:
    """SQLITE_BUSY or SQLITE_LOCKED: another connection holds a lock we need; nothing was done."""
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in _BUSY_CODES
    text = str(error)
    return "locked" in text or "busy" in text


def retry_while_busy(
    attempt: Callable[[], _T], retryable: Callable[[sqlite3.OperationalError], bool], timeout: float
) -> _T:
    """Run ``attempt`` again after a pause -- 20 µs at first, doubling up to 2 ms -- for as long as it
    fails with an error ``retryable`` accepts, up to ``timeout`` seconds; then raise :class:`BusyTimeout`.

    Callers make their first attempt themselves, so the usual, uncontended path pays nothing for this.
    """
    deadline = time.monotonic() + timeout
    delay = _FIRST_RETRY
    while time.monotonic() < deadline:
        time.sleep(delay)
        try:
            return attempt()
        except sqlite3.OperationalError as error:
            if not retryable(error):
                raise
        delay = min(delay * 2, _MAX_RETRY)
    raise BusyTimeout("database is locked")


class _WriteTransaction:
    """``Storage.write()``: take the lock, BEGIN IMMEDIATE, run ``on_begin``; COMMIT or ROLLBACK on exit."""

    __slots__ = ("storage",)

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    def __enter__(self) -> sqlite3.Connection:
        storage = self.storage
        storage.lock.acquire()
        if storage.restart_wal:
            storage.checkpoint_backlog()
        try:
            storage.begin_immediate()
        except BaseException:
            storage.lock.release()
            raise
        on_begin = storage.on_begin
        if on_begin is not None:
            try:
                on_begin()
            except BaseException:
                self.__exit__(RuntimeError, None, None)
                raise
        return storage.conn

    def __exit__(self, exc_type: type[BaseException] | None, exc: object, traceback: object) -> None:
        storage = self.storage
        try:
            if exc_type is None:
                storage.cursor.execute("COMMIT")
                storage.commits += 1
            else:
                storage.cursor.execute("ROLLBACK")
        finally:
            storage.lock.release()


class Storage:
    """One SQLite connection shared by the engine's threads under a lock.

    ``synchronous=NORMAL`` in WAL mode keeps every committed transaction across a killed process (the WAL
    is written before COMMIT returns); ``durable=True`` selects FULL, which also survives power loss at the
    cost of an fsync per write.

    Waiting for a lock held by another process is ours, not SQLite's: SQLite's busy handler sleeps 1 ms,
    then 2, 5, 10 ms... which, with several server workers sharing a file, made every collision between two
    ~50 µs writes cost a millisecond or more. The connection's ``busy_timeout`` is 0 once the database is
    open; a write retries ``BEGIN IMMEDIATE`` from 20 µs on (see :func:`retry_while_busy`) for
    ``busy_timeout`` seconds, then raises :class:`BusyTimeout`; a read that finds the database busy (only
    while another process recovers the WAL index) is retried by ``Engine.execute``.
    """

    def __init__(self, path: str, *, durable: bool = False) -> None:
        self.path = path
        self.lock = threading.RLock()
        self.conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30.0)
        # SQLite's own busy handler only while opening, when another process may be recovering the WAL.
        self.conn.execute("PRAGMA busy_timeout = 30000")
        self.busy_timeout = BUSY_TIMEOUT
        # Committed write transactions: lets Engine.execute tell whether retrying a busy request is safe.
        self.commits = 0
        # One cursor for the write path's statements: conn.execute() would build a cursor per statement.
        # Only statements whose rows are consumed at once run on it (a primary-key lookup steps to its end,
        # which resets the statement, so it never keeps a read transaction open).
        self.cursor = self.conn.cursor()
        # Called inside every write transaction right after BEGIN IMMEDIATE, when set: the engine checks
        # there, for free, whether another process changed the catalog (see Engine.execute).
        self.on_begin: Callable[[], None] | None = None
        # Set by the checkpointer when the WAL has grown: the next write checkpoints first (see write()).
        self.restart_wal = False
        self._checkpointer: Checkpointer | None = None
        if path != ":memory:":
            self.conn.execute("PRAGMA journal_mode = WAL")
            # Commits only append to the WAL; copying it back into the database (and the fsync that goes
            # with it) happens on a background thread, off every request's path.
            self.conn.execute("PRAGMA wal_autocheckpoint = 0")
            self._checkpointer = Checkpointer(path, self._want_wal_restart)
        self.conn.execute(f"PRAGMA synchronous = {'FULL' if durable else 'NORMAL'}")
        with self.write():
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    self.conn.execute(statement)
            self.conn.execute(
                "INSERT OR IGNORE INTO st_meta (key, value) VALUES ('schema_version', ?)", (SCHEMA_VERSION,)
            )
            self.conn.execute("INSERT OR IGNORE INTO st_meta (key, value) VALUES ('catalog_version', '0')")
        self.conn.execute("PRAGMA busy_timeout = 0")

    def close(self) -> None:
        with self.lock:
            if self._checkpointer is not None:
                self._checkpointer.stop()
            self.conn.close()

    def _want_wal_restart(self) -> None:
        self.restart_wal = True

    def checkpoint_backlog(self) -> None:
        """Checkpoint what the background rounds left (only frames written since the last one), under the
        lock, so the write about to begin finds the WAL fully checkpointed and starts it over. It costs that
        write ~0.5 ms after single-item writes, 2-8 ms in a bulk load: once per checkpointer round, and only
        while writes are sustained enough to keep the WAL over the checkpointer's threshold."""
        self.restart_wal = False
        try:
            self.cursor.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except sqlite3.Error:
            pass  # another checkpoint is running: the checkpointer will ask again

    # -- transactions -------------------------------------------------------------------------------------

    def begin_immediate(self) -> None:
        """Take the write lock, waiting out other connections' writes for up to ``busy_timeout``."""
        try:
            self.cursor.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as error:
            if not is_busy(error):
                raise
            retry_while_busy(lambda: self.cursor.execute("BEGIN IMMEDIATE"), is_busy, self.busy_timeout)

    def write(self) -> _WriteTransaction:
        """One atomic write: everything inside commits together or not at all.

        ``with storage.write() as conn:``. A class rather than a generator context manager: it runs for
        every write request, and the generator machinery cost more than the BEGIN it wraps.
        """
        return _WriteTransaction(self)

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A consistent snapshot across several statements."""
        with self.lock:
            conn = self.conn
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                conn.execute("COMMIT")

    def data_version(self) -> int:
        """Changes whenever another connection commits: our cue to re-read the catalog.

        Outside a transaction this opens a read transaction (WAL lock calls); inside one it is free.
        """
        return self.cursor.execute("PRAGMA data_version").fetchone()[0]

    # -- catalog ------------------------------------------------------------------------------------------

    def catalog_version(self) -> int:
        return int(self.conn.execute("SELECT value FROM st_meta WHERE key = 'catalog_version'").fetchone()[0])

    def _bump_catalog(self) -> None:
        self.conn.execute(
            "UPDATE st_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'catalog_version'"
        )

    def load_tables(self) -> dict[str, tuple[int, dict[str, Any]]]:
        rows = self.conn.execute("SELECT table_id, name, description FROM st_tables").fetchall()
        return {name: (table_id, orjson.loads(description)) for table_id, name, description in rows}

    def insert_table(self, name: str, description: dict[str, Any]) -> int:
        """Must run inside :meth:`write`."""
        cursor = self.conn.execute(
            "INSERT INTO st_tables (name, description) VALUES (?, ?)", (name, orjson.dumps(description))
        )
        self._bump_catalog()
        return int(cursor.lastrowid)

    def update_table(self, table_id: int, description: dict[str, Any]) -> None:
        self.conn.execute(
            "UPDATE st_tables SET description = ? WHERE table_id = ?", (orjson.dumps(description), table_id)
        )
        self._bump_catalog()

    def drop_table(self, table_id: int) -> None:
        self.conn.execute("DELETE FROM st_index_entries WHERE table_id = ?", (table_id,))
        self.conn.execute("DELETE FROM st_items WHERE table_id = ?", (table_id,))
        self.conn.execute("DELETE FROM st_tables WHERE table_id = ?", (table_id,))
        self._bump_catalog()

    def drop_index(self, table_id: int, index_id: int) -> None:
        self.conn.execute(
            "DELETE FROM st_index_entries WHERE table_id = ? AND index_id = ?", (table_id, index_id)
        )

    def table_stats(self, table_id: int) -> tuple[int, int]:
        count, size = self.conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM st_items WHERE table_id = ?", (table_id,)
        ).fetchone()
        return count, size

    def index_stats(self, table_id: int, index_id: int) -> tuple[int, int]:
        count, size = self.conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM st_index_entries"
            " WHERE table_id = ? AND index_id = ?",
            (table_id, index_id),
        ).fetchone()
        return count, size

    # -- items --------------------------------------------------------------------------------------------

    def get_item(self, table_id: int, pk: bytes, sk: bytes) -> tuple[bytes, int] | None:
        return self.cursor.execute(
            "SELECT item, size FROM st_items WHERE table_id = ? AND hash = ? AND pk = ? AND sk = ?",
            (table_id, zlib.crc32(pk), pk, sk),
        ).fetchone()

    def put_item(self, table_id: int, pk: bytes, sk: bytes, data: bytes, size: int) -> None:
        self.cursor.execute(_PUT_ITEM_SQL, (table_id, zlib.crc32(pk), pk, sk, size, data))

    def delete_item(self, table_id: int, pk: bytes, sk: bytes) -> None:
        self.cursor.execute(_DELETE_ITEM_SQL, (table_id, zlib.crc32(pk), pk, sk))

    def put_index_entry(
        self, table_id: int, index_id: int, ipk: bytes, isk: bytes, tpk: bytes, tsk: bytes, size: int
    ) -> None:
        self.cursor.execute(
            _PUT_ENTRY_SQL, (table_id, index_id, zlib.crc32(ipk), ipk, isk, tpk, tsk, zlib.crc32(tpk), size)
        )

    def delete_index_entry(
        self, table_id: int, index_id: int, ipk: bytes, isk: bytes, tpk: bytes, tsk: bytes
    ) -> None:
        self.cursor.execute(_DELETE_ENTRY_SQL, (table_id, index_id, zlib.crc32(ipk), ipk, isk, tpk, tsk))

    def write_rows(
        self,
        items: list[tuple[int, bytes, bytes, bytes, int]],
        item_deletes: list[tuple[int, bytes, bytes]],
        entries: list[tuple[int, int, bytes, bytes, bytes, bytes, int]],
        entry_deletes: list[tuple[int, int, bytes, bytes, bytes, bytes]],
    ) -> None:
        """Store item writes' rows (see ``common.WriteRows``), one ``executemany`` per statement when a
        batch has several rows for it. Rows must be of distinct items, so their order does not matter."""
        crc32 = zlib.crc32
        if item_deletes:
            self._run(_DELETE_ITEM_SQL, [(table_id, crc32(pk), pk, sk) for table_id, pk, sk in item_deletes])
        if items:
            self._run(
                _PUT_ITEM_SQL,
                [(table_id, crc32(pk), pk, sk, size, data) for table_id, pk, sk, data, size in items],
            )
        if entry_deletes:
            self._run(
                _DELETE_ENTRY_SQL,
                [
                    (table_id, index_id, crc32(ipk), ipk, isk, tpk, tsk)
                    for table_id, index_id, ipk, isk, tpk, tsk in entry_deletes
                ],
            )
        if entries:
            self._run(
                _PUT_ENTRY_SQL,
                [
                    (table_id, index_id, crc32(ipk), ipk, isk, tpk, tsk, crc32(tpk), size)
                    for table_id, index_id, ipk, isk, tpk, tsk, size in entries
                ],
            )

    def _run(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        if len(rows) == 1:
            self.cursor.execute(sql, rows[0])
        else:
            self.cursor.executemany(sql, rows)

    def client_token(self, token: str, since: float) -> bytes | None:
        """The request digest a TransactWriteItems ClientRequestToken was used with, if since ``since``."""
        row = self.conn.execute(
            "SELECT digest FROM st_client_tokens WHERE token = ? AND created > ?", (token, since)
        ).fetchone()
        return None if row is None else row[0]

    def remember_client_token(self, token: str, digest: bytes, now: float, expire_before: float) -> None:
        """Record a committed transaction's token (inside its write) and forget expired ones."""
        self.conn.execute("DELETE FROM st_client_tokens WHERE created <= ?", (expire_before,))
        self.conn.execute(
            "INSERT OR REPLACE INTO st_client_tokens (token, digest, created) VALUES (?, ?, ?)",
            (token, digest, now),
        )

    def index_entries_of_table(self, table_id: int) -> Iterator[tuple[bytes, int]]:
        """Every item of a table (for backfilling a new index)."""
        return self.conn.execute("SELECT item, size FROM st_items WHERE table_id = ?", (table_id,))

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
    ) -> sqlite3.Cursor:
        """Rows of one partition between two sort-key bounds, in order, resuming after ``after``.

        Table rows are ``(item, size, sk)``; index rows ``(item, size, sk, tpk, tsk)`` where size is the
        projected item's size. ``after`` is ``(sk,)`` for a table and ``(sk, tpk, tsk)`` for an index.
        """
        on_index = index_id is not None
        sql = _QUERY_SQL[(on_index, lo_strict, hi_strict, forward, after is not None)]
        params: tuple[Any, ...]
        if on_index:
            params = (table_id, index_id, zlib.crc32(pk), pk, lo, hi)
        else:
            params = (table_id, zlib.crc32(pk), pk, lo, hi)
        if after is not None:
            params += after
        return self.conn.execute(sql, params)

    def scan(
        self,
        table_id: int,
        index_id: int | None,
        after: tuple[Any, ...],
        hash_end: int,
    ) -> sqlite3.Cursor:
        """Rows in scan order after ``after`` and below ``hash_end``.

        Table rows are ``(item, size, hash, pk, sk)`` with ``after = (hash, pk, sk)``; index rows
        ``(item, size, hash, pk, sk, tpk, tsk)`` with ``after = (hash, pk, sk, tpk, tsk)``.
        """
        if index_id is None:
            return self.conn.execute(_SCAN_TABLE_SQL, (table_id, *after, hash_end))
        return self.conn.execute(_SCAN_INDEX_SQL, (table_id, index_id, *after, hash_end))

    def collection_size(self, table_id: int, pk: bytes, lsi_ids: tuple[int, ...]) -> int:
        """Bytes in one item collection: the partition's items plus their local index entries."""
        size = self.conn.execute(
            "SELECT COALESCE(SUM(size), 0) FROM st_items WHERE table_id = ? AND hash = ? AND pk = ?",
            (table_id, zlib.crc32(pk), pk),
        ).fetchone()[0]
        for index_id in lsi_ids:
            size += self.conn.execute(
                "SELECT COALESCE(SUM(size), 0) FROM st_index_entries"
                " WHERE table_id = ? AND index_id = ? AND hash = ? AND pk = ?",
                (table_id, index_id, zlib.crc32(pk), pk),
            ).fetchone()[0]
        return size
