"""Key templates and uniqueness guards of an inferred design (:mod:`singletable.design._infer`).

A key is split on its delimiter (``#`` unless the table's keys use another): each part is a literal (the
same on every item of the entity), a field slot (the part equals one of the item's attributes on every item,
also zero-padded ``{n:03d}``, URL-encoded ``{x|url}``, cased ``{x|lower}`` or cut ``{x[:2]}``) or a key-only
field (a value found nowhere else, named after the label before it); a label glued to the value
(``employee_<id>``, ``EMPLOYEE1``) stays literal text before the slot. A sparse key's condition is read from
the values or the presence of the fields on exactly its items. A guard item (little but a key) is hung on
the entity whose field value its key holds: ``unique=`` on that entity.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from singletable.design._infra import snake
from singletable.design._workbench_import import _field_name

Item = dict[str, dict[str, Any]]
_PROBE = 32  # rows a field must fit before the whole column is tried
# What a key-only value looks like, said in its evidence: the id scheme or date format the writer used.
_ID_KINDS = (
    ("; UUIDs", re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")),
    ("; ULIDs", re.compile(r"[0-7][0-9A-HJKMNP-TV-Z]{25}")),
    ("; KSUIDs", re.compile(r"[0-9A-Za-z]{27}")),
    (
        "; ISO 8601 date-times",
        re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?"),
    ),
    ("; ISO 8601 dates", re.compile(r"\d{4}-\d{2}-\d{2}")),
)
_FEW = 10  # at most this many distinct values make a field a sparse key's condition
_SLOT = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)")
# A label glued to its value: a word ending in _ or - (employee_, Bucket-), or an upper-case word.
_GLUES = (re.compile(r"[A-Z][A-Z_-]*"), re.compile(r"\$?[A-Za-z][A-Za-z0-9]*(?:[_-][A-Za-z0-9]+)*[_-]"))
# A key attribute named for its place, not its value: PK, sk, GSI1PK, gs1sk, pk-1, partitionKey.
_PLACE_NAME = re.compile(r"(?i)[a-z]*\d*[-_]?(pk|sk)[-_]?\d*|.*(partition|sort|hash|range).*")


@dataclass(slots=True)
class InferredField:
    """One attribute of an entity (or a value found only inside its keys: ``key_only``)."""

    name: str
    attribute: str
    python: str  # the annotation without "| None"
    present: int  # items holding it
    optional: bool
    evidence: str
    key_only: bool = False
    values: list[str | None] = field(default_factory=list, repr=False)  # per item, as key text
    used: bool = False  # already a slot of one of the entity's keys
    found_in: str = ""  # a key-only field: the key attribute it was first found in


@dataclass(slots=True)
class InferredKey:
    attribute: str
    template: str
    present: int
    evidence: list[str]
    otherwise: str | None = None  # the literal written where the template's fields are missing
    when_present: str | None = None  # a sparse key written only where this field is set
    when_candidates: list[InferredField] = field(default_factory=list, repr=False)
    when_values: tuple[str, ...] = ()  # ... or only where field when_present holds one of these values
    value_candidates: list[ValueCondition] = field(default_factory=list, repr=False)


@dataclass(slots=True)
class ValueCondition:
    """A sparse key on exactly the items whose ``field`` holds one of ``values`` (``role`` in editor,
    super_admin), none of the items without it holding any of them."""

    field: InferredField
    values: tuple[str, ...]
    evidence: str


@dataclass(slots=True)
class InferredUnique:
    field: str
    template: str
    owner_field: str | None
    count: int


@dataclass(slots=True)
class InferredEntity:
    type: str
    count: int
    evidence: str
    table_pk: str = ""
    delimiter: str = "#"  # what the table's keys are split on
    fields: dict[str, InferredField] = field(default_factory=dict)  # by attribute
    keys: dict[str, InferredKey] = field(default_factory=dict)  # by key attribute
    unique: list[InferredUnique] = field(default_factory=list)


def key_text(value: dict[str, Any] | None) -> str | None:
    """A key-like value's text: an S or an N; None for anything else."""
    if not value:
        return None
    found = value.get("S", value.get("N"))
    return found if isinstance(found, str) else None


