"""SearchVectors' strict request reader: the errors DynamoDB's newer front end gives a malformed body.

SearchVectors reads its body with a strict deserializer before any member is validated: a required member
given as JSON ``null`` or with a value of the wrong JSON type is a SerializationException quoting the
deserializer (``invalid type: null, expected a string at line 1 column 31``), and a missing required member
is a ValidationException naming the field (``missing field `TableName` at line 1 column 52``) -- not the
``1 validation error detected`` wording of the older operations. Positions are line and column in the body,
the column counting the characters up to the end of the offending value (for a missing field, of the body).
Optional members given as ``null`` are simply absent.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

from singletable._protocol.wire_json import serialization_error
from singletable.engine import DynamoDBError

# SearchVectors' required members, in the order the reader reports them missing, with what it expects.
_REQUIRED = (
    ("TableName", "a string"),
    ("IndexName", "a string"),
    ("SearchVector", "a sequence"),
    ("TopK", "i32"),
)
_I32 = range(-(2**31), 2**31)


def _position(text: str, end: int) -> str:
    line = text.count("\n", 0, end) + 1
    column = end - (text.rfind("\n", 0, end) + 1)
    return f"at line {line} column {column}"


def _found(value: Any) -> str:
    """How the reader names a JSON value of the wrong type."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean `{'true' if value else 'false'}`"
    if isinstance(value, int):
        return f"integer `{value}`"
    if isinstance(value, float):
        return f"floating point `{value}`"
    if isinstance(value, str):
        return f"string {orjson.dumps(value).decode()}"
    if isinstance(value, list):
        return "sequence"
    return "map"


def _fits(value: Any, expected: str) -> bool:
    if expected == "a string":
        return isinstance(value, str)
    if expected == "a sequence":
        return isinstance(value, list)
    return isinstance(value, int) and not isinstance(value, bool) and value in _I32


def _value_end(text: str, name: str) -> int:
    """Where the value of top-level member ``name`` ends in the body (best effort: the end of the body)."""
    match = re.search(r'"' + re.escape(name) + r'"\s*:\s*', text)
    if match is None:
        return len(text)
    try:
        return json.JSONDecoder().raw_decode(text, match.end())[1]
    except ValueError:
        return len(text)


def check_search_vectors_body(body: bytes, params: dict[str, Any]) -> None:
    """Refuse a SearchVectors body as its strict reader would (see the module docstring)."""
    expected = dict(_REQUIRED)
    text = body.decode("utf-8", "replace")
    for name, value in params.items():  # in the body's order
        wanted = expected.get(name)
        if wanted is None or _fits(value, wanted):
            continue
        if isinstance(value, int) and not isinstance(value, bool) and wanted == "i32":
            message = f"invalid value: integer `{value}`, expected i32"
        else:
            message = f"invalid type: {_found(value)}, expected {wanted}"
        raise serialization_error(f"{message} {_position(text, _value_end(text, name))}")
    for name, _wanted in _REQUIRED:
        if name not in params:
            end = len(text.rstrip())
            raise DynamoDBError("ValidationException", f"missing field `{name}` {_position(text, end)}")
