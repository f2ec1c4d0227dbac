"""TransactWriteItems on every backend: outcomes, cancellation reasons, capacity,
idempotency tokens and every error text. TransactGetItems: test_transact_get_items.py; concurrency:
test_transaction_concurrency.py."""

from __future__ import annotations

import pytest
from messages import KEY_MISMATCH, KEY_MISMATCH_LOCAL, NOT_FOUND_LOCAL, SAME_ITEM
from tables import create, key, n, s

from backends import expect_error
from singletable.engine import Engine

CANCELLED = "Transaction cancelled, please refer cancellation reasons for specific reasons [{}]"
FAILED = {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"}
CHECK_FAILED = {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed."}
NONE = {"Code": "None"}


@pytest.fixture
def tables(ddb, table_name):
    plain = create(ddb, table_name + "a")
    indexed = create(ddb, table_name + "b", gsi=True)
    for i in (1, 2, 3, 4):
        ddb.put_item(TableName=plain, Item={**key(i), "v": n(str(i))})
    return plain, indexed


def cancellation(info) -> tuple[str, list]:
    return info.value.message, info.value.extra["CancellationReasons"]


def test_all_four_actions_commit_together(ddb, tables):
    plain, indexed = tables
    response = ddb.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": plain, "Item": {**key(9), "v": n("9")}}},
            {
                "Update": {
                    "TableName": indexed,
                    "Key": key(1),
                    "UpdateExpression": "SET G1PK = :g, G1SK = :one",
                    "ExpressionAttributeValues": {":g": s("g"), ":one": n("1")},
                }
            },
            {"Delete": {"TableName": plain, "Key": key(2)}},
            {
                "ConditionCheck": {
                    "TableName": plain,
                    "Key": key(1),
                    "ConditionExpression": "v = :one",
                    "ExpressionAttributeValues": {":one": n("1")},
                }
            },
        ]
    )
    assert response == {}
    assert ddb.get_item(TableName=plain, Key=key(9))["Item"]["v"] == n("9")
    assert "Item" not in ddb.get_item(TableName=plain, Key=key(2))
    assert ddb.get_item(TableName=indexed, Key=key(1))["Item"]["G1PK"] == s("g")


def test_table_writes_are_doubled_and_condition_checks_are_writes(ddb, tables):
    plain, indexed = tables
    total = ddb.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": plain, "Item": {**key(9)}}},
            {
                "ConditionCheck": {
                    "TableName": plain,
                    "Key": key(1),
                    "ConditionExpression": "attribute_exists(v)",
                }
            },
        ],
        ReturnConsumedCapacity="TOTAL",
    )
    # A ConditionCheck is billed as 2 write units per KB of the item it read (test_write_capacity.py).
    assert total["ConsumedCapacity"] == [
        {"TableName": plain, "CapacityUnits": 4.0, "WriteCapacityUnits": 4.0}
    ]
    indexes = ddb.transact_write_items(
        TransactItems=[{"Put": {"TableName": indexed, "Item": {**key(5), "G1PK": s("h"), "G1SK": n("1")}}}],
        ReturnConsumedCapacity="INDEXES",
    )
    if ddb.is_reference:
        # DynamoDB Local doubles the index arm too, and a new item's writes again (docs/compatibility.md).
        return
    assert indexes["ConsumedCapacity"] == [
        {
            "TableName": indexed,
            "CapacityUnits": 3.0,
            "WriteCapacityUnits": 3.0,
            "Table": {"CapacityUnits": 2.0, "WriteCapacityUnits": 2.0},
            "GlobalSecondaryIndexes": {"GSI1": {"CapacityUnits": 1.0, "WriteCapacityUnits": 1.0}},
        }
    ]


