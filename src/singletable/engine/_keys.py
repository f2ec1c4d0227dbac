"""Key attributes: their SQLite byte encoding and DynamoDB's key validation messages.

Keys are stored as BLOBs whose memcmp order is DynamoDB's sort order, so SQLite's index does the ordering:
S sorts by UTF-8 bytes, B by unsigned bytes, N numerically. A number encodes as one class byte (negative
0x00, zero 0x01, positive 0x02), the leading-digit exponent (offset so it fits one byte) and the significant
digits as ASCII. Negative numbers invert exponent and digits and end with 0xFF, so that a shorter digit run
(-1.2) sorts after a longer one sharing its prefix (-1.23).

Message texts differ by where the key value came from; each ``KeyContext`` documents its source. Where
DynamoDB Local 1.25.1 words a message differently from the real service, the AWS text is used and the Local
one is noted beside it.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from singletable.engine._errors import DynamoDBError, validation
from singletable.engine._numbers import MIN_EXPONENT, format_digits, normalize_number, split_canonical

MAX_HASH_KEY_BYTES = 2048
MAX_RANGE_KEY_BYTES = 1024

_NEGATIVE, _ZERO, _POSITIVE = 0x00, 0x01, 0x02
_ZERO_KEY = bytes((_ZERO,))
_END = 0xFF
_INVERT = bytes.maketrans(b"0123456789", b"9876543210")
_EXP_OFFSET = -MIN_EXPONENT  # exponents -130..125 -> 0..255


def encode_key(av: dict[str, Any], key_type: str) -> bytes:
    """Bytes of a (validated) key value whose memcmp order is DynamoDB's order for ``key_type``."""
    if key_type == "S":
        return av["S"].encode("utf-8")
    if key_type == "B":
        return bytes(av["B"])
    return encode_number(av["N"])


_encoded: dict[str, bytes] = {}


def encode_number(text: str) -> bytes:
    """Order-preserving bytes of a number (cached: the same key values recur on every request)."""
    data = _encoded.get(text)
    if data is None:
        if len(_encoded) >= 65536:
            _encoded.clear()
        data = _encoded[text] = _encode_number(text)
    return data


def _encode_number(text: str) -> bytes:
    canonical = normalize_number(text)
    if canonical == "0":
        return _ZERO_KEY
    negative, digits, leading = split_canonical(canonical)
    if negative:
        return (
            bytes((_NEGATIVE, 255 - (leading + _EXP_OFFSET)))
            + digits.encode("ascii").translate(_INVERT)
            + b"\xff"
        )
    return bytes((_POSITIVE, leading + _EXP_OFFSET)) + digits.encode("ascii")


# Multi-attribute keys (a global index with several HASH or RANGE attributes) are stored as one BLOB: each
# part's encoding with every 0x00 escaped as 0x00 0xFF, then 0x00 0x01 to end it. memcmp on the joined bytes
# is then the comparison of the parts one after another (a part that ends sorts before one that goes on,
# whatever byte follows), so SQLite orders entries as DynamoDB orders multi-attribute sort keys, and the keys
# that share their first parts are one contiguous range (``parts_end``).
_ESCAPED_ZERO = b"\x00\xff"
_PART_END = b"\x00\x01"


def join_key_parts(parts: list[bytes]) -> bytes:
    """The stored form of a multi-attribute key from its parts' :func:`encode_key` bytes, in key order."""
    return b"".join([part.replace(b"\x00", _ESCAPED_ZERO) + _PART_END for part in parts])


def parts_end(joined: bytes) -> bytes:
    """The least key above every key whose first parts are ``joined`` (a non-empty :func:`join_key_parts`
    result): its last terminator raised by one, so the range is ``joined <= key < parts_end(joined)``."""
    return joined[:-1] + b"\x02"


def index_key_bytes(parts: list[bytes]) -> bytes:
    """An index key's stored bytes: one attribute's own encoding, several joined (:func:`join_key_parts`)."""
    return parts[0] if len(parts) == 1 else join_key_parts(parts)


