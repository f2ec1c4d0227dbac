"""JSON Schemas for tool inputs, built from an entity's field types, and the check of a call's arguments.

A field's schema is pydantic's for its annotation (``Literal`` choices become ``enum``, ``datetime`` a string
of format ``date-time``), so what an agent is told and what the model accepts cannot drift apart. A call's
arguments are checked twice: against the tool's schema (jsonschema: unknown names, missing keys, wrong JSON
types), then converted field by field through the same annotations (a date-time string to a ``datetime``).
Either failure is an :class:`ArgumentError` whose message names the argument.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

import jsonschema
from pydantic import TypeAdapter, ValidationError

from singletable.model import EntityMeta


class ArgumentError(ValueError):
    """A tool's arguments do not fit its input schema or its fields' types; the message names the field."""


@cache
def _adapter(annotation: Any) -> TypeAdapter[Any]:
    return TypeAdapter(annotation)


def _annotation(meta: EntityMeta, name: str) -> Any:
    return meta.cls.model_fields[name].annotation


def field_schema(meta: EntityMeta, name: str, defs: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of ``meta``'s field ``name``; definitions it refers to are added to ``defs``."""
    schema = dict(_adapter(_annotation(meta, name)).json_schema(ref_template="#/$defs/{model}"))
    defs.update(schema.pop("$defs", {}))
    description = meta.cls.model_fields[name].description
    if description and "description" not in schema:
        schema["description"] = description
    return schema


def key_schema(meta: EntityMeta, name: str, defs: dict[str, Any]) -> dict[str, Any]:
    """A key field's schema: as the field's, without ``null`` (a key part cannot be absent)."""
    schema = field_schema(meta, name, defs)
    options = schema.get("anyOf")
    if isinstance(options, list):
        kept = [o for o in options if o != {"type": "null"}]
        if len(kept) == 1:
            schema = {**{k: v for k, v in schema.items() if k not in ("anyOf", "default")}, **kept[0]}
        else:
            schema = {**{k: v for k, v in schema.items() if k != "default"}, "anyOf": kept}
    schema.pop("default", None)
    return schema


def object_schema(
    properties: Mapping[str, Any], required: list[str], defs: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """A closed object: only these properties."""
    schema: dict[str, Any] = {"type": "object", "properties": dict(properties), "additionalProperties": False}
    if required:
        schema["required"] = required
    if defs:
        schema["$defs"] = dict(defs)
    return schema


MAX_DEPTH = 32  # DynamoDB's own limit on nested lists and maps


def check_depth(tool: str, arguments: Any) -> None:
    """Refuse arguments nested deeper than any value can be stored, before anything walks them recursively;
    the error names the path where the limit is passed. Iterative, so any depth is answered; each value's
    path is kept as a link to its parent's, so a long key costs nothing per child."""
    stack: list[tuple[Any, Any, int]] = [(arguments, None, 0)]
    while stack:
        value, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ArgumentError(
                f"{tool}: argument {_path_words(path)}: nested deeper than {MAX_DEPTH} levels"
            )
        if isinstance(value, dict):
            stack += [(v, (path, k), depth + 1) for k, v in value.items()]
        elif isinstance(value, list):
            stack += [(v, (path, i), depth + 1) for i, v in enumerate(value)]


def _path_words(path: Any) -> str:
    """``where[3].x`` from a chain of (parent, step) links; a long name is cut to its first 40 characters."""
    steps: list[Any] = []
    while path is not None:
        path, step = path
        steps.append(step)
    words = ""
    for step in reversed(steps):
        words += f"[{step}]" if isinstance(step, int) else f".{str(step)[:40]}"
    return words.lstrip(".") or "(all)"


def check_arguments(tool: str, schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> None:
    """Raise :class:`ArgumentError` naming the first argument that does not fit ``schema``."""
    validator = jsonschema.Draft202012Validator(schema)
    found = validator.iter_errors(dict(arguments))
    errors = sorted(found, key=lambda e: (len(e.path), list(map(str, e.path))))
    if not errors:
        return
    error = errors[0]
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.path).lstrip(".")
    if not where and error.validator == "required":
        raise ArgumentError(f"{tool}: {error.message}")
    if not where and error.validator == "additionalProperties":
        allowed = ", ".join(sorted(schema.get("properties", {}))) or "none"
        raise ArgumentError(f"{tool}: {error.message}; it takes {allowed}")
    raise ArgumentError(f"{tool}: argument {where or '(all)'}: {error.message}")


def converted(tool: str, meta: EntityMeta, values: Mapping[str, Any], where: str = "") -> dict[str, Any]:
    """``values`` (JSON) as the fields' Python values, each through its field's annotation."""
    return {
        name: converted_value(tool, meta, name, value, f"{where}{name}") for name, value in values.items()
    }


def converted_value(tool: str, meta: EntityMeta, name: str, value: Any, label: str) -> Any:
    """``value`` (JSON) as field ``name``'s Python value; the error names the argument ``label``."""
    try:
        return _adapter(_annotation(meta, name)).validate_python(value)
    except ValidationError as error:
        reason = error.errors()[0]["msg"] if error.errors() else str(error)
        raise ArgumentError(f"{tool}: argument {label}: {reason} (got {value!r})") from None