def test_condition_failures_cancel_everything_with_reasons_in_order(ddb, tables):
    plain, _ = tables
    old = {
        "ConditionExpression": "attribute_not_exists(PK)",
        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
    }
    with expect_error("TransactionCanceledException") as info:
        ddb.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": plain, "Item": {**key(1), "new": s("1")}, **old}},
                {
                    "Update": {
                        "TableName": plain,
                        "Key": key(2),
                        "UpdateExpression": "SET a = :a",
                        "ExpressionAttributeValues": {":a": s("a")},
                        **old,
                    }
                },
                {
                    "Delete": {
                        "TableName": plain,
                        "Key": key(3),
                        "ConditionExpression": "attribute_not_exists(PK)",
                    }
                },
                {"ConditionCheck": {"TableName": plain, "Key": key(4), **old}},
                {"Put": {"TableName": plain, "Item": key(5)}},
            ]
        )
    message, reasons = cancellation(info)
    assert message == CANCELLED.format(", ".join(["ConditionalCheckFailed"] * 4 + ["None"]))
    assert reasons == [
        {**FAILED, "Item": {**key(1), "v": n("1")}},
        {**FAILED, "Item": {**key(2), "v": n("2")}},
        FAILED,
        {**CHECK_FAILED, "Item": {**key(4), "v": n("4")}},
        NONE,
    ]
    assert "Item" not in ddb.get_item(TableName=plain, Key=key(5))
    assert "a" not in ddb.get_item(TableName=plain, Key=key(2))["Item"]


def test_condition_check_on_a_missing_item_returns_no_item(ddb, tables):
    plain, _ = tables
    with expect_error("TransactionCanceledException", CANCELLED.format("ConditionalCheckFailed")) as info:
        ddb.transact_write_items(
            TransactItems=[
                {
                    "ConditionCheck": {
                        "TableName": plain,
                        "Key": key(50),
                        "ConditionExpression": "attribute_exists(PK)",
                        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                    }
                }
            ]
        )
    assert cancellation(info)[1] == [CHECK_FAILED]


def test_binary_values_in_cancellation_items(ddb, tables):
    plain, _ = tables
    ddb.put_item(TableName=plain, Item={**key(7), "b": {"B": b"\x00\xff"}})
    with expect_error("TransactionCanceledException") as info:
        ddb.transact_write_items(
            TransactItems=[
                {
                    "Delete": {
                        "TableName": plain,
                        "Key": key(7),
                        "ConditionExpression": "attribute_not_exists(b)",
                        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                    }
                }
            ]
        )
    assert cancellation(info)[1] == [{**FAILED, "Item": {**key(7), "b": {"B": b"\x00\xff"}}}]


@pytest.mark.parametrize("first", ["Put", "ConditionCheck"])
def test_two_actions_on_one_item(ddb, tables, first):
    plain, indexed = tables
    action = (
        {"Put": {"TableName": plain, "Item": key(1)}}
        if first == "Put"
        else {
            "ConditionCheck": {
                "TableName": plain,
                "Key": key(1),
                "ConditionExpression": "attribute_exists(PK)",
            }
        }
    )
    with ddb.error("ValidationException", SAME_ITEM):
        ddb.transact_write_items(TransactItems=[action, {"Delete": {"TableName": plain, "Key": key(1)}}])
    # One key in two tables is two items.
    ddb.transact_write_items(TransactItems=[action, {"Put": {"TableName": indexed, "Item": key(1)}}])


def test_request_errors(ddb, tables):
    plain, _ = tables
    with ddb.error("ResourceNotFoundException", "Requested resource not found", local=NOT_FOUND_LOCAL):
        ddb.transact_write_items(TransactItems=[{"Put": {"TableName": plain + "zz", "Item": key(1)}}])
    with ddb.error(
        "ValidationException",
        "Invalid Request: TransactWriteRequest should contain Delete or Put or Update request",
    ):
        ddb.transact_write_items(TransactItems=[{}])
    with ddb.error(
        "ValidationException", "TransactItems can only contain one of Check, Put, Update or Delete"
    ):
        ddb.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": plain, "Item": key(1)}, "Delete": {"TableName": plain, "Key": key(5)}}
            ]
        )
    with ddb.error("ValidationException", KEY_MISMATCH, local=KEY_MISMATCH_LOCAL):
        ddb.transact_write_items(TransactItems=[{"Delete": {"TableName": plain, "Key": {"PK": s("1")}}}])
    with ddb.error("ValidationException", "One of the required keys was not given a value"):
        ddb.transact_write_items(TransactItems=[{"Put": {"TableName": plain, "Item": {"PK": s("1")}}}])
    with ddb.error(
        "ValidationException", 'Invalid UpdateExpression: Syntax error; token: "<EOF>", near: "SET"'
    ):
        ddb.transact_write_items(
            TransactItems=[{"Update": {"TableName": plain, "Key": key(1), "UpdateExpression": "SET"}}]
        )
    with ddb.error("ValidationException", "Item size has exceeded the maximum allowed size"):
        ddb.transact_write_items(
            TransactItems=[{"Put": {"TableName": plain, "Item": {**key(8), "b": s("x" * 409600)}}}]
        )
    with ddb.error(
        "ValidationException", "ExpressionAttributeNames can only be specified when using expressions"
    ):
        ddb.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": plain, "Item": key(8), "ExpressionAttributeNames": {"#a": "b"}}}
            ]
        )


