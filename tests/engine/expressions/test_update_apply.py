# ruff: noqa: E501  (tables of verbatim DynamoDB error texts)
"""Update expressions: application semantics and errors, as observed on DynamoDB Local 1.25.1."""

from __future__ import annotations

import copy

import pytest
from _ast_helpers import ARITH, UPDATE, F, N, S

from singletable.engine._errors import DynamoDBError
from singletable.engine._expressions import RequestExpressions

ITEM = {
    "a": N("5"),
    "s": S("abc"),
    "l": {"L": [N("1"), S("x"), N("3")]},
    "m": {"M": {"b": N("1")}},
    "ss": {"SS": ["a", "b"]},
    "ns": {"NS": ["1", "2"]},
}
PREFIX = "Invalid UpdateExpression: "
MISSING = "The provided expression refers to an attribute that does not exist in the item"
BAD_TYPE = "An operand in the update expression has an incorrect data type"
BAD_PATH = "The document path provided in the update expression is invalid for update"


def apply(node, values=None, names=None, item=ITEM):
    expressions = RequestExpressions(names, values, uses_expressions=True)
    update = expressions.update(node)
    before = copy.deepcopy(item)
    result = update.apply(item)
    assert item == before, "apply() must not mutate its input"
    expressions.finish()
    return result


def error(node, values=None, names=None, item=ITEM) -> str:
    with pytest.raises(DynamoDBError) as caught:
        apply(node, values, names, item)
    assert caught.value.code == "ValidationException"
    return caught.value.message


def changed(result: dict) -> dict:
    return {k: v for k, v in result.items() if ITEM.get(k) != v} | {k: None for k in ITEM if k not in result}


