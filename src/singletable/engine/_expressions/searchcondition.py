"""SearchVectors' SearchConditionExpression: reduce the AST to equalities on top-level attributes.

A vector index is searched within one value of its SearchSchema's HASH attribute and may be narrowed by
equality on its INLINE_FILTER attributes, so the expression is a conjunction (``AND``, parentheses) of
``attribute = :value`` comparisons. Any other comparator, ``OR``, ``NOT``, ``BETWEEN``, ``IN`` or a function
is refused with the error DynamoDB gives a non-equality comparator. Which attributes may appear depends on
the index, so the SearchSchema checks happen in the operation, after the index is known.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .ast import Comparison, Path, ValuePlaceholder
from .keycondition import and_terms
from .paths import Binder

INVALID_COMPARATOR = "Invalid comparator used in SearchConditionExpression"


@dataclass(frozen=True, slots=True)
class SearchEquality:
    """``name = :value``: ``name`` the top-level attribute the path starts at (``nested`` when the path goes
    deeper), ``value`` the placeholder's name."""

    name: str
    nested: bool
    value: str


class CompiledSearchCondition:
    """The equalities of one SearchConditionExpression, in the order written."""

    def __init__(self, node: Any, binder: Binder) -> None:
        equalities: list[SearchEquality] = []
        for part in and_terms(node, []):
            if not isinstance(part, Comparison) or part.op != "=":
                raise binder.error(INVALID_COMPARATOR)
            left, right = part.left, part.right
            if isinstance(left, ValuePlaceholder) and isinstance(right, Path):
                left, right = right, left
            if not (isinstance(left, Path) and isinstance(right, ValuePlaceholder)):
                raise binder.error(INVALID_COMPARATOR)
            resolved = binder.path(left)
            equalities.append(SearchEquality(str(resolved[0]), len(resolved) > 1, binder.value(right.name)))
        self.equalities = tuple(equalities)
