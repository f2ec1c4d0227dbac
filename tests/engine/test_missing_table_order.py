"""A write or a Scan is checked in full before its table is looked up (AWS's order).

AWS reports a malformed value or expression ahead of a missing table, and TransactWriteItems checks every
action that way before it reports a missing table on any of them (the Parity Suite's captures in ten
regions). A well-formed request on the same missing table is ResourceNotFoundException.
"""

from __future__ import annotations

from typing import Any

import pytest
from tables import create_keyed

from backends import Backend, expect_error

LOCAL_ORDER = "DynamoDB Local looks the table up first (docs/compatibility.md)"
SYNTAX = 'Invalid ConditionExpression: Syntax error; token: "=", near: "= = b"'
UNUSED = "Value provided in ExpressionAttributeValues unused in expressions: keys: {:u}"


@pytest.fixture
def absent(ddb: Backend, table_name: str) -> str:
    return f"{table_name}_absent"


@pytest.fixture
def present(ddb: Backend, table_name: str) -> str:
    create_keyed(ddb, table_name)
    return table_name


def key(value: str = "a") -> dict[str, Any]:
    return {"pk": {"S": value}}


def test_single_item_writes_check_expressions_before_the_table(ddb: Backend, absent: str) -> None:
    if ddb.is_reference:
        pytest.skip(LOCAL_ORDER)
    with expect_error("ValidationException", SYNTAX):
        ddb.put_item(TableName=absent, Item=key(), ConditionExpression="a = = b")
    with expect_error("ValidationException", SYNTAX):
        ddb.delete_item(TableName=absent, Key=key(), ConditionExpression="a = = b")
    with expect_error("ValidationException", UNUSED):
        ddb.update_item(
            TableName=absent,
            Key=key(),
            UpdateExpression="SET a = :v",
            ExpressionAttributeValues={":v": {"S": "x"}, ":u": {"S": "y"}},
        )
    with expect_error("ResourceNotFoundException"):
        ddb.put_item(TableName=absent, Item=key(), ConditionExpression="a = b")
    with expect_error("ResourceNotFoundException"):
        ddb.update_item(
            TableName=absent,
            Key=key(),
            UpdateExpression="SET a = :v",
            ExpressionAttributeValues={":v": {"S": "x"}},
        )


def test_scan_checks_its_filter_before_the_table(ddb: Backend, absent: str) -> None:
    if ddb.is_reference:
        pytest.skip(LOCAL_ORDER)
    with expect_error(
        "ValidationException", 'Invalid FilterExpression: Syntax error; token: "=", near: "= = b"'
    ):
        ddb.scan(TableName=absent, FilterExpression="a = = b")
    with expect_error("ResourceNotFoundException"):
        ddb.scan(TableName=absent, FilterExpression="a = b")


def test_transactions_check_every_action_before_any_table(ddb: Backend, absent: str, present: str) -> None:
    if ddb.is_reference:
        pytest.skip(LOCAL_ORDER)
    with expect_error("ValidationException", SYNTAX):
        ddb.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": absent, "Item": key("a")}},
                {"Put": {"TableName": present, "Item": key("b"), "ConditionExpression": "a = = b"}},
            ]
        )
    with expect_error("ValidationException", UNUSED):
        ddb.transact_write_items(
            TransactItems=[
                {"Delete": {"TableName": absent, "Key": key("a")}},
                {
                    "Update": {
                        "TableName": absent,
                        "Key": key("b"),
                        "UpdateExpression": "SET a = :v",
                        "ExpressionAttributeValues": {":v": {"S": "x"}, ":u": {"S": "y"}},
                    }
                },
            ]
        )
    with expect_error("ValidationException", "Empty attribute name"):
        ddb.transact_write_items(
            TransactItems=[
                {
                    "ConditionCheck": {
                        "TableName": absent,
                        "Key": key("a"),
                        "ConditionExpression": "attribute_exists(pk)",
                    }
                },
                {"Put": {"TableName": present, "Item": {**key("b"), "": {"S": "x"}}}},
            ]
        )
    with expect_error("ResourceNotFoundException"):
        ddb.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": present, "Item": key("a")}},
                {"Delete": {"TableName": absent, "Key": key("b")}},
            ]
        )
    assert ddb.scan(TableName=present)["Items"] == []
