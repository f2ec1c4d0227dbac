"""Checks on a PartiQL statement that need no item: DynamoDB makes them before (or instead of) reading."""

from __future__ import annotations

from .._errors import validation
from .._schema import IndexSchema, TableSchema
from . import ast
from .translate import AV

_ORDERED_TYPES = frozenset(("N", "S", "B"))


def check_ordered_constants(where: ast.Expr | None, parameters: list[AV]) -> None:
    """An ordered comparison (``<``, ``BETWEEN``...) of a constant that has no order (a BOOL, a map) is
    refused before the table is looked up, as DynamoDB refuses it."""
    pending = [where] if where is not None else []
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Binary):
            if node.op in ("<", "<=", ">", ">="):
                _check_ordered(node.op, (node.left, node.right), parameters)
            pending.extend((node.left, node.right))
        elif isinstance(node, ast.BetweenExpr):
            _check_ordered("BETWEEN", (node.operand, node.low, node.high), parameters)
        elif isinstance(node, ast.Unary):
            pending.append(node.operand)


def _check_ordered(operator: str, operands: tuple[ast.Expr, ...], parameters: list[AV]) -> None:
    for operand in operands:
        value = None
        if isinstance(operand, ast.Lit):
            value = operand.value
        elif isinstance(operand, ast.Param) and operand.index < len(parameters):
            value = parameters[operand.index]
        if value is not None and len(value) == 1:
            (kind,) = value
            if kind not in _ORDERED_TYPES:
                raise validation(
                    "Incorrect operand type for operator or function; "
                    f"operator or function: {operator}, operand type: {kind}"
                )


def check_filter_projected(schema: TableSchema, index: IndexSchema, filters: list[ast.Expr]) -> None:
    """A keyed read of an index filters on what the index holds: unlike Query, PartiQL refuses a filter on
    an attribute a local index does not project too (a global one Query refuses already)."""
    if index.projected is None:
        return
    held = index.projected.union(schema.index_key_names(index))
    missing = sorted({name for part in filters for name in _root_names(part)} - held)
    if missing:
        raise validation(
            "One or more parameter values were invalid: Secondary index "
            f"{index.name} does not project one or more filter attributes: [{', '.join(missing)}]"
        )


def _root_names(expr: ast.Expr) -> set[str]:
    """The top-level attribute names an expression reads."""
    names: set[str] = set()
    pending: list[object] = [expr]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Name):
            names.add(node.name)
        elif isinstance(node, ast.PathExpr):
            names.add(node.root.name)
        elif isinstance(node, ast.Binary):
            pending.extend((node.left, node.right))
        elif isinstance(node, ast.Unary):
            pending.append(node.operand)
        elif isinstance(node, ast.BetweenExpr):
            pending.extend((node.operand, node.low, node.high))
        elif isinstance(node, ast.InExpr | ast.IsExpr):
            pending.append(node.operand)
        elif isinstance(node, ast.Call):
            pending.extend(node.args)
    return names
