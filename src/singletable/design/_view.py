"""A design's ``describe()`` data, arranged for the questions the checks ask.

``Table.describe()`` lists each entity's declared key templates, each with its parts (literal text and
slots); DynamoDB also sees keys an entity fills without declaring them -- a field stored under a key
attribute's name (seed 000's ``tag``), or the type attribute when an index is keyed on it (``EntityType`` in
seed 003's GSI3). :class:`DesignView` resolves those the way the model's patterns do, so every check asks one
place "which template does entity E write into attribute A" and "which entities does index I hold".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Slot:
    """A ``{field...}`` in a template, as describe() gives it."""

    field: str
    slice: tuple[int | None, int | None] | None = None
    spec: str = ""
    filters: tuple[str, ...] = ()
    reversible: bool = True
    shown: str = ""  # the slot as the template writes it, ``{order:03d}`` (describe()'s ``text``)

    @classmethod
    def of(cls, described: dict[str, Any]) -> Slot:
        cut = described.get("slice")
        return cls(
            described["field"],
            None if cut is None else (cut[0], cut[1]),
            described.get("spec", ""),
            tuple(described.get("filters", ())),
            described.get("reversible", True),
            described.get("text") or "{" + described["field"] + "}",
        )

    def text(self) -> str:
        return self.shown or "{" + self.field + "}"


@dataclass(frozen=True)
class Parts:
    """A key template: its text and its parts (literal strings and :class:`Slot` s)."""

    text: str
    parts: tuple[str | Slot, ...]

    @classmethod
    def of(cls, text: str, described: list[Any]) -> Parts:
        return cls(text, tuple(p if isinstance(p, str) else Slot.of(p) for p in described))

    @classmethod
    def literal(cls, text: str) -> Parts:
        return cls(text, (text,) if text else ())

    @classmethod
    def field(cls, name: str) -> Parts:
        return cls("{" + name + "}", (Slot(name),))

    @property
    def slots(self) -> tuple[Slot, ...]:
        return tuple(p for p in self.parts if isinstance(p, Slot))

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(s.field for s in self.slots))

    def shown(self) -> str:
        return "".join(p if isinstance(p, str) else p.text() for p in self.parts)


@dataclass(frozen=True)
class Template:
    """The template an entity writes into a key attribute, with what the checks need to know of it."""

    attribute: str
    text: str
    parsed: Parts
    source: dict[str, Any] | None
    sparse: bool = False  # written only while a condition holds
    otherwise: str | None = None  # the template used when the condition does not hold

    @property
    def constant(self) -> bool:
        return not self.parsed.slots

    def shape(self, delimiter: str) -> re.Pattern[str]:
        """A regex matching every value the template can render (slots never hold the delimiter)."""
        return template_regex(self.parsed, delimiter)


def _joined(templates: list[Any]) -> Template:
    """Several key attributes' templates as one, ``{tenant}, {status}``: what the checks read of a part."""
    parts: list[str | Slot] = []
    for n, template in enumerate(templates):
        parts += ([", "] if n else []) + list(template.parsed.parts)
    text = ", ".join(t.text for t in templates)
    first = templates[0]
    return Template(
        first.attribute, text, Parts(text, tuple(parts)), first.source, any(t.sparse for t in templates)
    )


def template_regex(template: Parts, delimiter: str, *, whole: bool = True) -> re.Pattern[str]:
    slot = f"[^{re.escape(delimiter)}]*" if delimiter else ".*"
    body = "".join(re.escape(p) if isinstance(p, str) else slot for p in template.parts)
    return re.compile(body + ("$" if whole else ""))


def sample_text(template: Parts) -> str:
    """One value the template can render: every slot filled with ``x``."""
    return "".join(p if isinstance(p, str) else "x" for p in template.parts)


