"""Projection expressions: pick paths out of an item the way DynamoDB does.

Projected list elements are gathered in index order into a shorter list (``a[1], a[3]`` yields a two-element
list), and a path that finds nothing contributes nothing, not even its empty parents.
"""

from __future__ import annotations

from typing import Any

from .ast import ProjectionExpression
from .paths import AV, Binder, Resolved, check_disjoint

Item = dict[str, AV]
_LEAF: dict[Any, Any] = {}


class PathPicker:
    """Copies the given resolved paths out of items; also serves UpdateItem's UPDATED_OLD/UPDATED_NEW."""

    def __init__(self, paths: tuple[Resolved, ...]) -> None:
        # A trie of steps; disjoint paths guarantee leaves have no children and siblings share a kind.
        self.tree: dict[Any, Any] = {}
        for path in paths:
            node = self.tree
            for step in path[:-1]:
                node = node.setdefault(step, {})
            node[path[-1]] = _LEAF
        self.flat = all(len(p) == 1 for p in paths)

    def apply(self, item: Item) -> Item:
        if self.flat:
            return {name: item[name] for name in self.tree if name in item}
        return _pick_map(item, self.tree)


class CompiledProjection(PathPicker):
    def __init__(self, expression: ProjectionExpression, binder: Binder) -> None:
        self.paths: tuple[Resolved, ...] = tuple(binder.path(p) for p in expression.paths)
        check_disjoint(self.paths, binder.prefix)
        self.top_level_names = frozenset(p[0] for p in self.paths)
        super().__init__(self.paths)


def _pick(av: AV, node: dict[Any, Any]) -> AV | None:
    if isinstance(next(iter(node)), int):
        elements = av.get("L")
        if elements is None:
            return None
        picked = []
        for index in sorted(node):
            if index < len(elements):
                child = node[index]
                value = elements[index] if child is _LEAF else _pick(elements[index], child)
                if value is not None:
                    picked.append(value)
        return {"L": picked} if picked else None
    members = av.get("M")
    if members is None:
        return None
    chosen = _pick_map(members, node)
    return {"M": chosen} if chosen else None


def _pick_map(members: dict[str, AV], node: dict[Any, Any]) -> dict[str, AV]:
    out: dict[str, AV] = {}
    for name, child in node.items():
        av = members.get(name)
        if av is None:
            continue
        value = av if child is _LEAF else _pick(av, child)
        if value is not None:
            out[name] = value
    return out
