"""Stored items as DynamoDB gives them (attribute-value dicts): comparing, sizing and conditioning on them.

A migration reasons about raw items, not entities, so that it can read an item the current model would refuse
and so that every write can be conditioned on the exact image it was computed from.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from singletable.model.shared import unchanged_item

if TYPE_CHECKING:
    from singletable.model import Table

AV = dict[str, Any]
Item = dict[str, AV]


def canonical(av: AV) -> Any:
    """A value to compare ``av`` by: numbers as Decimals, sets unordered, maps and lists by element."""
    (kind, value), *_ = av.items()
    if kind == "N":
        return ("N", Decimal(value).normalize())
    if kind in ("SS", "BS"):
        return (kind, frozenset(_raw_bytes(v) if kind == "BS" else v for v in value))
    if kind == "NS":
        return ("NS", frozenset(Decimal(v).normalize() for v in value))
    if kind == "M":
        return ("M", tuple(sorted((k, canonical(v)) for k, v in value.items())))
    if kind == "L":
        return ("L", tuple(canonical(v) for v in value))
    if kind == "B":
        return ("B", _raw_bytes(value))
    return (kind, value)


def _raw_bytes(value: Any) -> bytes:
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    return base64.b64decode(value)


def same_item(a: Item, b: Item) -> bool:
    """Whether two items hold the same attributes with the same values (DynamoDB's notion of equal)."""
    return a.keys() == b.keys() and all(canonical(a[name]) == canonical(b[name]) for name in a)


def value_size(av: AV) -> int:
    """The bytes DynamoDB counts for one value (its documented item-size rules, closely)."""
    (kind, value), *_ = av.items()
    if kind == "S":
        return len(value.encode("utf-8"))
    if kind == "N":
        return len(value.lstrip("-").replace(".", "")) // 2 + 2
    if kind == "B":
        return len(_raw_bytes(value))
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "SS":
        return sum(len(v.encode("utf-8")) for v in value)
    if kind == "NS":
        return sum(len(v.lstrip("-").replace(".", "")) // 2 + 2 for v in value)
    if kind == "BS":
        return sum(len(_raw_bytes(v)) for v in value)
    if kind == "M":
        return 3 + sum(len(k.encode("utf-8")) + value_size(v) + 1 for k, v in value.items())
    if kind == "L":
        return 3 + sum(value_size(v) + 1 for v in value)
    return 0


def item_size(item: Item) -> int:
    return sum(len(name.encode("utf-8")) + value_size(av) for name, av in item.items())


def write_units(size: int) -> int:
    """Write request units of writing ``size`` bytes: one per KB, rounded up, at least one."""
    return max(1, -(-size // 1024))


def unchanged(image: Item, still_absent: Iterable[str] = ()) -> dict[str, Any]:
    """The condition every migration write carries, that the stored item is still the image it was computed
    from: the model's (its lazy upgrade conditions its write-back the same way), every attribute of
    ``image`` with the same value -- and none of ``still_absent`` that ``image`` lacks. A condition cannot
    say "no attribute but these", so the attributes another writer may add (those its declarations know)
    are named in ``still_absent``."""
    condition = unchanged_item(image)
    parts = [condition["ConditionExpression"]]
    for n, name in enumerate(sorted(set(still_absent) - image.keys())):
        condition["ExpressionAttributeNames"][f"#x{n}"] = name
        parts.append(f"attribute_not_exists(#x{n})")
    condition["ConditionExpression"] = " AND ".join(parts)
    return condition


def absent(key: Item) -> dict[str, Any]:
    """The condition that no item is stored under ``key``."""
    name = next(iter(key))
    return {"ConditionExpression": "attribute_not_exists(#k)", "ExpressionAttributeNames": {"#k": name}}


def key_text(key: Item) -> str:
    """A key for messages: ``PK=u#1, SK=user``."""
    return ", ".join(f"{name}={next(iter(av.values()))!s}" for name, av in key.items())


def primary_key(item: Item, table: Table) -> Item:
    """The table key of ``item`` (the key attributes it holds), as GetItem, DeleteItem and a transaction's
    parts name it."""
    return {name: item[name] for name in (table.pk_name, table.sk_name) if name and name in item}
