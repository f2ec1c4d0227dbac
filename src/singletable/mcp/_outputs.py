"""Output schemas: what each tool's structured result holds, declared so a client can check it and an agent
can read the entities' fields before calling. An entity's schema is pydantic's serialization schema of its
model (field names, not stored attribute names), which is what results hold (``model_dump(mode="json")``).
"""

from __future__ import annotations

from typing import Any

from singletable.mcp._tools import Policy, ToolSpec
from singletable.model import Collection, EntityMeta


def _entity(meta: EntityMeta, defs: dict[str, Any]) -> dict[str, Any]:
    schema = dict(
        meta.cls.model_json_schema(by_alias=False, mode="serialization", ref_template="#/$defs/{model}")
    )
    defs.update(schema.pop("$defs", {}))
    return schema


def _closed(properties: dict[str, Any], defs: dict[str, Any] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }
    if defs:
        schema["$defs"] = defs
    return schema


CURSOR = {"type": ["string", "null"]}
NOTE = {"type": ["string", "null"]}
COUNT = _closed(
    {
        "count": {"type": "integer"},
        "complete": {"type": "boolean"},
        "cursor": CURSOR,
        "scanned_count": {"type": "integer"},
        "capacity_units": {"type": "number"},
        "note": NOTE,
    }
)
RAW_PAGE = _closed(
    {
        "items": {"type": "array", "items": {"type": "object"}},
        "count": {"type": "integer"},
        "scanned_count": {"type": "integer"},
        "cursor": CURSOR,
        "note": NOTE,
    }
)
PLANNED = _closed(
    {
        "confirm": {"const": True},
        "written": {"const": False},
        "planned_requests": {
            "type": "array",
            "items": _closed({"operation": {"type": "string"}, "params": {"type": "object"}}),
        },
        "note": {"type": "string"},
    }
)


def _page(item: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    return _closed(
        {"items": {"type": "array", "items": item}, "count": {"type": "integer"}, "cursor": CURSOR}, defs
    )


def output_schema(spec: ToolSpec, policy: Policy) -> dict[str, Any] | None:
    """The schema of ``spec``'s structured result (None for describe_design, whose shape is documented)."""
    defs: dict[str, Any] = {}
    if spec.kind == "pattern":
        assert spec.entity is not None
        return _page(_entity(spec.entity, defs), defs)
    if spec.kind == "collection":
        assert isinstance(spec.source, Collection)
        members = {m.cls.__name__: _entity(m, defs) for m in spec.source.metas}
        item = {
            "anyOf": [
                _closed({"entity": {"const": name}, "item": schema}) for name, schema in members.items()
            ]
        }
        return _page(item, defs)
    if spec.kind == "count":
        return COUNT
    if spec.kind in ("query_raw", "scan_raw"):
        return RAW_PAGE
    if spec.kind == "describe":
        return None
    if not spec.read_only and policy.confirm:
        return PLANNED
    assert spec.entity is not None
    if spec.kind == "delete":
        return _closed({"deleted": {"type": "object"}})
    entity = _entity(spec.entity, defs)
    if spec.kind == "get":
        return _closed({"item": {"anyOf": [entity, {"type": "null"}]}}, defs)
    return _closed({"item": entity}, defs)
