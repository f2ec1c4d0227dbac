"""Condition and filter expressions: validation and compilation to closures.

A compiled condition is a closure ``(item, values) -> bool`` plus a list of checks over the request's
values. The split exists for caching: the closure depends only on the text and the name mapping, while
DynamoDB's value-dependent validation errors (``begins_with`` given a number, an inverted BETWEEN) must be
raised for every request, before any item is read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .ast import And, Between, Comparison, FunctionCall, In, Not, Or, Path, ValuePlaceholder
from .paths import AV, Binder, Resolved, getter, render
from .values import TYPE_NAMES, compare_key, contains, describe, equal, size, type_of

Item = dict[str, AV]
Values = dict[str, AV]
Eval = Callable[[Item, Values], AV | None]
Pred = Callable[[Item, Values], bool]
Check = Callable[[Values], None]

CONDITION_FUNCTIONS = {
    "attribute_exists": 1,
    "attribute_not_exists": 1,
    "attribute_type": 2,
    "begins_with": 2,
    "contains": 2,
}
OPERAND_FUNCTIONS = {"size": 1}
UPDATE_FUNCTIONS = {"if_not_exists": 2, "list_append": 2}
ORDERED = frozenset({"N", "S", "B"})
SIZED = frozenset({"S", "B", "SS", "NS", "BS", "L", "M"})
_TYPE_LIST = "{N,BS,L,B,NULL,M,S,SS,NS,BOOL}"
# What DynamoDB names as the operand type when attribute_type is given a path instead of a type name.
_JAVA_TYPES = (
    "{INTSET,BOOL,M,NS,DECIMALSET,N,INT,DECIMAL,B,SS,DICT,HDS,L,HD,DOUBLE,BS,DOUBLESET,NULL,FLOAT,S,FS}"
)
NOT_THIS_WAY = "The function is not allowed to be used this way in an expression; function: "
NOT_IN_CONDITION = "The function is not allowed in a condition expression; function: "


def operand_type_error(binder: Binder, function: str, type_name: str) -> Exception:
    return binder.error(
        f"Incorrect operand type for operator or function; operator or function: {function}, "
        f"operand type: {type_name}"
    )


def arity(binder: Binder, call: FunctionCall, expected: int) -> None:
    if len(call.args) != expected:
        raise binder.error(
            "Incorrect number of operands for operator or function; operator or function: "
            f"{call.name}, number of operands: {len(call.args)}"
        )


def require_path(binder: Binder, call: FunctionCall, operand: Any) -> Resolved:
    if not isinstance(operand, Path):
        raise binder.error(
            f"Operator or function requires a document path; operator or function: {call.name}"
        )
    return binder.path(operand)


def distinct(binder: Binder, operator: str, first: Any, rest: tuple[Any, ...]) -> None:
    """DynamoDB rejects ``a = a``-style conditions where the first path reappears among the others."""
    if not isinstance(first, Path):
        return
    resolved = binder.path(first)
    for other in rest:
        if isinstance(other, Path) and binder.path(other) == resolved:
            raise binder.error(
                "The first operand must be distinct from the remaining operands for this operator or "
                f"function; operator: {operator}, first operand: {render(resolved)}"
            )


def value_type_check(binder: Binder, operand: Any, function: str, allowed: frozenset[str]) -> Check | None:
    """A per-request check that a ``:value`` operand has one of the ``allowed`` types (``size(...)`` is
    always a number, so it is checked at once)."""
    if isinstance(operand, FunctionCall) and operand.name in OPERAND_FUNCTIONS:
        if "N" not in allowed:
            raise operand_type_error(binder, function, "N")
        return None
    if not isinstance(operand, ValuePlaceholder):
        return None
    name = binder.value(operand.name)

    def check(values: Values) -> None:
        tag = type_of(values[name])
        if tag not in allowed:
            raise operand_type_error(binder, function, tag)

    return check


def between_check(binder: Binder, low: Any, high: Any) -> Check | None:
    """Constant bounds must share a type and be ordered; DynamoDB reports both before reading items."""
    if not (isinstance(low, ValuePlaceholder) and isinstance(high, ValuePlaceholder)):
        return None
    lo_name, hi_name = binder.value(low.name), binder.value(high.name)

    def check(values: Values) -> None:
        lo, hi = values[lo_name], values[hi_name]
        shown = (
            f"lower bound operand: AttributeValue: {describe(lo)}, "
            f"upper bound operand: AttributeValue: {describe(hi)}"
        )
        if type_of(lo) != type_of(hi):
            raise binder.error(
                f"The BETWEEN operator requires same data type for lower and upper bounds; {shown}"
            )
        if compare_key(lo) > compare_key(hi):  # type: ignore[operator]  # N, S or B (checked above): ordered
            raise binder.error(
                "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; "
                + shown
            )

    return check


class ConditionCompiler:
    """Walks a condition AST once, validating it and emitting closures."""

    def __init__(self, binder: Binder) -> None:
        self.binder = binder
        self.checks: list[Check] = binder.checks
        self.top_level: set[str] = set()

    def _add(self, check: Check | None) -> None:
        if check is not None:
            self.checks.append(check)

    def _path(self, path: Path) -> Resolved:
        resolved = self.binder.path(path)
        self.top_level.add(resolved[0])  # type: ignore[arg-type]  # a path starts at a name
        return resolved

    # -- operands ---------------------------------------------------------------------------------
    def operand(self, node: Any) -> Eval:
        if isinstance(node, Path):
            get = getter(self._path(node))
            return lambda item, values: get(item)
        if isinstance(node, ValuePlaceholder):
            name = self.binder.value(node.name)
            return lambda item, values: values[name]
        if isinstance(node, FunctionCall):
            return self.operand_function(node)
        raise self.binder.error('Syntax error; token: "+", near: "+"')

    def operand_function(self, call: FunctionCall) -> Eval:
        b = self.binder
        if call.name in OPERAND_FUNCTIONS:
            arity(b, call, 1)
            inner = self.operand(call.args[0])
            # An item's attribute without a size just fails the condition; a constant without one -- a
            # :value of another type, or size(...) itself, a number -- makes the expression invalid.
            self._add(value_type_check(b, call.args[0], call.name, SIZED))

            def size_of(item: Item, values: Values) -> AV | None:
                av = inner(item, values)
                n = None if av is None else size(av)
                return None if n is None else {"N": str(n)}

            return size_of
        if call.name in CONDITION_FUNCTIONS:
            raise b.error(NOT_THIS_WAY + call.name)
        if call.name in UPDATE_FUNCTIONS:
            raise b.error(NOT_IN_CONDITION + call.name)
        raise b.error(f"Invalid function name; function: {call.name}")

    # -- conditions -------------------------------------------------------------------------------
    def condition(self, node: Any) -> Pred:
        if isinstance(node, And):
            left, right = self.condition(node.left), self.condition(node.right)
            return lambda item, values: left(item, values) and right(item, values)
        if isinstance(node, Or):
            left, right = self.condition(node.left), self.condition(node.right)
            return lambda item, values: left(item, values) or right(item, values)
        if isinstance(node, Not):
            inner = self.condition(node.operand)
            return lambda item, values: not inner(item, values)
        if isinstance(node, Comparison):
            return self.comparison(node)
        if isinstance(node, Between):
            return self.between(node)
        if isinstance(node, In):
            return self.in_(node)
        if isinstance(node, FunctionCall):
            return self.function(node)
        raise self.binder.error('Syntax error; token: "<EOF>"')

    def comparison(self, node: Comparison) -> Pred:
        op = node.op
        distinct(self.binder, op, node.left, (node.right,))
        if op not in ("=", "<>"):
            self._add(value_type_check(self.binder, node.left, op, ORDERED))
            self._add(value_type_check(self.binder, node.right, op, ORDERED))
        left, right = self.operand(node.left), self.operand(node.right)
        if op == "=":

            def eq(item: Item, values: Values) -> bool:
                a, b = left(item, values), right(item, values)
                return a is not None and b is not None and equal(a, b)

            return eq
        if op == "<>":

            def ne(item: Item, values: Values) -> bool:
                a, b = left(item, values), right(item, values)
                return a is None or b is None or not equal(a, b)

            return ne
        test = {
            "<": lambda x, y: x < y,
            "<=": lambda x, y: x <= y,
            ">": lambda x, y: x > y,
            ">=": lambda x, y: x >= y,
        }[op]

        def ordered(item: Item, values: Values) -> bool:
            a, b = left(item, values), right(item, values)
            if a is None or b is None:
                return False
            ka, kb = compare_key(a), compare_key(b)
            return ka is not None and kb is not None and ka[0] == kb[0] and test(ka[1], kb[1])

        return ordered

    def between(self, node: Between) -> Pred:
        distinct(self.binder, "BETWEEN", node.operand, (node.low, node.high))
        for part in (node.operand, node.low, node.high):
            self._add(value_type_check(self.binder, part, "BETWEEN", ORDERED))
        self._add(between_check(self.binder, node.low, node.high))
        x, lo, hi = self.operand(node.operand), self.operand(node.low), self.operand(node.high)

        def between(item: Item, values: Values) -> bool:
            a, b, c = x(item, values), lo(item, values), hi(item, values)
            if a is None or b is None or c is None:
                return False
            ka, kb, kc = compare_key(a), compare_key(b), compare_key(c)
            if ka is None or kb is None or kc is None or not ka[0] == kb[0] == kc[0]:
                return False
            return kb[1] <= ka[1] <= kc[1]

        return between

    def in_(self, node: In) -> Pred:
        distinct(self.binder, "IN", node.operand, node.choices)
        x = self.operand(node.operand)
        choices = [self.operand(choice) for choice in node.choices]

        def in_(item: Item, values: Values) -> bool:
            a = x(item, values)
            if a is None:
                return False
            for choice in choices:
                b = choice(item, values)
                if b is not None and equal(a, b):
                    return True
            return False

        return in_

    def function(self, call: FunctionCall) -> Pred:
        b = self.binder
        name = call.name
        if name not in CONDITION_FUNCTIONS:
            if name in OPERAND_FUNCTIONS:
                raise b.error(NOT_THIS_WAY + name)
            if name in UPDATE_FUNCTIONS:
                raise b.error(NOT_IN_CONDITION + name)
            raise b.error(f"Invalid function name; function: {name}")
        arity(b, call, CONDITION_FUNCTIONS[name])
        if name in ("attribute_exists", "attribute_not_exists"):
            path = require_path(b, call, call.args[0])
            self.top_level.add(path[0])  # type: ignore[arg-type]  # a path starts at a name
            if len(path) == 1:
                head = path[0]
                if name == "attribute_exists":
                    return lambda item, values: head in item
                return lambda item, values: head not in item
            get = getter(path)
            if name == "attribute_exists":
                return lambda item, values: get(item) is not None
            return lambda item, values: get(item) is None
        if name == "attribute_type":
            return self.attribute_type(call)
        first, second = call.args
        distinct(b, name, first, (second,))
        if name == "begins_with":
            self._add(value_type_check(b, first, name, frozenset({"S", "B"})))
            self._add(value_type_check(b, second, name, frozenset({"S", "B"})))
        left, right = self.operand(first), self.operand(second)
        if name == "begins_with":

            def begins_with(item: Item, values: Values) -> bool:
                x, y = left(item, values), right(item, values)
                if x is None or y is None:
                    return False
                ((tx, vx),) = x.items()
                ((ty, vy),) = y.items()
                return tx == ty and tx in ("S", "B") and vx[: len(vy)] == vy

            return begins_with

        def contains_(item: Item, values: Values) -> bool:
            x, y = left(item, values), right(item, values)
            return x is not None and y is not None and contains(x, y)

        return contains_

    def attribute_type(self, call: FunctionCall) -> Pred:
        b = self.binder
        # Any operand may be typed: a path, a :value or size(...) (a number).
        get = self.operand(call.args[0])
        kind = call.args[1]
        if isinstance(kind, Path):
            raise operand_type_error(b, call.name, _JAVA_TYPES)
        if isinstance(kind, ValuePlaceholder):
            name = b.value(kind.name)

            def check(values: Values) -> None:
                av = values[name]
                tag = type_of(av)
                if tag != "S":
                    raise operand_type_error(b, call.name, tag)
                if av["S"] not in TYPE_NAMES:
                    raise b.error(
                        f"Invalid attribute type name found; type: {av['S']}, valid types: {_TYPE_LIST}"
                    )

            self.checks.append(check)
        wanted = self.operand(kind)

        def attribute_type(item: Item, values: Values) -> bool:
            av, expected = get(item, values), wanted(item, values)
            if av is None or expected is None:
                return False
            return type_of(av) == expected.get("S")

        return attribute_type
