"""Condition operands that are not paths: size() of a constant, size(size(...)), attribute_type of a value.

size() of an item's attribute that has no size only makes the condition false; size() of a constant that
has none (a number, a boolean, or size(...) itself, which is a number) makes the expression invalid, as on
AWS. attribute_type() types any operand, a path or not.
"""

from __future__ import annotations

from typing import Any

import pytest
from tables import create_keyed, table_fixtures

from backends import Backend

KEY = {"pk": {"S": "a"}}
INCORRECT = "Incorrect operand type for operator or function; operator or function: "


def _make_table(ddb: Backend, name: str) -> None:
    """A ``pk`` table (tables.create_keyed) holding one item."""
    create_keyed(ddb, name)
    ddb.put_item(TableName=name, Item={**KEY, "x": {"S": "abc"}, "n": {"N": "7"}})


# ``shared``: for the tests that leave the table as found (``put_if`` puts the same item)
table, shared = table_fixtures(_make_table)


def put_if(ddb: Backend, table: str, condition: str, values: dict[str, Any]) -> dict[str, Any]:
    return ddb.put_item(
        TableName=table,
        Item={**KEY, "x": {"S": "abc"}, "n": {"N": "7"}},
        ConditionExpression=condition,
        ExpressionAttributeValues=values,
    )


@pytest.mark.parametrize(
    ("condition", "values", "type_name"),
    [
        ("size(:v) = :n", {":v": {"N": "3"}, ":n": {"N": "1"}}, "N"),
        ("size(:v) = :n", {":v": {"BOOL": True}, ":n": {"N": "1"}}, "BOOL"),
        ("size(:v) = :n", {":v": {"NULL": True}, ":n": {"N": "1"}}, "NULL"),
        ("size(size(x)) = :n", {":n": {"N": "1"}}, "N"),
        ("size(size(:v)) > :n", {":v": {"S": "ab"}, ":n": {"N": "1"}}, "N"),
        ("size(size(size(x))) = :n", {":n": {"N": "1"}}, "N"),
    ],
)
def test_size_of_a_constant_without_size_is_invalid(
    ddb: Backend, shared: str, condition: str, values: dict[str, Any], type_name: str
) -> None:
    with ddb.error(
        "ValidationException", f"Invalid ConditionExpression: {INCORRECT}size, operand type: {type_name}"
    ):
        put_if(ddb, shared, condition, values)


def test_size_of_a_constant_in_a_filter_is_checked_before_reading(ddb: Backend, shared: str) -> None:
    with ddb.error("ValidationException", f"Invalid FilterExpression: {INCORRECT}size, operand type: N"):
        ddb.scan(
            TableName=shared,
            FilterExpression="size(:v) = :n",
            ExpressionAttributeValues={":v": {"N": "3"}, ":n": {"N": "3"}},
        )


def test_size_is_a_number_for_functions_that_need_strings(ddb: Backend, shared: str) -> None:
    with ddb.error(
        "ValidationException", f"Invalid ConditionExpression: {INCORRECT}begins_with, operand type: N"
    ):
        put_if(ddb, shared, "begins_with(size(x), :v)", {":v": {"S": "3"}})


@pytest.mark.parametrize(
    ("value", "size", "holds"),
    [
        ({"S": "abc"}, "3", True),
        ({"S": "abc"}, "2", False),
        ({"B": b"\x00\x01"}, "2", True),
        ({"SS": ["a", "b"]}, "2", True),
        ({"L": [{"N": "1"}]}, "1", True),
        ({"M": {}}, "0", True),
    ],
)
def test_size_of_a_sized_constant(
    ddb: Backend, shared: str, value: dict[str, Any], size: str, holds: bool
) -> None:
    values = {":v": value, ":n": {"N": size}}
    if holds:
        put_if(ddb, shared, "size(:v) = :n", values)
    else:
        with ddb.error("ConditionalCheckFailedException"):
            put_if(ddb, shared, "size(:v) = :n", values)


def test_size_of_an_attribute_without_size_only_fails_the_condition(ddb: Backend, shared: str) -> None:
    with ddb.error("ConditionalCheckFailedException"):
        put_if(ddb, shared, "size(n) = :n", {":n": {"N": "1"}})


@pytest.mark.parametrize(
    ("operand", "values", "holds"),
    [
        (":v", {":v": {"S": "abc"}, ":t": {"S": "S"}}, True),
        (":v", {":v": {"L": []}, ":t": {"S": "L"}}, True),
        (":v", {":v": {"S": "abc"}, ":t": {"S": "N"}}, False),
        ("size(x)", {":t": {"S": "N"}}, True),
        ("size(x)", {":t": {"S": "S"}}, False),
        ("x", {":t": {"S": "S"}}, True),
    ],
)
def test_attribute_type_of_any_operand(
    ddb: Backend, shared: str, operand: str, values: dict[str, Any], holds: bool
) -> None:
    condition = f"attribute_type({operand}, :t)"
    if holds:
        put_if(ddb, shared, condition, values)
    else:
        with ddb.error("ConditionalCheckFailedException"):
            put_if(ddb, shared, condition, values)


def test_attribute_type_of_a_value_still_checks_the_type_name(ddb: Backend, shared: str) -> None:
    with ddb.error(
        "ValidationException",
        "Invalid ConditionExpression: Invalid attribute type name found; type: X, "
        "valid types: {N,BS,L,B,NULL,M,S,SS,NS,BOOL}",
    ):
        put_if(ddb, shared, "attribute_type(:v, :t)", {":v": {"L": []}, ":t": {"S": "X"}})


@pytest.mark.parametrize(
    ("text", "units"), [("abc", 3), ("é\U0001d11e", 3), ("\U0001f600\U0001f600", 4), ("ü", 1)]
)
def test_size_of_a_string_counts_utf16_code_units(ddb: Backend, table: str, text: str, units: int) -> None:
    """AWS counts a string's length as Java does: a character outside the Basic Multilingual Plane (an emoji,
    a musical symbol) is two code units; UTF-8 bytes and code points are not what it counts."""
    ddb.put_item(TableName=table, Item={"pk": {"S": "s"}, "s": {"S": text}})
    found = ddb.scan(
        TableName=table, FilterExpression="size(s) = :n", ExpressionAttributeValues={":n": {"N": str(units)}}
    )
    assert [item["pk"] for item in found["Items"]] == [{"S": "s"}]
