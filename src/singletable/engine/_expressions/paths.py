"""Resolved document paths: name placeholders substituted, ready to walk items.

A resolved path is a tuple whose first element is an attribute name and whose later elements are map keys
(``str``) or list indexes (``int``). Overlap/conflict checks live here because update and projection
expressions report them with identical texts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, cast

from .._errors import validation
from .ast import NamePlaceholder, Path

Resolved = tuple[str | int, ...]
AV = dict[str, Any]
# DynamoDB's limit on a document path's depth: its elements, names and indexes alike (a.b[0] is three).
MAX_NESTING_LEVELS = 32


class Binder:
    """Resolves ``#name`` placeholders for one expression, remembering which ones it used."""

    def __init__(self, names: dict[str, str] | None, prefix: str) -> None:
        self.names = names or {}
        self.prefix = prefix
        self.names_used: set[str] = set()
        self.values_used: set[str] = set()
        # Per-request checks in the order DynamoDB meets them while walking the tree; a structural error
        # found while compiling is raised only after the checks queued before it (see RequestExpressions).
        self.checks: list[Callable[[dict[str, AV]], None]] = []

    def error(self, message: str) -> Exception:
        return validation(self.prefix + message)

    def name(self, element: str | NamePlaceholder) -> str:
        if isinstance(element, NamePlaceholder):
            try:
                resolved = self.names[element.name]
            except KeyError:
                raise self.error(
                    "An expression attribute name used in the document path is not defined; "
                    f"attribute name: {element.name}"
                ) from None
            self.names_used.add(element.name)
            return resolved
        return element

    def path(self, path: Path) -> Resolved:
        if len(path.elements) > MAX_NESTING_LEVELS:
            raise self.error(
                f"The document path has too many nesting levels; nesting levels: {len(path.elements)}"
            )
        return tuple(e if isinstance(e, int) else self.name(e) for e in path.elements)

    def value(self, name: str) -> str:
        if name not in self.values_used:
            self.values_used.add(name)
            prefix = self.prefix

            def defined(values: dict[str, AV]) -> None:
                if name not in values:
                    raise validation(
                        f"{prefix}An expression attribute value used in expression is not defined; "
                        f"attribute value: {name}"
                    )

            self.checks.append(defined)
        return name


def render(path: Resolved) -> str:
    """``[a, b, [0]]``, DynamoDB's way of naming a path in error texts."""
    return "[" + ", ".join(f"[{e}]" if isinstance(e, int) else e for e in path) + "]"


def check_disjoint(paths: Iterable[Resolved], prefix: str) -> None:
    """Reject paths that overlap (one is a prefix of another) or conflict (index vs key at one level)."""
    seen: list[Resolved] = []
    for path in paths:
        for earlier in seen:
            for a, b in zip(earlier, path, strict=False):
                if a == b:
                    continue
                if isinstance(a, int) != isinstance(b, int):
                    raise validation(
                        f"{prefix}Two document paths conflict with each other; must remove or rewrite one of "
                        f"these paths; path one: {render(earlier)}, path two: {render(path)}"
                    )
                break
            else:
                raise validation(
                    f"{prefix}Two document paths overlap with each other; must remove or rewrite one of "
                    f"these paths; path one: {render(earlier)}, path two: {render(path)}"
                )
        seen.append(path)


def getter(path: Resolved) -> Callable[[dict[str, AV]], AV | None]:
    """A fast reader of ``path`` in an item; None when any step is missing or of the wrong type."""
    head = cast(str, path[0])  # a path starts at a top-level attribute's name
    rest = path[1:]
    if not rest:
        return lambda item: item.get(head)

    def get(item: dict[str, AV]) -> AV | None:
        current = item.get(head)
        for step in rest:
            if current is None:
                return None
            if isinstance(step, int):
                elements = current.get("L")
                if elements is None or step >= len(elements):
                    return None
                current = elements[step]
            else:
                members = current.get("M")
                if members is None:
                    return None
                current = members.get(step)
        return current

    return get
