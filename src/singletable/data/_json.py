"""Items as JSON text, both ways: DynamoDB JSON (binary as base64, as on the wire) and plain JSON.

In memory an item is AttributeValues with ``bytes`` for binary (what the engine and boto3 take and give). As
text, DynamoDB JSON carries binary as base64 -- the form of the wire protocol, the AWS CLI and S3 exports --
and plain JSON is :func:`~singletable.data.to_plain`'s. Numbers never pass through ``float``: plain JSON is
read with ``Decimal`` and written with every digit.
"""

from __future__ import annotations

import base64
import binascii
import json
from decimal import Decimal
from typing import Any

from singletable.data._plain import from_plain, to_plain

AttributeValue = dict[str, Any]
_SCALARS = {"S": str, "N": str, "BOOL": bool, "NULL": bool}


def item_to_json(item: dict[str, AttributeValue]) -> dict[str, Any]:
    """An item as DynamoDB JSON, ready for ``json.dumps``: binary values become base64 text."""
    return {name: _value_to_json(value) for name, value in item.items()}


def _value_to_json(value: AttributeValue) -> AttributeValue:
    ((kind, inner),) = value.items()
    if kind == "B":
        return {"B": _b64(inner)}
    if kind == "BS":
        return {"BS": [_b64(member) for member in inner]}
    if kind == "L":
        return {"L": [_value_to_json(member) for member in inner]}
    if kind == "M":
        return {"M": {name: _value_to_json(member) for name, member in inner.items()}}
    return value


def _b64(raw: bytes | str) -> str:
    return raw if isinstance(raw, str) else base64.b64encode(raw).decode("ascii")


def item_from_json(data: Any) -> dict[str, AttributeValue]:
    """DynamoDB JSON (parsed) as an item; ``ValueError`` names the first attribute that is not well formed."""
    if not isinstance(data, dict):
        raise ValueError(f"an item must be a JSON object, not {_json_type(data)}")
    return {name: _value_from_json(value, name) for name, value in data.items()}


def _value_from_json(value: Any, where: str) -> AttributeValue:
    if not isinstance(value, dict) or len(value) != 1:
        raise ValueError(
            f'{where}: not DynamoDB JSON (a value is one type and its content, like {{"S": "x"}})'
        )
    ((kind, inner),) = value.items()
    if kind in _SCALARS and isinstance(inner, _SCALARS[kind]):
        return {kind: inner}
    if kind == "B" and isinstance(inner, str):
        return {"B": _unb64(inner, where)}
    if kind in ("SS", "NS") and isinstance(inner, list) and all(isinstance(m, str) for m in inner):
        return {kind: inner}
    if kind == "BS" and isinstance(inner, list) and all(isinstance(m, str) for m in inner):
        return {"BS": [_unb64(member, where) for member in inner]}
    if kind == "L" and isinstance(inner, list):
        return {"L": [_value_from_json(member, f"{where}[{i}]") for i, member in enumerate(inner)]}
    if kind == "M" and isinstance(inner, dict):
        return {"M": {name: _value_from_json(member, f"{where}.{name}") for name, member in inner.items()}}
    raise ValueError(
        f"{where}: {kind!r} holding {_json_type(inner, article=True)} is not a DynamoDB JSON value"
    )


def _unb64(text: str, where: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except binascii.Error:
        raise ValueError(f"{where}: binary values are base64 text, not {text!r}") from None


def _json_type(value: Any, *, article: bool = False) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    name = names.get(type(value), "number")
    return f"{'an' if name[0] in 'ao' else 'a'} {name}" if article else name


def loads(text: str) -> Any:
    """JSON text, numbers as ``int`` or ``Decimal`` (never ``float``); ``ValueError`` says where it breaks."""
    try:
        return json.loads(text, parse_float=Decimal)
    except json.JSONDecodeError as error:
        raise ValueError(f"not JSON: {error}") from None


def parse_item(text: str, *, plain: bool = False) -> dict[str, AttributeValue]:
    """An item from JSON text: DynamoDB JSON, or plain JSON when ``plain``."""
    data = loads(text)
    return from_plain(data) if plain else item_from_json(data)


def dumps(value: Any) -> str:
    """Compact JSON with ``Decimal`` written digit for digit (plain items hold them)."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(dumps(v) for v in value) + "]"
    if isinstance(value, Decimal):
        return str(value)
    return json.dumps(value, ensure_ascii=False)


def render_item(item: dict[str, AttributeValue], *, plain: bool = False) -> str:
    """An item as one line of JSON: DynamoDB JSON, or plain JSON when ``plain``."""
    return dumps(to_plain(item) if plain else item_to_json(item))
