"""Storage's schema and catalog: the SQL tables themselves, and the DynamoDB tables' definitions.

Three SQL tables hold every DynamoDB table, whatever it is called, so no SQL is ever built from a user's
table or attribute name: ``st_tables`` (the catalog: one row per DynamoDB table, its description as JSON),
``st_items`` and ``st_index_entries`` (see ``items``); ``st_streams`` and ``st_stream_records`` hold
DynamoDB Streams (see ``streams``), ``st_client_tokens`` TransactWriteItems' idempotency tokens and
``st_meta`` the schema and catalog versions (``migration`` upgrades a file written with an older schema).
Every DDL operation bumps the catalog version, which is how another process's engine learns that its
cached catalog is stale.

``st_items_json`` is the one SQL view, for people and tools rather than the engine: every DynamoDB table's
items as DynamoDB JSON text, with the table's name and the key values as columns, so the ``sqlite3`` shell
or Datasette can browse a file without singletable (docs/data.md, "Reading a file with SQL"). It is one view
over all tables -- not one per table -- so it is never out of step with CreateTable or DeleteTable and no
DDL is ever built from a table's name.
"""

from __future__ import annotations

from typing import Any, cast

import orjson

from singletable.engine._storage import migration
from singletable.engine._storage.connection import Connection
from singletable.engine._storage.vectors import VECTOR_SCHEMA

SCHEMA_TEMPLATE = """
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
{index_entries};
CREATE TABLE IF NOT EXISTS st_client_tokens (
    token TEXT PRIMARY KEY,
    digest BLOB NOT NULL,
    created REAL NOT NULL
) WITHOUT ROWID;
"""

SCHEMA = SCHEMA_TEMPLATE.format(index_entries=migration.INDEX_ENTRIES_TABLE) + ";" + VECTOR_SCHEMA
SCHEMA_VERSION = migration.VERSION

# Items are stored as orjson text, behind a 0x01 marker byte when they hold binary values (base64 in the
# text, as in DynamoDB JSON); descriptions are orjson text too. Both are BLOBs: cast to TEXT before SQLite's
# JSON functions see them (from SQLite 3.45 a BLOB argument would be read as binary JSONB). A key attribute
# whose name holds a double quote cannot be named in a JSON path: its key column is NULL there.
ITEMS_VIEW = """CREATE VIEW st_items_json (table_name, partition_key, sort_key, size, item) AS
SELECT table_name,
       CASE WHEN instr(hash_key, '"') = 0
            THEN (SELECT value FROM json_each(item, '$."' || hash_key || '"')) END,
       CASE WHEN instr(range_key, '"') = 0
            THEN (SELECT value FROM json_each(item, '$."' || range_key || '"')) END,
       size,
       item
FROM (
    SELECT t.name AS table_name,
           i.size AS size,
           CAST(CASE WHEN substr(i.item, 1, 1) = x'01' THEN substr(i.item, 2) ELSE i.item END AS TEXT)
               AS item,
           (SELECT json_extract(k.value, '$.AttributeName') FROM json_each(CAST(t.description AS TEXT),
                '$.KeySchema') AS k WHERE json_extract(k.value, '$.KeyType') = 'HASH') AS hash_key,
           (SELECT json_extract(k.value, '$.AttributeName') FROM json_each(CAST(t.description AS TEXT),
                '$.KeySchema') AS k WHERE json_extract(k.value, '$.KeyType') = 'RANGE') AS range_key
    FROM st_items AS i JOIN st_tables AS t ON t.table_id = i.table_id
)"""


class Catalog(Connection):
    """The schema's creation and the table catalog; part of ``Storage``."""

    def create_schema(self) -> None:
        """Create the SQL tables where missing, or upgrade an older file's (see ``migration``). Must run
        inside :meth:`write`."""
        conn = self._conn
        migration.upgrade(conn, self.path, migration.stored_version(conn))
        for statement in SCHEMA.split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.execute(
            "INSERT OR IGNORE INTO st_meta (key, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
        )
        conn.execute("INSERT OR IGNORE INTO st_meta (key, value) VALUES ('catalog_version', '0')")
        self._create_items_view()

    def check_schema(self) -> None:
        """For a read-only open: the file must already hold this layout (see ``migration.check_readable``)."""
        migration.check_readable(self._conn, self.path)

    def _create_items_view(self) -> None:
        """(Re)create ``st_items_json`` when missing or written by another version of singletable."""
        row = self._conn.execute("SELECT sql FROM sqlite_master WHERE name = 'st_items_json'").fetchone()
        if row is not None and row[0] == ITEMS_VIEW:
            return
        if row is not None:
            self._conn.execute("DROP VIEW st_items_json")
        self._conn.execute(ITEMS_VIEW)

    def catalog_version(self) -> int:
        return int(
            self._conn.execute("SELECT value FROM st_meta WHERE key = 'catalog_version'").fetchone()[0]
        )

    def _bump_catalog(self) -> None:
        self._conn.execute(
            "UPDATE st_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'catalog_version'"
        )

    def load_tables(self) -> dict[str, tuple[int, dict[str, Any]]]:
        rows = self._conn.execute("SELECT table_id, name, description FROM st_tables").fetchall()
        return {name: (table_id, orjson.loads(description)) for table_id, name, description in rows}

    def insert_table(self, name: str, description: dict[str, Any]) -> int:
        """Must run inside :meth:`write`."""
        cursor = self._conn.execute(
            "INSERT INTO st_tables (name, description) VALUES (?, ?)", (name, orjson.dumps(description))
        )
        self._bump_catalog()
        return cast(int, cursor.lastrowid)  # an INSERT sets it

    def update_table(self, table_id: int, description: dict[str, Any]) -> None:
        self._conn.execute(
            "UPDATE st_tables SET description = ? WHERE table_id = ?", (orjson.dumps(description), table_id)
        )
        self._bump_catalog()

    def drop_table(self, table_id: int) -> None:
        """Forget a table with its items and index entries (its streams stay, closed)."""
        self._conn.execute("DELETE FROM st_index_entries WHERE table_id = ?", (table_id,))
        self._conn.execute("DELETE FROM st_items WHERE table_id = ?", (table_id,))
        self._conn.execute("DELETE FROM st_vector_entries WHERE table_id = ?", (table_id,))
        # Its vector indexes' versions move on: no in-memory copy of them stays current.
        self._conn.execute(
            "UPDATE st_vector_versions SET version = version + 1 WHERE table_id = ?", (table_id,)
        )
        self._conn.execute("DELETE FROM st_tables WHERE table_id = ?", (table_id,))
        self._bump_catalog()

    def drop_index(self, table_id: int, index_id: int) -> None:
        """Delete a secondary index's entries (UpdateTable deleting the index updates the catalog)."""
        self._conn.execute(
            "DELETE FROM st_index_entries WHERE table_id = ? AND index_id = ?", (table_id, index_id)
        )
