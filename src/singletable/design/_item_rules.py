"""The checks on reads, indexes, sizes and TTL: patterns that Scan or filter (ST301, ST302), projections a
pattern cannot live with (ST401, ST402), index keys of the wrong type (ST403), item collections and items
that can outgrow DynamoDB's limits (ST501, ST502, ST503), and TTL attributes DynamoDB ignores (ST601).
"""

from __future__ import annotations

import re
from typing import Any

from singletable.design._findings import Finding, at
from singletable.design._view import DesignView, EntityView, sample_text

MAX_INCLUDE = 20  # NonKeyAttributes per index
MAX_INCLUDE_TOTAL = 100  # over all indexes of a table
ITEM_LIMIT = 400 * 1024
APPROACHING = 0.75  # an item whose declared bounds reach 75% of the limit "approaches" it
# Bytes a value of each stored type takes at most when it has no max_length (DynamoDB's sizes: a number
# up to 21 bytes, a boolean 1, our timestamps 24 characters).
_FIXED_SIZE = {"N": 21, "BOOL": 1, "DT": 24, "TTL": 21}
_KEY_TYPES = {"S": "S", "N": "N", "B": "B", "DT": "S", "TTL": "N"}
_RELATION_NAME = re.compile(r"(^|_)ids$|_ids_|(^|_)(members|followers|following|friends|children)$")
_EXPIRY_NAME = re.compile(r"^(ttl|expires?(_at|_on)?|expir(y|ation)(_at|_time)?)$")


def read_findings(view: DesignView) -> list[Finding]:
    """ST301 (a pattern that Scans) and ST302 (a pattern whose every call filters)."""
    findings = []
    for entity in view.entities:
        for pattern in entity.patterns:
            where = at(pattern.get("source") or entity.source)
            subject = f"{entity.name}.{pattern['name']}"
            if pattern["operation"] == "Scan":
                target = f"index {pattern['index']}" if pattern["index"] else "the table"
                message = f"reads all of {target} to find {entity.name} items by their type attribute"
                findings.append(Finding("ST301", subject, message, entity=entity.name, **where))
            elif pattern.get("filter"):
                message = "every call filters after reading: what the filter drops is read and billed"
                findings.append(Finding("ST302", subject, message, entity=entity.name, **where))
    return findings


def projection_findings(view: DesignView) -> list[Finding]:
    """ST401 (a non-hydrating pattern on an index lacking its entity's attributes) and ST402 (limits)."""
    findings = []
    for entity in view.entities:
        for pattern in entity.patterns:
            index = pattern["index"]
            if index is None or pattern["hydrate"] is not False:
                continue  # the table holds everything; a hydrating pattern reads what the index lacks
            missing = _unprojected(view, entity, index)
            if missing:
                findings.append(
                    Finding(
                        "ST401",
                        f"{entity.name}.{pattern['name']}",
                        f"index {index} ({view.indexes[index]['projection']}) lacks "
                        f"{', '.join(missing)}, and the pattern is declared hydrate=False",
                        entity=entity.name,
                        **at(pattern.get("source") or entity.source),
                    )
                )
    total = 0
    for name, index in view.indexes.items():
        count = len(index.get("include") or ())
        total += count
        if count > MAX_INCLUDE:
            message = f"INCLUDE names {count} attributes; DynamoDB allows {MAX_INCLUDE} per index"
            findings.append(Finding("ST402", f"index {name}", message, **at(index.get("source"))))
    if total > MAX_INCLUDE_TOTAL:
        message = f"INCLUDE projections name {total} attributes in all; DynamoDB allows {MAX_INCLUDE_TOTAL}"
        findings.append(Finding("ST402", "the table", message, **at(view.source)))
    return findings


def _unprojected(view: DesignView, entity: EntityView, index: str) -> list[str]:
    """The entity's stored attributes the index neither projects nor lets the model read back from a key."""
    described = view.indexes[index]
    if described["projection"] == "ALL":
        return []
    pk, sk = view.keys_of(index)
    projected = {view.pk, view.sk, pk, sk, *(described.get("include") or ())}
    recoverable: set[str] = set()
    for attribute in filter(None, projected):
        template = entity.template(attribute)
        if template is not None:
            recoverable.update(s.field for s in template.parsed.slots if s.reversible)
    return [
        field["attribute"]
        for field in entity.fields.values()
        if field["stored"] and field["attribute"] not in projected and field["name"] not in recoverable
    ]


