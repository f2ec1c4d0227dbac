"""Request-shape validation: DynamoDB's aggregated ValidationException and SerializationException texts.

DynamoDB Local does not run AWS's shape validator (it answers with its own texts), so the exact formats are
pinned on the engine; the cross-backend tests only check the error code.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from backends import Backend, expect_error
from draws import examples
from singletable.engine._errors import DynamoDBError
from singletable.engine._validation import SHAPES, check_shape, walker
from singletable.engine._validation.shapes import (
    BlobShape,
    BooleanShape,
    IntegerShape,
    ListShape,
    StringShape,
    StructureShape,
)

PREFIX = "failed to satisfy constraint: Member must"


def test_single_error_format() -> None:
    with expect_error(
        "ValidationException",
        "1 validation error detected: Value 'ab' at 'tableName' "
        f"{PREFIX} have length greater than or equal to 3",
    ):
        check_shape(
            "CreateTable",
            {
                "TableName": "ab",
                "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}],
                "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"}],
            },
        )


def test_aggregated_nested_paths_nulls_and_enums() -> None:
    params = {
        "TableName": "abc",
        "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "X"}],
        "KeySchema": [{"AttributeName": "a"}],
        "BillingMode": "BAD",
    }
    with expect_error(
        "ValidationException",
        "3 validation errors detected: "
        f"Value 'X' at 'attributeDefinitions.1.member.attributeType' {PREFIX} satisfy enum value "
        "set: [B, N, S]; "
        f"Value null at 'keySchema.1.member.keyType' {PREFIX} not be null; "
        f"Value 'BAD' at 'billingMode' {PREFIX} satisfy enum value set: [PROVISIONED, "
        "PAY_PER_REQUEST]",
    ):
        check_shape("CreateTable", params)


def test_list_rendering_and_ranges() -> None:
    with expect_error(
        "ValidationException",
        "2 validation errors detected: "
        f"Value '0' at 'provisionedThroughput.readCapacityUnits' {PREFIX} have value greater than "
        f"or equal to 1; Value null at 'provisionedThroughput.writeCapacityUnits' {PREFIX} not be "
        "null",
    ):
        check_shape(
            "CreateTable",
            {
                "TableName": "abc",
                "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}],
                "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"}],
                "ProvisionedThroughput": {"ReadCapacityUnits": 0},
            },
        )
    with expect_error(
        "ValidationException",
        f"1 validation error detected: Value '[]' at 'keySchema' {PREFIX} "
        "have length greater than or equal to 1",
    ):
        check_shape(
            "CreateTable",
            {
                "TableName": "abc",
                "KeySchema": [],
                "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"}],
            },
        )


@pytest.mark.parametrize(
    "value, message",
    [
        (5, "NUMBER_VALUE cannot be converted to String"),
        (True, "TRUE_VALUE cannot be converted to String"),
        (1.5, "DECIMAL_VALUE cannot be converted to String"),
        (["x"], "Unrecognized collection type class java.lang.String"),
        ({"x": 1}, "Start of structure or map found where not expected"),
    ],
)
def test_wrong_types_are_serialization_errors(value: object, message: str) -> None:
    with expect_error("SerializationException", message):
        check_shape("DescribeTable", {"TableName": value})


def test_unknown_members_are_ignored_and_null_is_absent() -> None:
    check_shape("DescribeTable", {"TableName": "abc", "NoSuchMember": 1})
    check_shape("ListTables", {"Limit": None})
    with expect_error(
        "ValidationException", f"1 validation error detected: Value null at 'tableName' {PREFIX} not be null"
    ):
        check_shape("DescribeTable", {"TableName": None})


def test_integer_type_errors() -> None:
    with expect_error("SerializationException", "class java.lang.String can not be converted to an Integer"):
        check_shape("ListTables", {"Limit": "5"})


@pytest.mark.parametrize("params", [{"Limit": 0}, {"Limit": 101}, {"ExclusiveStartTableName": "a"}])
def test_list_tables_shape_errors_are_validation_errors(ddb: Backend, params: dict) -> None:
    with expect_error("ValidationException"):
        ddb.list_tables(**params)


def test_missing_table_name_is_a_validation_error(ddb: Backend) -> None:
    with expect_error("ValidationException"):
        ddb.describe_table()


# -- the quick acceptance (walker._fits) never vouches for a request the full walk would reject -----------

_WILD = st.sampled_from(
    [None, 0, -1, 2**40, 1.5, True, "", "x", "ab", "Bad Name!", [], {}, b"b", [1], {"a": 1}]
)


def _requests(shape_name: str, depth: int = 0) -> st.SearchStrategy[Any]:
    """Values for ``shape_name``: mostly well-formed, sometimes wrong in type, length, pattern or enum."""
    shape = SHAPES[shape_name]
    if depth > 4:
        return _WILD
    if isinstance(shape, StructureShape):
        members = shape.members
        fitting = st.lists(st.sampled_from(sorted(members)), unique=True, max_size=6).flatmap(
            lambda chosen: st.fixed_dictionaries({m: _requests(members[m], depth + 1) for m in chosen})
        )
    elif isinstance(shape, StringShape):
        enum = shape.enum
        fitting = (
            st.sampled_from(list(enum)) if enum else st.sampled_from(["bench", "Table_1", "ab", "x" * 300])
        )
        fitting = st.one_of(fitting, st.text(max_size=4))
    elif isinstance(shape, IntegerShape):
        fitting = st.integers(-3, 2000)
    elif isinstance(shape, BooleanShape):
        fitting = st.booleans()
    elif isinstance(shape, BlobShape):
        fitting = st.binary(max_size=3)
    elif isinstance(shape, ListShape):
        fitting = st.lists(_requests(shape.member, depth + 1), max_size=3)
    else:
        fitting = st.dictionaries(
            st.sampled_from(["a", ":v", "#n", "", "bench"]), _requests(shape.value, depth + 1), max_size=3
        )
    return st.one_of(fitting, fitting, fitting, _WILD)


_CHECKED_INPUTS = [
    "PutItemInput",
    "GetItemInput",
    "QueryInput",
    "UpdateItemInput",
    "ScanInput",
    "BatchWriteItemInput",
    "TransactWriteItemsInput",
    "CreateTableInput",
    "DeleteItemInput",
    "BatchGetItemInput",
]


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(_CHECKED_INPUTS).flatmap(lambda name: st.tuples(st.just(name), _requests(name))))
@example(("BatchWriteItemInput", {"RequestItems": {"a": [{}]}}))  # a REQUIRED-ruled member, present and valid
@example(("CreateTableInput", {"TableName": "bench"}))
def test_quick_acceptance_only_vouches_for_requests_the_full_walk_accepts(case: tuple[str, Any]) -> None:
    name, params = case
    if not isinstance(params, dict):
        return
    fits = walker._fits(SHAPES, name, params)
    checker = walker._Checker(SHAPES)
    try:
        checker.check(name, params, "", "")
    except DynamoDBError:
        assert not fits
        return
    assert not (fits and checker.errors)
    if not checker.errors:  # twice: the second time every string it met is known valid
        assert walker._fits(SHAPES, name, params)