def decode_key(data: bytes, key_type: str) -> dict[str, Any]:
    """The AttributeValue :func:`encode_key` made ``data`` from (numbers in canonical form)."""
    if key_type == "S":
        return {"S": bytes(data).decode("utf-8")}
    if key_type == "B":
        return {"B": bytes(data)}
    return {"N": decode_number(data)}


def decode_number(data: bytes) -> str:
    kind = data[0]
    if kind == _ZERO:
        return "0"
    if kind == _POSITIVE:
        leading = data[1] - _EXP_OFFSET
        digits = bytes(data[2:]).decode("ascii")
    else:
        leading = 255 - data[1] - _EXP_OFFSET
        digits = bytes(data[2:-1]).translate(_INVERT).decode("ascii")
    return format_digits(kind == _NEGATIVE, digits, leading - len(digits) + 1)


class KeyContext(Enum):
    """Where a key value came from; DynamoDB words its key errors differently for each."""

    ITEM = "item"  # a table key attribute inside PutItem's Item (also transactional/batch puts)
    KEY = "key"  # the Key parameter of GetItem/DeleteItem/UpdateItem/BatchGetItem/TransactGet...
    QUERY = "query"  # a value compared with a key attribute in Query's KeyConditionExpression
    INDEX = "index"  # a secondary index key attribute inside an item being written


class KeyTypeMismatch(DynamoDBError):
    """A table or index key attribute given a value of another type (or a non-scalar).

    Its own class because a transaction does not fail on it: TransactWriteItems and TransactGetItems cancel
    with a ``ValidationError`` reason for that action (AWS's answer), and BatchWriteItem words a put item's
    mismatch as the Key's (``table_key`` tells a table key from an index key)."""

    def __init__(self, message: str, *, table_key: bool) -> None:
        super().__init__("ValidationException", message)
        self.table_key = table_key


KEY_SCHEMA_MISMATCH = "The provided key element does not match the schema"
QUERY_TYPE_MISMATCH = (
    "One or more parameter values were invalid: Condition parameter type does not match schema type"
)
MISSING_KEY = "One of the required keys was not given a value"
# AWS's texts. DynamoDB Local 1.25.1 says "Hash primary key values must be under 2048 bytes, and range
# primary key values must be under 1024 bytes" for both.
HASH_KEY_TOO_LARGE = (
    "One or more parameter values were invalid: "
    "Size of hashkey has exceeded the maximum size limit of2048 bytes"
)
RANGE_KEY_TOO_LARGE = (
    "One or more parameter values were invalid: "
    "Aggregated size of all range keys has exceeded the size limit of 1024 bytes"
)


def key_type_of(av: Any) -> str | None:
    """The single datatype of an AttributeValue, or None if it has not exactly one."""
    if not isinstance(av, dict):
        return None
    found = None
    for name, value in av.items():
        if value is not None and name in _ALL_TYPES:
            if found is not None:
                return None
            found = name
    return found


_ALL_TYPES = frozenset(("S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"))


def check_key_value(
    name: str,
    av: dict[str, Any],
    expected_type: str,
    *,
    is_hash: bool,
    context: KeyContext,
    index_name: str | None = None,
) -> None:
    """Raise DynamoDB's error if a key attribute value is of the wrong type, empty or too large.

    ``av`` must already have passed value validation (``validate_value``/``validate_item``), which is
    where DynamoDB reports malformed AttributeValues, before any key check. Messages by context:

    * ITEM (PutItem Item): ``Type mismatch for key {name} expected: {S} actual: {N}`` (AWS; DynamoDB Local
      says only "Type mismatch for key", and "Invalid attribute value type" for non-scalars).
    * KEY (GetItem etc. Key): "The provided key element does not match the schema" (AWS; Local as ITEM).
    * QUERY: "... Condition parameter type does not match schema type" (AWS and Local agree).
    * INDEX: ``Type mismatch for Index Key {name} Expected: S Actual: N IndexName: {index}`` (AWS; Local
      says only "Type mismatch for Index Key"). Callers skip absent index attributes (sparse indexes).
    * Empty S/B: "... cannot contain an empty string value. Key: {name}" and, for an index key, "... A value
      specified for a secondary index key is not supported ... IndexName: {index}, IndexKey: {name}"
      (verified on Local).
    * Too large: hash keys over 2048 bytes, range keys over 1024 bytes (AWS texts above); index keys
      ``Size limit exceeded for Index Key {name} Actual Size: {n} bytes Max Size: {max} bytes IndexName:
      {index}`` (AWS; Local says "One or more parameter values were invalid: Size limit exceeded").
    """
    checked_key_bytes(name, av, expected_type, is_hash=is_hash, context=context, index_name=index_name)