@pytest.mark.parametrize(
    ("node", "values", "expected"),
    [
        (UPDATE(set_=[("a", ARITH("a", "+", ":v"))]), {":v": N("1.5")}, {"a": N("6.5")}),
        (UPDATE(set_=[("a", ARITH(":v", "-", "a"))]), {":v": N("1.5")}, {"a": N("-3.5")}),
        (
            UPDATE(set_=[("a", ARITH(":v", "+", ":w"))]),
            {":v": N("1" + "0" * 37), ":w": N("1")},
            {"a": N("1" + "0" * 36 + "1")},
        ),
        (UPDATE(set_=[("a", ":v"), ("b", "a")]), {":v": N("1")}, {"a": N("1"), "b": N("5")}),
        (UPDATE(set_=[("l[10]", ":v")]), {":v": N("9")}, {"l": {"L": [N("1"), S("x"), N("3"), N("9")]}}),
        (UPDATE(set_=[("l[1]", ":v")]), {":v": N("9")}, {"l": {"L": [N("1"), N("9"), N("3")]}}),
        (UPDATE(set_=[("m.c", ":v")]), {":v": N("9")}, {"m": {"M": {"b": N("1"), "c": N("9")}}}),
        (UPDATE(set_=[("l[0]", ":v")], remove=["l[1]"]), {":v": N("1")}, {"l": {"L": [N("1"), N("3")]}}),
        (UPDATE(set_=[("l[1]", ":v")], remove=["l[0]"]), {":v": N("1")}, {"l": {"L": [N("1"), N("3")]}}),
        (UPDATE(remove=["l[0]", "l[1]"]), None, {"l": {"L": [N("3")]}}),
        (UPDATE(remove=["l[1]", "l[0]"]), None, {"l": {"L": [N("3")]}}),
        (UPDATE(remove=["l[5]", "nope", "m.nope"]), None, {}),
        (UPDATE(remove=["a"]), None, {"a": None}),
        (
            UPDATE(set_=[("l", F("list_append", "l", ":v"))]),
            {":v": {"L": [N("9")]}},
            {"l": {"L": [N("1"), S("x"), N("3"), N("9")]}},
        ),
        (
            UPDATE(set_=[("l", F("list_append", ":v", "l"))]),
            {":v": {"L": [N("9")]}},
            {"l": {"L": [N("9"), N("1"), S("x"), N("3")]}},
        ),
        (UPDATE(set_=[("x", F("if_not_exists", "a", ":v"))]), {":v": N("9")}, {"x": N("5")}),
        (UPDATE(set_=[("x", F("if_not_exists", "nope", ":v"))]), {":v": N("9")}, {"x": N("9")}),
        (UPDATE(set_=[("x", F("if_not_exists", "s.nope", ":v"))]), {":v": N("9")}, {"x": N("9")}),
        (
            UPDATE(set_=[("x", ARITH(F("if_not_exists", "a", ":v"), "+", ":v"))]),
            {":v": N("9")},
            {"x": N("14")},
        ),
        (UPDATE(add=[("a", ":v")]), {":v": N("1")}, {"a": N("6")}),
        (UPDATE(add=[("nope", ":v")]), {":v": N("-1")}, {"nope": N("-1")}),
        (UPDATE(add=[("ss", ":v")]), {":v": {"SS": ["c", "a"]}}, {"ss": {"SS": ["a", "b", "c"]}}),
        (UPDATE(add=[("ns", ":v")]), {":v": {"NS": ["1.0", "3"]}}, {"ns": {"NS": ["1", "2", "3"]}}),
        (UPDATE(add=[("nope", ":v")]), {":v": {"SS": ["c"]}}, {"nope": {"SS": ["c"]}}),
        (UPDATE(add=[("m.c", ":v")]), {":v": N("1")}, {"m": {"M": {"b": N("1"), "c": N("1")}}}),
        (UPDATE(add=[("l[0]", ":v")]), {":v": N("1")}, {"l": {"L": [N("2"), S("x"), N("3")]}}),
        (UPDATE(add=[("l[7]", ":v")]), {":v": N("1")}, {"l": {"L": [N("1"), S("x"), N("3"), N("1")]}}),
        (UPDATE(delete=[("ss", ":v")]), {":v": {"SS": ["a", "z"]}}, {"ss": {"SS": ["b"]}}),
        (UPDATE(delete=[("ss", ":v")]), {":v": {"SS": ["a", "b"]}}, {"ss": None}),
        (UPDATE(delete=[("ns", ":v")]), {":v": {"NS": ["1.00"]}}, {"ns": {"NS": ["2"]}}),
        (UPDATE(delete=[("nope", ":v"), ("m.x", ":w")]), {":v": {"SS": ["a"]}, ":w": {"NS": ["1"]}}, {}),
    ],
)
def test_application(node, values, expected):
    assert changed(apply(node, values)) == expected


def test_absent_item_and_top_level_names():
    expressions = RequestExpressions({"#k": "pk"}, {":v": N("1")}, uses_expressions=True)
    update = expressions.update(UPDATE(set_=[("#k", ":v"), ("x.y", ":v")], remove=["z[0]"]))
    assert update.top_level_names == frozenset({"pk", "x", "z"})
    assert update.paths == (("pk",), ("x", "y"), ("z", 0))
    with pytest.raises(DynamoDBError, match=BAD_PATH):
        update.apply(None)