def has_value(part: str) -> bool:
    """A key part that is data, not a label: guards' labels come before the unique value."""
    return not re.fullmatch(r"[A-Za-z_]+", part)


def unique_name(base: str, names: set[str]) -> str:
    """A field name for ``base`` (an attribute or a label): snake_case, no keyword, none taken yet."""
    name, n = _field_name(base), 2
    while name in names:
        name, n = f"{_field_name(base)}_{n}", n + 1
    names.add(name)
    return name


# -- key templates ------------------------------------------------------------------------------------


def infer_key(entity: InferredEntity, attribute: str, items: list[Item], names: set[str]) -> InferredKey:
    """The template that builds ``attribute`` for every item of ``entity`` that has it."""
    holders = [(n, key_text(i.get(attribute))) for n, i in enumerate(items) if attribute in i]
    holders_text = [(n, t) for n, t in holders if t is not None]
    evidence: list[str] = []
    sparse = len(holders) < len(items)
    if sparse:
        evidence.append(f"sparse: on {len(holders)} of {len(items)} items")
    if not holders_text:  # binary: the key is a field of its own
        evidence.append("the key is binary: a field stored as the key")
        return _whole_key(entity, attribute, items, names, evidence)
    is_number = "N" in items[holders_text[0][0]][attribute]
    delimiter = entity.delimiter
    split = [(n, t.split(delimiter)) for n, t in holders_text]
    shapes = Counter(len(p) for _, p in split)
    width, common = shapes.most_common(1)[0]
    unfit = ""
    if len(shapes) > 1:  # said, never dropped: another key format (an older one, often) and how many
        example = {len(p): delimiter.join(p) for _, p in reversed(split)}
        others = ", ".join(f"{n} parts x{c}, e.g. {example[n]!r}" for n, c in shapes.items() if n != width)
        unfit = f"{common} items have {width} {delimiter!r}-separated parts; the rest do not fit ({others})"
        evidence.append(unfit)
    rows = [(n, p) for n, p in split if len(p) == width]
    parts: list[str] = []
    for position in range(width):
        column = [(n, p[position]) for n, p in rows]
        parts.append(
            _part(entity, attribute, column, parts, is_number, sparse, evidence, names, whole=width == 1)
        )
    key = InferredKey(attribute, delimiter.join(parts), len(holders), evidence)
    majority = {n for n, _ in rows}
    rest = {t for n, t in holders_text if n not in majority}
    named = set(_SLOT.findall(key.template))
    slots = [f for f in entity.fields.values() if f.name in named]
    if len(rest) == 1 and slots and not any(c in next(iter(rest)) for c in "{}"):
        missing = {n for n, _ in holders_text if n not in majority}
        if all(f.values[n] is None for f in slots for n in missing) and all(
            f.values[n] is not None for f in slots for n in majority
        ):
            key.otherwise = rest.pop()
            if unfit in evidence:
                evidence.remove(unfit)
            evidence.append(f"{key.otherwise!r} on the {len(missing)} items without {slots[0].attribute}")
            for f in slots:
                f.optional = True
    if sparse and not any(f.optional for f in slots):
        present = {n for n, _ in holders}
        key.when_candidates = [
            f
            for f in entity.fields.values()
            if not f.key_only and {n for n, v in enumerate(f.values) if v is not None} == present
        ]
        key.value_candidates = _value_conditions(entity, present)
    return key


