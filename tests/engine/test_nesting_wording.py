"""A value nested past the 32-level document limit, worded by operation, and never stored by an update.

AWS (the Parity Suite's captures, several regions): PutItem, UpdateItem and DeleteItem refuse an item or
value nested 32 to about 62 levels inside the `1 validation error detected: ` envelope; past that the
request is read by the older layer, which refuses it bare (an ExpressionAttributeValues value naming its
key). Batches and transactions refuse it bare. An update that would store an attribute nested too deep (an
expression value one level deeper than an item allows, which transactions accept up front) is refused with
`Nesting Levels have exceeded supported limits`, a cancellation reason in a transaction.
"""

from __future__ import annotations

from typing import Any

import pytest

from backends import Backend, expect_error

NEST = (
    "Nesting Levels have exceeded supported limits: "
    "Attributes in the item have nested levels beyond supported limit"
)
LOCAL = "DynamoDB Local has no envelope and no older layer (docs/compatibility.md)"


def deep(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {"S": "leaf"}
    for _ in range(levels):
        value = {"M": {"n": value}}
    return value


def put(ddb: Backend, table: str, value: dict[str, Any]) -> None:
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "d": value})


def test_put_item_nesting_by_depth(ddb: Backend, table: str) -> None:
    put(ddb, table, deep(31))
    if ddb.is_reference:
        pytest.skip(LOCAL)
    for levels in (32, 61):
        with expect_error("ValidationException", f"1 validation error detected: {NEST}"):
            put(ddb, table, deep(levels))
    with expect_error("ValidationException", NEST):
        put(ddb, table, deep(63))
    with expect_error("ValidationException", NEST):
        ddb.batch_write_item(
            RequestItems={table: [{"PutRequest": {"Item": {"pk": {"S": "b"}, "d": deep(32)}}}]}
        )


def test_an_update_never_stores_an_attribute_nested_too_deep(ddb: Backend, table: str) -> None:
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}})
    update = {
        "TableName": table,
        "Key": {"pk": {"S": "a"}},
        "UpdateExpression": "SET d = :deep",
        "ExpressionAttributeValues": {":deep": deep(32)},
    }
    if ddb.is_reference:
        pytest.skip(LOCAL)
    with expect_error("TransactionCanceledException") as info:
        ddb.transact_write_items(TransactItems=[{"Update": update}])
    assert info.value.extra["CancellationReasons"] == [
        {"Code": "ValidationError", "Message": "Nesting Levels have exceeded supported limits"}
    ]
    # Through a path: each value fits, the attribute it would make does not (AWS's text unverified here).
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "e": deep(1)})
    with expect_error("ValidationException", "Nesting Levels have exceeded supported limits"):
        ddb.update_item(
            TableName=table,
            Key={"pk": {"S": "a"}},
            UpdateExpression="SET e.n = :w",
            ExpressionAttributeValues={":w": deep(31)},
        )
    assert ddb.get_item(TableName=table, Key={"pk": {"S": "a"}})["Item"] == {"pk": {"S": "a"}, "e": deep(1)}
