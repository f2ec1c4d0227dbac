"""Where a declaration is written: file and line of a table, index, entity, field, key or pattern.

The design tools (``singletable check`` above all) point a person at the line to change, so
``Table.describe()`` carries a ``source`` for each part of the design. Tables, indexes and collections note
the line that created them as they are built (one frame look-up at import, nothing on the request path);
an entity's members are found afterwards, only when asked, by reading the class's source with :mod:`ast`
(field annotations, each ``keys = Keys(NAME=...)`` keyword, each ``name = Pattern(...)``).
"""

from __future__ import annotations

import ast
import enum
import inspect
import sys
import types
import typing
from functools import lru_cache
from typing import Any

Source = tuple[str, int]


def caller(depth: int) -> Source | None:
    """The file and line ``depth`` frames above the function that calls this one."""
    try:
        frame = sys._getframe(depth + 1)
    except ValueError:
        return None
    return frame.f_code.co_filename, frame.f_lineno


def as_dict(source: Source | None) -> dict[str, Any] | None:
    """How ``describe()`` shows a location: ``{"file": path, "line": n}`` (None when unknown)."""
    if source is None or source[0].startswith("<"):
        return None  # code from a string or an interactive prompt has no file to point at
    return {"file": source[0], "line": source[1]}


def class_source(cls: type[Any]) -> ClassLines | None:
    """The lines of an entity class and of its members, or None when its source cannot be read."""
    try:
        path = inspect.getsourcefile(cls)
    except TypeError:
        return None
    if path is None:
        return None
    return _class_lines(path, cls.__name__)


class ClassLines:
    """One class statement's line and the lines of what its body declares, by name."""

    def __init__(self, path: str, line: int) -> None:
        self.path = path
        self.line = line
        self.members: dict[str, int] = {}  # field annotations and assignments (patterns, keys, ...)
        self.keys: dict[str, int] = {}  # each keyword of ``keys = Keys(...)``

    def at(self, line: int | None) -> dict[str, Any] | None:
        return as_dict((self.path, line if line is not None else self.line))

    def member(self, name: str) -> dict[str, Any] | None:
        return self.at(self.members.get(name))

    def key(self, attribute: str) -> dict[str, Any] | None:
        return self.at(self.keys.get(attribute, self.members.get("keys")))


def _class_lines(path: str, name: str) -> ClassLines | None:
    return _classes(path).get(name)


@lru_cache(maxsize=64)
def _classes(path: str) -> dict[str, ClassLines]:
    """Every class statement of a file by name, read once per file (the first of several with one name:
    classes declared inside functions share names, and the first is a fair pointer)."""
    try:
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read(), path)
    except (OSError, SyntaxError, ValueError):
        return {}
    found: dict[str, ClassLines] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name not in found:
            found[node.name] = _members(path, node)
    return found


def _members(path: str, node: ast.ClassDef) -> ClassLines:
    lines = ClassLines(path, node.lineno)
    for statement in node.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            lines.members[statement.target.id] = statement.lineno
        elif isinstance(statement, ast.Assign):
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    lines.members[target.id] = statement.lineno
                    if target.id == "keys" and isinstance(statement.value, ast.Call):
                        for keyword in statement.value.keywords:
                            if keyword.arg:
                                lines.keys[keyword.arg] = keyword.value.lineno
    return lines


# pydantic's constraint metadata (annotated_types) -> the names describe() gives them.
_LIMITS = {"Ge": "ge", "Gt": "gt", "Le": "le", "Lt": "lt", "MinLen": "min_length", "MaxLen": "max_length"}


def field_limits(info: Any) -> dict[str, Any]:
    """What a pydantic field declares about its values: bounds (``ge``, ``le``, ``max_length``...) and, for a
    ``Literal``, an ``Enum`` or a ``bool``, the values it can take (``choices``) -- what tells a design tool
    that a key built from it has few values, or that an item stays small."""
    limits: dict[str, Any] = {}
    for item in info.metadata:
        name = _LIMITS.get(type(item).__name__)
        if name is not None:
            value = getattr(item, name, None)
            if value is not None and isinstance(value, int | float):
                limits[name] = value
    choices = _choices(info.annotation)
    if choices is not None:
        limits["choices"] = choices
    return {"limits": limits} if limits else {}


def _choices(annotation: Any) -> list[Any] | None:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _choices(options[0]) if len(options) == 1 else None
    if origin is typing.Literal:
        return [v.value if isinstance(v, enum.Enum) else v for v in typing.get_args(annotation)]
    if annotation is bool:
        return [False, True]
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return [member.value for member in annotation]
    return None
