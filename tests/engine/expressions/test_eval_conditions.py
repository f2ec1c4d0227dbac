# ruff: noqa: E501  (tables of verbatim DynamoDB error texts)
"""Condition evaluation and validation, with texts and outcomes observed on DynamoDB Local 1.25.1."""

from __future__ import annotations

import pytest
from _ast_helpers import AND, BETWEEN, IN, NOT, OR, C, F, N, S

from singletable.engine._errors import DynamoDBError
from singletable.engine._expressions import RequestExpressions

ITEM = {
    "a": N("5"),
    "s": S("abc"),
    "l": {"L": [N("1"), S("x")]},
    "m": {"M": {"b": N("1")}},
    "ss": {"SS": ["a", "b"]},
    "ns": {"NS": ["1", "2"]},
    "bin": {"B": b"ab"},
    "t": {"BOOL": True},
}
PREFIX = "Invalid ConditionExpression: "


def run(node, values=None, names=None, item=ITEM):
    return RequestExpressions(names, values, uses_expressions=True).condition(node)(item)


def error(node, values=None, names=None) -> str:
    with pytest.raises(DynamoDBError) as caught:
        run(node, values, names)
    assert caught.value.code == "ValidationException"
    return caught.value.message


@pytest.mark.parametrize(
    ("node", "values", "expected"),
    [
        (C("a", "=", ":v"), {":v": N("5.00")}, True),
        (C("a", "=", ":v"), {":v": S("5")}, False),
        (C("a", "<", ":v"), {":v": S("5")}, False),
        (C("a", "<>", ":v"), {":v": S("5")}, True),
        (C("nope", "<>", ":v"), {":v": N("1")}, True),
        (C("nope", "=", "nope2"), None, False),
        (C("nope", "<>", "nope2"), None, True),
        (NOT(C("nope", "=", ":v")), {":v": N("1")}, True),
        (C("s", "<", ":v"), {":v": S("abd")}, True),
        (C("s", "<", ":v"), {":v": S("\u00e9")}, True),
        (C("a", ">=", ":v"), {":v": N("4.99999999999999999999999999999")}, True),
        (C("ss", "=", ":v"), {":v": {"SS": ["b", "a"]}}, True),
        (C("ns", "=", ":v"), {":v": {"NS": ["2", "1.0"]}}, True),
        (C("l", "=", ":v"), {":v": {"L": [N("1.0"), S("x")]}}, True),
        (C("m", "=", ":v"), {":v": {"M": {"b": N("1.00")}}}, True),
        (C("l[0]", "=", ":v"), {":v": N("1")}, True),
        (C("l[5]", "=", ":v"), {":v": N("1")}, False),
        (C("m.b", "=", ":v"), {":v": N("1")}, True),
        (C(":v", "=", ":v"), {":v": N("1")}, True),
        (IN("a", ":v", ":w"), {":v": N("1"), ":w": N("5")}, True),
        (IN("nope", ":v"), {":v": N("1")}, False),
        (IN("a", ":v"), {":v": {"L": [N("5")]}}, False),
        (BETWEEN("a", ":v", ":w"), {":v": N("1"), ":w": N("5")}, True),
        (BETWEEN("s", ":v", ":w"), {":v": S("a"), ":w": S("b")}, True),
        (BETWEEN("nope", ":v", ":v"), {":v": N("1")}, False),
        (F("begins_with", "s", ":v"), {":v": S("ab")}, True),
        (F("begins_with", "s", ":v"), {":v": S("")}, True),
        (F("begins_with", "s", ":v"), {":v": {"B": b"a"}}, False),
        (F("begins_with", "bin", ":v"), {":v": {"B": b"a"}}, True),
        (F("begins_with", ":v", "s"), {":v": S("abcd")}, True),
        (F("contains", "s", ":v"), {":v": S("b")}, True),
        (F("contains", "s", ":v"), {":v": N("1")}, False),
        (F("contains", "ss", ":v"), {":v": S("b")}, True),
        (F("contains", "ss", ":v"), {":v": {"SS": ["a"]}}, False),
        (F("contains", "ns", ":v"), {":v": N("2.0")}, True),
        (F("contains", "l", ":v"), {":v": S("x")}, True),
        (F("contains", "a", ":v"), {":v": N("5")}, False),
        (F("contains", "bin", ":v"), {":v": {"B": b"b"}}, True),
        (F("attribute_type", "a", ":v"), {":v": S("N")}, True),
        (F("attribute_type", "a", ":v"), {":v": S("S")}, False),
        (C(F("size", "s"), "=", ":v"), {":v": N("3")}, True),
        (C(F("size", "a"), "=", ":v"), {":v": N("1")}, False),
        (C(F("size", "ss"), "=", ":v"), {":v": N("2")}, True),
        (C(F("size", "m"), "=", ":v"), {":v": N("1")}, True),
        (C(F("size", "bin"), "=", ":v"), {":v": N("2")}, True),
        (C(F("size", "nope"), "<>", ":v"), {":v": N("0")}, True),
        (C(F("size", ":v"), "=", ":w"), {":v": S("ab"), ":w": N("2")}, True),
        (C(F("size", "a"), "=", F("size", "a")), None, False),
        (F("attribute_exists", "l[1]"), None, True),
        (F("attribute_exists", "l[2]"), None, False),
        (F("attribute_exists", "s[0]"), None, False),
        (F("attribute_exists", "m.b.c"), None, False),
        (F("attribute_not_exists", "nope"), None, True),
        (AND(C("a", "=", ":v"), F("attribute_exists", "a")), {":v": N("5")}, True),
        (OR(C("a", "=", ":w"), F("attribute_exists", "a")), {":w": N("6")}, True),
    ],
)
def test_evaluation(node, values, expected):
    assert run(node, values) is expected


