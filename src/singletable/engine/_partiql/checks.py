"""Checks on a PartiQL statement that need no item: DynamoDB makes them before (or instead of) reading."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

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
    missing = sorted({name for part in filters for name in _names(part)} - held)
    if missing:
        raise validation(
            "One or more parameter values were invalid: Secondary index "
            f"{index.name} does not project one or more filter attributes: [{', '.join(missing)}]"
        )


OVERLAPPING = "Overlapping conditions with range keys are not supported in where clause"
_Bound = tuple[object, bool] | None  # (comparable value, inclusive); None: unbounded


def check_overlapping_branches(
    where: ast.Expr | None, hash_name: str, range_name: str | None, parameters: list[AV]
) -> None:
    """A WHERE of ORed branches, each pinning the partition key, is read as one key range per branch; two
    ranges of one partition that overlap are refused, as DynamoDB refuses them (it would read the items
    twice). A branch with no sort-key condition covers the whole partition. A branch that tests the sort
    key in a way no key range expresses (``<>``, NOT, IN) turns it into a filter, so nothing overlaps."""
    if range_name is None or not (isinstance(where, ast.Binary) and where.op == "OR"):
        return
    branches: list[tuple[object, tuple[_Bound, _Bound] | None]] = []
    for branch in _or_branches(where):
        parts = _and_parts(branch)
        partition = next((value for part in parts if (value := _equality(part, hash_name, parameters))), None)
        if partition is None:
            return
        ranges = [part for part in parts if range_name in _names(part)]
        if len(ranges) > 1:
            return
        span = _range(ranges[0], range_name, parameters) if ranges else (None, None)
        if span is None:
            return
        branches.append((_key(partition), span if ranges else None))
    if all(span is None for _, span in branches):
        return
    for i, (key, span) in enumerate(branches):
        for other_key, other_span in branches[i + 1 :]:
            if key == other_key and _overlap(span or (None, None), other_span or (None, None)):
                raise validation(OVERLAPPING)


def _or_branches(expr: ast.Expr) -> list[ast.Expr]:
    if isinstance(expr, ast.Binary) and expr.op == "OR":
        return _or_branches(expr.left) + _or_branches(expr.right)
    return [expr]


def _and_parts(expr: ast.Expr) -> list[ast.Expr]:
    if isinstance(expr, ast.Binary) and expr.op == "AND":
        return _and_parts(expr.left) + _and_parts(expr.right)
    return [expr]


def _names(expr: ast.Expr) -> set[str]:
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


def _constant(expr: ast.Expr, parameters: list[AV]) -> AV | None:
    if isinstance(expr, ast.Lit):
        return expr.value
    if isinstance(expr, ast.Param) and expr.index < len(parameters):
        return parameters[expr.index]
    return None


def _is_name(expr: ast.Expr, name: str) -> bool:
    return isinstance(expr, ast.Name) and expr.name == name


def _equality(part: ast.Expr, name: str, parameters: list[AV]) -> AV | None:
    if isinstance(part, ast.Binary) and part.op == "=":
        if _is_name(part.left, name):
            return _constant(part.right, parameters)
        if _is_name(part.right, name):
            return _constant(part.left, parameters)
    return None


def _key(value: AV) -> object:
    """A sort-comparable form of a key value: (type, value), numbers as Decimals, strings as UTF-8."""
    ((kind, inner),) = value.items()
    if kind == "N":
        try:
            return (kind, Decimal(inner))
        except (InvalidOperation, TypeError):
            return (kind, str(inner))
    if kind == "S" and isinstance(inner, str):
        return (kind, inner.encode())
    return (kind, inner if isinstance(inner, bytes) else repr(inner))


_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "="}


def _range(part: ast.Expr, name: str, parameters: list[AV]) -> tuple[_Bound, _Bound] | None:
    """The sort-key range a condition reads, or None when no key range expresses it."""
    if isinstance(part, ast.Binary) and part.op in _FLIPPED:
        if _is_name(part.left, name):
            op, value = part.op, _constant(part.right, parameters)
        elif _is_name(part.right, name):
            op, value = _FLIPPED[part.op], _constant(part.left, parameters)
        else:
            return None
        if value is None or len(value) != 1:
            return None
        key = _key(value)
        return {
            "=": ((key, True), (key, True)),
            "<": (None, (key, False)),
            "<=": (None, (key, True)),
            ">": ((key, False), None),
            ">=": ((key, True), None),
        }[op]
    if isinstance(part, ast.BetweenExpr) and not part.negated and _is_name(part.operand, name):
        low, high = _constant(part.low, parameters), _constant(part.high, parameters)
        if low is None or high is None or len(low) != 1 or len(high) != 1:
            return None
        return (_key(low), True), (_key(high), True)
    if isinstance(part, ast.Call) and part.name.lower() == "begins_with" and len(part.args) == 2:
        prefix = _constant(part.args[1], parameters)
        if not _is_name(part.args[0], name) or prefix is None or len(prefix) != 1:
            return None
        ((kind, text),) = prefix.items()
        if kind not in ("S", "B"):
            return None
        start = text.encode() if isinstance(text, str) else bytes(text)
        return ((kind, start), True), ((kind, start + b"\xff" * 4), True)
    return None


def _overlap(first: tuple[_Bound, _Bound], second: tuple[_Bound, _Bound]) -> bool:
    return _below(first[0], second[1]) and _below(second[0], first[1])


def _below(low: _Bound, high: _Bound) -> bool:
    """Whether a range starting at ``low`` can meet one ending at ``high``."""
    if low is None or high is None:
        return True
    (low_value, low_inclusive), (high_value, high_inclusive) = low, high
    try:
        if low_value == high_value:
            return low_inclusive and high_inclusive
        return bool(low_value < high_value)  # type: ignore[operator]  # keys of one type order; mixed types raise below
    except TypeError:  # different key types never meet
        return False
