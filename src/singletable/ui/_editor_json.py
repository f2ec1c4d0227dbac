"""The console's plain-JSON editor format: plain JSON wherever plain JSON can say the value, DynamoDB JSON
where it cannot -- so an item opened and saved unchanged keeps every type.

Plain JSON has strings, numbers, true/false, null, arrays and objects: those are S, N, BOOL, NULL, L and M.
It has no sets and no binary, so the editor writes those as the DynamoDB JSON value they are:
``{"SS": ["a", "b"]}``, ``{"NS": ["1", "2.5"]}``, ``{"BS": ["AAE="]}``, ``{"B": "AAE="}`` (base64). The rule
that reads them back is one and has no exceptions: **an object with exactly one member, named by a DynamoDB
type (S N B SS NS BS BOOL NULL L M), is that typed value**; every other object is a map. A map that would read
as a typed value (one member called ``S``, say) is therefore shown as ``{"M": {"S": ...}}``, whose members
are again in this format, as are an ``{"L": [...]}``'s elements. Numbers are read and written digit for
digit (``Decimal``, never ``float``), so 38-digit numbers and ``1E+125`` survive.

Why not DynamoDB JSON throughout: people editing an item expect ``"name": "Ada"``, not
``"name": {"S": "Ada"}``; and why not the data tools' plain JSON (``singletable.data.to_plain``): it turns
sets into lists and binary into text, which a save would then store as such.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from singletable.data import item_from_json, item_to_json
from singletable.data.shared import scalar_value

Item = dict[str, Any]
TYPES = frozenset(("S", "N", "B", "SS", "NS", "BS", "BOOL", "NULL", "L", "M"))


def to_editor(item: Item) -> dict[str, Any]:
    """An item (AttributeValues) as the editor shows it."""
    return {name: _shown(value) for name, value in item.items()}


def _shown(value: dict[str, Any]) -> Any:
    ((kind, inner),) = value.items()
    if kind in ("S", "BOOL"):
        return inner
    if kind == "NULL":
        return None
    if kind == "N":
        return _number(inner)
    if kind == "L":
        return [_shown(member) for member in inner]
    if kind == "M":
        members = to_editor(inner)
        return {"M": members} if _looks_typed(members) else members
    return item_to_json({"v": value})["v"]  # B, SS, NS, BS: DynamoDB JSON (base64 for binary)


def _number(text: str) -> int | Decimal:
    """A number as JSON writes it digit for digit: an ``int`` when it is one, else the ``Decimal``."""
    number = Decimal(text)
    if number == number.to_integral_value() and "e" not in text.lower() and "." not in text:
        return int(text)
    return number


def _looks_typed(members: dict[str, Any]) -> bool:
    return len(members) == 1 and next(iter(members)) in TYPES


def from_editor(value: Any) -> Item:
    """The editor's parsed JSON object as an item; ``ValueError`` names the first value it cannot read by
    its path (``a.b[0]``)."""
    if not isinstance(value, dict):
        raise ValueError("the item must be a JSON object: { ... }")
    return {name: _read(member, name) for name, member in value.items()}


def _read(value: Any, where: str) -> dict[str, Any]:
    scalar = scalar_value(value)  # strings, bools, null and numbers as the data tools read them
    if scalar is not None:
        return scalar
    if isinstance(value, list):
        return {"L": [_read(member, f"{where}[{i}]") for i, member in enumerate(value)]}
    if isinstance(value, dict):
        if not _looks_typed(value):
            return {"M": {name: _read(member, f"{where}.{name}") for name, member in value.items()}}
        ((kind, inner),) = value.items()
        if kind == "M" and isinstance(inner, dict):
            return {"M": {name: _read(member, f"{where}.{name}") for name, member in inner.items()}}
        if kind == "L" and isinstance(inner, list):
            return {"L": [_read(member, f"{where}[{i}]") for i, member in enumerate(inner)]}
        try:
            return item_from_json({where: value})[where]
        except ValueError as error:
            raise ValueError(
                f"{error} -- an object whose one member is named by a DynamoDB type is that typed value; "
                f'a map like that is written {{"M": {{"{kind}": ...}}}}'
            ) from None
    raise ValueError(f"{where}: no DynamoDB type for {value!r}")