def test_more_than_100_actions(ddb, tables):
    plain, _ = tables
    with expect_error("ValidationException") as info:
        ddb.transact_write_items(
            TransactItems=[{"Put": {"TableName": plain, "Item": key(i)}} for i in range(101)]
        )
    if ddb.is_reference:
        assert info.value.message == "Member must have length less than or equal to 100"
    else:
        assert info.value.message.startswith(
            "1 validation error detected: Value '[TransactWriteItem(conditionCheck=null, put=Put(item={"
        )
        assert info.value.message.endswith(
            "at 'transactItems' failed to satisfy constraint: "
            "Member must have length less than or equal to 100"
        )


def test_aggregate_size_over_4_mb(ddb, tables):
    plain, _ = tables
    items = [{"Put": {"TableName": plain, "Item": {**key(100 + i), "b": s("x" * 380000)}}} for i in range(12)]
    with ddb.error(
        "ValidationException", "Transaction payload size cannot exceed 4MB. Payload Size: 4560108"
    ):
        ddb.transact_write_items(TransactItems=items)


def test_errors_that_need_the_stored_item_are_validation_reasons(ddb, tables):
    plain, _ = tables
    key_update = {
        "Code": "ValidationError",
        "Message": "One or more parameter values were invalid: Cannot update attribute PK. "
        "This attribute is part of the key",
    }
    with expect_error("TransactionCanceledException") as info:
        ddb.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": plain, "Item": key(7)}},
                {
                    "Update": {
                        "TableName": plain,
                        "Key": key(1),
                        "UpdateExpression": "SET PK = :v",
                        "ExpressionAttributeValues": {":v": s("z")},
                    }
                },
            ]
        )
    if ddb.is_reference:  # one reason for the whole request (docs/compatibility.md)
        assert cancellation(info) == (CANCELLED.format("ValidationError"), [key_update])
    else:
        assert cancellation(info) == (CANCELLED.format("None, ValidationError"), [NONE, key_update])
    ddb.put_item(TableName=plain, Item={**key(1), "pad": s("x" * 3000)})
    with expect_error("TransactionCanceledException", CANCELLED.format("ValidationError")) as info:
        ddb.transact_write_items(
            TransactItems=[
                {
                    "Update": {
                        "TableName": plain,
                        "Key": key(1),
                        "UpdateExpression": "SET c = :v",
                        "ExpressionAttributeValues": {":v": s("x" * 408000)},
                    }
                }
            ]
        )
    assert cancellation(info)[1] == [
        {"Code": "ValidationError", "Message": "Item size to update has exceeded the maximum allowed size"}
    ]
    assert "Item" not in ddb.get_item(TableName=plain, Key=key(7))


def test_condition_failures_and_validation_reasons_together(ddb, tables):
    plain, _ = tables
    ddb.put_item(TableName=plain, Item={**key(2), "pad": s("x" * 3000)})
    reasons = "ValidationError, ConditionalCheckFailed"
    with expect_error("TransactionCanceledException", CANCELLED.format(reasons)) as info:
        ddb.transact_write_items(
            TransactItems=[
                {
                    "Update": {
                        "TableName": plain,
                        "Key": key(2),
                        "UpdateExpression": "SET big = :a",
                        "ExpressionAttributeValues": {":a": s("x" * 408000)},
                    }
                },
                {
                    "ConditionCheck": {
                        "TableName": plain,
                        "Key": key(4),
                        "ConditionExpression": "attribute_not_exists(PK)",
                    }
                },
            ]
        )
    assert cancellation(info)[1] == [
        {"Code": "ValidationError", "Message": "Item size to update has exceeded the maximum allowed size"},
        CHECK_FAILED,
    ]


def test_update_path_errors_in_a_transaction(ddb, tables):
    plain, _ = tables
    text = "The provided expression refers to an attribute that does not exist in the item"
    action = {
        "Update": {
            "TableName": plain,
            "Key": key(1),
            "UpdateExpression": "SET v = nope + :one",
            "ExpressionAttributeValues": {":one": n("1")},
        }
    }
    if ddb.is_reference:  # DynamoDB Local answers a plain ValidationException (docs/compatibility.md)
        with expect_error("ValidationException", text):
            ddb.transact_write_items(TransactItems=[action])
        return
    with expect_error("TransactionCanceledException", CANCELLED.format("ValidationError")) as info:
        ddb.transact_write_items(TransactItems=[action])
    assert cancellation(info)[1] == [{"Code": "ValidationError", "Message": text}]


