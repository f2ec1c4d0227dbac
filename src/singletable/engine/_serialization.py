"""How a validated item is stored in SQLite: JSON via orjson, binary values as base64 behind a marker byte.

Split from :mod:`codec`, which re-exports :func:`dumps_item`, :func:`loads_item` and :func:`wire_fragment`.
The stored text is the item's DynamoDB JSON exactly as the wire codec would write it (binary values as
base64, the wire's own form), which is what lets an answer for the wire pass it through undecoded.
"""

from __future__ import annotations

import base64
from typing import Any

import orjson

_BINARY_MARK = b"\x01"  # prefix of stored items that hold binary values (JSON never starts with 0x01)
_b64encode = base64.b64encode
_b64decode = base64.b64decode
_dumps = orjson.dumps
_loads = orjson.loads
_Fragment = orjson.Fragment


def _encode_bytes(value: Any) -> str:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _b64encode(value).decode("ascii")
    raise TypeError(f"cannot store {type(value).__name__}")


def dumps_item(item: dict[str, Any]) -> bytes:
    """Serialize a validated item for SQLite: JSON, with binary values as base64 behind a marker byte.

    Items without binary (the usual case) are plain orjson output, so :func:`loads_item` need not walk
    them; only marked items are walked to turn base64 back into bytes.
    """
    try:
        return _dumps(item)
    except TypeError:
        return _BINARY_MARK + _dumps(item, default=_encode_bytes)


def loads_item(data: bytes) -> dict[str, Any]:
    """Inverse of :func:`dumps_item`."""
    if data[:1] != _BINARY_MARK:
        return _loads(data)
    item = _loads(memoryview(data)[1:])
    for av in item.values():
        _restore(av)
    return item


def wire_fragment(data: bytes) -> orjson.Fragment:
    """A stored item as the wire's JSON, undecoded: ``orjson.dumps`` writes a Fragment's bytes as they are.

    The stored text is what the wire codec would write for the item (:func:`dumps_item` and the codec
    both are orjson, binary values base64 in both), so a read answered for the wire skips decoding the item
    (~1.2 µs for 300 bytes) and encoding it again; only the marker byte of an item with binaries goes.
    """
    return _Fragment(data if data[:1] != _BINARY_MARK else data[1:])


def _restore(av: dict[str, Any]) -> None:
    if "B" in av:
        av["B"] = _b64decode(av["B"])
    elif "BS" in av:
        av["BS"] = [_b64decode(member) for member in av["BS"]]
    elif "M" in av:
        for member in av["M"].values():
            _restore(member)
    elif "L" in av:
        for member in av["L"]:
            _restore(member)
