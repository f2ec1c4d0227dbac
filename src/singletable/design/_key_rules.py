"""The checks on keys: partitions that concentrate traffic (ST101, ST102), a fixed primary key on an entity
meant to have many items (ST103), sort keys that do not sort as
their values do (ST201, ST202), ``begins_with`` prefixes another type shares (ST203) and orders no index
can give (ST204).

Each function takes a :class:`~singletable.design._view.DesignView` and returns findings; none of them
reads anything but the design's ``describe()`` data.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from singletable.design._findings import Finding, at
from singletable.design._view import (
    DesignView,
    EntityView,
    Parts,
    Slot,
    Template,
    sample_text,
    template_regex,
)

FEW_VALUES = 100  # a partition key with at most this many values is "low cardinality"
CHARACTERS = 36  # letters and digits: the values one character of a sliced key can take
_DATE_NAME = re.compile(r"(^|_)(date|day|time|timestamp|due|month|year)($|_)|_(at|on)$")
_PADDED = re.compile(r"^[<>=^]?[+ -]?0\d+")


def places(view: DesignView) -> Iterator[tuple[str | None, str]]:
    """The table (None) and each index, with how findings name it."""
    yield None, "the table"
    for name in view.indexes:
        yield name, f"index {name}"


def partition_findings(view: DesignView) -> list[Finding]:
    """ST101 and ST102: partition keys with one value, or a handful, for every item of an entity."""
    findings: list[Finding] = []
    seen: set[tuple[str, str, str]] = set()
    for index, where in places(view):
        pk_attribute, _ = view.keys_of(index)
        for entity, pk, sk in view.members(index):
            if index is None and (sk is None or sk.constant):
                if pk.constant:
                    findings += _one_item(view, entity, pk)
                continue  # one item per partition value: a singleton or a bounded set, not a hot partition
            for text, when in _constant_values(pk):
                if (entity.name, pk_attribute, text) in seen:
                    continue
                seen.add((entity.name, pk_attribute, text))
                findings.append(
                    Finding(
                        "ST101",
                        f"{entity.name}.{pk_attribute}",
                        f"every {entity.name} item{when} has {pk_attribute} = {text!r}, the partition key "
                        f"of {where}: one partition holds them all",
                        entity=entity.name,
                        **at(pk.source),
                    )
                )
            values = _value_count(entity, pk.parsed)
            if not pk.constant and values is not None and values <= FEW_VALUES:
                findings.append(
                    Finding(
                        "ST102",
                        f"{entity.name}.{pk_attribute}",
                        f"{pk_attribute} = {pk.text!r}, the partition key of {where}, takes at most {values} "
                        f"values for {entity.name} items: {values} partitions share all of them",
                        entity=entity.name,
                        **at(pk.source),
                    )
                )
    return findings


def _one_item(view: DesignView, entity: EntityView, pk: Template) -> list[Finding]:
    """ST103: a fixed primary key (a singleton), though an index key of the entity varies by field."""
    varying = [
        template
        for index in view.indexes
        for template in (entity.template(a) for a in view.keys_of(index))
        if template is not None and not template.constant and template.attribute not in (view.pk, view.sk)
    ]
    if not varying:
        return []  # a real singleton: a counter, the settings of the whole application
    shown = ", ".join(f"{t.attribute} = {t.text!r}" for t in varying)
    sk = entity.template(view.sk)
    key = f"{view.pk} = {pk.text!r}" + (f", {view.sk} = {sk.text!r}" if sk is not None else "")
    return [
        Finding(
            "ST103",
            f"{entity.name}.{view.pk}",
            f"every {entity.name} has the one primary key {key}, yet {shown} varies: each write replaces "
            "the last",
            entity=entity.name,
            **at(pk.source),
        )
    ]


def _constant_values(pk: Template) -> Iterator[tuple[str, str]]:
    if pk.constant:
        yield pk.text, (" in the index" if pk.sparse else "")
    if pk.otherwise is not None and "{" not in pk.otherwise:  # a literal alternative (no slot)
        fields = ", ".join(pk.parsed.fields) or "its condition"
        yield pk.otherwise, f" without {fields}"


def _value_count(entity: EntityView, template: Parts) -> int | None:
    """How many values a template can take, when every slot's field has few (None: many)."""
    total = 1
    for slot in template.slots:
        count = _slot_values(entity.fields[slot.field], slot)
        if count is None:
            return None
        total *= count
    return total


def _slot_values(field: dict[str, Any], slot: Slot) -> int | None:
    limits = field.get("limits", {})
    if "choices" in limits:
        return len(limits["choices"])
    if field["python"] == "int" and "ge" in limits and "le" in limits:
        return int(limits["le"]) - int(limits["ge"]) + 1
    start, stop = slot.slice or (None, None)
    if stop is not None and (start or 0) >= 0 and stop > 0:
        return CHARACTERS ** (stop - (start or 0))
    return None


def sort_findings(view: DesignView) -> list[Finding]:
    """ST201 and ST202: numbers and dates in string sort keys that do not sort in value order."""
    findings: list[Finding] = []
    seen: set[tuple[str, str, str]] = set()
    for index, where in places(view):
        _, sk_attribute = view.keys_of(index)
        if sk_attribute is None or view.sort_key_type(index) != "S" or view.by_fields(index):
            continue  # (a key of fields sorts each attribute by its own type)
        for entity, _, sk in view.members(index):
            assert sk is not None
            for slot in sk.parsed.slots:
                problem = _unsortable(entity.fields[slot.field], slot)
                if problem is None or (entity.name, sk_attribute, slot.field) in seen:
                    continue
                seen.add((entity.name, sk_attribute, slot.field))
                rule, text = problem
                findings.append(
                    Finding(
                        rule,
                        f"{entity.name}.{sk_attribute}",
                        f"{sk_attribute} = {sk.text!r}, the sort key of {where}, writes {text}",
                        entity=entity.name,
                        **at(sk.source),
                    )
                )
    return findings


