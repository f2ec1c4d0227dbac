"""Vector index entries on the write path: checking an item's vector and SearchSchema values, the entry an
index holds of an item, keeping entries in step with every item write, and what vector indexes add to a
write's capacity.

Every item write (PutItem, UpdateItem, DeleteItem, batches, transactions, PartiQL, bulk loads, TTL deletes)
reaches :func:`write_vector_entries` through ``write_item``, inside the write's SQLite transaction, so an
item and its vector entries commit together or not at all.

What AWS does with a vector index's attributes, and so what we do:

* a write whose vector attribute is present but not a list of ``Dimensions`` numbers within float32's range,
  or whose SearchSchema attribute has another type than its AttributeDefinitions entry, or whose HASH
  attribute is an empty string or binary, is refused with a ValidationException naming the index;
* an item without the vector attribute, or (for an index with a HASH element) without the HASH attribute,
  is written and simply left out of that index (sparse), as is an item an index added later finds invalid;
* the index holds the vector as float32 (the item keeps its numbers as written).

Capacity: a write is billed with each vector attribute an index reads counted as its name plus four bytes a
dimension (reads and the 400 KB limit count the numbers as stored); under INDEXES each vector index whose
stored view the write changed reports ``VectorWriteRequestBytes``: the projected entry's size, the vector
counted the same way, held to a 1,024-byte floor.
"""

from __future__ import annotations

import base64
import struct
from typing import Any

import orjson

from singletable.engine import _attribute_values as codec
from singletable.engine._capacity import Capacity, same_entry
from singletable.engine._errors import validation
from singletable.engine._schema import TableSchema, VectorIndexSchema
from singletable.engine._storage import Storage, VectorEntry

# The largest finite float32, and how AWS prints it in its range message.
F32_MAX = 3.4028234663852886e38
_F32_RANGE = "[-3.4028235E38, 3.4028235E38]"
_INVALID = "One or more parameter values were invalid. "
MIN_WRITE_BYTES = 1024

Item = dict[str, Any]


class VectorError(Exception):
    """A vector value an index cannot hold: the message AWS gives a write, without its index suffix."""


def vector_floats(av: Any, attribute: str, dimensions: int) -> list[float]:
    """The numbers of a vector attribute value, or :class:`VectorError` worded as AWS words a write's.

    A write asks for the same value's numbers up to three times (its check, its entry, its billed size):
    the last answer is kept, with the value it was for."""
    global _last
    last = _last
    if last is not None and last[0] is av and last[1] == dimensions:
        return last[2]
    elements = av.get("L") if isinstance(av, dict) else None
    if elements is None:
        raise VectorError(
            f"Invalid type for parameter {attribute}, Expected: 32-bit floating point number list "
        )
    if len(elements) != dimensions:
        raise VectorError(
            f"Invalid size for parameter {attribute}, Expected: {dimensions}, Actual: {len(elements)} "
        )
    try:
        texts = [element["N"] for element in elements]
    except (KeyError, TypeError):
        texts = []
    if len(texts) != dimensions:
        position, element = next((i, e) for i, e in enumerate(elements) if "N" not in e)
        raise VectorError(
            f"Invalid type for parameter {attribute}[{position}], "
            f"Expected: 32-bit floating point number, Actual: {next(iter(element))}. "
        )
    floats = list(map(float, texts))
    if max(floats) > F32_MAX or min(floats) < -F32_MAX:
        position = next(i for i, value in enumerate(floats) if not -F32_MAX <= value <= F32_MAX)
        raise VectorError(
            f"Invalid value for parameter {attribute}[{position}], Value: {texts[position]} is outside valid "
            f"range {_F32_RANGE}. "
        )
    _last = (av, dimensions, floats)
    return floats


# The last value vector_floats answered for, its dimensions and its numbers (writes run one at a time,
# under the storage's lock).
_last: tuple[Any, int, list[float]] | None = None


def pack(floats: list[float]) -> bytes:
    """A vector as the index stores it: little-endian float32."""
    return struct.pack(f"<{len(floats)}f", *floats)


def check_vector_values(schema: TableSchema, item: Item, old: Item | None = None) -> None:
    """Refuse a write whose vector index attributes an index cannot hold (see the module docstring).

    With ``old`` (an update), only attributes the update changed are checked, as for index keys."""
    for vindex in sorted(schema.vector_indexes.values(), key=lambda v: v.name):
        av = item.get(vindex.attribute)
        if av is not None and (old is None or old.get(vindex.attribute) != av):
            try:
                vector_floats(av, vindex.attribute, vindex.dimensions)
            except VectorError as error:
                raise validation(f"{_INVALID}{error}IndexName: {vindex.name}") from None
        for attr in vindex.schema_attributes:
            value = item.get(attr.name)
            if value is None or (old is not None and old.get(attr.name) == value):
                continue
            kind = next(iter(value))
            if kind != attr.type:
                raise validation(
                    f"{_INVALID}Attribute '{attr.name}' type mismatch. "
                    f"Expected: {attr.type}, Actual: {kind}. IndexName: {vindex.name}"
                )
            if attr is vindex.hash and value[kind] in ("", b""):
                empty = "string" if kind == "S" else "binary"
                if old is not None:
                    raise validation(
                        "One or more parameter values are not valid. The update expression attempted to "
                        "update a secondary index key to a value that is not supported. The AttributeValue "
                        f"for a key attribute cannot contain an empty {empty} value."
                    )
                raise validation(
                    "One or more parameter values are not valid. A value specified for a secondary index key "
                    "is not supported. The AttributeValue for a key attribute cannot contain an empty "
                    f"{empty} value. IndexName: {vindex.name}, IndexKey: {attr.name}"
                )