def key_type_findings(view: DesignView) -> list[Finding]:
    """ST403: a field stored as itself under an index key attribute, with another type than the key's."""
    findings = []
    for index in (None, *view.indexes):
        pk, sk = view.keys_of(index)
        described = view.indexes[index] if index else view.table
        declared = {pk: described["pk"]["type"]}
        if sk:
            declared[sk] = described["sk"]["type"]
        for part in (*described.get("pk_attributes", ()), *described.get("sk_attributes", ())):
            declared[part["attribute"]] = part["type"]  # every attribute of a key of fields
        for entity in view.entities:
            for attribute, key_type in declared.items():
                field = entity.by_attribute.get(attribute)
                if field is None or not field["stored"] or attribute in entity.declared_keys:
                    continue
                written = _KEY_TYPES.get(field["type"])
                if written != key_type:
                    shown = written or field["type"]
                    where = f"index {index}" if index else "the table"
                    findings.append(
                        Finding(
                            "ST403",
                            f"{entity.name}.{field['name']}",
                            f"{entity.name} stores {field['python']} field {field['name']} as {attribute} "
                            f"({shown}), a key attribute {where} declares {key_type}",
                            entity=entity.name,
                            **at(field.get("source") or entity.source),
                        )
                    )
    return findings


def size_findings(view: DesignView) -> list[Finding]:
    """ST501 (unbounded item collections with an LSI), ST502 (items near 400 KB), ST503 (id lists)."""
    findings = []
    lsis = [name for name, index in view.indexes.items() if index["kind"] == "LSI"]
    growing: dict[str, list[tuple[EntityView, Any]]] = {}  # partition shape -> entities, first template
    for entity, pk, sk in view.members(None) if lsis else ():
        if sk is not None and not sk.constant and not pk.constant:
            shape = sample_text(pk.parsed)
            growing.setdefault(shape, []).append((entity, pk))
    for members in growing.values():
        names = ", ".join(entity.name for entity, _ in members)
        first, pk = members[0]
        findings.append(
            Finding(
                "ST501",
                f"{first.name}.{view.pk}",
                f"{names} items gather under {view.pk} = {pk.text!r}, as many as are written, on a table "
                f"with the local index {', '.join(lsis)}: each such partition is capped at 10 GB",
                entity=first.name,
                **at(pk.source),
            )
        )
    for entity in view.entities:
        size = _declared_size(entity)
        copies = [
            n for n, i in view.indexes.items() if i["projection"] == "ALL" and _in_index(view, entity, n)
        ]
        if size >= APPROACHING * ITEM_LIMIT:
            units = -(-size // 1024)
            findings.append(
                Finding(
                    "ST502",
                    entity.name,
                    f"{entity.name}'s declared field bounds allow items of {size / 1024:,.0f} KB "
                    "(limit 400 KB); "
                    f"a write of one costs {units} write units, and {len(copies)} ALL-projection "
                    f"index(es) copy it ({units * (1 + len(copies))} units in all)",
                    entity=entity.name,
                    **at(entity.source),
                )
            )
        for field in entity.fields.values():
            if _relation_list(field):
                findings.append(
                    Finding(
                        "ST503",
                        f"{entity.name}.{field['name']}",
                        f"{field['name']} ({field['type']}) keeps related ids inside one {entity.name} "
                        "item, with no bound on how many",
                        entity=entity.name,
                        **at(field.get("source") or entity.source),
                    )
                )
    return findings


def _in_index(view: DesignView, entity: EntityView, index: str) -> bool:
    return any(member is entity for member, _, _ in view.members(index))


def _declared_size(entity: EntityView) -> int:
    """An item's size from its fields' declared bounds (attribute names included); unbounded text and
    collections count as empty, so this is what the declaration *guarantees* an item can reach."""
    total = 0
    for field in entity.fields.values():
        if not field["stored"]:
            continue
        limit = field.get("limits", {}).get("max_length")
        value = int(limit) if limit is not None else _FIXED_SIZE.get(field["type"], 0)
        total += len(field["attribute"].encode()) + value
    return total


def _relation_list(field: dict[str, Any]) -> bool:
    if field["type"] not in ("L", "SS", "NS", "M"):
        return False
    return "max_length" not in field.get("limits", {}) and bool(_RELATION_NAME.search(field["name"]))


def ttl_findings(view: DesignView) -> list[Finding]:
    """ST601: expiry times DynamoDB's TTL will never act on."""
    findings = []
    table_ttl = view.ttl_attribute
    for entity in view.entities:
        for field in entity.fields.values():
            declared = field["name"] == entity.ttl
            problem = None
            if declared and field["attribute"] != table_ttl:
                problem = (
                    f"{entity.name}.{field['name']} is the entity's ttl, stored as {field['attribute']}, but "
                    f"the table's ttl_attribute is {table_ttl!r}: DynamoDB expires by that one only"
                )
            elif not declared and table_ttl is not None and field["attribute"] == table_ttl:
                problem = (
                    f"{entity.name}.{field['name']} is stored as {table_ttl}, the table's TTL attribute, "
                    f"as {field['python']} ({field['type']}), not epoch seconds: "
                    f"declare ttl={field['name']!r}"
                )
            elif not declared and _EXPIRY_NAME.match(field["name"]):
                problem = (
                    f"{entity.name}.{field['name']} reads as an expiry time but is stored as "
                    f"{field['python']} ({field['type']}), which DynamoDB's TTL ignores"
                )
            if problem:
                findings.append(
                    Finding(
                        "ST601",
                        f"{entity.name}.{field['name']}",
                        problem,
                        entity=entity.name,
                        **at(field.get("source") or entity.source),
                    )
                )
    return findings
