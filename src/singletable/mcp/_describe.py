"""``describe_design``: the design as an agent plans with it -- what is stored where, and which tool reads it.

Plain data from the model's own description (:meth:`singletable.model.Table.describe`), without source
locations, plus each access pattern's and collection's tool name and a few sentences that say how to use them.
"""

from __future__ import annotations

from typing import Any

from singletable.mcp._tools import ToolSpec
from singletable.model import Table


def _key(described: dict[str, Any] | None) -> str | None:
    return f"{described['attribute']} = {described['template']}" if described else None


def describe_design(table: Table, table_name: str, tools: dict[str, ToolSpec]) -> dict[str, Any]:
    """The design of ``table`` (stored as ``table_name``) and the tools that run its access patterns."""
    design = table.describe()
    by_source = {id(t.source): t.name for t in tools.values() if t.source is not None}
    by_entity: dict[str, list[str]] = {}
    for tool in tools.values():
        if tool.entity is not None:
            by_entity.setdefault(tool.entity.type, []).append(tool.name)
    head = design["table"]
    entities = []
    patterns = []
    for meta in table.entities.values():
        described = meta.describe()
        entities.append(
            {
                "entity": meta.cls.__name__,
                "type": meta.type,
                "fields": [
                    {"name": f["name"], "type": f["python"] or f["type"], "required": f["required"]}
                    for f in described["fields"]
                ],
                "keys": {k["attribute"]: k["template"] for k in described["keys"]},
                "unique": described["unique"],
                "managed_fields": [n for n in (meta.created, meta.updated, meta.version) if n],
                "tools": by_entity.get(meta.type, []),
            }
        )
        for pattern in meta.patterns.values():
            p = pattern.describe()
            patterns.append(
                {
                    "tool": by_source.get(id(pattern)),
                    "entity": meta.cls.__name__,
                    "operation": p["operation"],
                    "index": p["index"],
                    "partition_key": _key(p["pk"]),
                    "sort_key": _key(p["sk"]),
                    "required_arguments": p["arguments"],
                    "order": "newest first" if p["newest_first"] else "key order",
                    "doc": p["doc"],
                    "how": tools[by_source[id(pattern)]].description if id(pattern) in by_source else None,
                }
            )
    collections = [
        {
            "tool": by_source.get(id(collection)),
            "name": collection.name,
            "index": collection.index,
            "partition_key": f"{collection.pk_key.attribute} = {collection.pk}",
            "sort_key_prefix": collection.sk_prefix,
            "entities": [m.cls.__name__ for m in collection.metas],
        }
        for collection in table.collections.values()
    ]
    indexes = [
        {
            "name": i["name"],
            "kind": i.get("kind"),
            "partition_key": i.get("pk"),
            "sort_key": i.get("sk"),
            "projection": i.get("projection"),
        }
        for i in design["indexes"]
    ]
    return {
        "summary": (
            f"One DynamoDB table ({table_name}) holds "
            f"{len(entities)} entity types, told apart by the attribute {head['type_attribute']}. Keys are "
            "built from templates: {field} is replaced by the field's value. Read with the access-pattern "
            "and collection tools (each names the key fields it needs), get_<entity> for one entity by its "
            "primary key, and count; results page with the returned cursor. There is no free-form query "
            "expression."
            + (
                " query_raw and scan_raw read the allowlisted tables from typed conditions; prefer the "
                "access-pattern tools."
                if "query_raw" in tools
                else ""
            )
        ),
        "table": {
            "name": table_name,
            "partition_key": head["pk"],
            "sort_key": head["sk"],
            "type_attribute": head["type_attribute"],
            "key_delimiter": head["delimiter"],
        },
        "indexes": indexes,
        "entities": entities,
        "access_patterns": patterns,
        "collections": collections,
    }
