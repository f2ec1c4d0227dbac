"""What the item operations share: finding keys, writing an item with its index entries, return values.

The write path is here so that every operation (and later, transactions and batches) keeps an item and its
index entries in one SQLite transaction, with one capacity rule.
"""

from __future__ import annotations

from typing import Any

from singletable.engine import codec, stream_records
from singletable.engine.capacity import Capacity, write_units
from singletable.engine.errors import DynamoDBError, validation
from singletable.engine.keys import checked_key_bytes
from singletable.engine.schema import IndexSchema, TableSchema

INVALID_RETURN_VALUES = "Return values set to invalid value"
UPDATE_INDEX_KEY_EMPTY = (
    "One or more parameter values are not valid. The update expression attempted to update a secondary "
    "index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an "
    "empty string value."
)
MIXED_PARAMETERS = (
    "Can not use both expression and non-expression parameters in the same request: "
    "Non-expression parameters: {{{legacy}}} Expression parameters: {{{modern}}}"
)


def key_from_request(schema: TableSchema, key: Any) -> tuple[bytes, bytes]:
    """Encode a request's ``Key`` (GetItem, UpdateItem, DeleteItem): exactly the table's key attributes."""
    if not isinstance(key, dict) or len(key) != len(schema.key_names):
        raise validation(codec.KEY_SCHEMA_MISMATCH)
    key = codec.validate_item(key, context=codec.ValueContext.KEY)
    return _key_bytes(schema, key, codec.KeyContext.KEY, missing=codec.KEY_SCHEMA_MISMATCH)


def key_from_item(schema: TableSchema, item: dict[str, Any]) -> tuple[bytes, bytes]:
    """Encode the key of a whole, already validated item (PutItem)."""
    return _key_bytes(schema, item, codec.KeyContext.ITEM, missing=codec.MISSING_KEY)


def _key_bytes(
    schema: TableSchema, source: dict[str, Any], context: codec.KeyContext, *, missing: str
) -> tuple[bytes, bytes]:
    hash_attr = schema.hash
    hash_av = source.get(hash_attr.name)
    if hash_av is None:
        raise validation(missing)
    pk = checked_key_bytes(hash_attr.name, hash_av, hash_attr.type, is_hash=True, context=context)
    range_attr = schema.range
    if range_attr is None:
        return pk, b""
    range_av = source.get(range_attr.name)
    if range_av is None:
        raise validation(missing)
    return pk, checked_key_bytes(range_attr.name, range_av, range_attr.type, is_hash=False, context=context)


def check_index_keys(schema: TableSchema, item: dict[str, Any], *, from_update: bool = False) -> None:
    """An item's index key attributes, where present, must have the index's type, be non-empty and fit."""
    for name, key_type, is_hash, index_name in schema.index_key_checks:
        av = item.get(name)
        if av is None:
            continue
        if from_update and key_type != "N" and av.get(key_type) in ("", b""):
            raise validation(UPDATE_INDEX_KEY_EMPTY)
        codec.check_key_value(
            name, av, key_type, is_hash=is_hash, context=codec.KeyContext.INDEX, index_name=index_name
        )


def index_entry(schema: TableSchema, index: IndexSchema, item: dict[str, Any]) -> tuple[bytes, bytes] | None:
    """The (partition, sort) key bytes of the item in ``index``, or None if the item is not in it (sparse)."""
    hash_av = item.get(index.hash.name)
    if hash_av is None or index.hash.type not in hash_av:
        return None
    ipk = codec.encode_key(hash_av, index.hash.type)
    if index.range is None:
        return ipk, b""
    range_av = item.get(index.range.name)
    if range_av is None or index.range.type not in range_av:
        return None
    return ipk, codec.encode_key(range_av, index.range.type)


def load_item(storage: Any, schema: TableSchema, pk: bytes, sk: bytes) -> tuple[dict[str, Any], int] | None:
    row = storage.get_item(schema.table_id, pk, sk)
    if row is None:
        return None
    return codec.loads_item(row[0]), row[1]


class WriteRows:
    """The item and index-entry rows of one or more item writes, for :meth:`Storage.write_rows`.

    A batch collects every write's rows and stores them with one ``executemany`` per statement; a single
    write stores its own at once. Writes sharing one collector must touch distinct items (BatchWriteItem
    rejects duplicates), so the order of their rows does not matter.
    """

    __slots__ = ("entries", "entry_deletes", "item_deletes", "items")

    def __init__(self) -> None:
        self.items: list[tuple[int, bytes, bytes, bytes, int]] = []
        self.item_deletes: list[tuple[int, bytes, bytes]] = []
        self.entries: list[tuple[int, int, bytes, bytes, bytes, bytes, int]] = []
        self.entry_deletes: list[tuple[int, int, bytes, bytes, bytes, bytes]] = []

    def flush(self, storage: Any) -> None:
        storage.write_rows(self.items, self.item_deletes, self.entries, self.entry_deletes)
        self.items, self.item_deletes, self.entries, self.entry_deletes = [], [], [], []