def _value_conditions(entity: InferredEntity, present: set[int]) -> list[ValueCondition]:
    """Fields of few distinct text values, set on every item, whose values alone tell the items holding a
    sparse key from the rest (``role``: editor and super_admin hold it, member does not)."""
    found = []
    for f in entity.fields.values():
        if f.key_only or f.python != "str" or any(v is None for v in f.values):
            continue
        inside = Counter(v for n, v in enumerate(f.values) if n in present)
        outside = Counter(v for n, v in enumerate(f.values) if n not in present)
        if not inside or not outside or len(inside) + len(outside) > _FEW or set(inside) & set(outside):
            continue
        values = tuple(sorted(v for v in inside if v is not None))
        spelled = ", ".join(f"{v!r} x{c}" for v, c in sorted(inside.items()))
        others = ", ".join(f"{v!r} x{c}" for v, c in sorted(outside.items()))
        found.append(
            ValueCondition(
                f, values, f"present exactly where {f.attribute} is {spelled}; absent where it is {others}"
            )
        )
    return found


def sparse_conditions(entity: InferredEntity) -> None:
    """A sparse key with no optional field of its own is written where some field says so: a field another
    key spells whose values tell its items from the rest (``role in ('editor', 'super_admin')``), else of
    the fields present on exactly its items, one another key uses, else any."""
    for key in entity.keys.values():
        by_value = [c for c in key.value_candidates if c.field.used]  # a field a key spells: role
        if by_value:
            chosen = min(by_value, key=lambda c: (len(c.values), c.field.name))
            key.when_present, key.when_values = chosen.field.name, chosen.values
            key.evidence.append(chosen.evidence)
        elif key.when_candidates:
            best = min(key.when_candidates, key=lambda f: (not f.used, f.name))
            key.when_present = best.name
            key.evidence.append(f"present exactly where {best.attribute} is")


def _whole_key(
    entity: InferredEntity, attribute: str, items: list[Item], names: set[str], evidence: list[str]
) -> InferredKey:
    name = unique_name(snake(attribute) + "_value", names)
    held = [i.get(attribute) for i in items]
    kinds = {next(iter(v)) for v in held if v}
    python = {"S": "str", "N": "int", "B": "bytes"}.get(kinds.pop(), "str") if len(kinds) == 1 else "str"
    present = sum(v is not None for v in held)
    entity.fields["\0" + name] = InferredField(  # stored as the key itself (Field(alias=<the key>))
        name, attribute, python, present, present < entity.count, f"the whole of {attribute}", True,
        [key_text(v) for v in held], True, attribute,
    )  # fmt: skip
    return InferredKey(attribute, "{" + name + "}", present, evidence)


def _part(
    entity: InferredEntity,
    attribute: str,
    column: list[tuple[int, str]],
    before: list[str],
    is_number: bool,
    sparse: bool,
    evidence: list[str],
    names: set[str],
    *,
    whole: bool = False,
) -> str:
    """One ``#``-separated part of a key: a field slot, a literal or a new key-only field."""
    texts = {t for _, t in column}
    matches = [(f, spec) for f in entity.fields.values() if (spec := fits(f, column)) is not None]
    stored = [(f, spec) for f, spec in matches if not f.key_only]
    spellable = not any("{" in t or "}" in t for t in texts)  # a template has no escape for braces
    if len(texts) == 1 and not stored and (len(column) > 1 or not matches) and spellable:
        return next(iter(texts))
    label = next((p for p in reversed(before) if "{" not in p), "")
    glued = ""
    for prefix in [] if stored else _glued_prefixes(texts):  # EMPLOYEE1, employee_<id>: glued labels
        cut = [(n, t[len(prefix) :]) for n, t in column]
        found = [(f, spec) for f in entity.fields.values() if (spec := fits(f, cut)) is not None]
        if not glued or any(not f.key_only for f, _ in found):  # the longest, or one a stored field fits
            glued, column, matches = prefix, cut, found
            if any(not f.key_only for f, _ in found):
                break
    if glued:
        texts = {t for _, t in column}
        label = glued.rstrip("_-")
    if matches:
        best, spec = _best_match(matches, label, before, entity)
        slot = glued + "{" + best.name + spec + "}"
        if not best.key_only:
            how = {"": "=", "|url": "URL-encoded =", "|lower": "lower-cased ="}.get(spec, "from")
            evidence.append(
                f"{slot} {how} attribute {best.attribute} on {len(column)} of {len(column)} items"
            )
        else:
            evidence.append(f"{slot}: the value found in {best.found_in}, on {len(column)} items")
        best.used = True
        return slot
    padded = all(t.isdigit() for t in texts) and len({len(t) for t in texts}) == 1
    padded = padded and any(t.startswith("0") and len(t) > 1 for t in texts)
    if label and not label[0].isdigit():
        base = f"{label.lower().lstrip('$')}_id"
    else:
        if whole and not _PLACE_NAME.fullmatch(attribute):  # account_id, seq: the key is the field
            base = snake(attribute)
        else:
            base = "id" if attribute == entity.table_pk and not before else snake(attribute) + "_value"
    name = unique_name(base, names)
    values: list[str | None] = [None] * entity.count
    for n, t in column:
        values[n] = t
    python = "int" if padded or is_number else "str"
    optional = sparse or len(column) < entity.count
    entity.fields["\0" + name] = InferredField(
        name,
        name,
        python,
        len(column),
        optional,
        f"found only inside {attribute}",
        True,
        values,
        True,
        attribute,
    )
    if padded:
        size = len(next(iter(texts)))
        evidence.append(
            f"{{{name}:0{size}d}}: {len(column)} values of {size} digits, zero-padded, in no attribute"
        )
        return glued + "{" + name + f":0{size}d}}"
    kind = next((what for what, pattern in _ID_KINDS if all(pattern.fullmatch(t) for t in texts)), "")
    evidence.append(
        f"{{{name}}}: {len(texts)} distinct values found in no attribute (a key-only field{kind})"
    )
    return glued + "{" + name + "}"


