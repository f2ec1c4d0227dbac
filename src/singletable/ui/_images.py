"""What an editor loaded, and the conditions that make a save or a delete apply only to that.

An item page carries the *image* it was rendered from as a SHA-256 of the item's canonical form (attribute
names sorted, set members sorted, numbers by value, binary as base64): short whatever the item's size, and
equal for two reads exactly when the items are equal as DynamoDB compares them. A save or a delete first
reads the item (strongly consistent) and compares; a different image is a conflict before anything is sent.

The write itself is then conditioned on the item still being that image, for the moment between that read
and the write: the item exists, and each attribute is stored as read (``#a = :v``, which DynamoDB evaluates
as deep equality, sets in any order), or absent where it was absent. Every attribute the write changes is
conditioned first; the others follow while DynamoDB's limits on one expression allow (4,096 characters,
300 operators): only an item with more than about a hundred attributes leaves some unconditioned, and then
only for that moment (the read compared them all).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from singletable.model import Cond

Item = dict[str, Any]
# Room left in one expression for the conditions the model or the person adds to the image's.
EXPRESSION_CHARACTERS = 3300
EXPRESSION_OPERATORS = 220
_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def canonical(value: dict[str, Any]) -> Any:
    """An AttributeValue as plain data that compares (and hashes) as DynamoDB compares the value."""
    ((kind, inner),) = value.items()
    if kind == "N":
        return ["N", _number(inner)]
    if kind == "B":
        return ["B", _binary(inner)]
    if kind == "SS":
        return ["SS", sorted(inner)]
    if kind == "NS":
        return ["NS", sorted(_number(n) for n in inner)]
    if kind == "BS":
        return ["BS", sorted(_binary(b) for b in inner)]
    if kind == "L":
        return ["L", [canonical(member) for member in inner]]
    if kind == "M":
        return ["M", canonical_item(inner)]
    return [kind, inner]  # S, BOOL, NULL


def canonical_item(item: Mapping[str, Any]) -> list[Any]:
    return [[name, canonical(item[name])] for name in sorted(item)]


def _number(text: str) -> str:
    """A number by its value; text that is no number stays itself (DynamoDB refuses it when it is sent)."""
    try:
        number = Decimal(text)
        return "0" if number == 0 else str(number.normalize())
    except (ArithmeticError, ValueError, TypeError):
        return f"not a number: {text!r}"


def _binary(raw: bytes | str) -> str:
    return raw if isinstance(raw, str) else base64.b64encode(raw).decode("ascii")


def same(a: dict[str, Any] | None, b: dict[str, Any] | None) -> bool:
    """Whether two AttributeValues (None: absent) are equal as DynamoDB compares them."""
    if a is None or b is None:
        return a is b
    return bool(canonical(a) == canonical(b))


def image_of(item: Mapping[str, Any]) -> str:
    """The loaded image an item page carries: the SHA-256 of the item's canonical form, as hex."""
    text = json.dumps(canonical_item(item), ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(slots=True)
class Changes:
    """What an edit changes in an item: attributes set (new or changed), and attributes removed."""

    set: dict[str, Any] = field(default_factory=dict)
    removed: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.set or self.removed)

    @property
    def names(self) -> list[str]:
        return [*self.set, *self.removed]


def changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> Changes:
    """The attributes ``after`` sets or removes relative to ``before`` (values compared as DynamoDB does)."""
    found = Changes()
    for name, value in after.items():
        if not same(before.get(name), value):
            found.set[name] = value
    found.removed = [name for name in before if name not in after]
    return found


@dataclass(slots=True)
class Expression:
    """An expression's text and the placeholders it uses."""

    text: str
    names: dict[str, str]
    values: dict[str, Any]


class Placeholders:
    """Placeholders of one request, under prefixes a person's own condition is unlikely to use."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.values: dict[str, Any] = {}

    def name(self, attribute: str) -> str:
        for token, known in self.names.items():
            if known == attribute:
                return token
        token = f"#img{len(self.names)}"
        self.names[token] = attribute
        return token

    def value(self, av: Any, prefix: str = ":img") -> str:
        token = f"{prefix}{len(self.values)}"
        self.values[token] = av
        return token


def image_conditions(
    loaded: Mapping[str, Any], first: Iterable[str], name: Any, value: Any, required: int = 1
) -> list[str]:
    """The clauses that the stored item is ``loaded``: the attributes in ``first`` (the key, then those a
    write changes), then the rest of the loaded item's, while the budget lasts -- the first ``required``
    always. ``name``/``value`` allocate placeholders."""
    clauses: list[str] = []
    characters = operators = 0
    for number, attribute in enumerate(dict.fromkeys([*first, *loaded])):
        characters += _written_length(attribute) + 20  # with its value token, " = " and the joining " AND "
        operators += 2
        if number >= required and (characters > EXPRESSION_CHARACTERS or operators > EXPRESSION_OPERATORS):
            break  # (placeholders are allocated only for the clauses kept: an unused one is an error)
        av = loaded.get(attribute)
        clauses.append(
            f"attribute_not_exists({name(attribute)})" if av is None else f"{name(attribute)} = {value(av)}"
        )
    return clauses


def _written_length(attribute: str) -> int:
    """At most how long ``attribute`` is in an expression: as itself when it is a plain name (the model's
    compiler writes those as they are), else a placeholder of a few characters."""
    return len(attribute) if _PLAIN.fullmatch(attribute) else 8


class LoadedImage(Cond):
    """The model's condition that the stored item is the loaded image (a :class:`Cond`, so it joins the
    conditions the model's own writes make: existence, unique values, version); ``first`` are the key's
    attributes (the first ``required``, always conditioned) and those the write changes."""

    __slots__ = ("first", "loaded", "required")

    def __init__(self, loaded: Mapping[str, Any], first: Iterable[str], required: int = 1) -> None:
        super().__init__("IMAGE")
        self.loaded = loaded
        self.first = list(first)
        self.required = required

    def compile(self, c: Any) -> str:
        return " AND ".join(image_conditions(self.loaded, self.first, c.name, c.value, self.required))