def test_absent_item():
    expressions = RequestExpressions(None, None, uses_expressions=True)
    condition = expressions.condition(F("attribute_not_exists", "pk"))
    assert condition(None) and condition({}) and not condition({"pk": S("x")})
    assert condition.top_level_names == frozenset({"pk"})


def test_string_and_binary_order():
    assert run(C("x", ">", "y"), item={"x": S("\U0001f600"), "y": S("\uffff")})
    assert run(C("x", ">", "y"), item={"x": {"B": b"\xff"}, "y": {"B": b"\x01"}})
    assert not run(C("x", "<", "y"), item={"x": {"BOOL": True}, "y": {"BOOL": True}})
    assert run(C("x", "=", "y"), item={"x": {"NULL": True}, "y": {"NULL": True}})


@pytest.mark.parametrize(
    ("node", "values", "message"),
    [
        (F("foo", "a"), None, "Invalid function name; function: foo"),
        (F("SIZE", "a"), None, "Invalid function name; function: SIZE"),
        (
            F("size", "a"),
            None,
            "The function is not allowed to be used this way in an expression; function: size",
        ),
        (
            C(F("attribute_exists", "a"), "=", ":v"),
            {":v": S("1")},
            "The function is not allowed to be used this way in an expression; function: attribute_exists",
        ),
        (
            C(F("if_not_exists", "a", ":v"), "=", ":v"),
            {":v": S("1")},
            "The function is not allowed in a condition expression; function: if_not_exists",
        ),
        (
            F("attribute_exists", "a", "b"),
            None,
            "Incorrect number of operands for operator or function; operator or function: attribute_exists, number of operands: 2",
        ),
        (
            F("contains", "a"),
            None,
            "Incorrect number of operands for operator or function; operator or function: contains, number of operands: 1",
        ),
        (
            F("attribute_exists", ":v"),
            {":v": S("5")},
            "Operator or function requires a document path; operator or function: attribute_exists",
        ),
        (
            F("begins_with", "a", ":v"),
            {":v": N("1")},
            "Incorrect operand type for operator or function; operator or function: begins_with, operand type: N",
        ),
        (
            F("begins_with", "s", ":v"),
            {":v": {"SS": ["a"]}},
            "Incorrect operand type for operator or function; operator or function: begins_with, operand type: SS",
        ),
        (
            C("a", "<", ":l"),
            {":l": {"SS": ["a"]}},
            "Incorrect operand type for operator or function; operator or function: <, operand type: SS",
        ),
        (
            C("a", "<", ":l"),
            {":l": {"BOOL": True}},
            "Incorrect operand type for operator or function; operator or function: <, operand type: BOOL",
        ),
        (
            BETWEEN("a", ":l", ":h"),
            {":l": {"L": []}, ":h": {"L": []}},
            "Incorrect operand type for operator or function; operator or function: BETWEEN, operand type: L",
        ),
        (
            BETWEEN("a", ":h", ":l"),
            {":h": N("9"), ":l": N("1")},
            "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; "
            "lower bound operand: AttributeValue: {N:9}, upper bound operand: AttributeValue: {N:1}",
        ),
        (
            BETWEEN("a", ":h", ":l"),
            {":h": S("9"), ":l": N("1")},
            "The BETWEEN operator requires same data type for lower and upper bounds; "
            "lower bound operand: AttributeValue: {S:9}, upper bound operand: AttributeValue: {N:1}",
        ),
        (
            BETWEEN("a", ":l", ":h"),
            {":l": {"B": b"\x01"}, ":h": {"B": b"\x00"}},
            "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; "
            "lower bound operand: AttributeValue: {B:java.nio.HeapByteBuffer[pos=0 lim=1 cap=1]}, "
            "upper bound operand: AttributeValue: {B:java.nio.HeapByteBuffer[pos=0 lim=1 cap=1]}",
        ),
        (
            F("attribute_type", "a", ":v"),
            {":v": S("X")},
            "Invalid attribute type name found; type: X, valid types: {N,BS,L,B,NULL,M,S,SS,NS,BOOL}",
        ),
        (
            F("attribute_type", "a", ":v"),
            {":v": N("1")},
            "Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N",
        ),
        (
            F("attribute_type", "a", "b"),
            None,
            "Incorrect operand type for operator or function; operator or function: attribute_type, operand type: "
            "{INTSET,BOOL,M,NS,DECIMALSET,N,INT,DECIMAL,B,SS,DICT,HDS,L,HD,DOUBLE,BS,DOUBLESET,NULL,FLOAT,S,FS}",
        ),
        (
            C("a", "=", "a"),
            None,
            "The first operand must be distinct from the remaining operands for this operator "
            "or function; operator: =, first operand: [a]",
        ),
        (
            C("m.b", "<", "m.b"),
            None,
            "The first operand must be distinct from the remaining operands for this "
            "operator or function; operator: <, first operand: [m, b]",
        ),
        (
            BETWEEN("a", ":v", "a"),
            {":v": N("1")},
            "The first operand must be distinct from the remaining operands "
            "for this operator or function; operator: BETWEEN, first operand: [a]",
        ),
        (
            IN("a", ":v", "a"),
            {":v": N("1")},
            "The first operand must be distinct from the remaining operands for "
            "this operator or function; operator: IN, first operand: [a]",
        ),
        (
            F("contains", "s", "s"),
            None,
            "The first operand must be distinct from the remaining operands for this "
            "operator or function; operator: contains, first operand: [s]",
        ),
        (
            C("#n", "=", ":v"),
            {":v": N("1")},
            "An expression attribute name used in the document path is not defined; attribute name: #n",
        ),
        (
            C("a", "=", ":zz"),
            {":v": N("1")},
            "An expression attribute value used in expression is not defined; attribute value: :zz",
        ),
    ],
)
def test_errors(node, values, message):
    assert error(node, values) == PREFIX + message


def test_resolved_names_are_compared_for_distinctness():
    assert error(C("#a", "=", "a"), names={"#a": "a"}).endswith("operator: =, first operand: [a]")


def test_filter_prefix():
    expressions = RequestExpressions(None, None, uses_expressions=True)
    with pytest.raises(
        DynamoDBError, match=r"^ValidationException: Invalid FilterExpression: Invalid function"
    ):
        expressions.condition(F("foo", "a"), "FilterExpression")


def test_value_errors_are_raised_per_request_even_when_cached():
    node = F("begins_with", "s", ":v")
    assert run(node, {":v": S("a")})
    assert "operand type: N" in error(node, {":v": N("1")})
    assert run(node, {":v": S("a")})
