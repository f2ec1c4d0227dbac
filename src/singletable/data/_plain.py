"""Plain JSON values and DynamoDB JSON (AttributeValues), both ways, for output and input a person writes.

DynamoDB JSON (``{"S": "x"}``, ``{"N": "1.5"}``) says every type; plain JSON (``"x"``, ``1.5``) is what people
and most tools read and write. ``to_plain`` loses what plain JSON cannot say and says so here: sets become
lists (sorted, so output is the same on every run), binary becomes base64 text, numbers become ``int`` or
``Decimal`` (never ``float``: DynamoDB numbers have 38 significant digits). ``from_plain`` maps back the
types plain JSON has: text -> S, true/false -> BOOL, null -> NULL, numbers -> N, arrays -> L, objects -> M.
"""

from __future__ import annotations

import base64
from decimal import Decimal
from typing import Any

AttributeValue = dict[str, Any]


def to_plain(item: dict[str, AttributeValue]) -> dict[str, Any]:
    """An item of AttributeValues as plain values."""
    return {name: plain_value(value) for name, value in item.items()}


def plain_value(value: AttributeValue) -> Any:
    ((kind, inner),) = value.items()
    if kind == "S" or kind == "BOOL":
        return inner
    if kind == "N":
        return _number(inner)
    if kind == "B":
        return _base64(inner)
    if kind == "NULL":
        return None
    if kind == "L":
        return [plain_value(element) for element in inner]
    if kind == "M":
        return {name: plain_value(element) for name, element in inner.items()}
    if kind == "SS":
        return sorted(inner)
    if kind == "NS":
        return sorted((_number(n) for n in inner), key=Decimal)
    if kind == "BS":
        return sorted(_base64(b) for b in inner)
    raise ValueError(f"not an AttributeValue type: {kind!r}")


def from_plain(item: dict[str, Any]) -> dict[str, AttributeValue]:
    """A plain JSON object as an item of AttributeValues."""
    if not isinstance(item, dict):
        raise ValueError(f"an item must be a JSON object, not {type(item).__name__}")
    return {name: attribute_value(value) for name, value in item.items()}


def attribute_value(value: Any) -> AttributeValue:
    if isinstance(value, bool):  # before int: bool is an int in Python
        return {"BOOL": value}
    if isinstance(value, str):
        return {"S": value}
    if value is None:
        return {"NULL": True}
    if isinstance(value, int | Decimal):
        return {"N": str(value)}
    if isinstance(value, float):
        return {"N": repr(value)}
    if isinstance(value, list):
        return {"L": [attribute_value(element) for element in value]}
    if isinstance(value, dict):
        return {"M": {name: attribute_value(element) for name, element in value.items()}}
    raise ValueError(f"no DynamoDB type for a plain value of type {type(value).__name__}")


def _number(text: str) -> int | Decimal:
    number = Decimal(text)
    return int(number) if number == number.to_integral_value() and "e" not in text.lower() else number


def _base64(raw: bytes | str) -> str:
    return raw if isinstance(raw, str) else base64.b64encode(raw).decode("ascii")
