"""Comparing an inferred design with a shipped one: entity types, key templates, index mappings.

A template is compared with the names of its fields taken out (``USER#{user_id}`` -> ``USER#{}``): the data
shows key values, never the names of the fields inside them. Format specs, slices and filters stay.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

_NAME = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*")


def two_key_table(name: str, pk: str = "PK", sk: str = "SK") -> dict[str, Any]:
    """DescribeTable's answer, as far as infer reads it, for a table keyed by two strings and no index."""
    return {
        "TableName": name,
        "KeySchema": [{"AttributeName": pk, "KeyType": "HASH"}, {"AttributeName": sk, "KeyType": "RANGE"}],
        "AttributeDefinitions": [{"AttributeName": a, "AttributeType": "S"} for a in (pk, sk)],
    }


def shape(template: str) -> str:
    return _NAME.sub("{", template)


def keys_by_type(described: dict[str, Any]) -> dict[str, dict[str, tuple[str, str | None]]]:
    """type -> key attribute -> (template without field names, otherwise literal)."""
    return {
        entity["type"]: {k["attribute"]: (shape(k["template"]), k["otherwise"]) for k in entity["keys"]}
        for entity in described["entities"]
    }


def indexes(described: dict[str, Any]) -> list[tuple[Any, ...]]:
    return sorted(
        (i["name"], i["kind"], i["pk"]["attribute"] if i["pk"] else None, i["sk"] and i["sk"]["attribute"],
         i["projection"], tuple(i["include"] or ()))
        for i in described["indexes"]
    )  # fmt: skip


def differences(shipped: dict[str, Any], inferred: dict[str, Any]) -> dict[str, Any]:
    """What differs: entity types on one side only, and per type the keys whose shapes differ."""
    want, got = keys_by_type(shipped), keys_by_type(inferred)
    found: dict[str, Any] = {}
    if set(want) != set(got):
        found["types"] = (sorted(set(want) - set(got)), sorted(set(got) - set(want)))
    for name in sorted(set(want) & set(got)):
        for attribute in sorted(set(want[name]) | set(got[name])):
            if want[name].get(attribute) != got[name].get(attribute):
                found[f"{name}.{attribute}"] = (want[name].get(attribute), got[name].get(attribute))
    return found


def uniques(described: dict[str, Any]) -> dict[str, list[tuple[str, str, tuple[str, ...]]]]:
    """type -> its unique guards: (field, guard template, fields the guard carries), field names kept."""
    return {
        entity["type"]: sorted(
            (u["field"], u["guard"], tuple(u.get("carries") or ())) for u in entity["unique"]
        )
        for entity in described["entities"]
        if entity["unique"]
    }


def renamed(shipped: dict[str, Any], inferred: dict[str, Any]) -> set[str]:
    """``type.attribute`` of the keys whose templates differ once field names count too."""
    want = {e["type"]: {k["attribute"]: k["template"] for k in e["keys"]} for e in shipped["entities"]}
    got = {e["type"]: {k["attribute"]: k["template"] for k in e["keys"]} for e in inferred["entities"]}
    return {f"{t}.{a}" for t in want for a in want[t] if got.get(t, {}).get(a) != want[t][a]}


def load_module(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(f"inferred_{path.stem}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic resolves the module's annotations through sys.modules
    spec.loader.exec_module(module)
    return module


def round_trip(
    module: Any, items: list[dict[str, Any]], key_attributes: set[str], kind_of: Any = None
) -> int:
    """Every item of a declared type reads into its entity and writes back with the same keys;
    ``kind_of(item, entities)`` names an item's type where the items carry none."""
    from singletable.model import Entity

    entities = {
        cls.__entity_meta__.type: cls
        for cls in vars(module).values()
        if isinstance(cls, type) and issubclass(cls, Entity) and cls is not Entity and cls.__entity_meta__
    }
    table = module.table
    checked = 0
    for item in items:
        kind = kind_of(item, entities) if kind_of else item.get(table.type_attribute, {}).get("S")
        if kind not in entities:
            continue
        meta = entities[kind].__entity_meta__
        written = meta.to_item(meta.values(meta.from_item(item)))
        want = {a: v for a, v in item.items() if a in key_attributes}
        got = {a: v for a, v in written.items() if a in key_attributes}
        assert got == want, (kind, item)
        checked += 1
    return checked
