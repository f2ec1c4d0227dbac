"""Opening a database file written by an older singletable: upgrade its SQL schema in place, once.

``st_meta``'s ``schema_version`` says which layout a file has. Opening a file with an older layout upgrades
it inside the opening write transaction (so another process opening the same file at the same moment waits,
then finds it upgraded); a newer layout than this singletable knows is refused with
:class:`UnsupportedSchemaVersion`, never read wrongly. A read-only open never upgrades: it reads a file of the
current layout, and refuses an older one with :class:`UpgradeNeeded` and a file singletable did not write
with :class:`NotASingletableDatabase`.

Versions:

1. The first layout: index entries held only keys, and every read of an index joined each entry back to
   its item.
2. Index entries carry the item as their index projects it (``st_index_entries.item``, NOT NULL, so an
   older singletable writing to an upgraded file fails loudly instead of leaving entries without items).
   Upgrading rebuilds ``st_index_entries``: ALL entries copy their item's bytes in SQL, KEYS_ONLY and
   INCLUDE entries are projected item by item. Entries of indexes the catalog no longer knows are dropped.
"""

from __future__ import annotations

import sqlite3

import orjson

from singletable.engine import _attribute_values as codec
from singletable.engine._schema import IndexSchema, TableSchema

VERSION = 2

INDEX_ENTRIES_TABLE = """CREATE TABLE IF NOT EXISTS st_index_entries (
    table_id INTEGER NOT NULL,
    index_id INTEGER NOT NULL,
    hash INTEGER NOT NULL,
    pk BLOB NOT NULL,
    sk BLOB NOT NULL,
    tpk BLOB NOT NULL,
    tsk BLOB NOT NULL,
    thash INTEGER NOT NULL,
    size INTEGER NOT NULL,
    item BLOB NOT NULL,
    PRIMARY KEY (table_id, index_id, hash, pk, sk, tpk, tsk)
) WITHOUT ROWID"""

_ENTRY_KEYS = "x.table_id, x.index_id, x.hash, x.pk, x.sk, x.tpk, x.tsk, x.thash, x.size"
_OLD_ENTRIES_JOINED = (
    "FROM st_index_entries_v1 x JOIN st_items i"
    " ON i.table_id = x.table_id AND i.hash = x.thash AND i.pk = x.tpk AND i.sk = x.tsk"
    " WHERE x.table_id = ? AND x.index_id = ?"
)
_COPY_WHOLE_ITEMS = f"INSERT INTO st_index_entries SELECT {_ENTRY_KEYS}, i.item {_OLD_ENTRIES_JOINED}"
_READ_FOR_PROJECTION = f"SELECT {_ENTRY_KEYS}, i.item {_OLD_ENTRIES_JOINED}"
_INSERT_ENTRY = "INSERT INTO st_index_entries VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
_BATCH = 10_000


class UnsupportedSchemaVersion(sqlite3.DatabaseError):
    """The database file was written by a newer singletable, with a layout this one cannot read.

    A ``sqlite3.DatabaseError``, like a file that is not a database at all, so whatever reports a file that
    cannot be opened (``serve``'s start-up checks, the data commands) reports this one the same way."""

    def __init__(self, path: str, version: int) -> None:
        super().__init__(
            f"this database has storage schema version {version}, written by a newer singletable; "
            f"this singletable reads versions up to {VERSION}. Upgrade singletable to open it."
        )
        self.path = path
        self.version = version


class UpgradeNeeded(sqlite3.DatabaseError):
    """A read-only open of a file written by an older singletable: reading it needs the one-time upgrade that
    only a writable open makes (the older layout's index entries lack the items every index read returns)."""

    def __init__(self, path: str, version: int) -> None:
        super().__init__(
            f"this database has storage schema version {version}, written by an older singletable; reading "
            f"it needs a one-time upgrade to version {VERSION}, which a read-only open never makes. Open it "
            "once for writing (any write command, singletable serve --db, or Engine(path)) to upgrade it."
        )
        self.path = path
        self.version = version


class NotASingletableDatabase(sqlite3.DatabaseError):
    """A read-only open of a SQLite file singletable never wrote (no ``st_meta``): nothing to read in it."""

    def __init__(self, path: str) -> None:
        super().__init__("a SQLite file, but not a singletable database (it has no st_meta table)")
        self.path = path


def check_readable(conn: sqlite3.Connection, path: str) -> None:
    """Refuse, for a read-only open, a file whose layout is not :data:`VERSION` (see the module docstring)."""
    version = stored_version(conn)
    if version is None:
        raise NotASingletableDatabase(path)
    if version > VERSION:
        raise UnsupportedSchemaVersion(path, version)
    if version < VERSION:
        raise UpgradeNeeded(path, version)


def stored_version(conn: sqlite3.Connection) -> int | None:
    """The file's schema version, or None for a new, empty database."""
    exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'st_meta'").fetchone()
    if exists is None:
        return None
    row = conn.execute("SELECT value FROM st_meta WHERE key = 'schema_version'").fetchone()
    return None if row is None else int(row[0])


def upgrade(conn: sqlite3.Connection, path: str, version: int | None) -> None:
    """Bring a file at ``version`` up to :data:`VERSION`; must run inside the opening write transaction."""
    if version is None or version == VERSION:
        return
    if version > VERSION:
        raise UnsupportedSchemaVersion(path, version)
    if version < 2:
        _entries_carry_items(conn)
    conn.execute("UPDATE st_meta SET value = ? WHERE key = 'schema_version'", (str(VERSION),))


def _entries_carry_items(conn: sqlite3.Connection) -> None:
    """Version 1 -> 2: rebuild ``st_index_entries`` with each entry's projected item."""
    conn.execute("ALTER TABLE st_index_entries RENAME TO st_index_entries_v1")
    conn.execute(INDEX_ENTRIES_TABLE)
    for table_id, description in conn.execute("SELECT table_id, description FROM st_tables").fetchall():
        schema = TableSchema.from_description(table_id, orjson.loads(description))
        for index in schema.indexes.values():
            if index.projected is None:
                conn.execute(_COPY_WHOLE_ITEMS, (table_id, index.index_id))
            else:
                _copy_projected(conn, schema, index)
    conn.execute("DROP TABLE st_index_entries_v1")


def _copy_projected(conn: sqlite3.Connection, schema: TableSchema, index: IndexSchema) -> None:
    rows = conn.execute(_READ_FOR_PROJECTION, (schema.table_id, index.index_id))
    while batch := rows.fetchmany(_BATCH):
        conn.executemany(
            _INSERT_ENTRY,
            [
                (*keys, codec.dumps_item(schema.project_for_index(index, codec.loads_item(item))))
                for *keys, item in batch
            ],
        )
