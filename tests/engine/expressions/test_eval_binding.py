# ruff: noqa: E501  (tables of verbatim DynamoDB error texts)
"""Request-level ExpressionAttributeNames/Values checks and unused-placeholder reports."""

from __future__ import annotations

import pytest
from _ast_helpers import UPDATE, C, N, S

from singletable.engine._errors import DynamoDBError
from singletable.engine._expressions import RequestExpressions
from singletable.engine._expressions.binding import java_set_order


def message(call) -> str:
    with pytest.raises(DynamoDBError) as caught:
        call()
    assert caught.value.code == "ValidationException"
    return caught.value.message


@pytest.mark.parametrize(
    ("names", "values", "uses", "absent", "text"),
    [
        (
            {"#a": "a"},
            None,
            False,
            "",
            "ExpressionAttributeNames can only be specified when using expressions",
        ),
        (
            None,
            {":a": S("a")},
            False,
            "ConditionExpression is null",
            "ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null",
        ),
        ({}, None, True, "", "ExpressionAttributeNames must not be empty"),
        (None, {}, True, "", "ExpressionAttributeValues must not be empty"),
        ({"x": "a"}, None, True, "", 'ExpressionAttributeNames contains invalid key: Syntax error; key: "x"'),
        (
            {"#a": ""},
            None,
            True,
            "",
            "ExpressionAttributeNames contains invalid value: Empty attribute name for key #a",
        ),
        (
            None,
            {"w": N("1")},
            True,
            "",
            'ExpressionAttributeValues contains invalid key: Syntax error; key: "w"',
        ),
        (
            None,
            {":a-b": N("1")},
            True,
            "",
            'ExpressionAttributeValues contains invalid key: Syntax error; key: ":a-b"',
        ),
        (
            None,
            {":v": {}},
            True,
            "",
            "ExpressionAttributeValues contains invalid value: Supplied AttributeValue is "
            "empty, must contain exactly one of the supported datatypes for key :v",
        ),
        (
            None,
            {":v": {"S": "a", "N": "1"}},
            True,
            "",
            "ExpressionAttributeValues contains invalid value: Supplied "
            "AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes for key :v",
        ),
        (
            None,
            {":v": {"NULL": False}},
            True,
            "",
            "ExpressionAttributeValues contains invalid value: One or more "
            "parameter values were invalid: Null attribute value types must have the value of true for key :v",
        ),
        (
            None,
            {":v": {"SS": []}},
            True,
            "",
            "ExpressionAttributeValues contains invalid value: One or more parameter "
            "values were invalid: An string set  may not be empty for key :v",
        ),
        (
            None,
            {":v": {"BS": []}},
            True,
            "",
            "ExpressionAttributeValues contains invalid value: One or more parameter "
            "values were invalid: Binary sets should not be empty for key :v",
        ),
        (
            None,
            {":v": {"SS": ["a", "a"]}},
            True,
            "",
            "ExpressionAttributeValues contains invalid value: One or more "
            "parameter values were invalid: Input collection [a, a] contains duplicates. for key :v",
        ),
        (
            None,
            {":v": {"NS": ["1", "1.0"]}},
            True,
            "",
            "ExpressionAttributeValues contains invalid value: Input "
            "collection contains duplicates for key :v",
        ),
        (
            None,
            {":v": {"N": "abc"}},
            True,
            "",
            "ExpressionAttributeValues contains invalid value: The parameter cannot be "
            "converted to a numeric value: abc for key :v",
        ),
        (
            None,
            {":v": {"N": "1e200"}},
            True,
            "",
            "ExpressionAttributeValues contains invalid value: Number overflow. "
            "Attempting to store a number with magnitude larger than supported range for key :v",
        ),
        (
            None,
            {":v": {"L": [{"SS": []}]}},
            True,
            "",
            "ExpressionAttributeValues contains invalid value: One or more "
            "parameter values were invalid: An string set  may not be empty for key :v",
        ),
    ],
)
def test_request_level(names, values, uses, absent, text):
    assert message(lambda: RequestExpressions(names, values, uses_expressions=uses, absent=absent)) == text


def test_numbers_are_canonicalised():
    expressions = RequestExpressions(None, {":v": N("05.50")}, uses_expressions=True)
    result = expressions.update(UPDATE(set_=[("a", ":v")])).apply({})
    assert result == {"a": N("5.5")}


@pytest.mark.parametrize(
    ("names", "values", "text"),
    [
        (
            {"#x": "a"},
            {":v": N("1")},
            "Value provided in ExpressionAttributeNames unused in expressions: keys: {#x}",
        ),
        (
            {"#x": "a", "#b": "b"},
            {":v": N("1"), ":w": N("1")},
            "Value provided in ExpressionAttributeNames unused in expressions: keys: {#x, #b}",
        ),
        (
            None,
            {":v": N("1"), ":w": N("1"), ":a": N("1")},
            "Value provided in ExpressionAttributeValues unused in expressions: keys: {:a, :w}",
        ),
    ],
)
def test_unused(names, values, text):
    expressions = RequestExpressions(names, values, uses_expressions=True)
    expressions.update(UPDATE(set_=[("a", ":v")]))
    assert message(expressions.finish) == text


def test_unused_order_follows_java_hash_set():
    assert java_set_order([f"#k{i}" for i in range(14)], 14)[10:] == ["#k10", "#k12", "#k11", "#k13"]
    assert java_set_order([f"#k{i}" for i in range(11)], 12) == [f"#k{i}" for i in range(11)]
    assert java_set_order([f"#z{i}" for i in range(40)], 40)[:6] == [
        "#z31",
        "#z30",
        "#z11",
        "#z33",
        "#z10",
        "#z32",
    ]


def test_usage_accumulates_across_expressions():
    expressions = RequestExpressions({"#a": "a"}, {":v": N("1"), ":w": N("2")}, uses_expressions=True)
    expressions.condition(C("#a", "=", ":v"))
    expressions.update(UPDATE(set_=[("b", ":w")]))
    expressions.finish()


def test_failed_expression_does_not_count_usage():
    expressions = RequestExpressions(None, {":v": N("1")}, uses_expressions=True)
    with pytest.raises(DynamoDBError):
        expressions.condition(C("a", "=", "a"))
    assert "unused" in message(expressions.finish)
