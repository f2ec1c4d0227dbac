"""Items as JSON, both ways: the one place the data tools turn AttributeValues into JSON and back.

In memory an item is AttributeValues with ``bytes`` for binary (what the engine and boto3 take and give).
Two JSON forms carry it:

- **DynamoDB JSON** (``{"S": "x"}``, ``{"N": "1.5"}``) says every type; binary is base64 text, as in the wire
  protocol, the AWS CLI and S3 exports. :func:`item_to_json` and :func:`item_from_json` convert; reading
  checks every value and names the first one that is not well formed by its path (``a.b[0]``).
- **Plain JSON** (``"x"``, ``1.5``) is what people and most tools read and write. :func:`to_plain` loses what
  plain JSON cannot say: sets become lists (sorted, so output is the same on every run), binary becomes
  base64 text, numbers become ``int`` or ``Decimal``. :func:`from_plain` maps back the types plain JSON has:
  text -> S, true/false -> BOOL, null -> NULL, numbers -> N, arrays -> L, objects -> M.

Numbers never pass through ``float``: :func:`loads` reads them as ``int`` or ``Decimal`` and :func:`dumps`
writes a ``Decimal`` digit for digit (DynamoDB numbers have 38 significant digits). Text nested deeper than
DynamoDB allows is refused in one wording (:data:`TOO_DEEP`) wherever it is found: by the parser, by a
conversion, or by :func:`read_json` before anything else walks it. Look, put, export,
import and copy all convert here, so an item reads and prints the same way in every command.
"""

from __future__ import annotations

import base64
import binascii
import json
from decimal import Decimal
from json.encoder import encode_basestring  # the C encoder's own, non-ASCII kept as is
from typing import Any

import orjson

AttributeValue = dict[str, Any]
Item = dict[str, AttributeValue]
# DynamoDB nests lists and maps at most 32 levels deep. Converting checks the depth as it goes, so text nested
# thousands deep is refused with this message instead of exhausting Python's stack.
MAX_DEPTH = 32
TOO_DEEP = f"nested deeper than DynamoDB's {MAX_DEPTH} levels of lists and maps"
# The deepest JSON text an item can be (read_json): the item's object, MAX_DEPTH levels written as DynamoDB
# JSON ({"M": {...}} is two JSON levels each) and the innermost value's own object ({"S": ...}).
MAX_JSON_DEPTH = 1 + 2 * MAX_DEPTH + 1
_SCALARS = {"S": str, "N": str, "BOOL": bool, "NULL": bool}
_COMPACT = (",", ":")
_SPACED = (", ", ": ")
_LEAVES = json.JSONEncoder(ensure_ascii=False)  # numbers, true/false, null


class NotJSON(ValueError):
    """Text that is not JSON; ``detail`` is the parser's own account of where it breaks."""

    def __init__(self, detail: str, *, too_deep: bool = False) -> None:
        super().__init__(detail if too_deep else f"not JSON: {detail}")
        self.detail = detail
        self.too_deep = too_deep  # JSON, but nested past what DynamoDB (and this parser) takes


# -- DynamoDB JSON ---------------------------------------------------------------------------------------


def item_to_json(item: Item) -> dict[str, Any]:
    """An item as DynamoDB JSON, ready for :func:`dumps`: binary values become base64 text."""
    return {name: value_to_json(value) for name, value in item.items()}


def value_to_json(value: AttributeValue) -> AttributeValue:
    """One AttributeValue as DynamoDB JSON (the inverse of :func:`value_from_json`)."""
    ((kind, inner),) = value.items()
    if kind == "B":
        return {"B": _to_base64(inner)}
    if kind == "BS":
        return {"BS": [_to_base64(member) for member in inner]}
    if kind == "L":
        return {"L": [value_to_json(member) for member in inner]}
    if kind == "M":
        return {"M": {name: value_to_json(member) for name, member in inner.items()}}
    return value


def item_from_json(data: Any, *, hint: str = "") -> Item:
    """DynamoDB JSON (parsed) as an item; ``ValueError`` names the first attribute that is not well formed.
    ``hint`` ends the message when a value is not DynamoDB JSON at all (``import`` suggests ``--plain``)."""
    if not isinstance(data, dict):
        raise ValueError(f"an item must be a JSON object, not {_json_type(data)}")
    item: Item = {}
    for name, value in data.items():
        # The common case inline (an import reads millions): a scalar of the right type is kept as it is.
        if type(value) is dict and len(value) == 1:
            ((kind, inner),) = value.items()
            if type(inner) is _SCALARS.get(kind):
                item[name] = value
                continue
        item[name] = value_from_json(value, name, hint)
    return item