def projected_entry(schema: TableSchema, vindex: VectorIndexSchema, item: Item) -> Item:
    """The item as the index holds it: every attribute (ALL), or the table's keys, the vector, the
    SearchSchema attributes and the NonKeyAttributes (INCLUDE)."""
    if vindex.projected is None:
        return item
    keep = set(schema.key_names)
    keep.add(vindex.attribute)
    keep.update(attr.name for attr in vindex.schema_attributes)
    keep |= vindex.projected
    return {name: value for name, value in item.items() if name in keep}


def _billed_vector_bytes(name: str, dimensions: int) -> int:
    return len(name.encode("utf-8")) + 4 * dimensions


def filter_text(value: Item, kind: str) -> str:
    raw = value[kind]
    return base64.b64encode(raw).decode("ascii") if kind == "B" else raw


def vector_entry(schema: TableSchema, vindex: VectorIndexSchema, item: Item | None) -> VectorEntry | None:
    """What ``vindex`` holds of ``item``, or None when the item is not in it (no item, no valid vector, no
    valid HASH value, or a filter value of the wrong type: the shapes a write would have refused)."""
    if item is None:
        return None
    av = item.get(vindex.attribute)
    if av is None:
        return None
    try:
        floats = vector_floats(av, vindex.attribute, vindex.dimensions)
    except VectorError:
        return None
    part = b""
    hash_attr = vindex.hash
    if hash_attr is not None:
        value = item.get(hash_attr.name)
        if value is None or hash_attr.type not in value or value[hash_attr.type] in ("", b""):
            return None
        part = codec.encode_key(value, hash_attr.type)
    filters: dict[str, str] = {}
    for attr in vindex.filters:
        value = item.get(attr.name)
        if value is None:
            continue
        if attr.type not in value:
            return None
        filters[attr.name] = filter_text(value, attr.type)
    entry = projected_entry(schema, vindex, item)
    size = codec.item_size({name: value for name, value in entry.items() if name != vindex.attribute})
    size += _billed_vector_bytes(vindex.attribute, vindex.dimensions)
    return VectorEntry(part, orjson.dumps(filters), size, pack(floats))


def billed_size(schema: TableSchema, item: Item | None, size: int) -> int:
    """An item's size as a write is billed: each vector attribute an index reads counted as its name plus
    four bytes a dimension instead of its numbers."""
    if item is None:
        return size
    billed: dict[str, int] = {}
    for vindex in schema.vector_indexes.values():
        name = vindex.attribute
        av = item.get(name)
        if av is None or name in billed:
            continue
        try:
            vector_floats(av, name, vindex.dimensions)
        except VectorError:
            continue
        billed[name] = _billed_vector_bytes(name, vindex.dimensions)
    if not billed:
        return size
    rest = codec.item_size({name: value for name, value in item.items() if name not in billed})
    return rest + sum(billed.values())


def write_vector_entries(
    storage: Storage,
    schema: TableSchema,
    pk: bytes,
    sk: bytes,
    old: Item | None,
    new: Item | None,
    capacity: Capacity,
) -> None:
    """Bring every vector index's entry for one item in step with its new state (inside the write's
    transaction), and charge each index whose stored view changed."""
    table_id = schema.table_id
    for vindex in schema.vector_indexes.values():
        old_entry = vector_entry(schema, vindex, old)
        new_entry = vector_entry(schema, vindex, new)
        if old_entry is None and new_entry is None:
            continue
        if new_entry is None:
            storage.delete_vector_entry(table_id, vindex.index_id, pk, sk)
            assert old_entry is not None
            capacity.add_vector(vindex.name, max(MIN_WRITE_BYTES, old_entry.size))
            continue
        if new_entry != old_entry:
            storage.put_vector_entry(table_id, vindex.index_id, pk, sk, new_entry)
        if old_entry is None or old is None or new is None:
            capacity.add_vector(vindex.name, max(MIN_WRITE_BYTES, new_entry.size))
        elif not same_entry(projected_entry(schema, vindex, old), projected_entry(schema, vindex, new)):
            capacity.add_vector(vindex.name, max(MIN_WRITE_BYTES, new_entry.size, old_entry.size))