def checked_key_bytes(
    name: str,
    av: dict[str, Any],
    expected_type: str,
    is_hash: bool,
    context: KeyContext,
    index_name: str | None = None,
) -> bytes:
    """:func:`check_key_value`, returning :func:`encode_key`'s bytes: a string key is encoded once, for
    both its size check and its stored form.

    It runs for every key attribute of every item written (four per PutItem on a table with one GSI), so
    the usual case -- exactly the expected type, a size within the limit -- takes as few steps as it can,
    and ``is_hash`` and ``context`` may be passed by position (a call by keyword costs more)."""
    # The usual shape (exactly the expected type) skips key_type_of's counting loop.
    value = av.get(expected_type) if type(av) is dict and len(av) == 1 else None
    if value is None:
        actual = key_type_of(av)
        if actual != expected_type:
            raise _type_mismatch(name, expected_type, actual or "?", context, index_name)
        value = av[expected_type]
    if expected_type == "S":
        data = value.encode("utf-8")
    elif expected_type == "N":
        return encode_number(value)
    else:
        data = bytes(value)
    if 0 < len(data) <= (MAX_HASH_KEY_BYTES if is_hash else MAX_RANGE_KEY_BYTES):
        return data
    raise _bad_size(name, expected_type, len(data), is_hash, context, index_name)


def _bad_size(
    name: str, key_type: str, size: int, is_hash: bool, context: KeyContext, index_name: str | None
) -> DynamoDBError:
    """The error for an empty key value, or one over its limit (see :func:`check_key_value`)."""
    if size == 0:
        kind = "string" if key_type == "S" else "binary"
        if context is KeyContext.INDEX:
            return validation(
                "One or more parameter values are not valid. A value specified for a secondary index key "
                "is not supported. The AttributeValue for a key attribute cannot contain an empty "
                f"{kind} value. IndexName: {index_name}, IndexKey: {name}"
            )
        return validation(
            "One or more parameter values are not valid. The AttributeValue for a key attribute cannot "
            f"contain an empty {kind} value. Key: {name}"
        )
    limit = MAX_HASH_KEY_BYTES if is_hash else MAX_RANGE_KEY_BYTES
    if context is KeyContext.INDEX:
        return validation(
            f"One or more parameter values were invalid: Size limit exceeded for Index Key {name} "
            f"Actual Size: {size} bytes Max Size: {limit} bytes IndexName: {index_name}"
        )
    return validation(HASH_KEY_TOO_LARGE if is_hash else RANGE_KEY_TOO_LARGE)


def _type_mismatch(
    name: str, expected: str, actual: str, context: KeyContext, index_name: str | None
) -> DynamoDBError:
    if context is KeyContext.KEY:
        return KeyTypeMismatch(KEY_SCHEMA_MISMATCH, table_key=True)
    if context is KeyContext.QUERY:
        return validation(QUERY_TYPE_MISMATCH)
    if context is KeyContext.INDEX:
        return KeyTypeMismatch(
            f"One or more parameter values were invalid: Type mismatch for Index Key {name} "
            f"Expected: {expected} Actual: {actual} IndexName: {index_name}",
            table_key=False,
        )
    return KeyTypeMismatch(
        f"One or more parameter values were invalid: Type mismatch for key {name} "
        f"expected: {expected} actual: {actual}",
        table_key=True,
    )