def _glued_prefixes(texts: set[str]) -> list[str]:
    """The labels every text of a key part may open with, glued to a value, longest first: ``employee_``
    of ``employee_<id>``, ``EMPLOYEE`` of ``EMPLOYEE1``. A word ending in ``_`` or ``-`` (over two or more
    distinct values), or an upper-case word before digits (three or more); a shorter one is offered too,
    for values that themselves hold ``_`` or ``-`` (``task_ab_1``, ``task_ab_2``: ``task_``)."""
    if len(texts) < 2:
        return []
    first, last = min(texts), max(texts)  # what the least and the greatest share, all share
    size = next(
        (i for i, (a, b) in enumerate(zip(first, last, strict=False)) if a != b), min(len(first), len(last))
    )
    common = first[:size]
    found: list[str] = []
    upper = _GLUES[0].match(common)
    if upper and len(texts) > 2 and all(t[len(upper[0]) : len(upper[0]) + 1].isdigit() for t in texts):
        found.append(upper[0])
    ends = [i + 1 for i in range(len(common) - 1, 0, -1) if common[i] in "_-"]
    found += [common[:end] for end in ends if _GLUES[1].fullmatch(common[:end])]
    return [p for p in found if all(len(t) > len(p) for t in texts)]


def fits(f: InferredField, column: list[tuple[int, str]]) -> str | None:
    """How field ``f`` renders every text of ``column``: "" (as is), ":03d", "|url", "[:2]"; None if not.
    A few rows are tried first: most fields fit no part, and a large sample need not be read to say so."""
    if len(column) > _PROBE and _fits(f, column[:_PROBE]) is None:
        return None
    return _fits(f, column)


def _fits(f: InferredField, column: list[tuple[int, str]]) -> str | None:
    values = [(f.values[n], t) for n, t in column]
    if any(v is None for v, _ in values):
        return None
    if all(v == t for v, t in values):
        return ""
    if f.python == "int" and all(t.isdigit() and v.lstrip("-").isdigit() for v, t in values if v):
        widths = {len(t) for _, t in values}
        if len(widths) == 1 and all(int(v or 0) == int(t) for v, t in values):
            return f":0{widths.pop()}d"
        return None
    if all(quote(v or "", safe="") == t for v, t in values):
        return "|url"
    for case in ("lower", "upper"):  # ElectroDB lower-cases key values, the attributes keep their case
        if all(getattr(v or "", case)() == t for v, t in values):
            return "|" + case
    widths = {len(t) for _, t in values}
    size = widths.pop() if len(widths) == 1 else 0
    prefixes = 0 < size <= 4 and len(column) > 1 and all((v or "").startswith(t) for v, t in values)
    if prefixes and any(len(v or "") > size for v, _ in values):
        return f"[:{size}]"
    return None


