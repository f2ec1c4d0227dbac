"""TransactGetItems on every backend: items from one snapshot, capacity at the transactional rate, errors."""

from __future__ import annotations

import pytest
from messages import KEY_MISMATCH, KEY_MISMATCH_LOCAL, NOT_FOUND_LOCAL, SAME_ITEM
from tables import create, key, n, s


@pytest.fixture
def tables(ddb, table_name):
    plain = create(ddb, table_name + "a")
    indexed = create(ddb, table_name + "b", gsi=True)
    ddb.put_item(TableName=plain, Item={**key(1), "v": n("1")})
    return plain, indexed


def test_transact_get_items(ddb, tables):
    plain, indexed = tables
    ddb.put_item(TableName=indexed, Item={**key(1), "G1PK": s("g"), "G1SK": n("1"), "w": s("x" * 5000)})
    response = ddb.transact_get_items(
        TransactItems=[
            {"Get": {"TableName": plain, "Key": key(1)}},
            {"Get": {"TableName": plain, "Key": key(77)}},
            {
                "Get": {
                    "TableName": indexed,
                    "Key": key(1),
                    "ProjectionExpression": "#g",
                    "ExpressionAttributeNames": {"#g": "G1PK"},
                }
            },
        ],
        ReturnConsumedCapacity="TOTAL",
    )
    assert response["Responses"] == [{"Item": {**key(1), "v": n("1")}}, {}, {"Item": {"G1PK": s("g")}}]
    assert sorted(response["ConsumedCapacity"], key=lambda c: c["TableName"]) == [
        {"TableName": plain, "CapacityUnits": 4.0, "ReadCapacityUnits": 4.0},
        {"TableName": indexed, "CapacityUnits": 4.0, "ReadCapacityUnits": 4.0},
    ]
    assert ddb.transact_get_items(TransactItems=[{"Get": {"TableName": plain, "Key": key(77)}}]) == {
        "Responses": [{}]
    }


def test_transact_get_errors(ddb, tables):
    plain, _ = tables
    with ddb.error("ValidationException", SAME_ITEM):
        ddb.transact_get_items(TransactItems=[{"Get": {"TableName": plain, "Key": key(1)}}] * 2)
    with ddb.error("ResourceNotFoundException", "Requested resource not found", local=NOT_FOUND_LOCAL):
        ddb.transact_get_items(TransactItems=[{"Get": {"TableName": plain + "zz", "Key": key(1)}}])
    with ddb.error(
        "ValidationException", "ExpressionAttributeNames can only be specified when using expressions"
    ):
        ddb.transact_get_items(
            TransactItems=[
                {"Get": {"TableName": plain, "Key": key(1), "ExpressionAttributeNames": {"#a": "b"}}}
            ]
        )
    # A Get whose Key does not fit cancels the transaction with a ValidationError reason; DynamoDB Local
    # cancels it too, in its own words and with no reasons (docs/compatibility.md).
    with ddb.error(
        "TransactionCanceledException",
        "Transaction cancelled, please refer cancellation reasons for specific reasons [ValidationError]",
        local=KEY_MISMATCH_LOCAL,
    ) as info:
        ddb.transact_get_items(TransactItems=[{"Get": {"TableName": plain, "Key": {"PK": s("1")}}}])
    if not ddb.is_reference:
        assert info.value.extra["CancellationReasons"] == [
            {"Code": "ValidationError", "Message": KEY_MISMATCH}
        ]
