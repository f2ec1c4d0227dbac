"""A design inferred from a live table's items (``singletable infer``, :func:`singletable.design.infer`).

Teams with a table and no model in code start here. The table is read through the DynamoDB API only
(DescribeTable and a parallel Scan, bounded by ``sample``), so a database file, ``singletable serve``,
DynamoDB Local and AWS are read the same way. From the sample:

- the **type attribute**: an attribute on most items with few distinct short values (a name holding "type"
  or "kind" wins a tie); its values are the entity types. Without one, items are grouped into key-prefix
  families (``USER#u1`` / ``ORDER#o1#ITEM#3`` -> the families ``USER`` and ``ORDER#ITEM``);
- **uniqueness guards**: items with no type that hold little but their key (``PK = SK = USEREMAIL#x``,
  maybe one owner attribute) and whose key holds a value of some entity's field: ``unique=`` on that entity;
- per entity and key attribute (table and every index), a **key template**: the key split on ``#``, each
  part a literal (the same on every item), a field slot (the part equals one of the item's attributes on
  every item), a zero-padded number (``{n:08d}``) or a key-only field (a value found nowhere else), and
  whether the key is **sparse** (some items lack it);
- **attribute types** from the stored values (datetime strings recognised) and which are optional.

Every guess keeps its evidence (counts), which :mod:`singletable.design._infer_render` writes next to it as
a comment.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from singletable.design._infra import snake

DELIMITER = "#"
DEFAULT_SAMPLE = 1000
_SEGMENTS = 4
_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})")
_TYPE_VALUE = re.compile(r"[A-Za-z][A-Za-z0-9_.:-]{0,39}")
_LABEL = re.compile(r"[A-Z][A-Z0-9_]*")
_GUARD_EXTRA = 2  # a guard item holds its key and at most this many other attributes


class InferError(ValueError):
    """A table a design cannot be inferred from (empty, or not readable): what and why."""


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
    fields: dict[str, InferredField] = field(default_factory=dict)  # by attribute
    keys: dict[str, InferredKey] = field(default_factory=dict)  # by key attribute
    unique: list[InferredUnique] = field(default_factory=list)


@dataclass(slots=True)
class InferredIndex:
    name: str
    local: bool
    pk: tuple[str, str] | None  # (attribute, S|N|B); None for an LSI
    sk: tuple[str, str] | None
    projection: str | list[str]


@dataclass(slots=True)
class InferredDesign:
    """What a table's items show about its design; ``source`` is the design module to start from."""

    table_name: str
    target: str
    pk: tuple[str, str]
    sk: tuple[str, str] | None
    billing: str
    capacity: tuple[int, int] | None  # (read, write) units of a provisioned table
    ttl_attribute: str | None
    stream: str | None  # the stream's view type, when the table has one
    indexes: list[InferredIndex]
    sampled: int
    item_count: int | None  # DescribeTable's (approximate) count
    type_attribute: str
    type_evidence: str
    datetime_precision: str | None
    entities: list[InferredEntity]
    unexplained: int = 0

    @property
    def source(self) -> str:
        from singletable.design._infer_render import render

        return render(self)


Item = dict[str, dict[str, Any]]


def infer(target: Any, table: str, *, sample: int = DEFAULT_SAMPLE) -> InferredDesign:
    """Infer the design of ``table`` on ``target`` (a :class:`singletable.data.Target`, a database file or
    an endpoint URL) from at most ``sample`` items read by a parallel Scan; nothing is written."""
    from singletable.data import Target, TargetError, open_target, scan

    if sample < 1:
        raise InferError(f"--sample must be at least 1, not {sample}")
    if not isinstance(target, Target):
        with open_target(target, read_only=True, create=False) as opened:
            return infer(opened, table, sample=sample)
    try:
        description = target.call("DescribeTable", TableName=table)["Table"]
        items = list(scan(target, table, segments=_SEGMENTS, limit=sample))
    except TargetError as error:
        raise InferError(f"cannot read table {table} on {target.name}: {error}") from None
    if not items:
        raise InferError(f"table {table} on {target.name} holds no items: nothing to infer a design from")
    try:
        ttl = target.call("DescribeTimeToLive", TableName=table).get("TimeToLiveDescription", {})
    except TargetError:  # a target without TTL (or the right to read it): the design says nothing of it
        ttl = {}
    enabled = ttl.get("TimeToLiveStatus") in ("ENABLED", "ENABLING")
    return infer_items(
        description, items, target=target.name, ttl=ttl.get("AttributeName") if enabled else None
    )


