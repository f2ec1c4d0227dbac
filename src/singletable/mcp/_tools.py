"""The tools a design offers an agent: one per access pattern and collection, ``get_<entity>``, ``count``,
``describe_design``, and -- only when the policy allows -- ``put_``/``update_``/``delete_<entity>``.

Each tool is a :class:`ToolSpec`: its name, what it does in words, and an input JSON Schema built from the
design's key fields and field types (:mod:`singletable.mcp._schema`). Nothing here reads or writes data; the
calls are run by :mod:`singletable.mcp._calls`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from singletable.mcp._schema import field_schema, key_schema, object_schema
from singletable.model import Collection, EntityMeta, Pattern, Table

# Filters compare a field with a value of its own type: fields stored as these kinds can be compared.
FILTERABLE = frozenset({"S", "N", "BOOL", "DT", "TTL"})


@dataclass(frozen=True, slots=True)
class Policy:
    """What the server lets an agent do. Read-only unless writes are allowed, for all entities
    (``allow_writes``) or some (``write_entities``: class names or type names); deletes need
    ``allow_deletes`` as well. ``confirm`` answers a write with the requests it would send, sending none."""

    allow_writes: bool = False
    write_entities: frozenset[str] = frozenset()
    allow_deletes: bool = False
    confirm: bool = False
    max_page_size: int = 100
    max_rcu_per_call: float = 50.0
    raw_tables: frozenset[str] = frozenset()  # tables query_raw and scan_raw may read; none by default

    def writes(self, meta: EntityMeta) -> bool:
        return self.allow_writes or bool({meta.cls.__name__, meta.type} & self.write_entities)


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One tool: ``kind`` says how it runs (``pattern``, ``collection``, ``get``, ``count``, ``describe``,
    ``put``, ``update``, ``delete``); ``entity`` and ``source`` what it runs over."""

    name: str
    description: str
    input_schema: dict[str, Any]
    kind: str
    entity: EntityMeta | None = None
    source: Pattern | Collection | None = None
    arguments: tuple[str, ...] = ()  # the key fields the call takes (a pattern's or collection's)
    read_only: bool = True
    destructive: bool = False


def snake(name: str) -> str:
    """``BlogPost`` -> ``blog_post``: entity class names as parts of tool names."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def tool_name(text: str) -> str:
    """A name MCP accepts (letters, digits, ``_``, ``-``, ``.``; at most 128)."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", text)[:128]


def unknown_entities(table: Table, names: frozenset[str]) -> list[str]:
    """The names in ``names`` that are neither an entity class nor an entity type of ``table``."""
    known = {m.cls.__name__ for m in table.entities.values()} | set(table.entities)
    return sorted(names - known)


def paging_schema(policy: Policy) -> dict[str, Any]:
    return {
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": policy.max_page_size,
            "default": min(25, policy.max_page_size),
            "description": f"How many entities to return at most (1 to {policy.max_page_size}).",
        },
        "cursor": {
            "type": "string",
            "description": "The cursor a previous call returned, to continue where it stopped.",
        },
    }


def _where_schema(meta: EntityMeta, defs: dict[str, Any]) -> dict[str, Any]:
    properties = {
        name: field_schema(meta, name, defs)
        for name, spec in meta.fields.items()
        if spec.stored and spec.codec.kind in FILTERABLE
    }
    return {
        **object_schema(properties, []),
        "description": "Keep only entities whose fields equal these values (a filter: items read and "
        "dropped still cost read capacity).",
    }


def _range_schema(meta: EntityMeta, fields: list[str], defs: dict[str, Any]) -> dict[str, Any]:
    """``{"created_at": {"from": ..., "to": ...}}``: one sort-key field between two values (either may be left
    out), as a key condition; the sort-key fields before it in the template must be given."""
    bounds = {
        name: {
            **object_schema({"from": key_schema(meta, name, defs), "to": key_schema(meta, name, defs)}, []),
            "minProperties": 1,
        }
        for name in fields
    }
    return {
        **object_schema(bounds, []),
        "maxProperties": 1,
        "description": "A sort-key range on one field: from and to are inclusive, either may be left out.",
    }


def _key_words(key: Any) -> str:
    return f"{key['attribute']} = {key['template']!r}" if key else ""