@pytest.mark.parametrize(
    ("node", "values", "message"),
    [
        (
            UPDATE(set_=[("a", ":v"), ("a.b", ":v")]),
            {":v": N("1")},
            PREFIX + "Two document paths overlap with each "
            "other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]",
        ),
        (
            UPDATE(set_=[("a.b", ":v"), ("a", ":v")]),
            {":v": N("1")},
            PREFIX + "Two document paths overlap with each "
            "other; must remove or rewrite one of these paths; path one: [a, b], path two: [a]",
        ),
        (
            UPDATE(set_=[("a", ":v")], remove=["a"]),
            {":v": N("1")},
            PREFIX + "Two document paths overlap with each "
            "other; must remove or rewrite one of these paths; path one: [a], path two: [a]",
        ),
        (
            UPDATE(remove=["l[0]", "l[0]"]),
            None,
            PREFIX + "Two document paths overlap with each other; must remove "
            "or rewrite one of these paths; path one: [l, [0]], path two: [l, [0]]",
        ),
        (
            UPDATE(set_=[("l[0]", ":v"), ("l.x", ":v")]),
            {":v": N("1")},
            PREFIX + "Two document paths conflict with "
            "each other; must remove or rewrite one of these paths; path one: [l, [0]], path two: [l, x]",
        ),
        (UPDATE(set_=[("s", ARITH("s", "+", ":v"))]), {":v": N("1")}, BAD_TYPE),
        (
            UPDATE(set_=[("a", ARITH("a", "+", ":v"))]),
            {":v": S("1")},
            PREFIX
            + "Incorrect operand type for operator or function; operator or function: +, operand type: S",
        ),
        (
            UPDATE(set_=[("a", ARITH(":w", "-", ":v"))]),
            {":v": {"M": {}}, ":w": N("1")},
            PREFIX
            + "Incorrect operand type for operator or function; operator or function: -, operand type: M",
        ),
        (UPDATE(set_=[("a", ARITH("nope", "+", ":v"))]), {":v": N("1")}, MISSING),
        (UPDATE(set_=[("x", "nope")]), None, MISSING),
        (UPDATE(set_=[("x", "s.nope")]), None, MISSING),
        (UPDATE(set_=[("x", F("if_not_exists", "nope", "nope2"))]), None, MISSING),
        (UPDATE(set_=[("x.y", ":v")]), {":v": N("1")}, BAD_PATH),
        (UPDATE(set_=[("s.y", ":v")]), {":v": N("1")}, BAD_PATH),
        (UPDATE(set_=[("l[0][0]", ":v")]), {":v": N("1")}, BAD_PATH),
        (UPDATE(set_=[("m[0]", ":v")]), {":v": N("1")}, BAD_PATH),
        (UPDATE(set_=[("l.x", ":v")]), {":v": N("1")}, BAD_PATH),
        (UPDATE(set_=[("m.c.d", ":v")]), {":v": N("1")}, BAD_PATH),
        (UPDATE(set_=[("l[5].x", ":v")]), {":v": N("1")}, BAD_PATH),
        (UPDATE(remove=["nope.x"]), None, BAD_PATH),
        (UPDATE(remove=["s.x"]), None, BAD_PATH),
        (UPDATE(remove=["s[0]"]), None, BAD_PATH),
        (UPDATE(remove=["nope[0]"]), None, BAD_PATH),
        (
            UPDATE(set_=[("l", F("list_append", "l", ":v"))]),
            {":v": N("9")},
            PREFIX
            + "Incorrect operand type for operator or function; operator or function: list_append, operand type: N",
        ),
        (UPDATE(set_=[("l", F("list_append", "nope", ":v"))]), {":v": {"L": []}}, MISSING),
        (UPDATE(set_=[("l", F("list_append", "a", ":v"))]), {":v": {"L": []}}, BAD_TYPE),
        (
            UPDATE(set_=[("l", F("list_append", ":v"))]),
            {":v": {"L": []}},
            PREFIX + "Incorrect number of operands "
            "for operator or function; operator or function: list_append, number of operands: 1",
        ),
        (
            UPDATE(set_=[("x", F("if_not_exists", ":v", "a"))]),
            {":v": N("9")},
            PREFIX + "Operator or function requires a document path; operator or function: if_not_exists",
        ),
        (
            UPDATE(set_=[("x", F("if_not_exists", "a", F("list_append", ":v", ":v")))]),
            {":v": {"L": []}},
            PREFIX
            + "The function is not allowed to be used this way in an expression; function: list_append",
        ),
        (
            UPDATE(set_=[("x", F("size", "s"))]),
            None,
            PREFIX + "The function is not allowed in an update expression; function: size",
        ),
        (
            UPDATE(set_=[("x", F("attribute_exists", "s"))]),
            None,
            PREFIX + "The function is not allowed in an update expression; function: attribute_exists",
        ),
        (UPDATE(set_=[("x", F("foo", "s"))]), None, PREFIX + "Invalid function name; function: foo"),
        (UPDATE(add=[("s", ":v")]), {":v": N("1")}, BAD_TYPE),
        (UPDATE(add=[("ss", ":v")]), {":v": {"NS": ["1"]}}, BAD_TYPE),
        (UPDATE(add=[("a", ":v")]), {":v": {"SS": ["c"]}}, BAD_TYPE),
        (UPDATE(add=[("x.y", ":v")]), {":v": N("1")}, BAD_PATH),
        (
            UPDATE(add=[("a", ":v")]),
            {":v": S("1")},
            PREFIX + "Incorrect operand type for operator or function; "
            "operator: ADD, operand type: STRING, typeSet: ALLOWED_FOR_ADD_OPERAND",
        ),
        (
            UPDATE(add=[("a", ":v")]),
            {":v": {"L": []}},
            PREFIX + "Incorrect operand type for operator or function; "
            "operator: ADD, operand type: LIST, typeSet: ALLOWED_FOR_ADD_OPERAND",
        ),
        (
            UPDATE(add=[("a", ":v")]),
            {":v": {"BOOL": True}},
            PREFIX + "Incorrect operand type for operator or "
            "function; operator: ADD, operand type: BOOLEAN, typeSet: ALLOWED_FOR_ADD_OPERAND",
        ),
        (
            UPDATE(delete=[("ss", ":v")]),
            {":v": N("1")},
            PREFIX + "Incorrect operand type for operator or function; "
            "operator: DELETE, operand type: NUMBER, typeSet: ALLOWED_FOR_DELETE_OPERAND",
        ),
        (
            UPDATE(delete=[("ss", ":v")]),
            {":v": {"B": b"1"}},
            PREFIX + "Incorrect operand type for operator or "
            "function; operator: DELETE, operand type: BINARY, typeSet: ALLOWED_FOR_DELETE_OPERAND",
        ),
        (UPDATE(delete=[("ss", ":v")]), {":v": {"NS": ["1"]}}, BAD_TYPE),
        (UPDATE(delete=[("s", ":v")]), {":v": {"SS": ["a"]}}, BAD_TYPE),
        (UPDATE(delete=[("l[0]", ":v")]), {":v": {"NS": ["1"]}}, BAD_TYPE),
        (UPDATE(delete=[("x.y", ":v")]), {":v": {"NS": ["1"]}}, BAD_PATH),
        (
            UPDATE(set_=[("#b", ":v")]),
            {":v": N("1")},
            PREFIX
            + "An expression attribute name used in the document path is not defined; attribute name: #b",
        ),
        (
            UPDATE(set_=[("a", ":w")]),
            {":v": N("1")},
            PREFIX + "An expression attribute value used in expression is not defined; attribute value: :w",
        ),
    ],
)
def test_errors(node, values, message):
    assert error(node, values) == message