def infer_items(
    description: dict[str, Any], items: list[Item], *, target: str = "", ttl: str | None = None
) -> InferredDesign:
    """The design that ``items`` (DynamoDB JSON) show for the table DescribeTable described; ``ttl`` is
    the table's TTL attribute (DescribeTimeToLive), when it has one."""
    types = {a["AttributeName"]: a["AttributeType"] for a in description.get("AttributeDefinitions", [])}
    pk, sk = _schema(description["KeySchema"], types)
    indexes = _indexes(description, types)
    key_attributes = [pk[0]] + ([sk[0]] if sk else [])
    for index in indexes:
        for part in (index.pk, index.sk):
            if part and part[0] not in key_attributes:
                key_attributes.append(part[0])
    # Key order, whatever order the scan's segments gave: the same table always gives the same module.
    items = sorted(items, key=lambda i: tuple(str(_text(i.get(k)) or "") for k in key_attributes[:2]))
    table_keys = 1 + (sk is not None)
    type_attribute, type_evidence = _type_attribute(items, pk[0], sk[0] if sk else None)
    groups: dict[str, list[Item]] = {}
    untyped: list[Item] = []
    for item in items:
        value = item.get(type_attribute, {}).get("S") if type_attribute else None
        if value is None:
            untyped.append(item)
        else:
            groups.setdefault(value, []).append(item)
    guards = [i for i in untyped if _looks_like_guard(i, pk[0], sk[0] if sk else None)]
    others = [i for i in untyped if not any(i is g for g in guards)]
    families = _families(others, pk[0], sk[0] if sk else None)
    entities: list[InferredEntity] = []
    for name, members in groups.items():
        evidence = f"{len(members)} items with {type_attribute} = {name!r}"
        entities.append(_entity(name, members, evidence, key_attributes, table_keys, type_attribute))
    for name, members in families.items():
        keys = (pk[0], sk[0] if sk else "")
        shapes = sorted({" / ".join(_shape(_text(m.get(k)), True) for k in keys if k) for m in members})
        evidence = f"{len(members)} items with no type attribute keyed {', '.join(shapes[:3])}"
        entities.append(_entity(name, members, evidence, key_attributes, table_keys, type_attribute))
    leftover = _assign_guards(guards, entities, pk[0])
    precision = _datetime_precision(items)
    return InferredDesign(
        table_name=description["TableName"],
        target=target,
        pk=pk,
        sk=sk,
        billing=_billing(description),
        capacity=_capacity(description),
        ttl_attribute=ttl,
        stream=_stream(description),
        indexes=indexes,
        sampled=len(items),
        item_count=description.get("ItemCount"),
        type_attribute=type_attribute or "entityType",
        type_evidence=type_evidence,
        datetime_precision=precision,
        entities=entities,
        unexplained=len(leftover),
    )


# -- the table ----------------------------------------------------------------------------------------


def _schema(
    schema: list[dict[str, str]], types: dict[str, str]
) -> tuple[tuple[str, str], tuple[str, str] | None]:
    hash_key = next(k["AttributeName"] for k in schema if k["KeyType"] == "HASH")
    range_key = next((k["AttributeName"] for k in schema if k["KeyType"] == "RANGE"), None)
    return (hash_key, types.get(hash_key, "S")), (
        (range_key, types.get(range_key, "S")) if range_key else None
    )