def pattern_tool(meta: EntityMeta, pattern: Pattern, policy: Policy) -> ToolSpec:
    defs: dict[str, Any] = {}
    described = pattern.describe()
    pk_fields = list(pattern.arguments)
    sk_fields = [f for f in pattern.takes if f not in pk_fields]
    properties = {name: key_schema(meta, name, defs) for name in pk_fields}
    for name in sk_fields:
        properties[name] = key_schema(meta, name, defs) | {
            "description": f"Optional: narrows the sort key {_key_words(described['sk'])} (fields given in "
            "template order; a leading part makes a prefix)."
        }
    if sk_fields and not pattern.scan:
        properties["range"] = _range_schema(meta, sk_fields, defs)
    properties["where"] = _where_schema(meta, defs)
    properties.update(paging_schema(policy))
    where = f"index {pattern.index}" if pattern.index else "the table"
    how = "Scans" if pattern.scan else "Queries"
    keys = "; ".join(filter(None, (_key_words(described["pk"]), _key_words(described["sk"]))))
    order = "newest first" if pattern.newest_first else "in key order"
    doc = f" {pattern.doc.strip()}." if pattern.doc else ""
    description = (
        f"Access pattern {meta.cls.__name__}.{pattern.name}:{doc} {how} {where} ({keys}) for "
        f"{meta.cls.__name__} entities, {order}; one page of up to `limit`, with a cursor for the next."
    )
    return ToolSpec(
        tool_name(f"{snake(meta.cls.__name__)}_{pattern.name}"),
        description,
        object_schema(properties, pk_fields, defs),
        "pattern",
        meta,
        pattern,
        tuple(pattern.takes),
    )


def collection_tool(collection: Collection, policy: Policy) -> ToolSpec:
    defs: dict[str, Any] = {}
    owners = {name: meta for meta in reversed(collection.metas) for name in meta.fields}
    pk_fields = list(collection.pk_key.template.fields)
    properties = {
        name: (key_schema if name in pk_fields else field_schema)(owners[name], name, defs)
        for name in collection.arguments
    }
    properties.update(paging_schema(policy))
    names = ", ".join(m.cls.__name__ for m in collection.metas)
    where = f"index {collection.index}" if collection.index else "the table"
    prefix = f", sort key starting {collection.sk_prefix!r}" if collection.sk_prefix else ""
    description = (
        f"Collection {collection.name}: the {names} entities sharing one partition of {where} "
        f"({collection.pk_key.attribute} = {collection.pk!r}{prefix}), in key order, each with its type; "
        "one page of up to `limit`, with a cursor for the next."
    )
    return ToolSpec(
        tool_name(f"collection_{collection.name}"),
        description,
        object_schema(properties, pk_fields, defs),
        "collection",
        None,
        collection,
        tuple(collection.arguments),
    )


def _primary_words(meta: EntityMeta) -> str:
    primary = _primary(meta)
    return "; ".join(
        f"{k.attribute} = {k.template.text!r}" for k in meta.keys.values() if k.attribute in primary
    )


def _primary(meta: EntityMeta) -> tuple[str, ...]:
    table = meta.table
    return tuple(a for a in (table.pk_name, table.sk_name) if a)


def get_tool(meta: EntityMeta) -> ToolSpec:
    defs: dict[str, Any] = {}
    fields = list(meta.primary_fields)
    properties = {name: key_schema(meta, name, defs) for name in fields}
    description = (
        f"Get one {meta.cls.__name__} by its primary key ({_primary_words(meta)}); null when there is none."
    )
    return ToolSpec(
        tool_name(f"get_{snake(meta.cls.__name__)}"),
        description,
        object_schema(properties, fields, defs),
        "get",
        meta,
        arguments=tuple(fields),
    )


def _managed(meta: EntityMeta) -> set[str]:
    """Fields the model keeps itself (timestamps, version): never set by a write tool."""
    return {n for n in (meta.created, meta.updated, meta.version) if n}


def _guards_words(meta: EntityMeta) -> str:
    if not meta.unique:
        return ""
    guards = ", ".join(f"{n} ({k.template.text!r})" for n, k in meta.unique.items())
    return f" Unique values are kept by guard items: {guards}; a value another entity holds is refused."


def put_tool(meta: EntityMeta) -> ToolSpec:
    defs: dict[str, Any] = {}
    managed = _managed(meta)
    names = [n for n in meta.fields if n not in managed]
    properties = {n: field_schema(meta, n, defs) for n in names}
    required = [n for n in names if meta.fields[n].required]
    keys = "; ".join(f"{k.attribute} = {k.template.text!r}" for k in meta.keys.values())
    description = (
        f"WRITES: creates or replaces one {meta.cls.__name__} (validated by the model; keys built from "
        f"their templates: {keys}).{_guards_words(meta)} Timestamps and version are kept by the model."
    )
    return ToolSpec(
        tool_name(f"put_{snake(meta.cls.__name__)}"),
        description,
        object_schema(properties, required, defs),
        "put",
        meta,
        read_only=False,
    )


