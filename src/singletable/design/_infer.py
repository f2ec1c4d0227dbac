"""A design inferred from a live table's items (``singletable infer``, :func:`singletable.design.infer`).

Teams with a table and no model in code start here. The table is read through the DynamoDB API only
(DescribeTable and a parallel Scan, bounded by ``sample``), so a database file, ``singletable serve``,
DynamoDB Local and AWS are read the same way. From the sample:

- the **type attribute** and, without one, the key-prefix **families** (``USER#u1`` / ``ORDER#o1#ITEM#3`` ->
  ``USER`` and ``ORDER#ITEM``), with the delimiter the keys are split on --
  :mod:`singletable.design._infer_groups`;
- **uniqueness guards**: items with no type that hold little but their key (``PK = SK = USEREMAIL#x``,
  maybe one owner attribute) and whose key holds a value of some entity's field: ``unique=`` on that entity;
- per entity and key attribute (table and every index), a **key template**: the key split on its
  delimiter, each part a literal, a field slot or a key-only field (a label glued to either), and whether
  the key is **sparse** (some items lack it) and on what condition -- :mod:`singletable.design._infer_keys`,
  which also hangs uniqueness guards on their owners;
- **attribute types** from the stored values (datetime strings recognised) and which are optional.

Every guess keeps its evidence (counts), which :mod:`singletable.design._infer_render` writes next to it as
a comment.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from singletable.design._infer_groups import (
    choose_delimiter,
    families,
    find_type_attribute,
    looks_like_guard,
    other_formats,
    shape,
    words_first,
)
from singletable.design._infer_keys import (
    InferredEntity,
    InferredField,
    assign_guards,
    fits,
    infer_key,
    key_text,
    sparse_conditions,
    unique_name,
)

DEFAULT_SAMPLE = 1000
_NUMBER = re.compile(r"-?\d+(\.\d+)?")
_SEGMENTS = 4
_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})")


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
    delimiter = choose_delimiter(items, key_attributes[:table_keys])
    type_attribute, type_evidence = find_type_attribute(items, pk[0], sk_name, delimiter)
    groups: dict[str, list[Item]] = {}
    untyped: list[Item] = []
    for item in items:
        value = item.get(type_attribute, {}).get("S") if type_attribute else None
        if value is None:
            untyped.append(item)
        else:
            groups.setdefault(value, []).append(item)
    guards = [i for i in untyped if looks_like_guard(i, pk[0], sk_name, delimiter)]
    guard_ids = {id(g) for g in guards}
    found = families([i for i in untyped if id(i) not in guard_ids], pk[0], sk_name, delimiter)
    keys = (
        key_attributes,
        table_keys,
        type_attribute,
        delimiter,
        _plain_keys(items, key_attributes[table_keys:], delimiter),
    )
    entities: list[InferredEntity] = []
    for name, members in groups.items():
        entities.append(
            _entity(name, members, f"{len(members)} items with {type_attribute} = {name!r}", *keys)
        )
    words = [words_first(items, k, delimiter) for k in key_attributes[:table_keys]]
    for name, members in found.items():
        shapes = sorted(
            {" / ".join(shape(key_text(m.get(k)), delimiter, True, words[n])
                        for n, k in enumerate(key_attributes[:table_keys]))
             for m in members}
        )  # fmt: skip
        evidence = f"{len(members)} items with no type attribute keyed {', '.join(shapes[:3])}"
        entities.append(_entity(name, members, evidence, *keys))
    leftover = assign_guards(guards, entities, pk[0], delimiter)
    other_formats(entities, set(groups))
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


def _entity(
    type_name: str,
    items: list[Item],
    evidence: str,
    key_attributes: list[str],
    table_keys: int,
    type_attribute: str | None,
    delimiter: str,
    plain: set[str],
) -> InferredEntity:
    entity = InferredEntity(type_name, len(items), evidence, key_attributes[0], delimiter)
    names: set[str] = set()
    for attribute in sorted({a for i in items for a in i if a not in key_attributes and a != type_attribute}):
        entity.fields[attribute] = _field(attribute, items, names)
    for attribute in key_attributes[
        table_keys:
    ]:  # an index key that is a plain value no attribute holds: a field
        if attribute in plain and attribute != type_attribute and any(attribute in i for i in items):
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


def _plain_keys(items: list[Item], index_keys: list[str], delimiter: str) -> set[str]:
    """The index keys that are plain values on every item holding them (``status``, ``created_at``), with
    more than one value in the table: fields, on every entity, even one whose sample shows one value."""
    plain = set()
    for attribute in index_keys:
        texts = {key_text(i.get(attribute)) for i in items if attribute in i}
        if len(texts) > 1 and all(t is not None and delimiter not in t for t in texts):
            plain.add(attribute)
    return plain


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
        if texts and all(_NUMBER.fullmatch(t) for t in texts):
            return "str", "S holding numbers (numbers written as text)"
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
