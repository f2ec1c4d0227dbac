"""A design inferred from a live table's items (``singletable infer``, :func:`singletable.design.infer`).

Teams with a table and no model in code start here. The table is read through the DynamoDB API only
(DescribeTable and a parallel Scan, bounded by ``sample``), so a database file, ``singletable serve``,
DynamoDB Local and AWS are read the same way. From the sample:

- the **type attribute**: an attribute on most items with few distinct short values (a name holding "type"
  or "kind" wins a tie); its values are the entity types. Without one, items are grouped into key-prefix
  families (``USER#u1`` / ``ORDER#o1#ITEM#3`` -> the families ``USER`` and ``ORDER#ITEM``);
- **uniqueness guards**: items with no type that hold little but their key (``PK = SK = USEREMAIL#x``,
  maybe one owner attribute) and whose key holds a value of some entity's field: ``unique=`` on that entity;
- per entity and key attribute (table and every index), a **key template**: the key split on its delimiter
  (``#``, or the one of ``| / ~ $`` most keys hold), each part a literal, a field slot or a key-only field,
  and whether the key is **sparse** (some items lack it) -- :mod:`singletable.design._infer_keys`, which
  also hangs uniqueness guards on their owners;
- **attribute types** from the stored values (datetime strings recognised) and which are optional.

Every guess keeps its evidence (counts), which :mod:`singletable.design._infer_render` writes next to it as
a comment.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from singletable.design._infer_keys import (
    InferredEntity,
    InferredField,
    assign_guards,
    fits,
    has_value,
    infer_key,
    key_text,
    sparse_conditions,
    unique_name,
)

DELIMITERS = ("#", "|", "/", "~", "$")  # what keys are split on: the first most keys hold
DEFAULT_SAMPLE = 1000
_SEGMENTS = 4
_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})")
_TYPE_VALUE = re.compile(r"[A-Za-z][A-Za-z0-9_.:-]{0,39}")
_LABEL = re.compile(r"[A-Z][A-Z0-9_]*")
_GUARD_EXTRA = 2  # a guard item holds its key and at most this many other attributes


class InferError(ValueError):
    """A table a design cannot be inferred from (empty, or not readable): what and why."""


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
    delimiter: str = "#"
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
    items = sorted(items, key=lambda i: tuple(str(key_text(i.get(k)) or "") for k in key_attributes[:2]))
    table_keys = 1 + (sk is not None)
    sk_name = sk[0] if sk else None
    delimiter = _delimiter(items, key_attributes[:table_keys])
    type_attribute, type_evidence = _type_attribute(items, pk[0], sk_name, delimiter)
    groups: dict[str, list[Item]] = {}
    untyped: list[Item] = []
    for item in items:
        value = item.get(type_attribute, {}).get("S") if type_attribute else None
        if value is None:
            untyped.append(item)
        else:
            groups.setdefault(value, []).append(item)
    guards = [i for i in untyped if _looks_like_guard(i, pk[0], sk_name, delimiter)]
    guard_ids = {id(g) for g in guards}
    families = _families([i for i in untyped if id(i) not in guard_ids], pk[0], sk_name, delimiter)
    keys = key_attributes, table_keys, type_attribute, delimiter
    entities: list[InferredEntity] = []
    for name, members in groups.items():
        entities.append(
            _entity(name, members, f"{len(members)} items with {type_attribute} = {name!r}", *keys)
        )
    for name, members in families.items():
        shapes = sorted(
            {" / ".join(_shape(key_text(m.get(k)), delimiter, True) for k in key_attributes[:table_keys])
             for m in members}
        )  # fmt: skip
        evidence = f"{len(members)} items with no type attribute keyed {', '.join(shapes[:3])}"
        entities.append(_entity(name, members, evidence, *keys))
    leftover = assign_guards(guards, entities, pk[0], delimiter)
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
        delimiter=delimiter,
        entities=entities,
        unexplained=len(leftover),
    )


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


def _type_attribute(items: list[Item], pk: str, sk: str | None, delimiter: str) -> tuple[str | None, str]:
    """The attribute naming each item's entity type, and the evidence; (None, why) when none fits.

    It is on most items (guard items, which hold little but a key, are not counted), its values are few
    and short, and they follow the keys: items whose keys have the same shape (``USER#*``/``ORDER#*``)
    carry the same value, nine times in ten -- a status or a category, which varies among items of one
    shape, is not a type."""
    counts: dict[str, Counter[str]] = {}
    by_shape: dict[str, dict[str, Counter[str]]] = {}
    kept = [i for i in items if not _looks_like_guard(i, pk, sk, delimiter)]
    for item in kept:
        shape = _shape(key_text(item.get(pk)), delimiter, True)
        shape += " " + _shape(key_text(item.get(sk)) if sk else None, delimiter, True)
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


def _delimiter(items: list[Item], table_keys: list[str]) -> str:
    """What the keys are split on: of ``# | / ~ $``, the one the most table keys hold (``#`` on a tie or
    when none is in a tenth of them)."""
    counts = Counter(
        d
        for item in items
        for k in table_keys
        if (text := key_text(item.get(k)))
        for d in DELIMITERS
        if d in text
    )
    best = max(DELIMITERS, key=lambda d: (counts[d], d == "#"))
    return best if counts[best] * 10 >= len(items) else "#"


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


def _looks_like_guard(item: Item, pk: str, sk: str | None, delimiter: str) -> bool:
    key = key_text(item.get(pk))
    if key is None or delimiter not in key:
        return False
    if sk is not None and key_text(item.get(sk)) != key:
        return False
    return len([a for a in item if a not in (pk, sk)]) <= _GUARD_EXTRA


def _shape(value: str | None, delimiter: str, placeholders: bool = False) -> str:
    """A key's labels: ``ORDER#o1#ITEM#3`` -> ``ORDER#ITEM`` (``ORDER#*#ITEM#*`` with ``placeholders``)."""
    if value is None:
        return ""
    parts = value.split(delimiter)
    kept = [p if (i == 0 and not has_value(p)) or _LABEL.fullmatch(p) else "*" for i, p in enumerate(parts)]
    return delimiter.join(kept if placeholders else [p for p in kept if p != "*"])


