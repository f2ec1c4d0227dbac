"""Item collections as data: the partitions of the table or of one index, each with its items in key order.

The picture ``docs`` draws (:mod:`singletable.design._svg`) and the sizes ``cost`` counts both start from the
items a table really holds, grouped the way DynamoDB stores them: one row per partition-key value, items in
sort-key order (strings by their UTF-8 bytes, numbers by value, as DynamoDB orders them). Each item is named
by the entity it is (the type attribute), a unique-value guard by the entity and field it guards, and an
index entry without the type attribute (KEYS_ONLY) by the table item it copies.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

AV = dict[str, Any]

# Colours for entity types, in declaration order (Okabe-Ito's colour-blind-safe set, then softer tones).
PALETTE = (
    "#E69F00",
    "#56B4E9",
    "#009E73",
    "#F0E442",
    "#0072B2",
    "#D55E00",
    "#CC79A7",
    "#999999",
    "#8DD3C7",
    "#BEBADA",
    "#FB8072",
    "#80B1D3",
    "#FDB462",
    "#B3DE69",
)
UNKNOWN = "(unknown)"


def key_text(av: AV | None) -> str:
    """A key value as text: a string as is, a number in its canonical form, a binary in base64."""
    if not av:
        return ""
    ((kind, value),) = av.items()
    if kind == "B":
        return base64.b64encode(value if isinstance(value, bytes) else bytes(value)).decode()
    return str(value)


def key_order(av: AV | None) -> tuple[int, Any]:
    """DynamoDB's order of key values: strings by UTF-8 bytes, numbers by value, binaries by bytes."""
    if not av:
        return (0, b"")
    ((kind, value),) = av.items()
    if kind == "N":
        return (1, Decimal(value))
    if kind == "B":
        return (2, value if isinstance(value, bytes) else bytes(value))
    return (3, str(value).encode())


@dataclass
class Cell:
    """One item of a partition: its sort-key text, the entity it is, and every key for a tooltip."""

    sort_key: str
    entity: str
    keys: dict[str, str]


@dataclass
class Partition:
    key: str
    cells: list[Cell] = field(default_factory=list)


class Labeller:
    """Names the entity each item is; built once per design from its table items."""

    def __init__(self, design: Any, table_items: Iterable[AV]) -> None:
        table = design.table
        self.design = design
        self.key_attributes = design.key_attributes()
        self._guards = [
            f"{meta.cls.__name__} {name} guard" for meta in table.entities.values() for name in meta.unique
        ]
        self._by_key = {self._address(item): self._label(item) for item in table_items}

    def _address(self, item: Mapping[str, AV]) -> tuple[str, ...]:
        return tuple(key_text(item.get(a)) for a in self.key_attributes)

    def _label(self, item: Mapping[str, AV]) -> str:
        return self.design.label(item) or UNKNOWN  # guards named by the design too

    def __call__(self, item: Mapping[str, AV]) -> str:
        """The label of a table item, or of an index entry by the table item it copies."""
        return self._by_key.get(self._address(item)) or self._label(item)

    def labels(self) -> list[str]:
        """Every label in a fixed order: entities as declared, then guards, then the unknown."""
        entities = [meta.cls.__name__ for meta in self.design.table.entities.values()]
        guards = self._guards
        seen = set(self._by_key.values())
        extra = sorted(seen - set(entities) - set(guards))
        return [*entities, *[g for g in guards if g in seen], *extra]

    def colours(self) -> dict[str, str]:
        return {label: PALETTE[i % len(PALETTE)] for i, label in enumerate(self.labels())}


def partitions(
    items: Iterable[AV],
    pk: str | Sequence[str],
    sk: str | Sequence[str] | None,
    key_attributes: list[str],
    label: Callable[[AV], str],
) -> list[Partition]:
    """The items that hold ``pk`` grouped by its value, partitions and items in DynamoDB's key order
    (ties on an index's sort key broken by the table key, as DynamoDB keeps them). An index keyed on several
    attributes per part (``pk=["tenant", "status"]``) groups by all of them and sorts by its sort attributes
    left to right, each by its own type; its key shows as the values joined by ``" | "``."""
    pks = [pk] if isinstance(pk, str) else list(pk)
    sks = [] if sk is None else [sk] if isinstance(sk, str) else list(sk)
    grouped: dict[str, tuple[tuple[Any, ...], list[AV]]] = {}
    for item in items:
        if any(a not in item for a in pks):
            continue
        text = _joined(item, pks)
        grouped.setdefault(text, (tuple(key_order(item[a]) for a in pks), []))[1].append(item)
    out = []
    for text, (_order, members) in sorted(grouped.items(), key=lambda entry: entry[1][0]):
        members.sort(key=lambda i: (tuple(key_order(i.get(a)) for a in sks), _table_order(i, key_attributes)))
        cells = [
            Cell(
                _joined(i, sks),
                label(i),
                {a: key_text(i[a]) for a in dict.fromkeys([*key_attributes, *pks, *sks]) if a in i},
            )
            for i in members
        ]
        out.append(Partition(text, cells))
    return out


def _joined(item: AV, attributes: list[str]) -> str:
    return " | ".join(key_text(item.get(a)) for a in attributes)


def _table_order(item: AV, key_attributes: list[str]) -> tuple[Any, ...]:
    return tuple(key_order(item.get(a)) for a in key_attributes)
