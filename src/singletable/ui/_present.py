"""Items as the pages show them: labelled by entity, key attributes first and decoded, large values cut short.

Nothing here writes HTML: the templates do, with Jinja2's autoescaping, so item text is always data. What is
decided here is *what* is shown: the entity an item is (the design's type attribute), its key attributes in
the table's order with the fields their templates hold (``USER#{user_id}`` -> ``user_id=42``, through the
model's own template parser), the other attributes cut to a preview, and items grouped by partition in the
order the read returned them (sort-key order within each partition).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from singletable.data import Design, item_to_json
from singletable.data.shared import dumps, value_text

Item = dict[str, Any]
# Longest text of one attribute in a listing; the item's own page shows all of it.
CELL_CHARACTERS = 160
# An item whose JSON is longer than this is shown collapsed (a <details> with a preview).
COLLAPSE_CHARACTERS = 20_000
PREVIEW_CHARACTERS = 600


@dataclass
class KeyPart:
    """One key attribute: its text, and the template fields it holds (empty when there is no design)."""

    name: str
    text: str
    fields: dict[str, str] = field(default_factory=dict)


@dataclass
class Shown:
    """One item on a page."""

    label: str
    key: list[KeyPart]
    attributes: list[tuple[str, str]]  # name, text (at most CELL_CHARACTERS, then an ellipsis)
    key_param: str  # the item's primary key as DynamoDB JSON text: the item page's ?key=


@dataclass
class Partition:
    """Consecutive items of one partition (one item collection, or the part of it this page holds)."""

    value: str
    items: list[Shown]


def cut(text: str, limit: int = CELL_CHARACTERS) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def label(design: Design | None, item: Item) -> str:
    return design.label(item) if design is not None else ""


def decoded_fields(design: Design | None, entity: str, attribute: str, value: Any) -> dict[str, str]:
    """The template fields a key attribute holds for this entity, as text (empty when it cannot tell)."""
    if design is None or entity not in design.entities or not isinstance(value, dict):
        return {}
    bound = design.entities[entity].model_entity().keys.get(attribute)
    text = value.get("S", value.get("N"))
    while bound is not None and isinstance(text, str):
        found = bound.parse(text)
        if found is not None:
            return {name: str(got) for name, got in found.items()}
        bound = bound.otherwise
    return {}


def show(item: Item, key_names: Sequence[str], table_key: Sequence[str], design: Design | None) -> Shown:
    """One item: ``key_names`` first (the table's key, then the index's when browsing one), then the rest."""
    entity = label(design, item)
    key = [
        KeyPart(name, cut(value_text(item[name])), decoded_fields(design, entity, name, item[name]))
        for name in key_names
        if name in item
    ]
    rest = [(name, cut(value_text(value))) for name, value in item.items() if name not in key_names]
    primary = {name: item[name] for name in table_key if name in item}
    return Shown(entity, key, rest, dumps(item_to_json(primary)))


PARTS_JOINER = " | "  # how a key of several attributes shows as one value (and is typed back in forms)


def group(
    items: Iterable[Item], partition_key: str | Sequence[str], shown: Iterable[Shown]
) -> list[Partition]:
    """Consecutive items with one partition-key value become one :class:`Partition`; an index keyed on
    several partition attributes groups by all of them, the values shown joined by ``" | "``."""
    keys = [partition_key] if isinstance(partition_key, str) else list(partition_key)
    groups: list[Partition] = []
    for item, one in zip(items, shown, strict=True):
        value = PARTS_JOINER.join(value_text(item[k]) if k in item else "" for k in keys)
        if not groups or groups[-1].value != value:
            groups.append(Partition(value, []))
        groups[-1].items.append(one)
    return groups


@dataclass
class Document:
    """A JSON text for a page, with a preview when it is long enough to be shown collapsed."""

    text: str
    collapsed: bool
    preview: str


def document(value: Any) -> Document:
    """JSON for a page or the editor: an object one attribute per line, each value on its line as compact
    JSON (numbers digit for digit); collapsed when long."""
    if isinstance(value, dict) and value:
        lines = [f"  {dumps(name)}: {dumps(member, spaced=True)}" for name, member in value.items()]
        text = "{\n" + ",\n".join(lines) + "\n}"
    else:
        text = dumps(value, spaced=True)
    collapsed = len(text) > COLLAPSE_CHARACTERS
    return Document(text, collapsed, cut(text, PREVIEW_CHARACTERS) if collapsed else text)


def one_line(value: Any) -> Document:
    """JSON on one line (a row of results), collapsed past the same length as :func:`document`."""
    text = dumps(value, spaced=True)
    collapsed = len(text) > COLLAPSE_CHARACTERS
    return Document(text, collapsed, cut(text, PREVIEW_CHARACTERS) if collapsed else text)