def _billing(description: dict[str, Any]) -> str:
    """AWS leaves BillingModeSummary out of a table that has always been provisioned."""
    summary = (description.get("BillingModeSummary") or {}).get("BillingMode")
    if summary:
        return str(summary)
    throughput = description.get("ProvisionedThroughput") or {}
    return "PROVISIONED" if throughput.get("ReadCapacityUnits") else "PAY_PER_REQUEST"


def _stream(description: dict[str, Any]) -> str | None:
    spec = description.get("StreamSpecification") or {}
    return str(spec["StreamViewType"]) if spec.get("StreamEnabled") and spec.get("StreamViewType") else None


def _capacity(description: dict[str, Any]) -> tuple[int, int] | None:
    throughput = description.get("ProvisionedThroughput") or {}
    if _billing(description) != "PROVISIONED":
        return None
    return int(throughput.get("ReadCapacityUnits") or 1), int(throughput.get("WriteCapacityUnits") or 1)


def _indexes(description: dict[str, Any], types: dict[str, str]) -> list[InferredIndex]:
    found = []
    for kind in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        for index in description.get(kind) or []:
            pk, sk = _schema(index["KeySchema"], types)
            projection = index.get("Projection") or {"ProjectionType": "ALL"}
            shown: str | list[str] = projection.get("ProjectionType", "ALL")
            if shown == "INCLUDE":
                shown = list(projection.get("NonKeyAttributes") or [])
            local = kind == "LocalSecondaryIndexes"
            found.append(InferredIndex(index["IndexName"], local, None if local else pk, sk, shown))
    return sorted(found, key=lambda i: (i.local, i.name))  # DescribeTable promises no order


def _type_attribute(items: list[Item], pk: str, sk: str | None) -> tuple[str | None, str]:
    """The attribute naming each item's entity type, and the evidence; (None, why) when none fits.

    It is on most items (guard items, which hold little but a key, are not counted), its values are few
    and short, and they follow the keys: items whose keys have the same shape (``USER#*``/``ORDER#*``)
    carry the same value, nine times in ten -- a status or a category, which varies among items of one
    shape, is not a type."""
    counts: dict[str, Counter[str]] = {}
    by_shape: dict[str, dict[str, Counter[str]]] = {}
    kept = [i for i in items if not _looks_like_guard(i, pk, sk)]
    for item in kept:
        shape = _shape(_text(item.get(pk)), True) + " " + _shape(_text(item.get(sk)) if sk else None, True)
        for name, value in item.items():
            if name not in (pk, sk) and "S" in value:
                counts.setdefault(name, Counter())[value["S"]] += 1
                by_shape.setdefault(name, {}).setdefault(shape, Counter())[value["S"]] += 1
    candidates = []
    for name, values in counts.items():
        present = sum(values.values())
        if present * 2 <= len(kept) or len(values) > 50 or len(values) >= max(2, present):
            continue
        if not all(_TYPE_VALUE.fullmatch(v) for v in values):
            continue
        following = sum(c.most_common(1)[0][1] for c in by_shape[name].values())
        if following * 10 < present * 9:
            continue
        named = any(word in name.lower() for word in ("type", "kind"))
        candidates.append((not named, -present, len(values), name))
    if not candidates:
        return None, (
            f"no attribute is on most of the {len(kept)} sampled items (guards aside) with few distinct "
            "short values that follow the keys' shapes"
        )
    *_, best = min(candidates)
    values = counts[best]
    return best, (
        f"on {sum(values.values())} of {len(kept)} sampled items (guards aside), {len(values)} distinct "
        "short values, one per key shape"
    )


def _datetime_precision(items: list[Item]) -> str | None:
    fractions: Counter[str] = Counter()
    for item in items:
        for value in item.values():
            text = value.get("S")
            if isinstance(text, str) and (match := _DATETIME.fullmatch(text)):
                fractions[
                    {0: "seconds", 3: "milliseconds", 6: "microseconds"}.get(len(match[1] or ".") - 1, "")
                ] += 1
    if len(fractions) == 1 and "" not in fractions:
        return next(iter(fractions))
    return None


# -- grouping -----------------------------------------------------------------------------------------