def test_single_update_item_too_large_text(ddb, tables):
    plain, _ = tables
    with ddb.error("ValidationException", "Item size to update has exceeded the maximum allowed size"):
        ddb.update_item(
            TableName=plain,
            Key=key(1),
            UpdateExpression="SET c = :v",
            ExpressionAttributeValues={":v": s("x" * 410000)},
        )


# -- ClientRequestToken -----------------------------------------------------------------------------------


def _increment(plain: str) -> list[dict]:
    return [
        {
            "Update": {
                "TableName": plain,
                "Key": key(1),
                "UpdateExpression": "ADD c :one",
                "ExpressionAttributeValues": {":one": n("1")},
            }
        }
    ]


def test_client_request_token_makes_a_retry_a_no_op(ddb, tables):
    plain, _ = tables
    first = ddb.transact_write_items(
        TransactItems=_increment(plain), ClientRequestToken="tok-1", ReturnConsumedCapacity="TOTAL"
    )
    again = ddb.transact_write_items(
        TransactItems=_increment(plain), ClientRequestToken="tok-1", ReturnConsumedCapacity="TOTAL"
    )
    assert ddb.transact_write_items(TransactItems=_increment(plain), ClientRequestToken="tok-1") == {}
    assert ddb.get_item(TableName=plain, Key=key(1))["Item"]["c"] == n("1")
    assert first["ConsumedCapacity"][0]["WriteCapacityUnits"] > 0
    # A replay reads the items instead of writing them.
    assert again["ConsumedCapacity"] == [{"TableName": plain, "CapacityUnits": 2.0, "ReadCapacityUnits": 2.0}]
    with ddb.error("IdempotentParameterMismatchException", ""):
        ddb.transact_write_items(
            TransactItems=[{"Put": {"TableName": plain, "Item": key(1)}}], ClientRequestToken="tok-1"
        )
    with expect_error("ValidationException") as info:
        ddb.transact_write_items(TransactItems=_increment(plain), ClientRequestToken="x" * 37)
    assert "Member must have length less than or equal to 36" in info.value.message


def test_cancelled_transaction_does_not_use_up_its_token(ddb, tables):
    plain, _ = tables
    items = [
        {
            "ConditionCheck": {
                "TableName": plain,
                "Key": key(60),
                "ConditionExpression": "attribute_exists(PK)",
            }
        },
        {"Put": {"TableName": plain, "Item": key(61)}},
    ]
    for _ in range(2):
        with expect_error("TransactionCanceledException"):
            ddb.transact_write_items(TransactItems=items, ClientRequestToken="tok-2")
    ddb.put_item(TableName=plain, Item=key(60))
    ddb.transact_write_items(TransactItems=items, ClientRequestToken="tok-2")
    assert "Item" in ddb.get_item(TableName=plain, Key=key(61))


def test_token_ignores_member_order_works_across_engines_and_expires(tmp_path):
    now = [1_000_000.0]
    path = str(tmp_path / "db.sqlite3")
    first = Engine(path, clock=lambda: now[0])
    second = Engine(path, clock=lambda: now[0])
    try:
        create(first, "t_tok")
        action = {
            "TableName": "t_tok",
            "Key": key(1),
            "UpdateExpression": "ADD c :one",
            "ExpressionAttributeValues": {":one": n("1")},
        }
        first.transact_write_items(TransactItems=[{"Update": action}], ClientRequestToken="t")
        reordered = dict(reversed(list(action.items())))
        second.transact_write_items(TransactItems=[{"Update": reordered}], ClientRequestToken="t")
        assert first.get_item(TableName="t_tok", Key=key(1))["Item"]["c"] == n("1")
        now[0] += 599
        second.transact_write_items(TransactItems=[{"Update": action}], ClientRequestToken="t")
        assert first.get_item(TableName="t_tok", Key=key(1))["Item"]["c"] == n("1")
        now[0] += 602  # ten minutes after the first use: the token is forgotten
        second.transact_write_items(TransactItems=[{"Update": action}], ClientRequestToken="t")
        assert first.get_item(TableName="t_tok", Key=key(1))["Item"]["c"] == n("2")
    finally:
        first.close()
        second.close()
