"""The PartiQL statement tree.

Every node keeps the position of its first token, because DynamoDB's PartiQL errors name it as
``line:column:length`` (``Unsupported data type: MISSING under key root at 1:42:7``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union


@dataclass(frozen=True, slots=True)
class Pos:
    line: int
    column: int
    length: int

    def __str__(self) -> str:
        return f"{self.line}:{self.column}:{self.length}"


@dataclass(frozen=True, slots=True)
class Lit:
    """A scalar literal, already an AttributeValue (``{"S": "a"}``, ``{"N": "1"}``, BOOL, NULL)."""

    value: dict[str, Any]
    pos: Pos = field(compare=False)


@dataclass(frozen=True, slots=True)
class Missing:
    pos: Pos = field(compare=False)


@dataclass(frozen=True, slots=True)
class Param:
    """``?``: the n-th (0-based) member of the request's Parameters."""

    index: int
    pos: Pos = field(compare=False)


@dataclass(frozen=True, slots=True)
class Name:
    """An identifier, bare or double-quoted; bare ones may also be keywords-turned-names (``value``)."""

    name: str
    quoted: bool
    pos: Pos = field(compare=False)


@dataclass(frozen=True, slots=True)
class PathExpr:
    """``root.a[0]['b']``: steps are attribute names (str) or list indexes (int); other steps are Exprs."""

    root: Name
    steps: tuple[Any, ...]
    pos: Pos = field(compare=False)


@dataclass(frozen=True, slots=True)
class ListExpr:
    items: tuple[Expr, ...]
    pos: Pos = field(compare=False)


@dataclass(frozen=True, slots=True)
class BagExpr:
    items: tuple[Expr, ...]
    pos: Pos = field(compare=False)


@dataclass(frozen=True, slots=True)
class StructExpr:
    pairs: tuple[tuple[Expr, Expr], ...]
    pos: Pos = field(compare=False)


@dataclass(frozen=True, slots=True)
class Call:
    name: str  # as written
    args: tuple[Expr, ...]
    pos: Pos = field(compare=False)


@dataclass(frozen=True, slots=True)
class Binary:
    """AND, OR, comparisons (``=``, ``<>``, ``<``...), arithmetic and ``||``, LIKE."""

    op: str
    left: Expr
    right: Expr
    pos: Pos = field(compare=False)


@dataclass(frozen=True, slots=True)
class Unary:
    op: str  # 'NOT', '-', '+'
    operand: Expr
    pos: Pos = field(compare=False)


@dataclass(frozen=True, slots=True)
class BetweenExpr:
    operand: Expr
    low: Expr
    high: Expr
    negated: bool
    pos: Pos = field(compare=False)


@dataclass(frozen=True, slots=True)
class InExpr:
    operand: Expr
    choices: Expr  # a ListExpr/BagExpr when well formed; anything else is a semantic error
    negated: bool
    pos: Pos = field(compare=False)


@dataclass(frozen=True, slots=True)
class IsExpr:
    operand: Expr
    type_name: str  # upper-cased: MISSING, NULL, BOOLEAN, STRING...
    negated: bool
    pos: Pos = field(compare=False)


@dataclass(frozen=True, slots=True)
class Subquery:
    """A statement (SELECT, UPDATE...) written where an expression goes; only ``EXISTS(SELECT ...)`` and a
    statement standing alone are runnable, so anything else refuses it by its node name."""

    statement: Statement
    pos: Pos = field(compare=False)


Expr = Union[  # noqa: UP007 -- a runtime alias used in isinstance-free annotations only
    Lit,
    Missing,
    Param,
    Name,
    PathExpr,
    ListExpr,
    BagExpr,
    StructExpr,
    Call,
    Binary,
    Unary,
    BetweenExpr,
    InExpr,
    IsExpr,
    Subquery,
]


@dataclass(frozen=True, slots=True)
class Select:
    projection: tuple[Expr, ...] | None  # None: SELECT *
    table: str
    index: str | None
    where: Expr | None
    order_by: tuple[tuple[Expr, bool], ...]  # (path, descending)
    # A projection that is no path (``COUNT(*)``): refused once the FROM clause is resolved, since DynamoDB
    # refuses an index with multi-attribute keys first (an exception, raised by the planner).
    projection_error: Any = None


@dataclass(frozen=True, slots=True)
class Insert:
    table: str
    value: Expr


@dataclass(frozen=True, slots=True)
class UpdateAction:
    kind: str  # 'SET' or 'REMOVE'
    path: Expr
    value: Expr | None


@dataclass(frozen=True, slots=True)
class Update:
    table: str
    actions: tuple[UpdateAction, ...]
    where: Expr | None
    returning: str | None  # ReturnValues: ALL_OLD, ALL_NEW, UPDATED_OLD, UPDATED_NEW
    from_first: bool = False  # written FROM ... WHERE ... SET (a missing table is worded differently)


@dataclass(frozen=True, slots=True)
class Delete:
    table: str
    where: Expr | None
    returning: str | None


@dataclass(frozen=True, slots=True)
class Exists:
    """``EXISTS(SELECT ...)``: a condition check, allowed only in ExecuteTransaction."""

    select: Select


Statement = Union[Select, Insert, Update, Delete, Exists]  # noqa: UP007
