"""Creating a table by importing into it, as DynamoDB's ImportTable does: CREATING until built and checked.

The steps, in the order an import takes them:

1. :func:`begin_import` creates the table ``CREATING``, owned by this process (``_import_state``): nobody
   can read or write it meanwhile. A table an earlier import left ``CREATING`` (its process gone) is
   dropped first; one another live import is creating is refused (ResourceInUseException).
2. :func:`staged_rows` turns each source item into its staged rows -- in any process (an import's reader
   runs it in its own), from the table's :class:`ImportCatalog` -- after every check PutItem makes, by
   PutItem's own :func:`prepare_put`: the same errors, word for word, as the item would get from PutItem,
   BatchWriteItem or the bulk load. :meth:`Storage.stage_import_rows` appends them (``_storage/imports``).
3. :func:`finish_import` builds the table and its indexes in sorted passes, checks every B-tree against what
   was staged (row counts and sums of hashes, sizes and bytes: :class:`ImportUnverified` when any differs)
   and makes the table ``ACTIVE`` -- all in one transaction, so the table is either complete and checked,
   or still ``CREATING`` and empty.
4. :func:`abandon_import` drops the table when the import stops (a refused line, Ctrl-C, an error).

A table created this way holds exactly what the same items put one after another by PutItem would leave:
the stored item bytes, index entries and projections come from the write path's own functions.
"""

from __future__ import annotations

import copy
import zlib
from typing import Any

from singletable.engine import _attribute_values as codec
from singletable.engine._errors import in_use
from singletable.engine._import_rows import ImportPlan
from singletable.engine._import_state import (
    BEING_CREATED,
    IMPORT_OWNER,
    creating_owner,
    owner_alive,
    owner_record,
)
from singletable.engine._item_writes import prepare_put
from singletable.engine._operations import create_table
from singletable.engine._schema import TableSchema
from singletable.engine._storage import BuildCheck, StagedEntry, StagedItem
from singletable.engine._table_descriptions import missing_table
from singletable.engine._validation import SHAPES, check_input
from singletable.engine._write_path import index_entry

Item = dict[str, Any]


class ImportUnverified(Exception):
    """A B-tree built by an import does not hold what was staged for it; nothing was committed."""

    def __init__(self, table: str, checks: list[BuildCheck], names: dict[int, str]) -> None:
        parts = [
            f"{'the items' if c.index_id is None else 'index ' + names[c.index_id]}: staged {c.staged}, "
            f"built {c.stored}"
            for c in checks
            if c.staged != c.stored
        ]
        super().__init__(f"the import of {table} did not build what it staged ({'; '.join(parts)})")


class ImportCatalog:
    """The catalog of one table, for preparing its items away from an engine (an import's reader)."""

    def __init__(self, description: dict[str, Any], table_id: int = 0) -> None:
        self.schema = TableSchema.from_description(table_id, description)
        self.plan = ImportPlan(self.schema)

    def find_table(self, name: str) -> TableSchema | None:
        return self.schema if name == self.schema.name else None

    def table(self, name: str) -> TableSchema:
        found = self.find_table(name)
        if found is None:
            raise missing_table(name)
        return found


def staged_rows(catalog: ImportCatalog, seq: int, item: Item) -> tuple[StagedItem, list[StagedEntry]]:
    """Item ``seq`` of the source as staged rows, after PutItem's checks (raises PutItem's DynamoDBError).

    The rows are plain tuples in :class:`StagedItem`'s and :class:`StagedEntry`'s column order, not those
    classes' instances: they cross to the importing process pickled, and a named tuple pickles by its class
    (2.5 times the cost of a tuple, measured); keys and bytes are ``bytearray``, which sqlite3 binds in
    half the time of ``bytes``.

    An item whose checks cannot fail takes :class:`ImportPlan`'s one pass (the same rows, in a third of the
    time); any other takes PutItem's own path, for its exact error."""
    rows = catalog.plan.rows(seq, item)
    if rows is not None:
        return rows  # type: ignore[return-value]  # StagedItem's and StagedEntry's columns (as below)
    schema = catalog.schema
    write = prepare_put(catalog, {"TableName": schema.name, "Item": item})
    new, size = write.item, write.size
    assert new is not None, "a put has its item"
    stored = codec.dumps_item(new)
    crc32, blob = zlib.crc32, bytearray
    entries: list[StagedEntry] = []
    for index in schema.indexes.values():
        keys = index_entry(schema, index, new)
        if keys is None:
            continue
        ipk, isk = keys
        row: tuple[Any, ...]
        if index.projected is None:  # ALL: the entry holds the item's own bytes (NULL here, see imports)
            row = (seq, index.index_id, crc32(ipk), blob(ipk), blob(isk), size, None)
        else:
            projected = schema.project_for_index(index, new)
            data = blob(codec.dumps_item(projected))
            row = (seq, index.index_id, crc32(ipk), blob(ipk), blob(isk), codec.item_size(projected), data)
        entries.append(row)  # type: ignore[arg-type]  # StagedEntry's columns (see the docstring)
    pk, sk = write.pk, write.sk
    # the item row's columns, as StagedItem's docstring lists them
    return (seq, crc32(pk), blob(pk), blob(sk), size, blob(stored)), entries  # type: ignore[return-value]


def begin_import(engine: Any, params: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """Create the table of CreateTable's ``params`` CREATING, owned by this process, and start staging.
    Returns its stored description and whether it replaced a table an abandoned import had left."""
    check_input(SHAPES, "CreateTableInput", params)
    name = params["TableName"]
    storage = engine.storage
    replaced = False
    with storage.lock:
        engine.refresh_catalog()
        left = engine.creating_table(name)
        if left is not None:
            owner = creating_owner(left.description)
            if owner is not None and owner_alive(owner):
                raise in_use(BEING_CREATED.format(name=name))
            with storage.write():
                storage.drop_table(left.table_id)
                engine.catalog_changed()
            replaced = True
        create_table.run(engine, params, import_owner=owner_record())
        description = engine.creating_table(name).description
    storage.start_import_stage()
    return description, replaced


def _ours(engine: Any, name: str) -> TableSchema | None:
    schema = engine.creating_table(name)
    if schema is None or creating_owner(schema.description) != owner_record():
        return None
    return schema


def finish_import(engine: Any, name: str) -> int:
    """Build the staged table, check it and make it ACTIVE, in one transaction (see the module docstring).
    Returns how many staged items a later one with the same key replaced."""
    storage = engine.storage
    with storage.write():
        engine.catalog_changed()
        schema = _ours(engine, name)
        if schema is None:
            raise missing_table(name)  # dropped meanwhile: nothing to build
        names = {index.index_id: index.name for index in schema.indexes.values()}
        replaced, checks = storage.build_import(schema.table_id, list(names))
        if any(check.staged != check.stored for check in checks):
            raise ImportUnverified(name, checks, names)
        description = copy.deepcopy(schema.description)
        del description[IMPORT_OWNER]
        storage.update_table(schema.table_id, description)
        engine.catalog_changed()
    storage.end_import_stage()
    return replaced


def abandon_import(engine: Any, name: str) -> bool:
    """Drop the table this process was creating (an import that stopped), and its staged rows, whatever
    the import left open on the connection. Whether there was such a table: none when the import had not
    created it yet, or had finished it (an interrupt as either returned)."""
    storage = engine.storage
    storage.roll_back_stopped()
    with storage.write():
        engine.catalog_changed()
        schema = _ours(engine, name)
        if schema is not None:
            storage.drop_table(schema.table_id)
            engine.catalog_changed()
    storage.end_import_stage()
    return schema is not None
