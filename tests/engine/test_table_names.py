"""Table names that break DynamoDB's naming rules, on the operations that also take an ARN (whose shape
accepts any length from 1): a ValidationException, checked before the table is looked up."""

from __future__ import annotations

from typing import Any

import pytest

from backends import Backend

INVALID_NAME = (
    "Invalid table/index name.  Table/index names must be between 3 and 255 characters long, and may "
    "contain only the characters a-z, A-Z, 0-9, '_', '-', and '.'"
)
KEY = {"pk": {"S": "a"}}
OPERATIONS: dict[str, Any] = {
    "get_item": lambda name: {"TableName": name, "Key": KEY},
    "put_item": lambda name: {"TableName": name, "Item": KEY},
    "delete_item": lambda name: {"TableName": name, "Key": KEY},
    "update_item": lambda name: {"TableName": name, "Key": KEY},
    "query": lambda name: {
        "TableName": name,
        "KeyConditionExpression": "pk = :v",
        "ExpressionAttributeValues": {":v": {"S": "a"}},
    },
    "scan": lambda name: {"TableName": name},
    "describe_table": lambda name: {"TableName": name},
    "batch_get_item": lambda name: {"RequestItems": {name: {"Keys": [KEY]}}},
    "batch_write_item": lambda name: {"RequestItems": {name: [{"PutRequest": {"Item": KEY}}]}},
    "transact_write_items": lambda name: {"TransactItems": [{"Put": {"TableName": name, "Item": KEY}}]},
    "describe_time_to_live": lambda name: {"TableName": name},
    "update_table": lambda name: {"TableName": name, "BillingMode": "PAY_PER_REQUEST"},
    "delete_table": lambda name: {"TableName": name},
}
PARTIQL_INVALID_NAME = (
    "Table name should be within the length [3, 255] and only contain 'a-z', 'A-Z', '0-9', '-', '_', '.'."
)


@pytest.mark.parametrize("operation", sorted(OPERATIONS))
@pytest.mark.parametrize("name", ["xx", "a"])
def test_too_short_table_name_is_invalid_not_missing(ddb: Backend, operation: str, name: str) -> None:
    with ddb.error("ValidationException", INVALID_NAME):
        ddb.call(operation, **OPERATIONS[operation](name))


@pytest.mark.parametrize("operation", ["get_item", "scan", "describe_table"])
def test_valid_unknown_table_name_is_still_not_found(ddb: Backend, operation: str) -> None:
    with ddb.error("ResourceNotFoundException"):
        ddb.call(operation, **OPERATIONS[operation]("no_such_table_here"))


def test_too_short_table_name_in_transact_get_items(ddb: Backend) -> None:
    if ddb.is_reference:
        pytest.skip("DynamoDB Local answers ResourceNotFoundException here; AWS checks the name first")
    with ddb.error("ValidationException", INVALID_NAME):
        ddb.transact_get_items(TransactItems=[{"Get": {"TableName": "xx", "Key": KEY}}])


@pytest.mark.parametrize(
    "statement", ["SELECT * FROM xx", 'SELECT * FROM "xx"', "DELETE FROM xx WHERE pk = 'a'"]
)
def test_too_short_table_name_in_partiql(ddb: Backend, statement: str) -> None:
    with ddb.error("ValidationException", PARTIQL_INVALID_NAME):
        ddb.execute_statement(Statement=statement)
