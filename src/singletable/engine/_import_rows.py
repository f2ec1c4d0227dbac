"""An import's staged rows from a parsed JSON item in one pass, for the items whose checks cannot fail.

An import into a table it creates stages every item of the source (``_imports.staged_rows``). The exact
path -- PutItem's :func:`prepare_put`, then :func:`dumps_item` and :func:`index_entry` -- builds a checked
copy of the item, a prepared write and its key bytes in several walks: most of an import's time. Nearly every
line of a real source (an S3 export) is an item that path accepts as it is: every value of a valid type,
sets already in DynamoDB's order, keys of their types and within their limits (numbers may need their
canonical form, which is all the checked copy would change).

:class:`ImportPlan` recognises exactly those items in one walk over the parsed JSON and builds their rows
from the item itself (its numbers put in canonical form: then it equals the checked copy), with the same
stored bytes, size, key bytes and index entries. Anything it is not sure of -- any value that would be
refused, changed otherwise (a set out of order) or is of a kind it does not handle (binary values) -- makes
it answer ``None``, and the caller takes the exact path, which gives PutItem's error word for word. So the
fast path never accepts what the exact path refuses, and never stores anything else
(``tests/engine/test_import_rows.py`` holds it to that on generated items, valid and hostile).
"""

from __future__ import annotations

import zlib
from typing import Any

from singletable.engine._keys import MAX_HASH_KEY_BYTES, MAX_RANGE_KEY_BYTES, encode_number
from singletable.engine._schema import TableSchema
from singletable.engine._serialization import dumps_item
from singletable.engine._set_order import ordered_members
from singletable.engine._sizes import MAX_ITEM_SIZE, SIZED_NUMBERS, _text_size, item_size, sized_number
from singletable.engine._write_path import index_entry

# How many containers deep a value may nest inside an item (its attribute is level 1): PutItem's limit.
_DEEPEST = 31
_MAX_NAME_BYTES = 65535
Item = dict[str, Any]
# The columns of StagedItem and of each StagedEntry (see ``_imports.staged_rows``).
Rows = tuple[tuple[Any, ...], list[tuple[Any, ...]]]
# Number values not in canonical form, with their canonical text: rewritten once the whole item is accepted.
Fixes = list[tuple[dict[str, Any], str]]


def _value_size(av: Any, level: int, numbers: Fixes) -> int:
    """DynamoDB's size of ``av`` when PutItem would accept it as it is, else -1 (see the module docstring)."""
    if type(av) is not dict or len(av) != 1:
        return -1
    ((kind, value),) = av.items()
    if kind == "S":
        return _text_size(value) if type(value) is str else -1
    if kind == "N":
        if type(value) is not str:
            return -1
        canonical, size = SIZED_NUMBERS.get(value) or sized_number(value)
        if canonical != value:  # stored in canonical form, as PutItem stores it, once the item is accepted
            numbers.append((av, canonical))
        return size
    if kind == "M":
        return _map_size(value, level, numbers) if type(value) is dict and level <= _DEEPEST else -1
    if kind == "L":
        if type(value) is not list or level > _DEEPEST:
            return -1
        total = 3
        for member in value:
            size = _value_size(member, level + 1, numbers)
            if size < 0:
                return -1
            total += 1 + size
        return total
    if kind == "BOOL":
        return 1 if type(value) is bool else -1
    if kind == "NULL":
        return 1 if value is True else -1
    if kind == "SS" or kind == "NS":
        return _set_size(kind, value)
    return -1  # binary values, and anything that is not an AttributeValue


def _map_size(value: dict[str, Any], level: int, numbers: Fixes) -> int:
    total = 3
    for name, member in value.items():
        size = _value_size(member, level + 1, numbers)
        if size < 0 or type(name) is not str:
            return -1
        name_bytes = _text_size(name)
        if not 0 < name_bytes <= _MAX_NAME_BYTES:
            return -1
        total += 1 + name_bytes + size
    return total


def _number_size(member: str) -> int:
    canonical, size = SIZED_NUMBERS.get(member) or sized_number(member)
    return size if canonical == member else -1  # a set's members are stored as given: no rewriting


