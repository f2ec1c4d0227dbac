"""An UpdateItem that only REMOVEs or DELETEs, on an item that does not exist, creates nothing (AWS).

DynamoDB Local creates an item holding only the key; these tests skip it (docs/compatibility.md)."""

from __future__ import annotations

from typing import Any

import pytest
from tables import table_fixtures

from backends import Backend, SharedTables

KEY = {"pk": {"S": "missing"}}
LOCAL_CREATES = "DynamoDB Local creates {key} for a REMOVE/DELETE-only update of a missing item; AWS does not"


def _make_table(ddb: Backend, name: str) -> None:
    ddb.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    )


def _skip_the_reference(ddb: Backend) -> None:
    if ddb.is_reference:
        pytest.skip(LOCAL_CREATES)


table, shared = table_fixtures(_make_table)


@pytest.fixture
def aws_table(ddb: Backend, table_name: str) -> str:
    """The test's own table, on the backends that follow AWS here."""
    _skip_the_reference(ddb)
    _make_table(ddb, table_name)
    return table_name


@pytest.fixture
def aws_shared(ddb: Backend, module_tables: SharedTables) -> str:
    """A table the module's updates that create nothing share, on the backends that follow AWS here."""
    _skip_the_reference(ddb)
    return module_tables.get(ddb, "empty", _make_table)


REMOVE_ONLY: list[dict[str, Any]] = [
    {"UpdateExpression": "REMOVE x"},
    {"UpdateExpression": "REMOVE x.y"},
    {"UpdateExpression": "REMOVE x[3], y"},
    {"UpdateExpression": "DELETE s :v", "ExpressionAttributeValues": {":v": {"SS": ["a"]}}},
    {"UpdateExpression": "REMOVE x DELETE s :v", "ExpressionAttributeValues": {":v": {"NS": ["1"]}}},
    {"AttributeUpdates": {"x": {"Action": "DELETE"}}},
    {"AttributeUpdates": {"s": {"Action": "DELETE", "Value": {"SS": ["a"]}}}},
]


@pytest.mark.parametrize("update", REMOVE_ONLY)
@pytest.mark.parametrize("returned", ["ALL_NEW", "UPDATED_NEW", "ALL_OLD", "NONE"])
def test_remove_only_update_of_missing_item_creates_nothing(
    ddb: Backend, aws_shared: str, update: dict[str, Any], returned: str
) -> None:
    response = ddb.update_item(
        TableName=aws_shared, Key=KEY, ReturnValues=returned, ReturnConsumedCapacity="TOTAL", **update
    )
    assert "Attributes" not in response
    assert response["ConsumedCapacity"]["CapacityUnits"] == 1.0
    assert "Item" not in ddb.get_item(TableName=aws_shared, Key=KEY)
    assert ddb.scan(TableName=aws_shared)["Count"] == 0


def test_no_stream_record_for_an_update_that_created_nothing(ddb: Backend, aws_table: str) -> None:
    ddb.update_item(TableName=aws_table, Key=KEY, UpdateExpression="REMOVE x")
    ddb.put_item(TableName=aws_table, Item={"pk": {"S": "marker"}})
    streams = ddb.streams()
    arn = ddb.describe_table(TableName=aws_table)["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
    records = streams.get_records(ShardIterator=iterator["ShardIterator"])["Records"]
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in records] == ["marker"]


def test_condition_is_still_checked_on_the_missing_item(ddb: Backend, aws_shared: str) -> None:
    with ddb.error("ConditionalCheckFailedException"):
        ddb.update_item(
            TableName=aws_shared,
            Key=KEY,
            UpdateExpression="REMOVE x",
            ConditionExpression="attribute_exists(pk)",
        )
    ddb.update_item(
        TableName=aws_shared,
        Key=KEY,
        UpdateExpression="REMOVE x",
        ConditionExpression="attribute_not_exists(pk)",
    )
    assert "Item" not in ddb.get_item(TableName=aws_shared, Key=KEY)


def test_removing_a_key_attribute_is_still_refused(ddb: Backend, shared: str) -> None:
    with ddb.error(
        "ValidationException",
        "One or more parameter values were invalid: Cannot update attribute pk. "
        "This attribute is part of the key",
    ):
        ddb.update_item(TableName=shared, Key=KEY, UpdateExpression="REMOVE pk")


@pytest.mark.parametrize(
    "update",
    [
        {"UpdateExpression": "SET y = :v REMOVE x", "ExpressionAttributeValues": {":v": {"N": "1"}}},
        {"UpdateExpression": "ADD n :v", "ExpressionAttributeValues": {":v": {"N": "1"}}},
    ],
)
def test_an_update_that_sets_or_adds_still_creates_the_item(
    ddb: Backend, table: str, update: dict[str, Any]
) -> None:
    response = ddb.update_item(TableName=table, Key=KEY, ReturnValues="ALL_NEW", **update)
    assert response["Attributes"]["pk"] == KEY["pk"]
    assert ddb.get_item(TableName=table, Key=KEY)["Item"] == response["Attributes"]


def test_remove_only_update_of_an_existing_item_keeps_it(ddb: Backend, table: str) -> None:
    ddb.put_item(TableName=table, Item={**KEY, "x": {"S": "a"}})
    response = ddb.update_item(TableName=table, Key=KEY, UpdateExpression="REMOVE x", ReturnValues="ALL_NEW")
    assert response["Attributes"] == KEY
    assert ddb.get_item(TableName=table, Key=KEY)["Item"] == KEY


def test_remove_only_update_in_a_transaction_creates_nothing(ddb: Backend, aws_shared: str) -> None:
    ddb.transact_write_items(
        TransactItems=[{"Update": {"TableName": aws_shared, "Key": KEY, "UpdateExpression": "REMOVE x.y"}}]
    )
    assert "Item" not in ddb.get_item(TableName=aws_shared, Key=KEY)