def value_from_json(value: Any, where: str, hint: str = "", depth: int = 0) -> AttributeValue:
    """One DynamoDB JSON value, binary decoded; ``where`` is its path, for the message when it is wrong.
    ``depth``: the lists and maps around it (deeper than :data:`MAX_DEPTH` is refused)."""
    if not isinstance(value, dict) or len(value) != 1:
        raise ValueError(
            f'{where}: not DynamoDB JSON (a value is one type and its content, like {{"S": "x"}}){hint}'
        )
    ((kind, inner),) = value.items()
    scalar = _SCALARS.get(kind)
    if scalar is not None and isinstance(inner, scalar):
        return value
    if kind == "B" and isinstance(inner, str):
        return {"B": _from_base64(inner, where)}
    if kind in ("SS", "NS", "BS") and isinstance(inner, list) and all(isinstance(m, str) for m in inner):
        return {"BS": [_from_base64(member, where) for member in inner]} if kind == "BS" else value
    if kind in ("L", "M") and depth >= MAX_DEPTH:
        raise ValueError(f"{where}: {TOO_DEEP}")
    if kind == "L" and isinstance(inner, list):
        return {"L": [value_from_json(m, f"{where}[{i}]", depth=depth + 1) for i, m in enumerate(inner)]}
    if kind == "M" and isinstance(inner, dict):
        return {"M": {k: value_from_json(m, f"{where}.{k}", depth=depth + 1) for k, m in inner.items()}}
    raise ValueError(
        f"{where}: {kind!r} holding {_json_type(inner, article=True)} is not a DynamoDB JSON value"
    )


def _to_base64(raw: bytes | str) -> str:
    return raw if isinstance(raw, str) else base64.b64encode(raw).decode("ascii")