def update_tool(meta: EntityMeta) -> ToolSpec:
    defs: dict[str, Any] = {}
    managed = _managed(meta)
    key_fields = list(meta.primary_fields)
    key = object_schema({n: key_schema(meta, n, defs) for n in key_fields}, key_fields)
    settable = [n for n in meta.fields if n not in managed and n not in key_fields]
    sets = object_schema({n: field_schema(meta, n, defs) for n in settable}, [])
    sets["minProperties"] = 1
    description = (
        f"WRITES: changes some fields of an existing {meta.cls.__name__} (`key`: its primary key; `set`: "
        "the new values). Index keys built from changed fields are rebuilt in the same request; fails when "
        f"there is no such {meta.cls.__name__}.{_guards_words(meta)}"
    )
    return ToolSpec(
        tool_name(f"update_{snake(meta.cls.__name__)}"),
        description,
        object_schema({"key": key, "set": sets}, ["key", "set"], defs),
        "update",
        meta,
        read_only=False,
    )


def delete_tool(meta: EntityMeta) -> ToolSpec:
    defs: dict[str, Any] = {}
    fields = list(meta.primary_fields)
    properties = {name: key_schema(meta, name, defs) for name in fields}
    extra = " and its guard items and derived items" if meta.unique or meta.derived else ""
    description = (
        f"DELETES: removes one {meta.cls.__name__} by its primary key ({_primary_words(meta)}){extra}. "
        "Cannot be undone."
    )
    return ToolSpec(
        tool_name(f"delete_{snake(meta.cls.__name__)}"),
        description,
        object_schema(properties, fields, defs),
        "delete",
        meta,
        arguments=tuple(fields),
        read_only=False,
        destructive=True,
    )


def describe_tool() -> ToolSpec:
    return ToolSpec(
        "describe_design",
        "The design in words to plan with: the table and its indexes, each entity's fields, key templates "
        "and unique values, and every access pattern and collection with the tool that runs it.",
        object_schema({}, []),
        "describe",
    )


def count_tool(readers: list[ToolSpec], policy: Policy) -> ToolSpec:
    names = [t.name for t in readers]
    schema = object_schema(
        {
            "pattern": {
                "type": "string",
                "enum": names,
                "description": "An access pattern or collection tool.",
            },
            "arguments": {
                "type": "object",
                "description": "That tool's arguments (its key fields and `where`), without limit or cursor.",
            },
            "cursor": {"type": "string", "description": "The cursor an incomplete count returned."},
        },
        ["pattern"],
    )
    return ToolSpec(
        "count",
        "Count the entities an access pattern or collection returns, reading page by page until done or "
        f"until the call's read budget ({policy.max_rcu_per_call:g} RCU) is spent; then `complete` is false "
        "and `cursor` continues the count.",
        schema,
        "count",
    )


def design_tools(table: Table, policy: Policy) -> dict[str, ToolSpec]:
    """Every tool ``table``'s design offers under ``policy``, by name."""
    readers: list[ToolSpec] = []
    singles: list[ToolSpec] = []
    writers: list[ToolSpec] = []
    for meta in table.entities.values():
        readers += [pattern_tool(meta, p, policy) for p in meta.patterns.values()]
        singles.append(get_tool(meta))
        if policy.writes(meta):
            writers += [put_tool(meta), update_tool(meta)]
            if policy.allow_deletes:
                writers.append(delete_tool(meta))
    readers += [collection_tool(c, policy) for c in table.collections.values()]
    tools = [describe_tool(), *readers, *singles]
    if readers:
        tools.append(count_tool(readers, policy))
    if policy.confirm:
        confirm = " CONFIRM MODE: answers with the requests it would send and writes nothing."
        writers = [replace(w, description=w.description + confirm) for w in writers]
    tools += writers
    out: dict[str, ToolSpec] = {}
    for tool in tools:
        if tool.name in out:  # two entities whose names snake-case alike: say so rather than hide one
            raise ValueError(f"two tools of this design would both be named {tool.name}")
        out[tool.name] = tool
    return out