def _text(value: dict[str, Any] | None) -> str | None:
    """A key-like value's text: an S or an N; None for anything else."""
    if not value:
        return None
    found = value.get("S", value.get("N"))
    return found if isinstance(found, str) else None


def _looks_like_guard(item: Item, pk: str, sk: str | None) -> bool:
    key = _text(item.get(pk))
    if key is None or DELIMITER not in key:
        return False
    if sk is not None and _text(item.get(sk)) != key:
        return False
    return len([a for a in item if a not in (pk, sk)]) <= _GUARD_EXTRA


def _shape(value: str | None, placeholders: bool = False) -> str:
    """A key's labels: ``ORDER#o1#ITEM#3`` -> ``ORDER#ITEM`` (``ORDER#*#ITEM#*`` with ``placeholders``)."""
    if value is None:
        return ""
    parts = value.split(DELIMITER)
    kept = [p if (i == 0 and not _has_value(p)) or _LABEL.fullmatch(p) else "*" for i, p in enumerate(parts)]
    return DELIMITER.join(kept if placeholders else [p for p in kept if p != "*"])


def _families(items: list[Item], pk: str, sk: str | None) -> dict[str, list[Item]]:
    """Items with no type grouped by the literal labels of their keys: ``USER#u1``/``PROFILE`` -> USER."""
    families: dict[tuple[str, str], list[Item]] = {}
    for item in items:
        pk_shape, sk_shape = _shape(_text(item.get(pk))), _shape(_text(item.get(sk)) if sk else None)
        families.setdefault((pk_shape, sk_shape), []).append(item)
    named: dict[str, list[Item]] = {}
    for (pk_shape, sk_shape), members in families.items():
        constant_sk = len({_text(m.get(sk)) for m in members}) == 1 if sk else True
        name = (pk_shape if constant_sk or not sk_shape else sk_shape) or pk_shape or "ITEM"
        while name in named:
            name += "_"
        named[name] = members
    return named


# -- one entity ---------------------------------------------------------------------------------------


def _entity(
    type_name: str,
    items: list[Item],
    evidence: str,
    key_attributes: list[str],
    table_keys: int,
    type_attribute: str | None,
) -> InferredEntity:
    entity = InferredEntity(type_name, len(items), evidence, key_attributes[0])
    names: set[str] = set()
    for attribute in sorted({a for i in items for a in i if a not in key_attributes and a != type_attribute}):
        entity.fields[attribute] = _field(attribute, items, names)
    for attribute in key_attributes[
        table_keys:
    ]:  # an index key that is a plain value no attribute holds: a field
        texts = [_text(i.get(attribute)) for i in items if attribute in i]
        if (
            len(set(texts)) > 1
            and all(t is not None and DELIMITER not in t for t in texts)
            and attribute != type_attribute
        ):
            column = [(n, t) for n, i in enumerate(items) if (t := _text(i.get(attribute))) is not None]
            if not any(_fits(f, column) == "" for f in entity.fields.values()):
                entity.fields[attribute] = _field(attribute, items, names)
                entity.fields[attribute].evidence += " (an index key that is a plain value: a field)"
    for attribute in key_attributes:
        if (
            attribute in entity.fields
            or attribute == type_attribute
            or not any(attribute in i for i in items)
        ):
            continue
        entity.keys[attribute] = _key(entity, attribute, items, names)
    _sparse_conditions(entity)
    return entity


def _unique_name(base: str, names: set[str]) -> str:
    from singletable.design._workbench_import import _field_name

    name, n = _field_name(base), 2
    while name in names:
        name, n = f"{_field_name(base)}_{n}", n + 1
    names.add(name)
    return name