def write_item(
    storage: Any,
    schema: TableSchema,
    pk: bytes,
    sk: bytes,
    old: dict[str, Any] | None,
    old_size: int,
    new: dict[str, Any] | None,
    new_size: int,
    capacity: Capacity,
    *,
    ttl_delete: bool = False,
    rows: WriteRows | None = None,
) -> None:
    """Replace (or delete, when ``new`` is None) one item and every index entry; charge capacity.

    Must run inside ``storage.write()`` so the item, its index entries and its stream record commit
    together. ``ttl_delete`` marks a deletion by the TTL sweeper in the stream record. With ``rows`` the
    item's rows are only collected there, for the caller to flush before its transaction ends.
    """
    table_id = schema.table_id
    if "_StreamId" in schema.description:
        stream_records.append(
            storage,
            schema.description,
            schema.key_of(new if new is not None else old),
            old,
            new,
            ttl_delete=ttl_delete,
        )
    out = WriteRows() if rows is None else rows
    if new is None:
        out.item_deletes.append((table_id, pk, sk))
    else:
        out.items.append((table_id, pk, sk, codec.dumps_item(new), new_size))
    capacity.table += write_units(old_size if old_size > new_size else new_size)
    for index in schema.indexes.values():
        old_entry = index_entry(schema, index, old) if old is not None else None
        new_entry = index_entry(schema, index, new) if new is not None else None
        if old_entry is None and new_entry is None:
            continue
        units = 0.0
        # An ALL-projection index stores the whole item: its size is already known, and a projection is
        # only computed where a size or a comparison needs it.
        whole = index.projected is None
        if old_entry is not None and old_entry != new_entry:
            out.entry_deletes.append((table_id, index.index_id, old_entry[0], old_entry[1], pk, sk))
            units += write_units(old_size if whole else codec.item_size(schema.project_for_index(index, old)))
        if new_entry is not None:
            if old_entry != new_entry:
                size = new_size if whole else codec.item_size(schema.project_for_index(index, new))
                out.entries.append((table_id, index.index_id, new_entry[0], new_entry[1], pk, sk, size))
                units += write_units(size)
            else:
                old_projected = schema.project_for_index(index, old)  # type: ignore[arg-type]
                new_projected = schema.project_for_index(index, new)
                if old_projected != new_projected:
                    size = new_size if whole else codec.item_size(new_projected)
                    out.entries.append((table_id, index.index_id, new_entry[0], new_entry[1], pk, sk, size))
                    units += write_units(max(size, old_size if whole else codec.item_size(old_projected)))
        if units:
            capacity.add_index(index.name, index.is_global, units)
    if rows is None:
        out.flush(storage)


def check_return_values(value: Any, allowed: tuple[str, ...]) -> str:
    if value is None:
        return "NONE"
    if value not in allowed:
        raise validation(INVALID_RETURN_VALUES)
    return value


def condition_failed(item: dict[str, Any] | None, return_on_failure: str | None) -> DynamoDBError:
    return DynamoDBError(
        "ConditionalCheckFailedException",
        "The conditional request failed",
        item=item if return_on_failure == "ALL_OLD" and item is not None else None,
    )


def check_item_size(size: int) -> None:
    if size > codec.MAX_ITEM_SIZE:
        raise validation(codec.ITEM_TOO_LARGE)


def item_collection_metrics(
    storage: Any, schema: TableSchema, pk: bytes, key_item: dict[str, Any], mode: str | None
) -> dict[str, Any] | None:
    """ItemCollectionMetrics: only for tables with local secondary indexes, when asked for SIZE."""
    if mode != "SIZE" or not schema.has_lsi:
        return None
    lsi_ids = tuple(i.index_id for i in schema.indexes.values() if not i.is_global)
    gigabytes = storage.collection_size(schema.table_id, pk, lsi_ids) / (1024**3)
    low = float(int(gigabytes))
    return {
        "ItemCollectionKey": {schema.hash.name: key_item[schema.hash.name]},
        "SizeEstimateRangeGB": [low, low + 1.0],
    }


def reject_mixed(params: dict[str, Any], legacy: tuple[str, ...], modern: tuple[str, ...]) -> None:
    """DynamoDB refuses a request that mixes legacy parameters with expressions."""
    used_legacy = [name for name in legacy if params.get(name) is not None]
    used_modern = [name for name in modern if params.get(name) is not None]
    if used_legacy and used_modern:
        raise validation(
            MIXED_PARAMETERS.format(legacy=", ".join(used_legacy), modern=", ".join(used_modern))
        )


def unsupported_legacy(params: dict[str, Any], names: tuple[str, ...]) -> None:
    """Legacy parameters arrive with the engine-complete issue; until then, say so plainly."""
    for name in names:
        if params.get(name) is not None:
            raise validation(f"singletable does not support the legacy parameter {name} yet; use expressions")
