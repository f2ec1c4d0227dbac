"""What the console accepts from a form or an address, checked before anything uses it: a POST's fields, JSON
texts (an item, a key, a condition's names and values) and whole numbers (a page's limit).

A form is decoded a slice at a time: ``urllib.parse.parse_qsl`` splits a value at every ``%``, so a 4 MB
value of ``%7B%7B...`` took 330 MB (and a second of the event loop); here it takes a few times its size.

JSON is bounded in depth before it reaches anything that walks it recursively (the item conversions, the
model, the engine): DynamoDB nests attributes at most 32 levels deep, so no text nested deeper than
:data:`MAX_JSON_DEPTH` -- 32 levels written as DynamoDB JSON, each level two objects deep, inside an item and
a wrapper -- can be a valid request, and refusing it early is what keeps a text nested 100,000 deep a clear
message rather than a ``RecursionError``. The exact limit is the target's to judge (its own message).

Numbers are ASCII digits only: Python's ``int()`` also reads ``'٣'`` (Arabic-Indic three) and ``str.isdigit``
passes ``'²'``, which ``int()`` then refuses in its own words.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any
from urllib.parse import unquote_to_bytes

# 32 levels of attributes as DynamoDB JSON ({"M": {...}} is two JSON levels each), the item and a wrapper.
MAX_JSON_DEPTH = 2 * 32 + 2
DYNAMODB_DEPTH = 32
# A form's fields: the console's forms have about a dozen.
MAX_FIELDS = 100
# How much percent-encoded text is decoded at once (its pieces are what costs memory).
SLICE = 64 * 1024


class TooDeep(ValueError):
    """A JSON text nested deeper than any DynamoDB value can be."""

    def __init__(self) -> None:
        super().__init__(
            f"JSON nested more than {MAX_JSON_DEPTH} levels deep: DynamoDB allows at most {DYNAMODB_DEPTH} "
            "levels of nested attributes"
        )


def json_value(text: str) -> Any:
    """``text`` as JSON, numbers as int or Decimal (never float, as :mod:`singletable.data` reads them);
    ValueError (:class:`TooDeep`, or the parser's account of where it breaks) for anything else."""
    try:
        value = json.loads(text, parse_float=Decimal)
    except RecursionError:  # nested past what the parser itself can hold: far past MAX_JSON_DEPTH
        raise TooDeep() from None
    except ValueError as error:
        raise ValueError(f"not JSON: {error}") from None
    if _depth_over(value, MAX_JSON_DEPTH):
        raise TooDeep()
    return value


def _depth_over(value: Any, limit: int) -> bool:
    """Whether ``value`` nests arrays and objects more than ``limit`` deep (walked without recursion)."""
    if not isinstance(value, dict | list):
        return False
    stack = [(value, 1)]
    while stack:
        current, depth = stack.pop()
        members = current.values() if isinstance(current, dict) else current
        for member in members:
            if isinstance(member, dict | list):
                if depth + 1 > limit:
                    return True
                stack.append((member, depth + 1))
    return False


def whole_number(text: str, what: str, low: int, high: int) -> int:
    """``text`` as a whole number from ``low`` to ``high``, written in ASCII digits; ValueError otherwise."""
    if text.isascii() and text.isdigit() and len(text) <= 20 and low <= int(text) <= high:
        return int(text)
    shown = text if len(text) <= 40 else text[:40] + "…"
    raise ValueError(f"{what} must be a whole number from {low} to {high} (digits 0-9), not {shown!r}")


def form_fields(body: bytes) -> dict[str, str]:
    """A URL-encoded form (``application/x-www-form-urlencoded``) as its fields, the last of a repeated name
    kept; ValueError when it has more than :data:`MAX_FIELDS` fields or is not UTF-8 text."""
    if body.count(b"&") >= MAX_FIELDS:
        raise ValueError(f"the form has more than {MAX_FIELDS} fields")
    fields: dict[str, str] = {}
    for pair in body.split(b"&"):
        if not pair:
            continue
        name, _, value = pair.partition(b"=")
        fields[_decoded(name)] = _decoded(value)
    return fields


def _decoded(raw: bytes) -> str:
    """One name or value: ``+`` is a space, ``%XX`` a byte, the bytes UTF-8 (strictly)."""
    raw = raw.replace(b"+", b" ")
    if b"%" not in raw:
        return raw.decode("utf-8")
    out = bytearray()
    start = 0
    while start < len(raw):
        end = min(start + SLICE, len(raw))
        split = raw.rfind(b"%", end - 2, end) if end < len(raw) else -1
        end = split if split > start else end  # never cut a %XX in two
        out += unquote_to_bytes(raw[start:end])
        start = end
    return out.decode("utf-8")
