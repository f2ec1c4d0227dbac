"""Key templates: ``"USER#{user_id}"``, ``"CREATED#{created_at}#{listing_id}"``, ``"place#{full_name[:2]}"``.

A template is parsed once into literal text and slots. A slot names a field and may take a slice
(``[:2]``, seed 002's prefix search), filters (``|url`` to URL-encode, ``|lower``, ``|upper``) and a format
spec after ``:`` (``{n:08d}`` zero-pads so numbers sort as strings; ``{at:seconds}`` picks a timestamp
precision). Rendering is checked: a value that contains the table's delimiter would make the key parse back
wrongly and ``begins_with`` prefixes match the wrong items, so it is refused unless URL-encoded.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from urllib.parse import quote, unquote

from singletable.model._errors import DeclarationError, FieldTypeError, KeyTemplateError
from singletable.model._field_values import Codec, refused

_SLOT = re.compile(
    r"\{(?P<field>[A-Za-z_][A-Za-z0-9_]*)(?:\[(?P<start>-?\d*):(?P<stop>-?\d*)\])?"
    r"(?P<filters>(?:\|[a-z]+)*)(?::(?P<spec>[^{}]*))?\}"
)
FILTERS: dict[str, Callable[[str], str]] = {
    "url": lambda s: quote(s, safe=""),
    "lower": str.lower,
    "upper": str.upper,
}
_UNDO = {"url": unquote}
TOP = "\U0010ffff"  # sorts after every other character: closes a range over a key prefix


@dataclass(frozen=True)
class Slot:
    field: str
    start: int | None = None
    stop: int | None = None
    filters: tuple[str, ...] = ()
    spec: str = ""

    @property
    def reversible(self) -> bool:
        """Whether the field's value can be recovered from the rendered key text."""
        return self.start is None and self.stop is None and not {"lower", "upper"} & set(self.filters)

    def text(self) -> str:
        cut = (
            ""
            if self.start is None and self.stop is None
            else (f"[{'' if self.start is None else self.start}:{'' if self.stop is None else self.stop}]")
        )
        return (
            "{"
            + self.field
            + cut
            + "".join("|" + f for f in self.filters)
            + (":" + self.spec if self.spec else "")
            + "}"
        )