def _best_match(
    matches: list[tuple[InferredField, str]], label: str, before: list[str], entity: InferredEntity
) -> tuple[InferredField, str]:
    """Of the fields a key part fits, the likeliest: a field named by a label of the key (``SLUG#`` ->
    slug), one the label before it abbreviates or ends (``CATEGORY#`` -> catId, ``ID#`` -> catId), one
    already in a key, a stored attribute before a key-only value, the shortest name."""
    labels = {p.lower().replace("_", "") for p in before if "{" not in p}
    stem = label.lower().replace("_", "")

    def rank(match: tuple[InferredField, str]) -> tuple[bool, bool, bool, bool, bool, int]:
        f, spec = match
        flat = f.attribute.lower().replace("_", "")
        core = flat.removesuffix("id") or flat
        named = flat in labels
        abbreviated = bool(stem) and (stem.startswith(core) or flat.startswith(stem) or flat.endswith(stem))
        return (not named, not abbreviated, not f.used, f.key_only, spec != "", len(f.attribute))

    return min(matches, key=rank)


# -- uniqueness guards --------------------------------------------------------------------------------


def assign_guards(guards: list[Item], entities: list[InferredEntity], pk: str, delimiter: str) -> list[Item]:
    """Hang every guard item on the entity whose field value its key holds; the guards none explains.

    When several fields hold the value, the likeliest owner is the entity whose type the key's labels
    name (``SLUG#category#x`` -> category), then the field they name (``SLUG#`` -> slug). A guard whose
    owner was not sampled joins a family whose labels it shares."""
    families: dict[tuple[int, str, str], list[Item]] = {}
    owners: dict[tuple[int, str, str], str | None] = {}
    leftover: list[Item] = []
    held = {
        (e, f.name): {v for v in f.values if v is not None}
        for e, entity in enumerate(entities)
        for f in entity.fields.values()
    }
    for item in guards:
        parts = (key_text(item.get(pk)) or "").split(delimiter)
        labels = {p.lower().replace("_", "") for p in parts if not has_value(p)}
        candidates = [
            (e, f, position)
            for e, entity in enumerate(entities)
            for f in entity.fields.values()
            if not f.key_only
            for position, part in enumerate(parts)
            if position and part in held[e, f.name] and all(not has_value(p) for p in parts[:position])
        ]
        if not candidates:
            leftover.append(item)
            continue

        e, f, position = min(candidates, key=lambda c: _owner_rank(c, entities, labels))
        template = delimiter.join([*parts[:position], "{" + f.name + "}", *parts[position + 1 :]])
        slot = (e, f.name, template)
        families.setdefault(slot, []).append(item)
        fields = entities[e].fields
        extra = [a for a in item if a != pk and a in fields and not fields[a].key_only]
        owners[slot] = fields[extra[0]].name if len(extra) == 1 else None
    unexplained = []
    for item in leftover:
        parts = (key_text(item.get(pk)) or "").split(delimiter)
        for slot in families:
            shape = slot[2].split(delimiter)
            fits = len(shape) == len(parts) and all(
                a == b or a.startswith("{") for a, b in zip(shape, parts, strict=True)
            )
            if fits:
                families[slot].append(item)
                break
        else:
            unexplained.append(item)
    for (e, name, template), members in families.items():
        entities[e].unique.append(InferredUnique(name, template, owners[(e, name, template)], len(members)))
    return unexplained


def _owner_rank(
    candidate: tuple[int, InferredField, int], entities: list[InferredEntity], labels: set[str]
) -> tuple[bool, bool, int]:
    e, f, _ = candidate
    typed = entities[e].type.lower().replace("_", "") in labels
    return (not typed, f.attribute.lower().replace("_", "") not in labels, e)