def _families(items: list[Item], pk: str, sk: str | None, delimiter: str) -> dict[str, list[Item]]:
    """Items with no type grouped by the literal labels of their keys: ``USER#u1``/``PROFILE`` -> USER."""
    families: dict[tuple[str, str], list[Item]] = {}
    for item in items:
        pk_shape = _shape(key_text(item.get(pk)), delimiter)
        sk_shape = _shape(key_text(item.get(sk)) if sk else None, delimiter)
        families.setdefault((pk_shape, sk_shape), []).append(item)
    named: dict[str, list[Item]] = {}
    for (pk_shape, sk_shape), members in families.items():
        constant_sk = len({key_text(m.get(sk)) for m in members}) == 1 if sk else True
        name = (pk_shape if constant_sk or not sk_shape else sk_shape) or pk_shape or "ITEM"
        while name in named:
            name += "_"
        named[name] = members
    return named


def _entity(
    type_name: str,
    items: list[Item],
    evidence: str,
    key_attributes: list[str],
    table_keys: int,
    type_attribute: str | None,
    delimiter: str,
) -> InferredEntity:
    entity = InferredEntity(type_name, len(items), evidence, key_attributes[0], delimiter)
    names: set[str] = set()
    for attribute in sorted({a for i in items for a in i if a not in key_attributes and a != type_attribute}):
        entity.fields[attribute] = _field(attribute, items, names)
    for attribute in key_attributes[
        table_keys:
    ]:  # an index key that is a plain value no attribute holds: a field
        texts = [key_text(i.get(attribute)) for i in items if attribute in i]
        if (
            len(set(texts)) > 1
            and all(t is not None and delimiter not in t for t in texts)
            and attribute != type_attribute
        ):
            column = [(n, t) for n, i in enumerate(items) if (t := key_text(i.get(attribute))) is not None]
            if not any(fits(f, column) == "" for f in entity.fields.values()):
                entity.fields[attribute] = _field(attribute, items, names)
                entity.fields[attribute].evidence += " (an index key that is a plain value: a field)"
    for attribute in key_attributes:
        if (
            attribute in entity.fields
            or attribute == type_attribute
            or not any(attribute in i for i in items)
        ):
            continue
        entity.keys[attribute] = infer_key(entity, attribute, items, names)
    sparse_conditions(entity)
    return entity


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
        unique_name(attribute, names), attribute, python, len(present), optional, evidence,
        values=[key_text(v) for v in values],
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
    if tag in ("L", "M"):
        members = [m for v in values for m in (v["L"] if tag == "L" else v["M"].values())]
        inner, _ = _python_type(Counter(next(iter(m)) for m in members), members) if members else ("Any", "")
        inner = inner if inner in ("str", "int", "float", "bool") else "Any"  # one scalar type, or any
        return (f"list[{inner}]" if tag == "L" else f"dict[str, {inner}]"), tag
    simple = {"BOOL": "bool", "B": "bytes", "SS": "set[str]"}
    return simple.get(tag, "set[bytes]" if tag == "BS" else "Any"), tag