def _field(attribute: str, items: list[Item], names: set[str]) -> InferredField:
    values = [i.get(attribute) for i in items]
    present = [v for v in values if v is not None]
    tags = Counter(next(iter(v)) for v in present)
    nulls = tags.pop("NULL", 0)
    python, why = _python_type(tags, [v for v in present if "NULL" not in v])
    optional = len(present) < len(items) or nulls > 0
    if nulls == len(present):
        evidence = f"NULL on {nulls} of {len(items)} items"
    else:
        evidence = f"{why} on {len(present) - nulls} of {len(items)} items" + (
            f", NULL on {nulls}" if nulls else ""
        )
    return InferredField(
        _unique_name(attribute, names), attribute, python, len(present), optional, evidence,
        values=[_text(v) for v in values],
    )  # fmt: skip


def _python_type(tags: Counter[str], values: list[dict[str, Any]]) -> tuple[str, str]:
    if not tags:
        return "Any", "only NULL"
    if len(tags) > 1:
        return "Any", "mixed types (" + ", ".join(f"{t} x{n}" for t, n in tags.most_common()) + ")"
    (tag,) = tags
    if tag == "S":
        texts = [v["S"] for v in values]
        if all(_DATETIME.fullmatch(t) for t in texts):
            return "datetime", "ISO 8601 date-time strings"
        return "str", "S"
    if tag == "N":
        numbers = [v["N"] for v in values]
        if all(re.fullmatch(r"-?\d+", n) for n in numbers):
            return "int", "whole N"
        return "float", "N with fractions"
    if tag == "NS":
        whole = all(re.fullmatch(r"-?\d+", n) for v in values for n in v["NS"])
        return ("set[int]" if whole else "set[float]"), "NS"
    simple = {"BOOL": "bool", "B": "bytes", "L": "list[Any]", "M": "dict[str, Any]", "SS": "set[str]"}
    return simple.get(tag, "set[bytes]" if tag == "BS" else "Any"), tag


def _key(entity: InferredEntity, attribute: str, items: list[Item], names: set[str]) -> InferredKey:
    """The template that builds ``attribute`` for every item of ``entity`` that has it."""
    holders = [(n, _text(i.get(attribute))) for n, i in enumerate(items) if attribute in i]
    holders_text = [(n, t) for n, t in holders if t is not None]
    evidence: list[str] = []
    sparse = len(holders) < len(items)
    if sparse:
        evidence.append(f"sparse: on {len(holders)} of {len(items)} items")
    if not holders_text:  # binary: the key is a field of its own
        evidence.append("the key is binary: a field stored as the key")
        return _whole_key(entity, attribute, items, names, evidence)
    is_number = "N" in items[holders_text[0][0]][attribute]
    shapes = Counter(len(t.split(DELIMITER)) for _, t in holders_text)
    width, common = shapes.most_common(1)[0]
    if len(shapes) > 1:
        others = ", ".join(f"{n} parts x{c}" for n, c in shapes.items() if n != width)
        evidence.append(f"{common} items have {width} '#'-separated parts; the rest do not fit ({others})")
    rows = [(n, t.split(DELIMITER)) for n, t in holders_text if len(t.split(DELIMITER)) == width]
    parts: list[str] = []
    for position in range(width):
        column = [(n, p[position]) for n, p in rows]
        parts.append(_part(entity, attribute, column, parts, is_number, sparse, evidence, names))
    key = InferredKey(attribute, DELIMITER.join(parts), len(holders), evidence)
    majority = {n for n, _ in rows}
    rest = {t for n, t in holders_text if n not in majority}
    slots = [f for f in entity.fields.values() if "{" + f.name in key.template]
    if len(rest) == 1 and slots and not any(c in next(iter(rest)) for c in "{}"):
        missing = {n for n, _ in holders_text if n not in majority}
        if all(f.values[n] is None for f in slots for n in missing) and all(
            f.values[n] is not None for f in slots for n in majority
        ):
            key.otherwise = rest.pop()
            evidence[-1:-1] = [f"{key.otherwise!r} on the {len(missing)} items without {slots[0].attribute}"]
            for f in slots:
                f.optional = True
    if sparse and not any(f.optional for f in slots):
        present = {n for n, _ in holders}
        key.when_candidates = [
            f
            for f in entity.fields.values()
            if not f.key_only and {n for n, v in enumerate(f.values) if v is not None} == present
        ]
    return key


