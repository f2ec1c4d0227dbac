"""What the item operations share: finding keys, writing an item with its index entries, return values.

The write path is here so that every operation (and later, transactions and batches) keeps an item and its
index entries in one SQLite transaction, with one capacity rule.
"""

from __future__ import annotations

from typing import Any

from singletable.engine import codec
from singletable.engine.capacity import Capacity, write_units
from singletable.engine.errors import DynamoDBError, validation
from singletable.engine.schema import IndexSchema, TableSchema

ITEM_TOO_LARGE = "Item size has exceeded the maximum allowed size"
INVALID_RETURN_VALUES = "Return values set to invalid value"
KEY_SIZE = "Hash primary key values must be under 2048 bytes, and range primary key values must be under 1024 bytes"
KEY_COUNT = "The number of conditions on the keys is invalid"
KEY_TYPE = "One or more parameter values were invalid: Type mismatch for key"
KEY_EMPTY = (
    "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an "
    "empty string value. Key: {name}"
)
MISSING_KEY = "One of the required keys was not given a value"
INDEX_KEY_TYPE = "One or more parameter values were invalid: Type mismatch for Index Key"
INDEX_KEY_EMPTY = (
    "One or more parameter values are not valid. A value specified for a secondary index key is not "
    "supported. The AttributeValue for a key attribute cannot contain an empty string value. "
    "IndexName: {index}, IndexKey: {name}"
)
UPDATE_INDEX_KEY_EMPTY = (
    "One or more parameter values are not valid. The update expression attempted to update a secondary "
    "index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an "
    "empty string value."
)
MIXED_PARAMETERS = (
    "Can not use both expression and non-expression parameters in the same request: "
    "Non-expression parameters: {{{legacy}}} Expression parameters: {{{modern}}}"
)

_TYPE_KEYS = frozenset(("S", "N", "B"))
HASH_KEY_LIMIT = 2048
RANGE_KEY_LIMIT = 1024


def _value_type(av: Any) -> str | None:
    if isinstance(av, dict) and len(av) == 1:
        (kind,) = av
        return kind
    return None


def _encode(av: dict[str, Any], key_type: str, name: str, limit: int) -> bytes:
    value = av[key_type]
    if (key_type == "S" and value == "") or (key_type == "B" and value == b""):
        raise validation(KEY_EMPTY.format(name=name))
    encoded = codec.encode_key(av, key_type)
    raw_length = len(value.encode()) if key_type == "S" else len(value) if key_type == "B" else 0
    if raw_length > limit:
        raise validation(KEY_SIZE)
    return encoded


def key_from_request(schema: TableSchema, key: Any) -> tuple[bytes, bytes]:
    """Encode a request's ``Key`` (GetItem, UpdateItem, DeleteItem): exactly the table's key attributes."""
    if not isinstance(key, dict) or len(key) != len(schema.key_names):
        raise validation(KEY_COUNT)
    return _key_bytes(schema, key, missing=KEY_COUNT)


def key_from_item(schema: TableSchema, item: dict[str, Any]) -> tuple[bytes, bytes]:
    """Encode the key of a whole item (PutItem): the key attributes must be present and typed right."""
    return _key_bytes(schema, item, missing=MISSING_KEY)


def _key_bytes(schema: TableSchema, source: dict[str, Any], *, missing: str) -> tuple[bytes, bytes]:
    hash_attr = schema.hash
    hash_av = source.get(hash_attr.name)
    if hash_av is None:
        raise validation(missing)
    if _value_type(hash_av) != hash_attr.type:
        raise validation(KEY_TYPE)
    pk = _encode(hash_av, hash_attr.type, hash_attr.name, HASH_KEY_LIMIT)
    range_attr = schema.range
    if range_attr is None:
        return pk, b""
    range_av = source.get(range_attr.name)
    if range_av is None:
        raise validation(missing)
    if _value_type(range_av) != range_attr.type:
        raise validation(KEY_TYPE)
    return pk, _encode(range_av, range_attr.type, range_attr.name, RANGE_KEY_LIMIT)


def check_index_keys(schema: TableSchema, item: dict[str, Any], *, from_update: bool = False) -> None:
    """An item's index key attributes, where present, must have the index's type and be non-empty."""
    for index in schema.indexes.values():
        for attr in (index.hash, index.range):
            if attr is None:
                continue
            av = item.get(attr.name)
            if av is None or attr.name in schema.key_names:
                continue
            if _value_type(av) != attr.type:
                raise validation(INDEX_KEY_TYPE)
            value = av[attr.type]
            if (attr.type == "S" and value == "") or (attr.type == "B" and value == b""):
                if from_update:
                    raise validation(UPDATE_INDEX_KEY_EMPTY)
                raise validation(INDEX_KEY_EMPTY.format(index=index.name, name=attr.name))


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
) -> None:
    """Replace (or delete, when ``new`` is None) one item and every index entry; charge capacity.

    Must run inside ``storage.write()`` so the item and its index entries commit together.
    """
    table_id = schema.table_id
    if new is None:
        storage.delete_item(table_id, pk, sk)
    else:
        storage.put_item(table_id, pk, sk, codec.dumps_item(new), new_size)
    capacity.table += write_units(max(old_size, new_size))
    for index in schema.indexes.values():
        old_entry = index_entry(schema, index, old) if old is not None else None
        new_entry = index_entry(schema, index, new) if new is not None else None
        if old_entry is None and new_entry is None:
            continue
        old_projected = schema.project_for_index(index, old) if old_entry is not None else None
        new_projected = schema.project_for_index(index, new) if new_entry is not None else None
        units = 0.0
        if old_entry is not None and old_entry != new_entry:
            storage.delete_index_entry(table_id, index.index_id, old_entry[0], old_entry[1], pk, sk)
            units += write_units(codec.item_size(old_projected))
        if new_entry is not None:
            if old_entry != new_entry:
                size = codec.item_size(new_projected)
                storage.put_index_entry(table_id, index.index_id, new_entry[0], new_entry[1], pk, sk, size)
                units += write_units(size)
            elif old_projected != new_projected:
                size = codec.item_size(new_projected)
                storage.put_index_entry(table_id, index.index_id, new_entry[0], new_entry[1], pk, sk, size)
                units += write_units(max(size, codec.item_size(old_projected)))
        if units:
            capacity.add_index(index.name, index.is_global, units)


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
        raise validation(ITEM_TOO_LARGE)


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