@pytest.mark.parametrize(
    ("left", "right", "message"),
    [
        ("9" * 38, "9" * 38, "significant digits|precision"),
        ("1" + "0" * 37, "0.1", "significant digits|precision"),
        ("1E-130", "1E+10", "significant digits|precision"),
        ("9.9E125", "9.9E125", "Number overflow"),
    ],
)
def test_arithmetic_limits(left, right, message):
    with pytest.raises(DynamoDBError, match=message):
        apply(UPDATE(set_=[("a", ARITH(":v", "+", ":w"))]), {":v": N(left), ":w": N(right)})


def test_arithmetic_cancelling_to_zero():
    result = apply(UPDATE(set_=[("a", ARITH(":v", "-", ":w"))]), {":v": N("1E-130"), ":w": N("1E-130")})
    assert result["a"] == N("0")


def test_nested_copy_on_write_shares_untouched_parts():
    item = {"m": {"M": {"x": {"M": {"y": N("1")}}, "big": {"L": [N("1")]}}}, "other": {"L": [N("2")]}}
    result = apply(UPDATE(set_=[("m.x.y", ":v")]), {":v": N("2")}, item=item)
    assert result["m"]["M"]["x"]["M"]["y"] == N("2")
    assert result["other"] is item["other"]
    assert result["m"]["M"]["big"] is item["m"]["M"]["big"]
