"""ST404: a GSI whose key templates glue fields together (``TENANT#{tenant}#STATUS#{status}``) or zero-pad a
number into a string (``{priority:05d}``), where keying the index on the fields themselves would do.

DynamoDB keys a global secondary index on up to four partition and four sort attributes, each its own typed
value; the model declares such an index with ``GSI(name, pk=[...], sk=[...])``. The rule suggests exactly
that declaration, with the fields in template order, only when it would say the same: every slot a whole
field of a type a key holds (no slice, no case filter), at most four per part, no field in both parts and no
condition or alternative on the keys (an index keyed by fields holds an item while its fields have values,
which a ``when=`` cannot change).
"""

from __future__ import annotations

import re
from typing import Any

from singletable.design._findings import Finding, at
from singletable.design._view import DesignView, EntityView, Template

MAX_PARTS = 4  # DynamoDB: four HASH and four RANGE attributes in a GSI's KeySchema
_PADDED = re.compile(r"^[<>=^]?[+ -]?0\d+")
_KEYABLE = ("S", "N", "B", "DT", "TTL")  # codec kinds stored as S, N or B


def glued_key_findings(view: DesignView) -> list[Finding]:
    """ST404, once per entity whose templated key of a GSI would be simpler keyed by fields. An index that
    several entities fill from different fields (an overloaded GSI1) is what a glued key is for: it gets
    none, since one declaration of fields could not hold them all."""
    findings = []
    for index, described in view.indexes.items():
        if described["kind"] != "GSI" or described.get("by_fields"):
            continue
        pk_attribute, sk_attribute = view.keys_of(index)
        members = []
        for entity in view.entities:
            pk = entity.template(pk_attribute)
            sk = entity.template(sk_attribute) if sk_attribute else None
            declared = [t for t in (pk, sk) if t is not None and t.attribute in entity.declared_keys]
            if pk is not None and declared:
                members.append((entity, pk, sk, _key_fields(entity, pk, sk)))
        suggestions = {m[3] for m in members}
        if len(suggestions) != 1 or None in suggestions:
            continue
        for entity, pk, sk, fields in members:
            assert fields is not None
            finding = _finding(index, entity, [t for t in (pk, sk) if t is not None], fields)
            if finding is not None:
                findings.append(finding)
    return findings


def _key_fields(
    entity: EntityView, pk: Template, sk: Template | None
) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The fields an index keyed by fields would hold for this entity: (partition, sort); None when no
    such declaration says what the templates do."""
    templates = [t for t in (pk, sk) if t is not None]
    if any(t.sparse or t.otherwise is not None for t in templates):
        return None
    pk_fields = _fields(entity, pk)
    sk_fields = _fields(entity, sk) if sk is not None else []
    if pk_fields is None or sk_fields is None or not pk_fields:
        return None
    if len(pk_fields) > MAX_PARTS or len(sk_fields) > MAX_PARTS or set(pk_fields) & set(sk_fields):
        return None
    return tuple(pk_fields), tuple(sk_fields)


def _finding(
    index: str, entity: EntityView, templates: list[Template], fields: tuple[tuple[str, ...], ...]
) -> Finding | None:
    glued = [t for t in templates if len(t.parsed.fields) > 1]
    padded = [t for t in templates if _has_padding(t, entity)]
    if not glued and not padded:
        return None
    why = [
        f"{t.attribute} = {t.text!r}, which glues {', '.join(t.parsed.fields)} into one string" for t in glued
    ]
    why += [
        f"{t.attribute} = {t.text!r}, which zero-pads {', '.join(_padded(t, entity))} into a string"
        for t in padded
        if t not in glued
    ]
    pk_fields, sk_fields = fields
    declaration = f"GSI({index!r}, pk={list(pk_fields)!r}" + (
        f", sk={list(sk_fields)!r})" if sk_fields else ")"
    )
    first = (glued or padded)[0]
    return Finding(
        "ST404",
        f"{entity.name}.{first.attribute}",
        f"index {index} keys {entity.name} on {' and '.join(why)}: {declaration} would key it on the fields "
        "themselves, each typed, with no delimiter to keep out, no padding and no read to rebuild a key when "
        "one of them changes",
        entity=entity.name,
        **at(first.source),
    )


def _padded(template: Template, entity: EntityView) -> list[str]:
    return [
        s.field
        for s in template.parsed.slots
        if _PADDED.match(s.spec) and entity.fields[s.field]["type"] == "N"
    ]


def _has_padding(template: Template, entity: EntityView) -> bool:
    return bool(_padded(template, entity))


def _fields(entity: EntityView, template: Template) -> list[str] | None:
    """The fields a key of fields would hold instead of ``template``; None when one cannot be (a slice, a
    case filter, a field of a type no key holds)."""
    out = []
    for slot in template.parsed.slots:
        field: dict[str, Any] | None = entity.fields.get(slot.field)
        if field is None or field["type"] not in _KEYABLE or slot.slice is not None:
            return None
        if set(slot.filters) - {"url"}:
            return None
        out.append(slot.field)
    return list(dict.fromkeys(out))
