"""AttributeValues: validation with DynamoDB's exact messages, item size, and storage serialization.

Items are boto3-client-shaped dicts (``{"S": "x"}``, ``{"N": "42.5"}``, ``{"B": b"..."}`` ...). Validation is
one depth-first pass in input order, because DynamoDB reports the first problem it meets that way (an invalid
number before a too-deep list that follows it, a too-deep list before a bad value nested inside it).

Python values of the wrong type (``{"S": 1}``) are what AWS rejects while deserializing the request, so they
raise ``SerializationException`` (DynamoDB Local instead coerces them, e.g. stores ``{"S": "1"}``; its JSON
layer is not the service's). The SerializationException texts imitate AWS's wording and are not verified.

Numbers, keys and their messages live in :mod:`numbers` and :mod:`keys`; they are re-exported here so the
operations code has one import.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable
from enum import Enum
from typing import Any

from singletable.engine._errors import EAV_PREFIX, DynamoDBError, ValueProblem, validation
from singletable.engine._keys import (
    HASH_KEY_TOO_LARGE,
    KEY_SCHEMA_MISMATCH,
    MAX_HASH_KEY_BYTES,
    MAX_RANGE_KEY_BYTES,
    MISSING_KEY,
    QUERY_TYPE_MISMATCH,
    RANGE_KEY_TOO_LARGE,
    KeyContext,
    check_key_value,
    decode_key,
    encode_key,
    key_type_of,
)
from singletable.engine._numbers import NOT_NUMERIC, normalize_number, number_size, number_value
from singletable.engine._serialization import dumps_item, loads_item, wire_fragment
from singletable.engine._set_order import ordered_members
from singletable.engine._sizes import (
    ITEM_TOO_LARGE,
    MAX_ITEM_SIZE,
    SIZED_NUMBERS,
    check_item_size,
    item_size,
    sized_number,
    value_size,
)

__all__ = [
    "HASH_KEY_TOO_LARGE",
    "ITEM_TOO_LARGE",
    "KEY_SCHEMA_MISMATCH",
    "MAX_CONTAINER_DEPTH",
    "MAX_HASH_KEY_BYTES",
    "MAX_ITEM_SIZE",
    "MAX_RANGE_KEY_BYTES",
    "MISSING_KEY",
    "QUERY_TYPE_MISMATCH",
    "RANGE_KEY_TOO_LARGE",
    "KeyContext",
    "ValueContext",
    "check_item_size",
    "check_key_value",
    "decode_key",
    "dumps_item",
    "encode_key",
    "item_size",
    "key_type_of",
    "loads_item",
    "normalize_number",
    "number_size",
    "number_value",
    "validate_item",
    "validate_item_sized",
    "validate_value",
    "value_depth",
    "value_size",
    "wire_fragment",
]


EMPTY = "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
MULTIPLE = (
    "Supplied AttributeValue has more than one datatypes set, "
    "must contain exactly one of the supported datatypes"
)
NULL_NOT_TRUE = (
    "One or more parameter values were invalid: Null attribute value types must have the value of true"
)
NULL_VALUE = "The supplied Item contains a null AttributeValue"
EMPTY_NAME = "Empty attribute name"
NAME_TOO_LARGE = "Attribute name is too large, must be less than 65536 bytes"
MAX_NAME_BYTES = 65535
# A name of at most this many characters cannot exceed MAX_NAME_BYTES (UTF-8 takes at most 4 per character).
_SHORT_NAME_CHARS = MAX_NAME_BYTES // 4
EMPTY_SS = "One or more parameter values were invalid: An string set  may not be empty"  # sic, two spaces
EMPTY_NS = "One or more parameter values were invalid: An number set  may not be empty"  # sic
EMPTY_BS = "One or more parameter values were invalid: Binary sets should not be empty"
NULL_IN_SS = "One or more parameter values were invalid: An string set may not have a null string as a member"
INVALID = "One or more parameter values were invalid: "
# A number set's repeat names no members: bare in the older layer, prefixed and with a full stop in the newer.
NS_DUPLICATES = "Input collection contains duplicates"
NS_DUPLICATES_CURRENT = f"{INVALID}Input collection contains duplicates."
TOO_DEEP = (
    "Nesting Levels have exceeded supported limits: "
    "Attributes in the item have nested levels beyond supported limit"
)


class ValueContext(Enum):
    """Where an AttributeValue came from; it decides the wording and the nesting limit.

    ITEM: PutItem's Item (and items of BatchWriteItem/TransactWriteItems). KEY: a Key parameter; its
    messages are the ITEM ones. EAV: ExpressionAttributeValues, whose messages read
    "ExpressionAttributeValues contains invalid value: {message} for key {:name}" and which allow one more
    level of nesting (an EAV is not inside an item map).
    """

    ITEM = "item"
    KEY = "key"
    EAV = "eav"


# Containers (M/L) allowed on the deepest path: 31 inside an item's attribute, 32 for an EAV. Chosen with
# ``context is ValueContext.EAV``, not by a dict keyed by context: hashing an Enum member runs
# Enum.__hash__, a Python call, on every item and key validated.
_ITEM_DEPTH, _EAV_DEPTH = 31, 32
MAX_CONTAINER_DEPTH = _ITEM_DEPTH  # the most containers an attribute of a stored item may nest
_TYPES = frozenset(("S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"))


def _serialization(message: str) -> DynamoDBError:
    return DynamoDBError("SerializationException", message)


def _wrong_type(value: Any, wanted: str) -> DynamoDBError:
    if isinstance(value, dict):
        return _serialization("Start of structure or map found where not expected.")
    if isinstance(value, (list, tuple)):
        return _serialization("Start of list found where not expected")
    if isinstance(value, bool):
        token = "TRUE_VALUE" if value else "FALSE_VALUE"
    elif isinstance(value, (int, float)):
        token = "NUMBER_VALUE"
    elif isinstance(value, str):
        token = "STRING_VALUE"
    else:
        return _serialization("Unexpected value type in payload")
    return _serialization(f"{token} cannot be converted to {wanted}")


def validate_item(item: dict[str, Any], *, context: ValueContext = ValueContext.ITEM) -> dict[str, Any]:
    """Check a whole item (PutItem's Item) and return it with numbers in canonical form.

    Raises the first error DynamoDB would report. Key attributes are checked separately
    (:func:`check_key_value`), after :func:`check_item_size` -- DynamoDB's own order.
    """
    if not isinstance(item, dict):
        raise _wrong_type(item, "Map")
    try:
        return _check_item(item, _EAV_DEPTH if context is ValueContext.EAV else _ITEM_DEPTH)
    except DynamoDBError as error:
        raise _whole_request_error(error, item) from None


def validate_item_sized(
    item: dict[str, Any], *, context: ValueContext = ValueContext.ITEM
) -> tuple[dict[str, Any], int]:
    """:func:`validate_item` and :func:`item_size` in one walk: the write path needs both for every item.

    Same errors, in the same order, as ``validate_item`` (the size is only looked at once the whole item
    is valid, as DynamoDB does).
    """
    if not isinstance(item, dict):
        raise _wrong_type(item, "Map")
    try:
        return _check_item_sized(item, _EAV_DEPTH if context is ValueContext.EAV else _ITEM_DEPTH)
    except DynamoDBError as error:
        raise _whole_request_error(error, item) from None


def _whole_request_error(error: DynamoDBError, item: Any) -> DynamoDBError:
    """The error a whole item's check reports: AWS deserializes the whole request before validating it, so
    a wrong Python type anywhere in the item (raised from here) wins over the ``error`` the check found.
    (The two checks call this only on their error path: their own calls stay as cheap as one call can be.)"""
    if error.code == "ValidationException":
        _scan_types(item)
    return error


def _check_item_sized(item: dict[str, Any], limit: int) -> tuple[dict[str, Any], int]:
    out: dict[str, Any] = {}
    total = 0
    for name, av in item.items():
        # A single-type S value under a short ASCII name, the most common attribute, in as few steps as
        # possible (this loop runs for every attribute of every write); anything else takes the checks below.
        if (
            type(av) is dict
            and len(av) == 1
            and type(name) is str
            and 0 < len(name) <= MAX_NAME_BYTES
            and name.isascii()
        ):
            value = av.get("S")
            if type(value) is str and value.isascii():
                # The value is exactly {"S": str}: kept as given rather than copied (nothing changes an
                # item's values in place once validated; stored items are fresh from their JSON).
                out[name] = av
                total += len(name) + len(value)
                continue
            value = av.get("N")
            if type(value) is str:  # exactly {"N": str}: the number's own checks, as _check_sized's
                canonical, size = SIZED_NUMBERS.get(value) or sized_number(value)
                out[name] = av if canonical == value else {"N": canonical}
                total += len(name) + size
                continue
        if av is None:
            raise validation(f"{NULL_VALUE}: {name} is null")
        value = av.get("S") if type(av) is dict and len(av) == 1 else None
        if type(value) is str:
            out[name] = {"S": value}
            size = len(value) if value.isascii() else len(value.encode("utf-8"))
        else:
            out[name], size = _check_sized(av, 1, limit)
        if type(name) is not str:
            raise _wrong_type(name, "String")
        if not name:
            raise validation(EMPTY_NAME)
        name_bytes = len(name) if name.isascii() else len(name.encode("utf-8"))
        if name_bytes > MAX_NAME_BYTES:
            raise validation(NAME_TOO_LARGE)
        total += name_bytes + size
    return out, total


def _check_sized(av: Any, level: int, limit: int) -> tuple[dict[str, Any], int]:
    """:func:`_check` plus :func:`value_size` of the result.

    The common single-type S/N/M/L values are handled inline, mirroring their ``_check_*`` functions
    check for check; anything else takes the general path and is sized afterwards.
    """
    # The one member found by looking each type up: iterating a one-member dict's items() cost more.
    if type(av) is dict and len(av) == 1:
        value = av.get("S")
        if value is not None:
            if type(value) is str:
                return {"S": value}, (len(value) if value.isascii() else len(value.encode("utf-8")))
        elif (value := av.get("N")) is not None:
            if type(value) is str:
                canonical, size = SIZED_NUMBERS.get(value) or sized_number(value)
                return {"N": canonical}, size
        elif (value := av.get("M")) is not None:
            if type(value) is dict and level <= limit:
                return _check_map_sized(value, level, limit)
        elif (
            (value := av.get("L")) is not None
            and (type(value) is list or type(value) is tuple)
            and level <= limit
        ):
            elements = []
            size = 3
            for member in value:
                if member is None:
                    raise validation(NULL_VALUE)
                element, member_size = _check_sized(member, level + 1, limit)
                elements.append(element)
                size += 1 + member_size
            return {"L": elements}, size
    out = _check(av, level, limit)
    return out, value_size(out)


def _check_map_sized(value: dict[str, Any], level: int, limit: int) -> tuple[dict[str, Any], int]:
    """:func:`_check_m` (whose type and depth checks the caller made) plus the map's size."""
    members: dict[str, Any] = {}
    size = 3
    for name, member in value.items():
        if type(member) is dict and len(member) == 1:  # {"S": str} under a short ASCII name, as above
            text = member.get("S")
            if (
                type(text) is str
                and type(name) is str
                and 0 < len(name) <= MAX_NAME_BYTES
                and name.isascii()
                and text.isascii()
            ):
                members[name] = member
                size += 1 + len(name) + len(text)
                continue
        if member is None:
            raise validation(f"{NULL_VALUE}: {name} is null")
        members[name], member_size = _check_sized(member, level + 1, limit)
        if type(name) is not str:
            raise _wrong_type(name, "String")
        if not name:
            raise validation(EMPTY_NAME)
        name_bytes = len(name) if name.isascii() else len(name.encode("utf-8"))
        if name_bytes > MAX_NAME_BYTES:
            raise validation(NAME_TOO_LARGE)
        size += 1 + name_bytes + member_size
    return {"M": members}, size


def _check_item(item: dict[str, Any], limit: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, av in item.items():
        if av is None:
            raise validation(f"{NULL_VALUE}: {name} is null")
        out[name] = _check(av, 1, limit)
        if type(name) is not str:
            raise _wrong_type(name, "String")
        if not name:
            raise validation(EMPTY_NAME)
        if len(name) > _SHORT_NAME_CHARS:
            _check_name_bytes(name)
    return out


# Past this many nested containers AWS reads a request in its older layer, whatever the operation: a PutItem
# item nested 63 levels is refused bare where one nested 61 levels is refused inside the envelope.
OLDER_LAYER_DEPTH = 62


def too_deep(level: int, container: Any) -> ValueProblem:
    """The refusal of a container found at ``level``, past the nesting limit."""
    deepest = level - 1 + value_depth(container)
    return ValueProblem(TOO_DEEP, TOO_DEEP, older_everywhere=deepest > OLDER_LAYER_DEPTH)


def value_depth(value: Any) -> int:
    """How many containers (maps and lists) deep a value's deepest path is, counting the value's own; without
    recursion, so no request can exhaust the stack."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        members: Iterable[Any]
        if isinstance(node, dict):
            members = node.values()
        elif isinstance(node, (list, tuple)):
            members = node
        else:
            continue
        deepest = max(deepest, depth)
        for member in members:
            if isinstance(member, dict):
                for kind, inner in member.items():
                    if kind in ("M", "L") and isinstance(inner, (dict, list, tuple)):
                        stack.append((inner, depth + 1))
    return deepest


def _check_name_bytes(name: str) -> None:
    """An attribute name (top-level or a map key) may take at most 65,535 bytes of UTF-8."""
    if len(name.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        raise validation(NAME_TOO_LARGE)


def validate_value(
    av: Any, *, context: ValueContext = ValueContext.EAV, name: str | None = None
) -> dict[str, Any]:
    """Check one AttributeValue and return it normalized; ``name`` is its EAV placeholder or attribute.

    For ValueContext.EAV every ValidationException message is wrapped as DynamoDB does:
    ``ExpressionAttributeValues contains invalid value: {message} for key {name}``.
    """
    try:
        if av is None:
            raise validation(NULL_VALUE if context is ValueContext.EAV else f"{NULL_VALUE}: {name} is null")
        return _check(av, 1, _EAV_DEPTH if context is ValueContext.EAV else _ITEM_DEPTH)
    except DynamoDBError as error:
        if error.code != "ValidationException":
            raise
        _scan_value(av)
        if context is not ValueContext.EAV:
            raise
        if isinstance(error, ValueProblem):
            raise error.for_expression_value(name) from None
        raise validation(f"{EAV_PREFIX}{error.message} for key {name}") from None


def _check(av: Any, level: int, limit: int) -> dict[str, Any]:
    """Validate ``av`` found at nesting ``level`` (1 = an attribute of the item); return it normalized.

    DynamoDB validates the content of every datatype present before it counts them, in the order S, SS, N,
    NS, B, BS, M, L, NULL, BOOL: ``{"NULL": false, "S": ""}`` fails on NULL, not on having two types.
    """
    if type(av) is not dict:
        raise _wrong_type(av, "AttributeValue")
    if len(av) == 1:  # the usual shape: skip the counting loop
        for kind, value in av.items():
            check = _CHECKS.get(kind)
            if check is not None and value is not None:
                return check(value, level, limit)
    kind = None
    value = None
    count = 0
    for key, candidate in av.items():
        if candidate is not None and key in _TYPES:
            kind, value = key, candidate
            count += 1
    if count == 1:
        return _CHECKS[kind](value, level, limit)
    if count == 0:
        raise validation(EMPTY)
    for key in _ORDER:
        candidate = av.get(key)
        if candidate is not None:
            _CHECKS[key](candidate, level, limit)
    raise validation(MULTIPLE)


def _check_s(value: Any, level: int, limit: int) -> dict[str, Any]:
    if type(value) is not str:
        raise _wrong_type(value, "String")
    return {"S": value}


def _check_n(value: Any, level: int, limit: int) -> dict[str, Any]:
    if type(value) is not str:
        raise _wrong_type(value, "String")
    return {"N": normalize_number(value)}


def _check_b(value: Any, level: int, limit: int) -> dict[str, Any]:
    return {"B": _blob(value)}


def _check_bool(value: Any, level: int, limit: int) -> dict[str, Any]:
    if type(value) is not bool:
        raise _wrong_type(value, "Boolean")
    return {"BOOL": value}


def _check_null(value: Any, level: int, limit: int) -> dict[str, Any]:
    if type(value) is not bool:
        raise _wrong_type(value, "Boolean")
    if not value:
        raise validation(NULL_NOT_TRUE)
    return {"NULL": True}


def _check_m(value: Any, level: int, limit: int) -> dict[str, Any]:
    if type(value) is not dict:
        raise _wrong_type(value, "Map")
    if level > limit:
        raise too_deep(level, value)
    members: dict[str, Any] = {}
    for name, member in value.items():
        # Per entry: a null value, then the value's own errors, then an empty name.
        if member is None:
            raise validation(f"{NULL_VALUE}: {name} is null")
        members[name] = _check(member, level + 1, limit)
        if type(name) is not str:
            raise _wrong_type(name, "String")
        if not name:
            raise validation(EMPTY_NAME)
        if len(name) > _SHORT_NAME_CHARS:
            _check_name_bytes(name)
    return {"M": members}


def _check_l(value: Any, level: int, limit: int) -> dict[str, Any]:
    if type(value) is not list and type(value) is not tuple:
        raise _wrong_type(value, "List")
    if level > limit:
        raise too_deep(level, value)
    elements = []
    for member in value:
        if member is None:
            raise validation(NULL_VALUE)
        elements.append(_check(member, level + 1, limit))
    return {"L": elements}


def _check_ss(value: Any, level: int, limit: int) -> dict[str, Any]:
    if type(value) is not list and type(value) is not tuple:
        raise _wrong_type(value, "List")
    return {"SS": _string_set(value)}


def _check_ns(value: Any, level: int, limit: int) -> dict[str, Any]:
    if type(value) is not list and type(value) is not tuple:
        raise _wrong_type(value, "List")
    return {"NS": _number_set(value)}


def _check_bs(value: Any, level: int, limit: int) -> dict[str, Any]:
    if type(value) is not list and type(value) is not tuple:
        raise _wrong_type(value, "List")
    return {"BS": _binary_set(value)}


_CHECKS = {
    "S": _check_s,
    "N": _check_n,
    "B": _check_b,
    "BOOL": _check_bool,
    "NULL": _check_null,
    "M": _check_m,
    "L": _check_l,
    "SS": _check_ss,
    "NS": _check_ns,
    "BS": _check_bs,
}
_ORDER = ("S", "SS", "N", "NS", "B", "BS", "M", "L", "NULL", "BOOL")


def _scan_types(item: Any) -> None:
    """Raise the SerializationException of the first wrongly typed Python value anywhere in an item."""
    if not isinstance(item, dict):
        raise _wrong_type(item, "Map")
    for name, av in item.items():
        if type(name) is not str:
            raise _wrong_type(name, "String")
        _scan_value(av)


_SCALAR_TYPES: dict[str, tuple[type, ...]] = {
    "S": (str,),
    "N": (str,),
    "BOOL": (bool,),
    "NULL": (bool,),
    "B": (bytes, bytearray, memoryview, str),
}


def _scan_value(av: Any) -> None:
    if av is None:
        return
    if type(av) is not dict:
        raise _wrong_type(av, "AttributeValue")
    for kind, value in av.items():
        if value is None or kind not in _TYPES:
            continue
        if kind in _SCALAR_TYPES:
            if type(value) not in _SCALAR_TYPES[kind]:
                _CHECKS[kind](value, 0, 0)
        elif kind == "M":
            if type(value) is not dict:
                raise _wrong_type(value, "Map")
            _scan_types(value)
        elif type(value) is not list and type(value) is not tuple:
            raise _wrong_type(value, "List")
        elif kind == "L":
            for member in value:
                _scan_value(member)
        else:
            wanted = (bytes, bytearray, memoryview, str) if kind == "BS" else (str,)
            for member in value:
                if member is not None and type(member) not in wanted:
                    raise _wrong_type(member, "Blob" if kind == "BS" else "String")


def _blob(value: Any) -> bytes:
    if type(value) is bytes:
        return value
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, str):  # botocore sends a str given for a blob as its UTF-8 bytes
        return value.encode("utf-8")
    raise _wrong_type(value, "Blob")


def _string_set(values: list[Any] | tuple[Any, ...]) -> list[str]:
    if not values:
        raise validation(EMPTY_SS)
    for value in values:
        if value is not None and type(value) is not str:
            raise _wrong_type(value, "String")
    if len(set(values)) != len(values):
        older = ", ".join("null" if v is None else str(v) for v in values)
        current = ", ".join("null" if v is None else f'"{v}"' for v in _repeat_first(values, _utf8))
        raise ValueProblem(
            f"{INVALID}Input collection [{older}] contains duplicates.",
            f"{INVALID}Input collection [{current}] contains duplicates.",
        )
    for value in values:
        if value is None:
            raise validation(NULL_IN_SS)
    return ordered_members("SS", list(values))


def _number_set(values: list[Any] | tuple[Any, ...]) -> list[str]:
    if not values:
        raise validation(EMPTY_NS)
    seen: set[str] = set()
    out = []
    for value in values:
        if value is None:
            raise ValueProblem(NOT_NUMERIC, NOT_NUMERIC)
        if type(value) is not str:
            raise _wrong_type(value, "String")
        canonical = normalize_number(value)
        if canonical in seen:
            raise ValueProblem(NS_DUPLICATES, NS_DUPLICATES_CURRENT)
        seen.add(canonical)
        out.append(canonical)
    return ordered_members("NS", out)


def _binary_set(values: list[Any] | tuple[Any, ...]) -> list[bytes]:
    if not values:
        raise validation(EMPTY_BS)
    blobs = [None if v is None else _blob(v) for v in values]
    if len(set(blobs)) != len(blobs):
        older = ", ".join(_base64(b) for b in blobs)
        current = ",".join(f'"{_base64(b)}"' for b in _repeat_first(blobs, _blob_order))
        raise ValueProblem(
            f"{INVALID}Input collection [{older}]of type BS contains duplicates.",
            f"{INVALID}Input collection [{current}]of type BS contains duplicates.",
        )
    if None in blobs:
        raise validation(NULL_VALUE)
    return ordered_members("BS", blobs)


def _utf8(value: str | None) -> bytes:
    return b"" if value is None else value.encode("utf-8", "surrogatepass")


def _blob_order(value: bytes | None) -> bytes:
    return b"" if value is None else value


def _base64(value: bytes | None) -> str:
    return "null" if value is None else base64.b64encode(value).decode("ascii")


def _repeat_first(values: Any, order: Any) -> list[Any]:
    """A set's members as DynamoDB's newer layer lists them in a duplicates message: the members before
    the first repeat in byte order, then the repeat, then the rest as sent (it collects members into a
    sorted set until one is already there)."""
    seen: set[Any] = set()
    for position, value in enumerate(values):
        if value in seen:
            return [*sorted(values[:position], key=order), *values[position:]]
        seen.add(value)
    return list(values)
