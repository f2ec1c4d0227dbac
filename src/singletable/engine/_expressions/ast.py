"""The expression AST shared by all five DynamoDB expression kinds.

The parser produces these nodes with placeholders (``#name``, ``:value``) still unresolved, so a parsed
expression can be cached by its text alone; binding to a request's ExpressionAttributeNames/Values and
per-kind semantic checks happen in later passes over this tree.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class NamePlaceholder:
    """``#name``: resolved through ExpressionAttributeNames."""

    name: str  # including the leading '#'


# A path element: a plain attribute name (identifier text), a ``#name`` placeholder, or a list index.
PathElement = str | NamePlaceholder | int


@dataclass(frozen=True, slots=True)
class Path:
    """A document path: ``a.b[2].#c``. The first element is always a name, never an index."""

    elements: tuple[PathElement, ...]


@dataclass(frozen=True, slots=True)
class ValuePlaceholder:
    """``:value``: resolved through ExpressionAttributeValues."""

    name: str  # including the leading ':'


@dataclass(frozen=True, slots=True)
class FunctionCall:
    """``name(arg, ...)``. The name is kept as written; which functions a kind allows is checked later."""

    name: str
    args: tuple[Operand, ...]


@dataclass(frozen=True, slots=True)
class Arithmetic:
    """``left + right`` or ``left - right`` (update SET values only)."""

    op: str  # '+' or '-'
    left: Operand
    right: Operand


Operand = Path | ValuePlaceholder | FunctionCall | Arithmetic


@dataclass(frozen=True, slots=True)
class Comparison:
    op: str  # '=', '<>', '<', '<=', '>', '>='
    left: Operand
    right: Operand


@dataclass(frozen=True, slots=True)
class Between:
    operand: Operand
    low: Operand
    high: Operand


@dataclass(frozen=True, slots=True)
class In:
    operand: Operand
    choices: tuple[Operand, ...]


@dataclass(frozen=True, slots=True)
class And:
    left: Condition
    right: Condition


@dataclass(frozen=True, slots=True)
class Or:
    left: Condition
    right: Condition


@dataclass(frozen=True, slots=True)
class Not:
    operand: Condition


# A condition: a boolean node, or a FunctionCall used as one (attribute_exists(...), begins_with(...), ...).
Condition = Comparison | Between | In | And | Or | Not | FunctionCall


@dataclass(frozen=True, slots=True)
class SetAction:
    path: Path
    value: Operand  # a Path, ValuePlaceholder, Arithmetic or FunctionCall (if_not_exists, list_append)


@dataclass(frozen=True, slots=True)
class RemoveAction:
    path: Path


@dataclass(frozen=True, slots=True)
class AddAction:
    path: Path
    value: Operand


@dataclass(frozen=True, slots=True)
class DeleteAction:
    path: Path
    value: Operand


@dataclass(frozen=True, slots=True)
class UpdateExpression:
    """Each clause appears at most once in the text; actions keep their written order within a clause."""

    set_actions: tuple[SetAction, ...] = ()
    remove_actions: tuple[RemoveAction, ...] = ()
    add_actions: tuple[AddAction, ...] = ()
    delete_actions: tuple[DeleteAction, ...] = ()


@dataclass(frozen=True, slots=True)
class ProjectionExpression:
    paths: tuple[Path, ...]