def _sparse_conditions(entity: InferredEntity) -> None:
    """A sparse key with no optional field of its own is written where some field is set: of the fields
    present on exactly its items, one another key uses (GSI3SK's ``{role}`` for GSI3PK = ADMINS)."""
    for key in entity.keys.values():
        if key.when_candidates:
            best = min(key.when_candidates, key=lambda f: (not f.used, f.name))
            key.when_present = best.name
            key.evidence.append(f"present exactly where {best.attribute} is")


def _whole_key(
    entity: InferredEntity, attribute: str, items: list[Item], names: set[str], evidence: list[str]
) -> InferredKey:
    name = _unique_name(snake(attribute) + "_value", names)
    held = [i.get(attribute) for i in items]
    kinds = {next(iter(v)) for v in held if v}
    python = {"S": "str", "N": "int", "B": "bytes"}.get(kinds.pop(), "str") if len(kinds) == 1 else "str"
    present = sum(v is not None for v in held)
    entity.fields["\0" + name] = InferredField(  # stored as the key itself (Field(alias=<the key>))
        name, attribute, python, present, present < entity.count, f"the whole of {attribute}", True,
        [_text(v) for v in held], True, attribute,
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
) -> str:
    """One ``#``-separated part of a key: a field slot, a literal or a new key-only field."""
    texts = {t for _, t in column}
    matches = [(f, spec) for f in entity.fields.values() if (spec := _fits(f, column)) is not None]
    stored = [(f, spec) for f, spec in matches if not f.key_only]
    spellable = not any("{" in t or "}" in t for t in texts)  # a template has no escape for braces
    if len(texts) == 1 and not stored and (len(column) > 1 or not matches) and spellable:
        return next(iter(texts))
    label = next((p for p in reversed(before) if "{" not in p), "")
    if matches:
        best, spec = _best_match(matches, label, before, entity)
        slot = "{" + best.name + spec + "}"
        if not best.key_only:
            how = {"": "=", "|url": "URL-encoded ="}.get(spec, "from")
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
        base = f"{label.lower()}_id"
    else:
        base = "id" if attribute == entity.table_pk and not before else snake(attribute) + "_value"
    name = _unique_name(base, names)
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
        return "{" + name + f":0{size}d}}"
    evidence.append(f"{{{name}}}: {len(texts)} distinct values found in no attribute (a key-only field)")
    return "{" + name + "}"


def _fits(f: InferredField, column: list[tuple[int, str]]) -> str | None:
    """How field ``f`` renders every text of ``column``: "" (as is), ":03d", "|url", "[:2]"; None if not."""
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


def _assign_guards(guards: list[Item], entities: list[InferredEntity], pk: str) -> list[Item]:
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
        parts = (_text(item.get(pk)) or "").split(DELIMITER)
        labels = {p.lower().replace("_", "") for p in parts if not _has_value(p)}
        candidates = [
            (e, f, position)
            for e, entity in enumerate(entities)
            for f in entity.fields.values()
            if not f.key_only
            for position, part in enumerate(parts)
            if position and part in held[e, f.name] and all(not _has_value(p) for p in parts[:position])
        ]
        if not candidates:
            leftover.append(item)
            continue

        e, f, position = min(candidates, key=lambda c: _owner_rank(c, entities, labels))
        template = DELIMITER.join([*parts[:position], "{" + f.name + "}", *parts[position + 1 :]])
        slot = (e, f.name, template)
        families.setdefault(slot, []).append(item)
        fields = entities[e].fields
        extra = [a for a in item if a != pk and a in fields and not fields[a].key_only]
        owners[slot] = fields[extra[0]].name if len(extra) == 1 else None
    unexplained = []
    for item in leftover:
        parts = (_text(item.get(pk)) or "").split(DELIMITER)
        for slot in families:
            shape = slot[2].split(DELIMITER)
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


def _has_value(part: str) -> bool:
    """A key part that is data, not a label: guards' labels come before the unique value."""
    return not re.fullmatch(r"[A-Za-z_]+", part)
