"""Property tests: updates only ever fail with DynamoDBError, never mutate input; conditions agree with a
plain reference for scalar comparisons."""

from __future__ import annotations

import copy
from decimal import Decimal

from _ast_helpers import ARITH, UPDATE, C, F, N, S
from hypothesis import given, settings
from hypothesis import strategies as st

from draws import examples
from singletable.engine._errors import DynamoDBError
from singletable.engine._expressions import RequestExpressions

names = st.sampled_from(["a", "b", "c"])
numbers = st.decimals(min_value=-(10**6), max_value=10**6, places=3, allow_nan=False).map(lambda d: N(str(d)))
scalars = st.one_of(
    numbers,
    st.text(max_size=3).map(S),
    st.binary(max_size=3).map(lambda b: {"B": b}),
    st.booleans().map(lambda x: {"BOOL": x}),
)
values = st.recursive(
    st.one_of(scalars, st.just({"SS": ["x", "y"]}), st.just({"NS": ["1", "2"]})),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda xs: {"L": xs}),
        st.dictionaries(names, inner, max_size=3).map(lambda d: {"M": d}),
    ),
    max_leaves=6,
)
items = st.dictionaries(names, values, max_size=3)
steps = st.lists(st.one_of(names, st.integers(0, 3)), max_size=2)
paths = st.tuples(names, steps).map(
    lambda p: p[0] + "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in p[1])
)
operands = st.one_of(paths, st.just(":v"), st.just(":w"))
set_values = st.one_of(
    operands,
    st.builds(ARITH, operands, st.sampled_from("+-"), operands),
    st.builds(lambda p, o: F("if_not_exists", p, o), paths, operands),
    st.builds(lambda a, b: F("list_append", a, b), operands, operands),
)


@settings(max_examples=examples(300), deadline=None)
@given(
    items,
    st.lists(st.tuples(paths, set_values), max_size=2),
    st.lists(paths, max_size=2),
    st.lists(st.tuples(paths, st.sampled_from([":v", ":w"])), max_size=1),
    st.lists(st.tuples(paths, st.sampled_from([":v", ":w"])), max_size=1),
    values,
    values,
)
def test_update_only_raises_dynamodb_errors(item, sets, removes, adds, deletes, v, w):
    before = copy.deepcopy(item)
    try:
        expressions = RequestExpressions(None, {":v": v, ":w": w}, uses_expressions=True)
        expressions.update(UPDATE(set_=sets, remove=removes, add=adds, delete=deletes)).apply(item)
    except DynamoDBError:
        pass
    assert item == before


def _reference(op: str, a: dict, b: dict) -> bool:
    ((ta, va),) = a.items()
    ((tb, vb),) = b.items()
    if ta != tb:
        return op == "<>"
    if ta == "N":
        va, vb = Decimal(va), Decimal(vb)
    elif ta == "S":
        va, vb = va.encode(), vb.encode()  # UTF-8 byte order is DynamoDB's string order
    elif ta != "B":
        return {"=": va == vb, "<>": va != vb}.get(op, False)
    return {"=": va == vb, "<>": va != vb, "<": va < vb, "<=": va <= vb, ">": va > vb, ">=": va >= vb}[op]


@settings(max_examples=examples(300), deadline=None)
@given(st.sampled_from(["=", "<>", "<", "<=", ">", ">="]), scalars, scalars)
def test_comparisons_agree_with_reference(op, a, b):
    expressions = RequestExpressions(None, {":v": b}, uses_expressions=True)
    if op not in ("=", "<>") and "BOOL" in b:
        return  # rejected before evaluation (operand type)
    assert expressions.condition(C("x", op, ":v"))({"x": a}) is _reference(op, a, b)