def _from_base64(text: str, where: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except binascii.Error:
        raise ValueError(f"{where}: binary values are base64 text, not {text!r}") from None


def _json_type(value: Any, *, article: bool = False) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    name = names.get(type(value), "number")
    return f"{'an' if name[0] in 'ao' else 'a'} {name}" if article else name


# -- plain JSON ------------------------------------------------------------------------------------------


def to_plain(item: Item) -> dict[str, Any]:
    """An item of AttributeValues as plain values."""
    return {name: plain_value(value) for name, value in item.items()}


def plain_value(value: AttributeValue) -> Any:
    """One AttributeValue as a plain value (see the module docstring for what is lost)."""
    ((kind, inner),) = value.items()
    if kind == "S" or kind == "BOOL":
        return inner
    if kind == "N":
        return _number(inner)
    if kind == "B":
        return _to_base64(inner)
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
        return sorted(_to_base64(b) for b in inner)
    raise ValueError(f"not an AttributeValue type: {kind!r}")


def from_plain(item: dict[str, Any]) -> Item:
    """A plain JSON object as an item of AttributeValues."""
    if not isinstance(item, dict):
        raise ValueError(f"an item must be a JSON object, not {type(item).__name__}")
    return {name: attribute_value(value) for name, value in item.items()}


def scalar_value(value: Any) -> AttributeValue | None:
    """A plain JSON scalar as an AttributeValue -- a string, a bool, null, an int or a Decimal -- or None for
    anything else. Shared with the web console's plain-JSON editor, which reads its scalars the same way."""
    if isinstance(value, bool):  # before int: bool is an int in Python
        return {"BOOL": value}
    if isinstance(value, str):
        return {"S": value}
    if value is None:
        return {"NULL": True}
    if isinstance(value, int | Decimal):
        return {"N": str(value)}
    return None


def attribute_value(value: Any, depth: int = 0) -> AttributeValue:
    """One plain value as an AttributeValue (``depth``: the lists and maps around it; see MAX_DEPTH)."""
    scalar = scalar_value(value)
    if scalar is not None:
        return scalar
    if isinstance(value, float):
        return {"N": repr(value)}
    if isinstance(value, list | dict) and depth >= MAX_DEPTH:
        raise ValueError(f"a value {TOO_DEEP}")
    if isinstance(value, list):
        return {"L": [attribute_value(element, depth + 1) for element in value]}
    if isinstance(value, dict):
        return {"M": {name: attribute_value(element, depth + 1) for name, element in value.items()}}
    raise ValueError(f"no DynamoDB type for a plain value of type {type(value).__name__}")


def _number(text: str) -> int | Decimal:
    number = Decimal(text)
    return int(number) if number == number.to_integral_value() and "e" not in text.lower() else number


# -- text ------------------------------------------------------------------------------------------------


def loads(text: str, *, fast: bool = False) -> Any:
    """JSON text, numbers as ``int`` or ``Decimal`` (never ``float``); :class:`NotJSON` says where it breaks.
    ``fast`` reads with orjson, for DynamoDB JSON only: its numbers are text, so a bare number (which
    orjson reads as a float) is refused by :func:`item_from_json` anyway."""
    try:
        return orjson.loads(text) if fast else json.loads(text, parse_float=Decimal)
    except RecursionError:  # the standard parser's own guard, about a thousand levels down
        raise NotJSON(f"JSON {TOO_DEEP}", too_deep=True) from None
    except ValueError as error:  # json.JSONDecodeError and orjson.JSONDecodeError are ValueErrors
        if str(error).startswith("depth limit exceeded"):  # orjson's guard, 1,024 levels down
            raise NotJSON(f"JSON {TOO_DEEP}", too_deep=True) from None
        raise NotJSON(str(error)) from None


def read_json(text: str) -> Any:
    """JSON text a person gave (a form field, an address), numbers as ``int`` or ``Decimal``, refused with
    :class:`NotJSON` when it is nested deeper than :data:`MAX_JSON_DEPTH`: deeper than any item can be.

    The conversions here (:func:`item_from_json`, :func:`from_plain`) count DynamoDB's levels of lists and
    maps as they convert, which is all a value bound for them needs. A text read here may go elsewhere
    first -- a model's fields, a comparison of two editors' texts, a condition's values -- and each of those
    walks it recursively, so its raw depth is bounded as soon as it is parsed, in the same words. The bound
    is looser than DynamoDB's (whose exact limit is the target's to judge, in its own message) because it is
    counted in JSON levels, before anyone knows which form the text is in."""
    value = loads(text)
    if _depth_over(value, MAX_JSON_DEPTH):
        raise NotJSON(f"JSON {TOO_DEEP}", too_deep=True)
    return value


def _depth_over(value: Any, limit: int) -> bool:
    """Whether ``value`` nests arrays and objects more than ``limit`` deep (walked without recursion)."""
    if not isinstance(value, dict | list):
        return False
    stack = [(value, 1)]
    while stack:
        current, depth = stack.pop()
        for member in current.values() if isinstance(current, dict) else current:
            if isinstance(member, dict | list):
                if depth + 1 > limit:
                    return True
                stack.append((member, depth + 1))
    return False


def dumps(value: Any, *, spaced: bool = False) -> str:
    """JSON text, compact (or with ``", "`` and ``": "`` when ``spaced``), a ``Decimal`` written digit for
    digit, other text as is (not ``\\u`` escaped)."""
    separators = _SPACED if spaced else _COMPACT
    try:  # the C encoder, when nothing in the value needs more than it can do (no Decimal)
        return json.dumps(value, ensure_ascii=False, separators=separators)
    except TypeError:
        return _dumps_exact(value, separators)


def _dumps_exact(value: Any, separators: tuple[str, str]) -> str:
    if isinstance(value, str):
        return encode_basestring(value)
    if isinstance(value, dict):
        between, colon = separators
        return (
            "{"
            + between.join(
                f"{encode_basestring(k)}{colon}{_dumps_exact(v, separators)}" for k, v in value.items()
            )
            + "}"
        )
    if isinstance(value, list):
        return "[" + separators[0].join(_dumps_exact(v, separators) for v in value) + "]"
    if isinstance(value, Decimal):
        return str(value)
    return _LEAVES.encode(value)


def parse_item(text: str, *, plain: bool = False) -> Item:
    """An item from JSON text: DynamoDB JSON, or plain JSON when ``plain``."""
    data = loads(text)
    return from_plain(data) if plain else item_from_json(data)


def render_item(item: Item, *, plain: bool = False, spaced: bool = False) -> str:
    """An item as one line of JSON: DynamoDB JSON, or plain JSON when ``plain`` (``spaced``: see dumps)."""
    return dumps(to_plain(item) if plain else item_to_json(item), spaced=spaced)


def value_text(value: AttributeValue, *, spaced: bool = False) -> str:
    """An attribute as a person reads it (a table cell, a plain CSV cell): text as is, the rest plain JSON."""
    plain = plain_value(value)
    return plain if isinstance(plain, str) else dumps(plain, spaced=spaced)
