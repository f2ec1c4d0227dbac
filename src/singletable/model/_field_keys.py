"""Index keys declared by field: a GSI keyed on up to four typed attributes per part, each an entity field.

DynamoDB lets a global secondary index key on up to four partition (HASH) and four sort (RANGE) attributes,
each of its own type (S, N or B), instead of one string glued together from several values
(``TENANT#t#STATUS#s``). ``GSI("byTenantStatus", pk=["tenant", "status"], sk=["created_at", "id"])`` declares
one: each name is an entity field, stored under its attribute (the table's naming turns ``created_at`` into
``createdAt``) as its own typed value. Nothing is rendered or parsed: the item is in the index exactly while
every one of those attributes holds a value, which DynamoDB decides on every write; the model only sees
that each such field holds a type a key can hold and never an empty string, and queries it with typed
conditions (equality on every partition field, sort fields left to right, a range on the last one given).

This module holds the declaration's checks, which need no entity; binding to entities happens in
:mod:`singletable.model._entity` and querying in :mod:`singletable.model._field_key_queries`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from singletable.model._errors import DeclarationError

MAX_KEY_ATTRIBUTES = 4  # DynamoDB: at most four HASH and four RANGE attributes in a GSI's KeySchema
KEY_TYPES = ("S", "N", "B")


class KeyPart(NamedTuple):
    """One attribute of a key declared by field: the field's name, its attribute (set by the ``Table``,
    from its naming) and its type (None until an entity's field of that name gives it, or as declared)."""

    field: str
    attribute: str
    type: str | None


def field_key_parts(index: str, spec: Any, role: str) -> tuple[KeyPart, ...]:
    """The parts of ``pk=[...]`` or ``sk=[...]``: field names, or ``(field, "S" | "N" | "B")`` pairs."""
    if spec is None:
        return ()
    if not isinstance(spec, list | tuple) or (
        isinstance(spec, tuple) and len(spec) == 2 and spec[1] in KEY_TYPES
    ):
        raise DeclarationError(
            f"GSI {index}: give {role} as a list of fields, like the other key (pk=['tenant', 'status'], "
            f"sk=['created_at']), not {spec!r}; a key of fields and a key attribute by name do not mix"
        )
    parts: list[KeyPart] = []
    for element in spec:
        name, kind = element if isinstance(element, tuple) and len(element) == 2 else (element, None)
        if not isinstance(name, str) or not name.isidentifier():
            raise DeclarationError(
                f"GSI {index}: {role}={list(spec)!r} takes field names or (field, type) pairs; "
                f"{element!r} is neither"
            )
        if kind is not None and kind not in KEY_TYPES:
            raise DeclarationError(
                f"GSI {index}: {role} field {name} has type {kind!r}; a key attribute is S, N or B"
            )
        parts.append(KeyPart(name, "", kind))
    if len(parts) > MAX_KEY_ATTRIBUTES:
        raise DeclarationError(
            f"GSI {index}: {role} names {len(parts)} fields ({', '.join(p.field for p in parts)}); DynamoDB "
            f"keys an index on at most {MAX_KEY_ATTRIBUTES} partition and {MAX_KEY_ATTRIBUTES} sort "
            "attributes"
        )
    return tuple(parts)


def check_field_key(index: str, hash_parts: tuple[KeyPart, ...], range_parts: tuple[KeyPart, ...]) -> None:
    """A partition key of at least one field, and no field twice (DynamoDB refuses a KeySchema naming an
    attribute twice, and a value cannot both select a partition and order it)."""
    if not hash_parts:
        raise DeclarationError(f"GSI {index}: pk=[] names no field; a partition key needs at least one")
    seen: dict[str, str] = {}
    for role, parts in (("pk", hash_parts), ("sk", range_parts)):
        for part in parts:
            if part.field in seen:
                where = f"twice in {role}" if seen[part.field] == role else "in both pk and sk"
                raise DeclarationError(
                    f"GSI {index}: field {part.field} is {where}; each key attribute appears once"
                )
            seen[part.field] = role


def named(parts: Iterable[KeyPart], attribute_name: Any) -> tuple[KeyPart, ...]:
    """The parts with their attributes, from the table's naming."""
    return tuple(p._replace(attribute=attribute_name(p.field)) for p in parts)


# What a field-keyed attribute can hold: the codec kinds stored as S, N or B.
STORABLE = {"S": "S", "DT": "S", "N": "N", "TTL": "N", "B": "B"}


def key_type_of(codec_kind: str) -> str | None:
    """The key type a field of this codec kind is stored as; None when a key cannot hold it."""
    return STORABLE.get(codec_kind)


def empty_key_value(value: Any) -> bool:
    """Whether a value would be stored as an empty string or binary, which no key attribute may hold."""
    return isinstance(value, str | bytes | bytearray) and len(value) == 0