def _unsortable(field: dict[str, Any], slot: Slot) -> tuple[str, str] | None:
    python, name = field["python"], field["name"]
    if slot.slice is not None:
        return None  # a slice of the value: a prefix for grouping, not an order
    if python in ("int", "float", "Decimal") and not _PADDED.match(slot.spec) and not _fixed_width(field):
        shown = "{" + name + (":" + slot.spec if slot.spec else "") + "}"
        return "ST201", f"{python} field {name} as {shown}, unpadded: 10 sorts before 9"
    if python == "str" and _DATE_NAME.search(name):
        return "ST202", (
            f"str field {name}, which holds a date or time in whatever format callers give "
            "(declare it datetime or date: the model writes fixed-width ISO 8601)"
        )
    return None


def _fixed_width(field: dict[str, Any]) -> bool:
    """Whether an int field's bounds give every value the same number of digits (0..9, 100..999)."""
    limits = field.get("limits", {})
    low, high = limits.get("ge"), limits.get("le")
    if field["python"] != "int" or low is None or high is None or low < 0:
        return False
    return len(str(int(low))) == len(str(int(high)))


def collision_findings(view: DesignView) -> list[Finding]:
    """ST203: a pattern's ``begins_with`` prefix that another entity's sort keys in its partition share."""
    findings: list[Finding] = []
    for entity in view.entities:
        for pattern in entity.patterns:
            if pattern["operation"] != "Query" or not pattern.get("sk") or pattern.get("pk") is None:
                continue
            if pattern["pk"].get("template") is None:
                continue  # an index keyed by fields: typed equalities, no template prefix to share
            index = pattern["index"]
            if view.sort_key_type(index) != "S":
                continue
            prefix = _query_prefix(entity, pattern)
            if prefix is None:
                continue
            pk = Parts.of(pattern["pk"]["template"], pattern["pk"]["parts"])
            others = _sharing(view, index, entity, pk, prefix)
            if others:
                sk_attribute = pattern["sk"]["attribute"]
                shown = "the whole partition" if not prefix.parts else f"begins_with({sk_attribute}, …)"
                named = "; ".join(f"{other.name} ({sk_attribute} = {sk.text!r})" for other, sk in others)
                findings.append(
                    Finding(
                        "ST203",
                        f"{entity.name}.{pattern['name']}",
                        f"{shown} on {pk.text!r} with {sk_attribute} prefix {prefix.shown()!r} also reads "
                        f"{named}",
                        entity=entity.name,
                        **at(pattern.get("source") or entity.source),
                    )
                )
    return findings


def _query_prefix(entity: EntityView, pattern: dict[str, Any]) -> Parts | None:
    """What the pattern's sort-key condition begins with when called for a list: every slot given but the
    last (the item's own identity). None when it reads one item (an equality on a fixed sort key)."""
    template = Parts.of(pattern["sk"]["template"], pattern["sk"]["parts"])
    own = entity.template(pattern["sk"]["attribute"])
    if not template.slots:
        if own is not None and own.text == template.text:
            return None  # the entity's fixed sort key: an equality, one item
        return template  # a literal prefix given to the pattern (sk="COMMENT#"): begins_with it
    last = max(i for i, part in enumerate(template.parts) if isinstance(part, Slot))
    return Parts(template.text, template.parts[:last])


def _sharing(
    view: DesignView, index: str | None, entity: EntityView, pk: Parts, prefix: Parts
) -> list[tuple[EntityView, Template]]:
    same_partition = template_regex(pk, view.delimiter)
    begins = template_regex(prefix, view.delimiter, whole=False)
    found = []
    for other, other_pk, other_sk in view.members(index):
        if other.type == entity.type or other_sk is None:
            continue
        if not same_partition.match(sample_text(other_pk.parsed)) and not other_pk.shape(
            view.delimiter
        ).match(sample_text(pk)):
            continue
        if begins.match(sample_text(other_sk.parsed)):
            found.append((other, other_sk))
    return found


def order_findings(view: DesignView) -> list[Finding]:
    """ST204: newest_first on an index without a sort key, or one the entity fills with a fixed value."""
    findings: list[Finding] = []
    for entity in view.entities:
        for pattern in entity.patterns:
            if not pattern["newest_first"] or pattern["operation"] != "Query":
                continue
            index = pattern["index"]
            _, sk_attribute = view.keys_of(index)
            where = f"index {index}" if index else "the table"
            if sk_attribute is None:
                problem = f"newest_first on {where}, which has no sort key"
            else:
                sk = entity.template(sk_attribute)
                if sk is None or not sk.constant:
                    continue
                problem = f"newest_first on {where}, whose sort key {sk_attribute} is always {sk.text!r}"
            findings.append(
                Finding(
                    "ST204",
                    f"{entity.name}.{pattern['name']}",
                    f"{problem} for {entity.name}: the order of its results is undefined",
                    entity=entity.name,
                    **at(pattern.get("source") or entity.source),
                )
            )
    return findings
