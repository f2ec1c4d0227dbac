"""DynamoDB's item size: what the 400 KB limit and capacity units are computed from.

Split from :mod:`codec` (which re-exports everything here) so validation and sizing can each stay small;
:func:`codec.validate_item_sized` computes the same sizes during validation, in one walk.
"""

from __future__ import annotations

from typing import Any

from singletable.engine._errors import validation
from singletable.engine._numbers import CANONICAL, CANONICAL_CHARS, normalize_number, number_size

MAX_ITEM_SIZE = 400 * 1024
ITEM_TOO_LARGE = "Item size has exceeded the maximum allowed size"


def _text_size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def value_size(av: dict[str, Any]) -> int:
    """Bytes one (validated) AttributeValue counts for, without its attribute name.

    S: UTF-8 length. B: length. N: see :func:`number_size`. BOOL, NULL: 1. M: 3 + per member (1 + UTF-8
    name length + value size). L: 3 + per element (1 + value size). SS/NS/BS: sum of the members' sizes,
    no overhead. Bisected byte-exactly against DynamoDB Local's 400 KB limit, which its ConsumedCapacity
    (1 KB write / 4 KB read units) also follows.
    """
    if "S" in av:
        text = av["S"]
        return len(text) if text.isascii() else len(text.encode("utf-8"))
    if "N" in av:
        return number_bytes(av["N"])
    if "M" in av:
        return 3 + sum(1 + _text_size(name) + value_size(member) for name, member in av["M"].items())
    if "L" in av:
        return 3 + sum(1 + value_size(member) for member in av["L"])
    if "B" in av:
        return len(av["B"])
    if "BOOL" in av or "NULL" in av:
        return 1
    if "SS" in av:
        return sum(_text_size(member) for member in av["SS"])
    if "NS" in av:
        return sum(number_bytes(member) for member in av["NS"])
    if "BS" in av:
        return sum(len(member) for member in av["BS"])
    return 0


_number_sizes: dict[str, int] = {}


def number_bytes(text: str) -> int:
    size = _number_sizes.get(text)
    if size is None:
        if len(_number_sizes) >= 65536:
            _number_sizes.clear()
        size = _number_sizes[text] = number_size(normalize_number(text))
    return size


# Number text -> (canonical text, size): item validation needs both for every number, and most numbers of
# a workload recur (quantities, flags, counters).
SIZED_NUMBERS: dict[str, tuple[str, int]] = {}
# Canonical numbers of at least this many characters skip SIZED_NUMBERS (see sized_number).
_UNCACHED_MIN = 6


def sized_number(text: str) -> tuple[str, int]:
    """``normalize_number(text)`` and its size, cached together (callers may look in SIZED_NUMBERS first).

    A long number already in canonical form (a price, a timestamp, an id: mostly distinct) is sized without
    the cache: inserting a new key into it cost more than the match and the size together (~1,460 against
    ~660 ns here). Short numbers (quantities, flags, counters) recur, and are cached.
    """
    found = SIZED_NUMBERS.get(text)
    if found is None:
        if type(text) is str and _UNCACHED_MIN <= len(text) <= CANONICAL_CHARS and CANONICAL.fullmatch(text):
            return text, number_size(text)
        canonical = normalize_number(text)
        if len(SIZED_NUMBERS) >= 65536:
            SIZED_NUMBERS.clear()
        found = SIZED_NUMBERS[text] = (canonical, number_size(canonical))
    return found


def item_size(item: dict[str, Any]) -> int:
    """DynamoDB's size of an item in bytes: per attribute, UTF-8 name length plus :func:`value_size`."""
    total = 0
    for name, av in item.items():
        total += (len(name) if name.isascii() else len(name.encode("utf-8"))) + value_size(av)
    return total


def check_item_size(item: dict[str, Any]) -> int:
    """Return the item's size, raising DynamoDB's error beyond 400 KB (checked before key attributes)."""
    size = item_size(item)
    if size > MAX_ITEM_SIZE:
        raise validation(ITEM_TOO_LARGE)
    return size