def _set_size(kind: str, value: Any) -> int:
    """A string or number set's size, when PutItem would store it as given (distinct members, in order)."""
    if type(value) is not list or not value:
        return -1
    member_size = _text_size if kind == "SS" else _number_size
    total = 0
    for member in value:
        if type(member) is not str:
            return -1
        size = member_size(member)
        if size < 0:
            return -1
        total += size
    if len(set(value)) != len(value) or ordered_members(kind, list(value)) != value:
        return -1
    return total


def item_size_as_is(item: Any, numbers: Fixes) -> int:
    """The size PutItem gives ``item`` when it would accept it and store it as it is but for numbers not in
    canonical form (added to ``numbers``, with the form PutItem stores), else -1. Never raises for a bad
    value: it answers -1 and the caller asks the exact path."""
    if type(item) is not dict:
        return -1
    total = 0
    try:
        for name, av in item.items():
            size = _value_size(av, 1, numbers)
            if size < 0 or type(name) is not str:
                return -1
            name_bytes = _text_size(name)
            if not 0 < name_bytes <= _MAX_NAME_BYTES:
                return -1
            total += name_bytes + size
    except Exception:  # a value the exact path words an error for (an invalid number, bad UTF-8)
        return -1
    return total if total <= MAX_ITEM_SIZE else -1


def _key_bytes(av: Any, key_type: str, limit: int) -> bytes | None:
    """A (checked) key value's stored bytes when it has its key's type and fits, else None."""
    value = av.get(key_type) if len(av) == 1 else None
    if value is None:
        return None
    if key_type == "N":
        return encode_number(value)
    if key_type != "S":
        return None  # binary keys take the exact path
    data = value.encode("utf-8")
    return data if 0 < len(data) <= limit else None


class ImportPlan:
    """What staging one table's items needs, looked up once: its key attributes, the index key attributes
    an item's values must suit, and its indexes (see the module docstring)."""

    def __init__(self, schema: TableSchema) -> None:
        self.schema = schema
        self.usable = not schema.has_vector_indexes
        self.hash = (schema.hash.name, schema.hash.type)
        self.range = None if schema.range is None else (schema.range.name, schema.range.type)
        self.index_checks = tuple(
            (check.name, check.type, MAX_HASH_KEY_BYTES if check.is_hash else MAX_RANGE_KEY_BYTES)
            for check in schema.index_key_checks
        )
        self.indexes = tuple(schema.indexes.values())

    def rows(self, seq: int, item: Item) -> Rows | None:
        """Item ``seq``'s staged rows, or None when the exact path must decide (see the module docstring).
        An accepted item's numbers are put in canonical form in place; a refused item is left as it was."""
        if not self.usable:
            return None
        numbers: Fixes = []
        size = item_size_as_is(item, numbers)
        if size < 0:
            return None
        keys = self._keys(item)
        if keys is None:
            return None
        pk, sk = keys
        for av, canonical in numbers:  # the item is accepted: now it may change (see item_size_as_is)
            av["N"] = canonical
        schema = self.schema
        crc32, blob = zlib.crc32, bytearray
        entries: list[tuple[Any, ...]] = []
        for index in self.indexes:
            entry = index_entry(schema, index, item)
            if entry is None:
                continue
            ipk, isk = entry
            if index.projected is None:  # ALL: the entry holds the item's own bytes (NULL here)
                entries.append((seq, index.index_id, crc32(ipk), blob(ipk), blob(isk), size, None))
            else:
                projected = schema.project_for_index(index, item)
                data = blob(dumps_item(projected))
                entries.append(
                    (seq, index.index_id, crc32(ipk), blob(ipk), blob(isk), item_size(projected), data)
                )
        return (seq, crc32(pk), blob(pk), blob(sk), size, blob(dumps_item(item))), entries

    def _keys(self, item: Item) -> tuple[bytes, bytes] | None:
        """The table key's bytes, when every key and index key attribute passes PutItem's key checks."""
        name, key_type = self.hash
        av = item.get(name)
        if av is None:
            return None
        pk = _key_bytes(av, key_type, MAX_HASH_KEY_BYTES)
        if pk is None:
            return None
        sk = b""
        if self.range is not None:
            name, key_type = self.range
            av = item.get(name)
            if av is None:
                return None
            found = _key_bytes(av, key_type, MAX_RANGE_KEY_BYTES)
            if found is None:
                return None
            sk = found
        for name, key_type, limit in self.index_checks:
            av = item.get(name)
            if av is not None and _key_bytes(av, key_type, limit) is None:
                return None
        return pk, sk
