"""The stateful proof's invariant: the whole table read raw (a Scan, not through the model) and checked.

Every entity item must be exactly what a put of the entity it decodes to would write (each index key present
iff its condition holds, with the value its template computes; no other attribute), the guard items exactly
the live owners' unique values, the derived items exactly those the owners' declarations compute, and
nothing else may be in the table. Used by ``test_stateful_writes.py`` after every step.
"""

from __future__ import annotations

from typing import Any

from stateful_design import ENTITIES, FIELD_KEYED, GUARD_PREFIXES, design

from every_item import every_item_of
from singletable.model import DB, guard_key


def normal(av: Any) -> Any:
    """An AttributeValue in a comparable form: sets in one order, maps and lists recursively."""
    ((kind, value),) = av.items()
    if kind in ("SS", "NS", "BS"):
        return (kind, tuple(sorted(value)))
    if kind == "M":
        return (kind, tuple(sorted((k, normal(v)) for k, v in value.items())))
    if kind == "L":
        return (kind, tuple(normal(v) for v in value))
    return (kind, value)


def normal_item(item: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(sorted((name, normal(av)) for name, av in item.items()))


def scan(db: DB) -> list[dict[str, Any]]:
    """Every item of the table, read raw with a consistent Scan."""
    return every_item_of(db)


def owned_items(entity: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The guard items and derived items an entity's declaration says it owns."""
    meta = type(entity).model_entity()
    values = meta.values(entity)
    owner = {"M": meta.primary_key(values)}
    guards = []
    for name in meta.unique:
        if values.get(name) is not None:
            scope = {f: values[f] for f in meta.guard_fields[name] if f != name}
            guard = {**guard_key(meta, name, values[name], **scope), "owner": owner}
            for carried in meta.guard_carry.get(name, ()):
                guard[meta.attribute_of[carried]] = meta.fields[carried].codec.dump(values[carried])
            guards.append(guard)
    derived = []
    for declaration in meta.derived:
        for item in declaration.items(values):
            target = item.model_entity()
            derived.append(target.to_item(target.values(item)))
    return guards, derived


def check_table(db: DB) -> dict[str, dict[tuple[str, str], Any]]:
    """The raw-table invariant; returns the entities found, by type and primary key."""
    by_type = {cls.model_entity().type: cls.model_entity() for cls in ENTITIES}
    type_attribute = design.type_attribute
    found: dict[str, dict[tuple[str, str], Any]] = {name: {} for name in by_type}
    guards, derived_seen = [], []
    for item in scan(db):
        kind = item.get(type_attribute, {}).get("S")
        if kind is None:
            pk = item[design.pk_name]["S"]
            assert any(pk.startswith(prefix) for prefix in GUARD_PREFIXES), f"an item nobody owns: {item}"
            guards.append(normal_item(item))
            continue
        meta = by_type[kind]
        entity = meta.from_item(item)
        expected = meta.to_item(meta.values(entity))
        assert normal_item(item) == normal_item(expected), f"{kind} item differs from its entity's"
        key = (item[design.pk_name]["S"], item[design.sk_name]["S"])
        found[kind][key] = entity
        if kind in ("MTAG", "OWNS"):
            derived_seen.append(normal_item(item))
    expected_guards, expected_derived = [], []
    for owners in (found["MEMBER"], found["DOC"]):
        for owner in owners.values():
            owned_guards, owned_derived = owned_items(owner)
            expected_guards += [normal_item(g) for g in owned_guards]
            expected_derived += [normal_item(d) for d in owned_derived]
    assert sorted(guards) == sorted(expected_guards), "guard items differ from the owners' unique values"
    assert sorted(derived_seen) == sorted(expected_derived), "derived items differ from their owners'"
    return found


def without_field_keyed_index(params: dict[str, Any]) -> dict[str, Any]:
    """The design's CreateTable without the index keyed by fields, for DynamoDB Local 1.25.1, which refuses a
    multi-attribute GSI key ("Key Schema too big"); the writes are the same, the index is not read there."""
    gsis = [g for g in params["GlobalSecondaryIndexes"] if g["IndexName"] != FIELD_KEYED]
    schemas = [
        params["KeySchema"],
        *(i["KeySchema"] for i in (*gsis, *params.get("LocalSecondaryIndexes", ()))),
    ]
    used = {k["AttributeName"] for schema in schemas for k in schema}
    definitions = [d for d in params["AttributeDefinitions"] if d["AttributeName"] in used]
    return {**params, "GlobalSecondaryIndexes": gsis, "AttributeDefinitions": definitions}
