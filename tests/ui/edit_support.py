"""What the editing tests share: hypothesis strategies for items of every DynamoDB type (the values the
editors must carry through unchanged), and opening an item's forms as a browser would."""

from __future__ import annotations

import itertools
import json
import os
from decimal import Decimal
from typing import Any

from hypothesis import strategies as st
from ui_support import Client

# Attribute and map member names, including those that spell a DynamoDB type (the plain-JSON editor
# must tell a map {"S": ...} from a typed value).
TYPE_NAMES = ["S", "N", "B", "SS", "NS", "BS", "BOOL", "NULL", "L", "M"]
KEYS = {"PK", "SK", "entityType", "GSI1PK", "GSI1SK"}
_serial = itertools.count()


def unique(prefix: str) -> str:
    """A partition key no other example, test or process uses."""
    return f"{prefix}-{next(_serial)}-{os.getpid()}"


def _number(digits: int, exponent: int) -> str | None:
    number = Decimal(digits).scaleb(exponent)
    if number != 0 and not -129 <= number.adjusted() <= 125:
        return None
    return str(number)


# DynamoDB numbers: up to 38 significant digits, magnitude 1E-130 to 9.99E+125; the edges named.
EDGE_NUMBERS = [
    "0",
    "-1",
    "0.5",
    "1.0000000000000000000000000000000000001",
    "12345678901234567890123456789012345678",
    "1E+125",
    "-9.9999999999999999999999999999999999999E+125",
    "1E-129",
]
numbers = st.one_of(
    st.sampled_from(
        [
            "0",
            "-1",
            "1.0000000000000000000000000000000000001",
            "1E+125",
            "-9.9999999999999999999999999999999999999E+125",
            "1E-129",
            "12345678901234567890123456789012345678",
            "0.5",
        ]
    ),
    st.builds(_number, st.integers(-(10**38) + 1, 10**38 - 1), st.integers(-140, 100)).filter(bool),
)
names = st.one_of(st.sampled_from(TYPE_NAMES), st.text(min_size=1, max_size=8)).filter(
    lambda n: n not in KEYS
)
texts = st.text(max_size=12)
binaries = st.binary(max_size=8)


def _distinct_numbers(values: list[str]) -> list[str]:
    seen: dict[Decimal, str] = {}
    for value in values:
        seen.setdefault(Decimal(value), value)
    return list(seen.values())


scalars = st.one_of(
    texts.map(lambda s: {"S": s}),
    numbers.map(lambda n: {"N": n}),
    binaries.map(lambda b: {"B": b}),
    st.booleans().map(lambda b: {"BOOL": b}),
    st.just({"NULL": True}),
    st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=4, unique=True).map(lambda v: {"SS": v}),
    st.lists(numbers, min_size=1, max_size=4).map(_distinct_numbers).map(lambda v: {"NS": v}),
    st.lists(st.binary(min_size=1, max_size=4), min_size=1, max_size=3, unique=True).map(lambda v: {"BS": v}),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda v: {"L": v}),
        st.dictionaries(names, inner, max_size=3).map(lambda v: {"M": v}),
    ),
    max_leaves=8,
)
attributes = st.dictionaries(names, values, max_size=6)


def loads(text: str) -> Any:
    """JSON text with its numbers digit for digit (``Decimal``), as the console reads it."""
    return json.loads(text, parse_float=Decimal)


def dumps(value: Any) -> str:
    """JSON text with ``Decimal`` numbers written digit for digit (``json.dumps`` cannot)."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(dumps(v) for v in value) + "]"
    return json.dumps(value)


def open_form(client: Client, table: str, key: dict[str, Any], form_id: str, **params: str) -> dict[str, str]:
    """The form ``#form_id`` of the item's page as the browser would send it unchanged."""
    key_text = json.dumps({name: _key_json(value) for name, value in key.items()}, separators=(",", ":"))
    return client.form(f"/tables/{table}/item", form_id, key=key_text, **params)


def _key_json(value: dict[str, Any]) -> dict[str, Any]:
    ((kind, inner),) = value.items()
    return {kind: inner}
