"""Online index creation: fill a new global secondary index from the items a table already holds.

UpdateTable only records the index as ``CREATING`` with ``Backfilling: true``; from that moment the write
path maintains it like any other index, so a change made during the backfill is never lost. This worker then
walks the table in key order, a chunk per SQLite transaction (writers interleave between chunks), writing
each item's entry -- idempotently, so a restarted or duplicated backfill is harmless -- and finally marks the
index ``ACTIVE`` in the same transaction as its last chunk. A backfill interrupted by a crash restarts from
the beginning when an engine next loads the catalog.

Items whose attribute cannot be an index key (wrong type, empty, too large) are left out of the index and
stay in the table, as AWS documents for index key violations found during a backfill.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from singletable.engine import _attribute_values as codec
from singletable.engine._errors import DynamoDBError
from singletable.engine._schema import IndexSchema, TableSchema
from singletable.engine._storage import TABLE_START, EntryRow
from singletable.engine._write_path import index_entry

if TYPE_CHECKING:
    from singletable.engine._background import BackgroundEngine

CHUNK = 256
# Tests set this to False to observe an index while it is CREATING, then call run() themselves.
AUTO_START = True


def backfilling(schema: TableSchema, index_name: str) -> bool:
    for index in schema.description.get("GlobalSecondaryIndexes", ()):
        if index["IndexName"] == index_name:
            return index.get("IndexStatus") == "CREATING"
    return False


def pending(tables: Iterable[TableSchema]) -> list[tuple[str, str, int]]:
    """(table, index, index id) of every index still being created."""
    return [
        (schema.name, index["IndexName"], index["_IndexId"])
        for schema in tables
        for index in schema.description.get("GlobalSecondaryIndexes", ())
        if index.get("IndexStatus") == "CREATING"
    ]


def _violates(index: IndexSchema, item: dict[str, Any]) -> bool:
    for attr, is_hash in index.key_attrs:
        try:
            codec.check_key_value(
                attr.name,
                item[attr.name],
                attr.type,
                is_hash=is_hash,
                context=codec.KeyContext.INDEX,
                index_name=index.name,
            )
        except DynamoDBError:
            return True
    return False


def _activate(engine: BackgroundEngine, schema: TableSchema, index_name: str) -> None:
    description = copy.deepcopy(schema.description)
    for index in description["GlobalSecondaryIndexes"]:
        if index["IndexName"] == index_name:
            index["IndexStatus"] = "ACTIVE"
            index.pop("Backfilling", None)
    engine.storage.update_table(schema.table_id, description)
    engine.catalog_changed()


def run(
    engine: BackgroundEngine,
    table_name: str,
    index_name: str,
    index_id: int,
    stop: threading.Event | None = None,
) -> None:
    """Backfill one index to the end (unless ``stop`` is set or the index disappears), then activate it."""
    storage = engine.storage
    after = TABLE_START
    while stop is None or not stop.is_set():
        with storage.lock:
            engine.refresh_catalog()
            schema = engine.find_table(table_name)
            index = schema.indexes.get(index_name) if schema is not None else None
            if (
                schema is None
                or index is None
                or index.index_id != index_id
                or not backfilling(schema, index_name)
            ):
                return
            with storage.write():
                rows = storage.table_chunk(schema.table_id, after, CHUNK)
                entries = []
                for row in rows:
                    item = codec.loads_item(row.data)
                    entry = index_entry(schema, index, item)
                    if entry is None or _violates(index, item):
                        continue
                    if index.projected is None:
                        size, stored = row.size, row.data
                    else:
                        projected = schema.project_for_index(index, item)
                        size, stored = codec.item_size(projected), codec.dumps_item(projected)
                    ipk, isk = entry
                    table_id = schema.table_id
                    entries.append(EntryRow(table_id, index_id, ipk, isk, row.pk, row.sk, size, stored))
                if entries:
                    storage.write_rows([], [], entries, [])
                if len(rows) < CHUNK:
                    _activate(engine, schema, index_name)
                    return
                after = rows[-1].position