@dataclass(frozen=True)
class KeyTemplate:
    """A parsed template: a tuple of literal strings and :class:`Slot` s."""

    text: str
    parts: tuple[str | Slot, ...]

    @classmethod
    def parse(cls, text: str) -> KeyTemplate:
        parts: list[str | Slot] = []
        pos = 0
        for match in _SLOT.finditer(text):
            if match.start() > pos:
                parts.append(text[pos : match.start()])
            filters = tuple(f for f in match["filters"].split("|") if f)
            for name in filters:
                if name not in FILTERS:
                    raise DeclarationError(f"key template {text!r}: unknown filter |{name}")
            start = int(match["start"]) if match["start"] else None
            stop = int(match["stop"]) if match["stop"] else None
            parts.append(Slot(match["field"], start, stop, filters, match["spec"] or ""))
            pos = match.end()
        if pos < len(text):
            parts.append(text[pos:])
        if any(isinstance(p, str) and ("{" in p or "}" in p) for p in parts):
            raise DeclarationError(f"key template {text!r} has a malformed {{slot}}")
        return cls(text, tuple(parts))

    # Cached: patterns and writes ask for these on every call, and a parsed template never changes.
    @cached_property
    def slots(self) -> tuple[Slot, ...]:
        return tuple(p for p in self.parts if isinstance(p, Slot))

    @cached_property
    def fields(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for slot in self.slots:
            seen[slot.field] = None
        return tuple(seen)

    def describe_parts(self) -> list[str | dict[str, Any]]:
        """The template as data: literal text, and each slot with its field, slice, filters and format."""
        return [
            part
            if isinstance(part, str)
            else {
                "field": part.field,
                "slice": None if part.start is None and part.stop is None else [part.start, part.stop],
                "filters": list(part.filters),
                "spec": part.spec,
                "reversible": part.reversible,
                "text": part.text(),
            }
            for part in self.parts
        ]

    @property
    def literal_prefix(self) -> str:
        """The text before the first slot: what every key of this shape begins with."""
        first = self.parts[0] if self.parts else ""
        return first if isinstance(first, str) else ""


@dataclass
class Key:
    """A key attribute's declaration: its template and, for sparse indexes, a condition.

    ``when`` is a function whose parameter names are the fields it reads, e.g.
    ``Key("ADMINS", when=lambda role: role in ("admin", "super_admin"))``: the key is written only while it
    returns true. Naming the fields lets a partial update that changes ``role`` re-decide the key.
    ``otherwise`` is the template used when the main one does not apply (seed 004: a category's GSI1PK is
    ``CATEGORY#{parent_id}``, or ``CATEGORY_ROOT`` for a top-level category).
    """

    template: str
    when: Callable[..., bool] | None = None
    otherwise: str | None = None

    @property
    def when_fields(self) -> tuple[str, ...]:
        if self.when is None:
            return ()
        return tuple(inspect.signature(self.when).parameters)


class Keys(dict[str, Key]):
    """The key attributes an entity fills, by attribute name: ``Keys(PK="USER#{user_id}", SK="PROFILE")``."""

    def __init__(self, **attributes: str | Key) -> None:
        super().__init__({name: v if isinstance(v, Key) else Key(v) for name, v in attributes.items()})


@dataclass(eq=False)
class BoundKey:
    """A key attribute bound to an entity: each slot knows its field's codec, so rendering is a loop."""

    attribute: str
    template: KeyTemplate
    key_type: str  # S or N
    codecs: dict[str, Codec] = field(repr=False)
    delimiter: str
    entity: str
    when: Callable[..., bool] | None = None
    when_fields: tuple[str, ...] = ()
    otherwise: BoundKey | None = None
    _regex: re.Pattern[str] | None = field(default=None, repr=False)

    @property
    def fields(self) -> tuple[str, ...]:
        return self.template.fields

    @property
    def needs(self) -> tuple[str, ...]:
        """Every field whose value decides this key: template fields and the condition's fields."""
        extra = self.otherwise.needs if self.otherwise else ()
        return tuple(dict.fromkeys(self.template.fields + self.when_fields + extra))

    def slot_text(self, slot: Slot, value: Any) -> str:
        codec = self.codecs[slot.field]
        try:
            text = codec.key(value, slot.spec)
        except Exception as error:
            if refused(error):  # a value of another type than the field's: refused, never keyed
                raise FieldTypeError(self.entity, slot.field, codec.expected, value) from None
            raise
        if slot.start is not None or slot.stop is not None:
            text = text[slot.start : slot.stop]
        for name in slot.filters:
            text = FILTERS[name](text)
        if self.delimiter and self.delimiter in text:
            raise KeyTemplateError(
                f"{self.entity}.{slot.field} = {value!r} contains the key delimiter {self.delimiter!r}, "
                f"which would corrupt {self.attribute} = {self.template.text!r}; "
                f"URL-encode it with {{{slot.field}|url}} or choose values without it"
            )
        return text

    def missing(self, values: Mapping[str, Any]) -> list[str]:
        return [f for f in self.needs if values.get(f) is None]

    def _applies_here(self, values: Mapping[str, Any]) -> bool:
        for name in self.template.fields:
            if values.get(name) is None:
                return False
        if self.when is not None:
            return bool(self.when(**{f: values.get(f) for f in self.when_fields}))
        return True

    def applies(self, values: Mapping[str, Any]) -> bool:
        """Whether the key is written for these values: all fields present and the condition holds."""
        if self._applies_here(values):
            return True
        return self.otherwise is not None and self.otherwise.applies(values)

    def render(self, values: Mapping[str, Any]) -> str:
        out = []
        for part in self.template.parts:
            if isinstance(part, str):
                out.append(part)
            else:
                value = values.get(part.field)
                if value is None:
                    raise KeyTemplateError(f"{self.entity}: {self.attribute} needs {part.field}")
                out.append(self.slot_text(part, value))
        text = "".join(out)
        if not text:
            self._refuse_empty(values)
        return text

    def _refuse_empty(self, values: Mapping[str, Any]) -> None:
        """DynamoDB refuses an empty string in a table or index key attribute ("Attribute values of type
        String and Binary must have a length greater than zero if the attribute is used as a key attribute
        for a table or index", PutItem): refused here, naming what rendered it, before any request."""
        fields = ", ".join(f"{name} = {values.get(name)!r}" for name in self.template.fields)
        raise KeyTemplateError(
            f"{self.entity}: key attribute {self.attribute} = {self.template.text!r} renders an empty string "
            f"from {fields}; DynamoDB refuses empty strings in table and index key attributes "
            "(give the field a non-empty value, or add literal text to the template)"
        )

    def value(self, values: Mapping[str, Any]) -> dict[str, str]:
        """The AttributeValue of this key for a complete set of values."""
        if self.otherwise is not None and not self._applies_here(values):
            return self.otherwise.value(values)
        if self.key_type == "N":
            slot = self.template.slots[0]
            return {"N": self.codecs[slot.field].key(values[slot.field], "")}
        return {self.key_type: self.render(values)}

    def prefix(self, values: Mapping[str, Any]) -> tuple[str, bool]:
        """Render up to the first missing field: (text, complete). Drives ``begins_with`` queries."""
        out = []
        for part in self.template.parts:
            if isinstance(part, str):
                out.append(part)
                continue
            value = values.get(part.field)
            if value is None:
                return "".join(out), False
            out.append(self.slot_text(part, value))
        return "".join(out), True

    def parse(self, text: str) -> dict[str, Any] | None:
        """Recover fields from a stored key; None if the text does not have this template's shape."""
        if self._regex is None:
            pattern = []
            for i, part in enumerate(self.template.parts):
                if isinstance(part, str):
                    pattern.append(re.escape(part))
                elif part.reversible:
                    pattern.append(f"(?P<s{i}>.*?)")
                else:
                    pattern.append(".*?")
            self._regex = re.compile("^" + "".join(pattern) + "$", re.DOTALL)
        match = self._regex.match(text)
        if match is None:
            return None
        found: dict[str, Any] = {}
        for i, part in enumerate(self.template.parts):
            if isinstance(part, Slot) and part.reversible:
                raw = match[f"s{i}"]
                for name in reversed(part.filters):
                    raw = _UNDO.get(name, lambda s: s)(raw)
                try:
                    found[part.field] = self.codecs[part.field].parse(raw)
                except (ValueError, TypeError):
                    return None
        return found

    def describe(self) -> dict[str, Any]:
        return {
            "attribute": self.attribute,
            "template": self.template.text,
            "parts": self.template.describe_parts(),
            "type": self.key_type,
            "fields": list(self.template.fields),
            "condition_fields": list(self.when_fields) or None,
            "otherwise": self.otherwise.template.text if self.otherwise else None,
        }
