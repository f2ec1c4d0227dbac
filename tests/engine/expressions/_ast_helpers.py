"""Terse constructors for hand-made expression ASTs (the tests must not depend on the parser)."""

from __future__ import annotations

import re
from typing import Any

from singletable.engine._expressions import ast as A


def P(text: str) -> A.Path:
    """``a.#b[2]`` -> Path; names starting with '#' become placeholders."""
    elements: list[Any] = []
    for name, index in re.findall(r"([^.\[\]]+)|\[(\d+)\]", text):
        if index:
            elements.append(int(index))
        else:
            elements.append(A.NamePlaceholder(name) if name.startswith("#") else name)
    return A.Path(tuple(elements))


def O(x: Any) -> Any:  # noqa: E743
    """Operand shorthand: ':v' -> value placeholder, other strings -> paths."""
    if isinstance(x, str):
        return A.ValuePlaceholder(x) if x.startswith(":") else P(x)
    return x


def F(name: str, *args: Any) -> A.FunctionCall:
    return A.FunctionCall(name, tuple(O(a) for a in args))


def C(left: Any, op: str, right: Any) -> A.Comparison:
    return A.Comparison(op, O(left), O(right))


def BETWEEN(x: Any, low: Any, high: Any) -> A.Between:
    return A.Between(O(x), O(low), O(high))


def IN(x: Any, *choices: Any) -> A.In:
    return A.In(O(x), tuple(O(c) for c in choices))


def AND(left: Any, right: Any) -> A.And:
    return A.And(left, right)


def OR(left: Any, right: Any) -> A.Or:
    return A.Or(left, right)


def NOT(x: Any) -> A.Not:
    return A.Not(x)


def ARITH(left: Any, op: str, right: Any) -> A.Arithmetic:
    return A.Arithmetic(op, O(left), O(right))


def UPDATE(set_: tuple = (), remove: tuple = (), add: tuple = (), delete: tuple = ()) -> A.UpdateExpression:
    return A.UpdateExpression(
        tuple(A.SetAction(P(p), O(v)) for p, v in set_),
        tuple(A.RemoveAction(P(p)) for p in remove),
        tuple(A.AddAction(P(p), O(v)) for p, v in add),
        tuple(A.DeleteAction(P(p), O(v)) for p, v in delete),
    )


def PROJ(*paths: str) -> A.ProjectionExpression:
    return A.ProjectionExpression(tuple(P(p) for p in paths))


def S(s: str) -> dict:
    return {"S": s}


def N(n: str) -> dict:
    return {"N": n}