class EntityView:
    """One entity of the design: its fields by name and attribute, and the template of each key it writes."""

    def __init__(self, described: dict[str, Any], design: DesignView) -> None:
        self.described = described
        self.type: str = described["type"]
        self.name: str = described["class"]
        self.source: dict[str, Any] | None = described.get("source")
        self.fields: dict[str, dict[str, Any]] = {f["name"]: f for f in described["fields"]}
        self.by_attribute = {f["attribute"]: f for f in described["fields"]}
        self.patterns: list[dict[str, Any]] = described["patterns"]
        self.ttl: str | None = described.get("ttl")
        self.declared_keys = {k["attribute"]: k for k in described["keys"]}
        self._design = design

    def template(self, attribute: str | None) -> Template | None:
        """The template this entity writes into ``attribute``: declared, a field stored under that name,
        or the type attribute's constant (None when the entity never writes it)."""
        if attribute is None:
            return None
        key = self.declared_keys.get(attribute)
        if key is not None:
            return Template(
                attribute,
                key["template"],
                Parts.of(key["template"], key["parts"]),
                key.get("source") or self.source,
                sparse=bool(key.get("condition_fields")),
                otherwise=key.get("otherwise"),
            )
        field = self.by_attribute.get(attribute)
        if field is not None and field["stored"]:
            parts = Parts.field(field["name"])
            return Template(attribute, parts.text, parts, field.get("source"), sparse=not field["required"])
        if attribute == self._design.type_attribute:
            return Template(attribute, self.type, Parts.literal(self.type), self.source)
        return None

    def field_of_slot(self, slot: Slot) -> dict[str, Any]:
        return self.fields[slot.field]


class DesignView:
    """The table, its indexes and its entities, from ``Table.describe()``."""

    def __init__(self, described: dict[str, Any], counters: dict[str, set[str]] | None = None) -> None:
        self.described = described
        # entity type -> fields a Sequence of the design module counts with (describe() cannot say)
        self.counters: dict[str, set[str]] = counters or {}
        table = described["table"]
        self.table = table
        self.table_name: str = table.get("resolved") or table.get("name") or ""
        self.delimiter: str = table.get("delimiter") or ""
        self.type_attribute: str = table["type_attribute"]
        self.ttl_attribute: str | None = table.get("ttl_attribute")
        self.source: dict[str, Any] | None = table.get("source")
        self.pk: str = table["pk"]["attribute"]
        self.sk: str | None = table["sk"]["attribute"] if table.get("sk") else None
        self.indexes: dict[str, dict[str, Any]] = {i["name"]: i for i in described["indexes"]}
        self.entities = [EntityView(e, self) for e in described["entities"]]
        self.collections: list[dict[str, Any]] = described.get("collections", [])

    def keys_of(self, index: str | None) -> tuple[str, str | None]:
        """(partition key attribute, sort key attribute) of the table (None) or an index."""
        if index is None:
            return self.pk, self.sk
        described = self.indexes[index]
        return described["pk"]["attribute"], (described["sk"] or {}).get("attribute")

    def sort_key_type(self, index: str | None) -> str:
        if index is None:
            return (self.table.get("sk") or {}).get("type", "S")
        return (self.indexes[index].get("sk") or {}).get("type", "S")

    def by_fields(self, index: str | None) -> bool:
        """Whether an index is keyed by fields (up to four typed attributes per part)."""
        return index is not None and bool(self.indexes[index].get("by_fields"))

    def key_attributes_of(self, index: str) -> tuple[list[str], list[str]]:
        """Every partition and sort attribute of an index, in KeySchema order."""
        described = self.indexes[index]
        pks = [a["attribute"] for a in described.get("pk_attributes") or [described["pk"]]]
        default_sk = [described["sk"]] if described.get("sk") else []
        return pks, [a["attribute"] for a in described.get("sk_attributes", default_sk)]

    def members(self, index: str | None) -> list[tuple[EntityView, Template, Template | None]]:
        """The entities whose items the table or index holds, with their partition and sort templates (for
        an index keyed by fields: its attributes' fields, joined as one template per part)."""
        if self.by_fields(index):
            assert index is not None
            return self._field_members(index)
        pk, sk = self.keys_of(index)
        found = []
        for entity in self.entities:
            pk_template = entity.template(pk)
            sk_template = entity.template(sk)
            if pk_template is None or (sk is not None and sk_template is None):
                continue
            found.append((entity, pk_template, sk_template))
        return found

    def _field_members(self, index: str) -> list[tuple[EntityView, Template, Template | None]]:
        pks, sks = self.key_attributes_of(index)
        found = []
        for entity in self.entities:
            pk = [entity.template(a) for a in pks]
            sk = [entity.template(a) for a in sks]
            if any(t is None for t in (*pk, *sk)):
                continue  # an item is in the index only while every key attribute has a value
            found.append((entity, _joined(pk), _joined(sk) if sk else None))
        return found

    def entity(self, type_name: str) -> EntityView:
        return next(e for e in self.entities if e.type == type_name)

    def index_source(self, index: str | None) -> dict[str, Any] | None:
        return self.source if index is None else self.indexes[index].get("source")
