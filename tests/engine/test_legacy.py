"""The legacy (pre-expression) parameters on every backend: Expected, ConditionalOperator, AttributeUpdates,
KeyConditions, QueryFilter, ScanFilter and AttributesToGet.

Texts and results were measured on DynamoDB Local 1.25.1. The condition semantics are also checked against
the equivalent condition expression on random items (hypothesis), on each backend.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tables import create, n, s, table_fixtures

from draws import examples
from singletable.engine import DynamoDBError

INVALID = "One or more parameter values were invalid: "
KEY = {"PK": {"S": "k"}, "SK": {"S": "1"}}


def cond(op: str, *values: dict) -> dict:
    return {"ComparisonOperator": op, "AttributeValueList": list(values)}


ITEM = {
    **KEY,
    "s": s("abc"),
    "n": n("5"),
    "b": {"B": b"abc"},
    "bool": {"BOOL": True},
    "null": {"NULL": True},
    "ss": {"SS": ["abc", "x"]},
    "ns": {"NS": ["5", "7"]},
    "bs": {"BS": [b"abc"]},
    "l": {"L": [s("abc"), n("5")]},
    "m": {"M": {"abc": s("abc")}},
    "es": s(""),
}


def _make_item_table(ddb, name: str) -> None:
    create(ddb, name)
    ddb.put_item(TableName=name, Item=ITEM)


# ``shared``: for the tests that leave ITEM as they found it (see ``passes``)
table, shared = table_fixtures(_make_item_table)


def passes(ddb, table: str, expected: dict, **extra: Any) -> bool:
    """Whether PutItem (rewriting ITEM unchanged) passes the Expected conditions."""
    try:
        ddb.put_item(TableName=table, Item=ITEM, Expected=expected, **extra)
    except DynamoDBError as error:
        if error.code != "ConditionalCheckFailedException":
            raise
        return False
    return True


# -- Expected: every operator ----------------------------------------------------------------------------

CASES = [
    # (attribute, condition, passes)
    ("n", {"Value": n("5.0")}, True),
    ("n", {"Value": n("6")}, False),
    ("missing", {"Value": n("5")}, False),
    ("n", {"Exists": True, "Value": n("5")}, True),
    ("ss", {"Value": {"SS": ["x", "abc"]}}, True),
    ("n", {"Exists": False}, False),
    ("missing", {"Exists": False}, True),
    ("n", {"ComparisonOperator": "EQ", "Value": n("5")}, True),  # Value stands in for AttributeValueList
    ("n", cond("EQ", n("5")), True),
    ("n", cond("EQ", s("5")), False),
    ("m", cond("EQ", {"M": {"abc": s("abc")}}), True),
    ("l", cond("EQ", {"L": [s("abc"), n("5")]}), True),
    ("missing", cond("EQ", n("5")), False),
    ("n", cond("NE", n("5")), False),
    ("n", cond("NE", s("5")), True),
    ("missing", cond("NE", n("5")), True),
    ("n", cond("LT", n("6")), True),
    ("n", cond("LT", n("5")), False),
    ("n", cond("LE", n("5")), True),
    ("s", cond("GT", s("ab")), True),
    ("s", cond("GE", s("abd")), False),
    ("b", cond("GE", {"B": b"ab"}), True),
    ("n", cond("GT", s("1")), False),
    ("missing", cond("LT", n("6")), False),
    ("null", cond("NULL"), False),
    ("missing", cond("NULL"), True),
    ("null", cond("NOT_NULL"), True),
    ("missing", cond("NOT_NULL"), False),
    ("s", cond("CONTAINS", s("bc")), True),
    ("ss", cond("CONTAINS", s("x")), True),
    ("ns", cond("CONTAINS", n("7.0")), True),
    ("bs", cond("CONTAINS", {"B": b"abc"}), True),
    ("l", cond("CONTAINS", n("5")), True),
    ("s", cond("CONTAINS", n("5")), False),
    ("bool", cond("CONTAINS", {"BOOL": True}), False),
    ("missing", cond("CONTAINS", s("a")), False),
    ("s", cond("NOT_CONTAINS", s("bc")), False),
    ("s", cond("NOT_CONTAINS", s("z")), True),
    ("ss", cond("NOT_CONTAINS", s("q")), True),
    ("m", cond("NOT_CONTAINS", s("abc")), True),
    ("missing", cond("NOT_CONTAINS", s("a")), False),  # unlike NOT contains(...) in an expression
    ("s", cond("BEGINS_WITH", s("ab")), True),
    ("s", cond("BEGINS_WITH", s("b")), False),
    ("b", cond("BEGINS_WITH", {"B": b"a"}), True),
    ("es", cond("BEGINS_WITH", s("")), True),
    ("ss", cond("BEGINS_WITH", s("a")), False),
    ("n", cond("IN", n("1"), n("5.0")), True),
    ("s", cond("IN", s("x")), False),
    ("n", cond("BETWEEN", n("4"), n("6")), True),
    ("n", cond("BETWEEN", n("5"), n("5")), True),
    ("n", cond("BETWEEN", n("6"), n("7")), False),
    ("s", cond("BETWEEN", s("a"), s("b")), True),
]


@pytest.mark.parametrize(("attribute", "condition", "expected"), CASES)
def test_expected_operator(ddb, shared, attribute, condition, expected):
    assert passes(ddb, shared, {attribute: condition}) is expected


def test_expected_on_missing_item_and_return_values(ddb, table):
    new = {"PK": s("new"), "SK": s("1")}
    with ddb.error("ConditionalCheckFailedException", "The conditional request failed"):
        ddb.put_item(TableName=table, Item=new, Expected={"a": {"Exists": True, "Value": n("1")}})
    ddb.put_item(TableName=table, Item=new, Expected={"a": cond("NE", n("1")), "b": {"Exists": False}})
    with ddb.error("ConditionalCheckFailedException") as info:
        ddb.delete_item(
            TableName=table,
            Key=KEY,
            Expected={"n": {"Value": n("6")}},
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
    assert info.value.item == ITEM
    old = ddb.delete_item(TableName=table, Key=KEY, Expected={"n": {"Value": n("5")}}, ReturnValues="ALL_OLD")
    assert old["Attributes"] == ITEM


def test_conditional_operator(ddb, shared):
    both = {"n": {"Value": n("5")}, "s": {"Value": s("nope")}}
    assert passes(ddb, shared, both) is False
    assert passes(ddb, shared, both, ConditionalOperator="AND") is False
    assert passes(ddb, shared, both, ConditionalOperator="OR") is True
    assert passes(ddb, shared, {}) is True  # an empty Expected is no condition


ENVELOPE = "1 validation error detected: "
EXPECTED_ERRORS = [
    ({"x": {"Exists": True}}, INVALID + "Value must be provided when Exists is true for Attribute: x"),
    ({"x": {}}, INVALID + "Value must be provided when Exists is null for Attribute: x"),
    (
        {"x": {"Exists": False, "Value": n("1")}},
        INVALID + "Value cannot be used when Exists is false for Attribute: x",
    ),
    (
        {"x": {"Exists": True, "ComparisonOperator": "NULL"}},
        INVALID + "Exists and ComparisonOperator cannot be used together for Attribute: x",
    ),
    (
        {"x": {"Exists": False, "Value": n("1"), "ComparisonOperator": "EQ"}},
        INVALID + "Exists and ComparisonOperator cannot be used together for Attribute: x",
    ),
    (
        {"x": {"Value": n("1"), "ComparisonOperator": "EQ", "AttributeValueList": [n("1")]}},
        INVALID + "Value and AttributeValueList cannot be used together for Attribute: x",
    ),
    (
        {"x": {"Exists": True, "AttributeValueList": [n("1")]}},
        INVALID + "AttributeValueList can only be used with a ComparisonOperator for Attribute: x",
    ),
    (
        {"x": {"ComparisonOperator": "IN"}},
        INVALID + "Value or AttributeValueList must be used with ComparisonOperator: IN for Attribute: x",
    ),
    ({"x": cond("EQ")}, INVALID + "Invalid number of argument(s) for the EQ ComparisonOperator"),
    (
        {"x": cond("NE", n("1"), n("2"))},
        INVALID + "Invalid number of argument(s) for the NE ComparisonOperator",
    ),
    ({"x": cond("NULL", n("1"))}, INVALID + "Invalid number of argument(s) for the NULL ComparisonOperator"),
    (
        {"x": {"ComparisonOperator": "NOT_NULL", "Value": n("1")}},
        INVALID + "Invalid number of argument(s) for the NOT_NULL ComparisonOperator",
    ),
    (
        {"x": cond("BETWEEN", n("1"))},
        INVALID + "Invalid number of argument(s) for the BETWEEN ComparisonOperator",
    ),
    (
        {"x": {"ComparisonOperator": "BETWEEN", "Value": n("1")}},
        INVALID + "Invalid number of argument(s) for the BETWEEN ComparisonOperator",
    ),
    ({"x": cond("IN")}, INVALID + "Invalid number of argument(s) for the IN ComparisonOperator"),
    (
        {"x": cond("LT", {"BOOL": True}, n("1"))},
        INVALID + "Invalid number of argument(s) for the LT ComparisonOperator",
    ),
    (
        {"x": cond("LT", {"SS": ["a"]})},
        INVALID + "ComparisonOperator LT is not valid for SS AttributeValue type",
    ),
    (
        {"x": cond("GE", {"NULL": True})},
        INVALID + "ComparisonOperator GE is not valid for NULL AttributeValue type",
    ),
    (
        {"x": cond("CONTAINS", {"L": []})},
        INVALID + "ComparisonOperator CONTAINS is not valid for L AttributeValue type",
    ),
    (
        {"x": cond("NOT_CONTAINS", {"NS": ["1"]})},
        INVALID + "ComparisonOperator NOT_CONTAINS is not valid for NS AttributeValue type",
    ),
    (
        {"x": cond("BEGINS_WITH", n("1"))},
        INVALID + "ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type",
    ),
    (
        {"x": cond("IN", n("1"), {"BOOL": True})},
        INVALID + "ComparisonOperator IN is not valid for BOOL AttributeValue type",
    ),
    (
        {"x": cond("BETWEEN", {"M": {}}, {"M": {}})},
        INVALID + "ComparisonOperator BETWEEN is not valid for M AttributeValue type",
    ),
    (
        {"x": cond("IN", n("1"), s("1"))},
        INVALID + "AttributeValues inside AttributeValueList must be of same type",
    ),
    (
        {"x": cond("BETWEEN", n("1"), s("2"))},
        INVALID + "AttributeValues inside AttributeValueList must be of same type",
    ),
    (
        {"x": cond("BETWEEN", n("3"), n("2"))},
        "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound",
    ),
    (
        {"a": {"Exists": True}, "b": {"Exists": False, "Value": n("1")}},
        INVALID + "Value must be provided when Exists is true for Attribute: a",
    ),
    (
        {"b": {"Exists": False, "Value": n("1")}, "a": {"Exists": True}},
        INVALID + "Value cannot be used when Exists is false for Attribute: b",
    ),
    (
        {"x": cond("EQ", n("1"), n("2")), "y": {"Value": {"N": "zz"}}},
        INVALID + "Invalid number of argument(s) for the EQ ComparisonOperator",
    ),
    # PutItem, UpdateItem and DeleteItem envelope a malformed value (AWS; Local: LOCAL_VALUE_WORDING).
    (
        {"x": cond("EQ", {"N": "zz"}, n("2"))},
        ENVELOPE + "The parameter cannot be converted to a numeric value: zz",
    ),
    ({"x": {"Value": {"SS": []}}}, INVALID + "An string set  may not be empty"),
    (
        {"x": cond("EQ", {"SS": ["b", "a", "b"]})},
        ENVELOPE + INVALID + 'Input collection ["a", "b", "b"] contains duplicates.',
    ),
    ({"": {"Exists": False}}, "Empty attribute name"),
]


# DynamoDB Local's texts where they differ (docs/compatibility.md): its older wording, and no period.
LOCAL_VALUE_WORDING = {
    ENVELOPE + "The parameter cannot be converted to a numeric value: zz": (
        "A value provided cannot be converted into a number"
    ),
    ENVELOPE + INVALID + 'Input collection ["a", "b", "b"] contains duplicates.': (
        INVALID + "Input collection [b, a, b] contains duplicates"
    ),
}


@pytest.mark.parametrize(("expected", "message"), EXPECTED_ERRORS)
@pytest.mark.parametrize("operation", ["put_item", "update_item", "delete_item"])
def test_expected_errors(ddb, shared, operation, expected, message):
    target = {"Item": ITEM} if operation == "put_item" else {"Key": KEY}
    with ddb.error("ValidationException", message, local=LOCAL_VALUE_WORDING.get(message)):
        ddb.call(operation, TableName=shared, Expected=expected, **target)


@pytest.mark.parametrize("parameter", ["Expected", "ScanFilter"])
def test_conditional_operator_errors(ddb, shared, parameter):
    operation, target = ("put_item", {"Item": ITEM}) if parameter == "Expected" else ("scan", {})
    single = {"n": cond("NOT_NULL")}
    with ddb.error("ValidationException", "ConditionalOperator cannot be used without Filter or Expected"):
        ddb.call(operation, TableName=shared, ConditionalOperator="AND", **target)
    with ddb.error("ValidationException", "ConditionalOperator cannot be used without Filter or Expected"):
        ddb.call(operation, TableName=shared, ConditionalOperator="AND", **{parameter: {}}, **target)
    with ddb.error(
        "ValidationException",
        "ConditionalOperator can only be used when Filter or Expected has two or more elements",
    ):
        ddb.call(operation, TableName=shared, ConditionalOperator="OR", **{parameter: single}, **target)


# -- the order of checks ---------------------------------------------------------------------------------


def test_expected_is_checked_before_return_values_and_key_on_delete_and_update(ddb, shared):
    arity = INVALID + "Invalid number of argument(s) for the EQ ComparisonOperator"
    for operation in ("delete_item", "update_item"):
        with ddb.error("ValidationException", arity):
            ddb.call(operation, TableName=shared, Key={"PK": s("k")}, Expected={"n": cond("EQ")})
    with ddb.error(
        "ValidationException", INVALID + "Value must be provided when Exists is true for Attribute: n"
    ):
        ddb.update_item(
            TableName=shared,
            Key=KEY,
            Expected={"n": {"Exists": True}},
            AttributeUpdates={"PK": {"Action": "DELETE"}},
        )


# -- hypothesis: a legacy condition agrees with its expression equivalent -----------------------------------

_values = st.one_of(
    st.sampled_from(["a", "ab", "b", ""]).map(s),
    st.sampled_from(["1", "2", "2.0", "-3"]).map(n),
    st.sampled_from([b"a", b"ab"]).map(lambda v: {"B": v}),
    st.booleans().map(lambda v: {"BOOL": v}),
    st.just({"NULL": True}),
    st.just({"SS": ["a", "b"]}),
    st.just({"NS": ["1", "2"]}),
    st.just({"L": [s("a"), n("1")]}),
    st.just({"M": {"a": s("a")}}),
)
_scalars = st.one_of(st.sampled_from(["a", "ab", "b"]).map(s), st.sampled_from(["1", "2", "2.0"]).map(n))
_EXPRESSION = {
    "EQ": "#a = :v0",
    "NE": "#a <> :v0",
    "LE": "#a <= :v0",
    "LT": "#a < :v0",
    "GE": "#a >= :v0",
    "GT": "#a > :v0",
    "NULL": "attribute_not_exists(#a)",
    "NOT_NULL": "attribute_exists(#a)",
    "CONTAINS": "contains(#a, :v0)",
    "NOT_CONTAINS": "attribute_exists(#a) AND NOT contains(#a, :v0)",
    "BEGINS_WITH": "begins_with(#a, :v0)",
    "IN": "#a IN (:v0, :v1)",
    "BETWEEN": "#a BETWEEN :v0 AND :v1",
}


@st.composite
def _conditions(draw: Any) -> tuple[str, list[dict]]:
    op = draw(st.sampled_from(sorted(_EXPRESSION)))
    if op in ("NULL", "NOT_NULL"):
        return op, []
    if op in ("EQ", "NE"):
        return op, [draw(_values)]
    if op in ("CONTAINS", "NOT_CONTAINS"):
        return op, [draw(_scalars)]
    if op == "BEGINS_WITH":
        return op, [draw(st.sampled_from(["", "a", "b"]).map(s))]
    first = draw(_scalars)
    second = draw(_scalars.filter(lambda v: v.keys() == first.keys()))
    if op == "BETWEEN":
        low, high = sorted((first, second), key=lambda v: float(v["N"]) if "N" in v else v["S"])
        return op, [low, high]
    return op, [first, second] if op == "IN" else [first]


@settings(
    max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(value=st.one_of(st.none(), _values), condition=_conditions())
def test_legacy_condition_agrees_with_expression(ddb, table, value, condition):
    op, operands = condition
    item = {**KEY, "a": value} if value is not None else dict(KEY)
    ddb.put_item(TableName=table, Item=item)
    try:
        ddb.put_item(TableName=table, Item=item, Expected={"a": cond(op, *operands)})
        legacy = True
    except DynamoDBError as error:
        assert error.code == "ConditionalCheckFailedException", error.message
        legacy = False
    text = _EXPRESSION[op]
    values = {f":v{i}": av for i, av in enumerate(operands) if f":v{i}" in text}
    try:
        ddb.put_item(
            TableName=table,
            Item=item,
            ConditionExpression=text,
            ExpressionAttributeNames={"#a": "a"},
            **({"ExpressionAttributeValues": values} if values else {}),
        )
        modern = True
    except DynamoDBError as error:
        assert error.code == "ConditionalCheckFailedException", error.message
        modern = False
    assert legacy is modern
