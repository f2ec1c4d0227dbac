"""Property tests: the parser only ever fails with DynamoDBError, and unparse/parse round-trips."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from draws import examples
from singletable.engine._errors import DynamoDBError
from singletable.engine._expressions.ast import (
    AddAction,
    And,
    Arithmetic,
    Between,
    Comparison,
    DeleteAction,
    FunctionCall,
    In,
    NamePlaceholder,
    Not,
    Or,
    Path,
    ProjectionExpression,
    RemoveAction,
    SetAction,
    UpdateExpression,
    ValuePlaceholder,
)
from singletable.engine._expressions.lexer import KEYWORDS
from singletable.engine._expressions.parser import parse_condition, parse_projection, parse_update
from singletable.engine._expressions.reserved import is_reserved
from singletable.engine._expressions.unparse import unparse

# -- never anything but DynamoDBError ------------------------------------------------------------------

FRAGMENTS = [
    "a",
    "b.c",
    "x[1]",
    "#n",
    ":v",
    "(",
    ")",
    "((",
    "))",
    "[",
    "]",
    ".",
    ",",
    "=",
    "<>",
    "<=",
    "+",
    "-",
    "AND",
    "OR",
    "NOT",
    "BETWEEN",
    "IN",
    "SET",
    "REMOVE",
    "ADD",
    "DELETE",
    "size(",
    "foo(",
    "attribute_exists(",
    "if_not_exists(",
    "name",
    "0",
    "01",
    "2147483648",
    "$",
    "#",
    ":",
    " ",
    "é",
]
soup = st.lists(st.sampled_from(FRAGMENTS), max_size=40).map(" ".join)
texts = st.one_of(st.text(max_size=60), st.text(alphabet="ab#:()[].,=<>+- 01ANDORT", max_size=80), soup)


def parses_or_fails_cleanly(call, *args) -> None:
    try:
        call(*args)
    except DynamoDBError as error:
        assert error.code == "ValidationException"


@settings(max_examples=examples(400), deadline=None)
@given(texts)
def test_random_text_only_raises_dynamodb_errors(text):
    parses_or_fails_cleanly(parse_condition, text, "FilterExpression")
    parses_or_fails_cleanly(parse_update, text)
    parses_or_fails_cleanly(parse_projection, text)
    parses_or_fails_cleanly(parse_update, "SET a = " + text)


@settings(max_examples=examples(30), deadline=None)
@given(st.integers(1, 4000), st.sampled_from(["(", "NOT ", "size(", "((a", "a IN (", "SET a = ("]))
def test_deep_nesting_only_raises_dynamodb_errors(depth, unit):
    text = (unit * depth)[:4096]
    parses_or_fails_cleanly(parse_condition, text)
    parses_or_fails_cleanly(parse_update, text)


# -- round trip --------------------------------------------------------------------------------------

identifiers = (
    st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=1, max_size=1)
    .flatmap(lambda head: st.text("abcXYZ019_", max_size=5).map(lambda tail: head + tail))
    .filter(lambda name: name.upper() not in KEYWORDS and not is_reserved(name))
)
suffixes = st.text("abcXYZ019_", min_size=1, max_size=5)
name_placeholders = suffixes.map(lambda s: NamePlaceholder("#" + s))
value_placeholders = suffixes.map(lambda s: ValuePlaceholder(":" + s))
names = st.one_of(identifiers, name_placeholders)
paths = st.builds(
    lambda first, rest: Path((first, *rest)),
    names,
    st.lists(st.one_of(names, st.integers(0, 2**31 - 1)), max_size=3),
)
condition_operands = st.one_of(
    paths, value_placeholders, st.builds(lambda p: FunctionCall("size", (p,)), paths)
)
comparisons = st.builds(
    Comparison, st.sampled_from(["=", "<>", "<", "<=", ">", ">="]), condition_operands, condition_operands
)
boolean_functions = st.builds(
    lambda name, args: FunctionCall(name, tuple(args)),
    st.sampled_from(
        ["attribute_exists", "attribute_not_exists", "attribute_type", "begins_with", "contains"]
    ),
    st.lists(condition_operands, min_size=1, max_size=3),
)
primaries = st.one_of(
    comparisons,
    boolean_functions,
    st.builds(Between, condition_operands, condition_operands, condition_operands),
    st.builds(
        lambda o, c: In(o, tuple(c)), condition_operands, st.lists(condition_operands, min_size=1, max_size=4)
    ),
)
conditions = st.recursive(
    primaries,
    lambda inner: st.one_of(st.builds(And, inner, inner), st.builds(Or, inner, inner), st.builds(Not, inner)),
    max_leaves=12,
)

update_operands = st.recursive(
    st.one_of(paths, value_placeholders),
    lambda inner: st.builds(
        lambda name, args: FunctionCall(name, tuple(args)),
        st.sampled_from(["if_not_exists", "list_append"]),
        st.lists(inner, min_size=1, max_size=3),
    ),
    max_leaves=4,
)
set_values = st.one_of(
    update_operands, st.builds(Arithmetic, st.sampled_from("+-"), update_operands, update_operands)
)


def _update(sets, removes, adds, deletes) -> UpdateExpression:
    return UpdateExpression(tuple(sets), tuple(removes), tuple(adds), tuple(deletes))


updates = st.builds(
    _update,
    st.lists(st.builds(SetAction, paths, set_values), max_size=3),
    st.lists(st.builds(RemoveAction, paths), max_size=3),
    st.lists(st.builds(AddAction, paths, value_placeholders), max_size=3),
    st.lists(st.builds(DeleteAction, paths, value_placeholders), max_size=3),
).filter(lambda u: u.set_actions or u.remove_actions or u.add_actions or u.delete_actions)
projections = st.lists(paths, min_size=1, max_size=5).map(lambda p: ProjectionExpression(tuple(p)))


@settings(max_examples=examples(150), deadline=None)
@given(conditions)
def test_condition_round_trip(node):
    assert parse_condition(unparse(node)) == node


@settings(max_examples=examples(80), deadline=None)
@given(updates)
def test_update_round_trip(node):
    assert parse_update(unparse(node)) == node


@settings(max_examples=examples(50), deadline=None)
@given(projections)
def test_projection_round_trip(node):
    assert parse_projection(unparse(node)) == node
