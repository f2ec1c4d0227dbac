"""PutItem, GetItem, UpdateItem, DeleteItem on every backend."""

from __future__ import annotations

import pytest
from tables import create, n, s

from backends import expect_error


@pytest.fixture
def table(ddb, table_name):
    return create(ddb, table_name, gsi=True)


def test_put_then_get_round_trips_every_type(ddb, table):
    item = {
        "PK": s("a"),
        "SK": s("b"),
        "str": s("héllo"),
        "num": n("0042.500"),
        "bin": {"B": b"\x00\xff"},
        "yes": {"BOOL": True},
        "nothing": {"NULL": True},
        "map": {"M": {"inner": {"L": [n("1"), s("x"), {"M": {}}]}}},
        "ss": {"SS": ["x", "y"]},
        "ns": {"NS": ["1", "2.50"]},
        "bs": {"BS": [b"a", b"b"]},
        "empty": s(""),
    }
    ddb.put_item(TableName=table, Item=item)
    got = ddb.get_item(TableName=table, Key={"PK": s("a"), "SK": s("b")})["Item"]
    assert got["num"] == n("42.5")
    assert sorted(got["ns"]["NS"]) == ["1", "2.5"]
    assert sorted(got["ss"]["SS"]) == ["x", "y"]
    assert got["bin"] == {"B": b"\x00\xff"}
    assert got["map"] == item["map"]
    assert got["empty"] == s("")


def test_get_missing_item_returns_no_item(ddb, table):
    response = ddb.get_item(
        TableName=table, Key={"PK": s("none"), "SK": s("x")}, ReturnConsumedCapacity="TOTAL"
    )
    assert "Item" not in response
    assert response["ConsumedCapacity"] == {"TableName": table, "CapacityUnits": 0.5}


def test_get_capacity_strongly_consistent_and_large_items(ddb, table):
    ddb.put_item(TableName=table, Item={"PK": s("big"), "SK": s("1"), "blob": s("x" * 9000)})
    eventual = ddb.get_item(
        TableName=table, Key={"PK": s("big"), "SK": s("1")}, ReturnConsumedCapacity="TOTAL"
    )
    strong = ddb.get_item(
        TableName=table,
        Key={"PK": s("big"), "SK": s("1")},
        ConsistentRead=True,
        ReturnConsumedCapacity="INDEXES",
    )
    assert eventual["ConsumedCapacity"]["CapacityUnits"] == 1.5
    assert strong["ConsumedCapacity"] == {
        "TableName": table,
        "CapacityUnits": 3.0,
        "Table": {"CapacityUnits": 3.0},
    }


def test_put_return_values_all_old(ddb, table):
    key = {"PK": s("rv"), "SK": s("1")}
    first = ddb.put_item(TableName=table, Item={**key, "v": n("1")}, ReturnValues="ALL_OLD")
    assert "Attributes" not in first
    second = ddb.put_item(TableName=table, Item={**key, "v": n("2")}, ReturnValues="ALL_OLD")
    assert second["Attributes"] == {**key, "v": n("1")}


def test_conditional_put_fails_and_returns_old_item(ddb, table):
    item = {"PK": s("c"), "SK": s("1"), "v": n("1")}
    ddb.put_item(TableName=table, Item=item, ConditionExpression="attribute_not_exists(PK)")
    with expect_error("ConditionalCheckFailedException", "The conditional request failed") as info:
        ddb.put_item(
            TableName=table,
            Item=item,
            ConditionExpression="attribute_not_exists(PK)",
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
    assert info.value.item == item


def test_write_capacity_counts_indexes(ddb, table):
    key = {"PK": s("w"), "SK": s("1")}
    enter = ddb.put_item(
        TableName=table,
        Item={**key, "G1PK": s("g"), "G1SK": n("1"), "G2PK": s("h")},
        ReturnConsumedCapacity="INDEXES",
    )
    assert enter["ConsumedCapacity"] == {
        "TableName": table,
        "CapacityUnits": 3.0,
        "Table": {"CapacityUnits": 1.0},
        "GlobalSecondaryIndexes": {"GSI1": {"CapacityUnits": 1.0}, "GSI2": {"CapacityUnits": 1.0}},
    }
    move = ddb.put_item(
        TableName=table,
        Item={**key, "G1PK": s("g2"), "G1SK": n("1"), "G2PK": s("h")},
        ReturnConsumedCapacity="INDEXES",
    )
    # GSI1's key changed (2 writes); GSI2 is KEYS_ONLY and its entry is unchanged (no write).
    assert move["ConsumedCapacity"]["GlobalSecondaryIndexes"] == {"GSI1": {"CapacityUnits": 2.0}}
    leave = ddb.put_item(TableName=table, Item=key, ReturnConsumedCapacity="TOTAL")
    assert leave["ConsumedCapacity"] == {"TableName": table, "CapacityUnits": 3.0}
    same = ddb.put_item(TableName=table, Item=key, ReturnConsumedCapacity="TOTAL")
    assert same["ConsumedCapacity"] == {"TableName": table, "CapacityUnits": 1.0}


def test_write_capacity_uses_larger_of_old_and_new(ddb, table):
    key = {"PK": s("size"), "SK": s("1")}
    ddb.put_item(TableName=table, Item={**key, "blob": s("x" * 3000)})
    response = ddb.put_item(TableName=table, Item=key, ReturnConsumedCapacity="TOTAL")
    assert response["ConsumedCapacity"]["CapacityUnits"] == 3.0


def test_key_errors(ddb, table):
    with expect_error("ValidationException", "One of the required keys was not given a value"):
        ddb.put_item(TableName=table, Item={"PK": s("a")})
    with ddb.error(
        "ValidationException",
        "One or more parameter values were invalid: Type mismatch for key SK expected: S actual: N",
        local="One or more parameter values were invalid: Type mismatch for key",
    ):
        ddb.put_item(TableName=table, Item={"PK": s("a"), "SK": n("1")})
    with expect_error(
        "ValidationException",
        "One or more parameter values are not valid. "
        "The AttributeValue for a key attribute cannot contain an "
        "empty string value. Key: PK",
    ):
        ddb.put_item(TableName=table, Item={"PK": s(""), "SK": s("1")})
    with ddb.error(
        "ValidationException",
        "The provided key element does not match the schema",
        local="The number of conditions on the keys is invalid",
    ):
        ddb.get_item(TableName=table, Key={"PK": s("a")})
    with ddb.error(
        "ValidationException",
        "The provided key element does not match the schema",
        local="One or more parameter values were invalid: Type mismatch for key",
    ):
        ddb.get_item(TableName=table, Key={"PK": s("a"), "SK": n("1")})
    with ddb.error(
        "ValidationException",
        "One or more parameter values were invalid: "
        "Size of hashkey has exceeded the maximum size limit of2048 bytes",
        local="Hash primary key values must be under 2048 bytes, "
        "and range primary key values must be under 1024 bytes",
    ):
        ddb.get_item(TableName=table, Key={"PK": s("a" * 2049), "SK": s("1")})


def test_index_key_errors(ddb, table):
    with ddb.error(
        "ValidationException",
        "One or more parameter values were invalid: Type mismatch for Index Key G1PK Expected: S Actual: N "
        "IndexName: GSI1",
        local="One or more parameter values were invalid: Type mismatch for Index Key",
    ):
        ddb.put_item(TableName=table, Item={"PK": s("a"), "SK": s("1"), "G1PK": n("1")})
    with expect_error(
        "ValidationException",
        "One or more parameter values are not valid. A value specified for a secondary index key is not "
        "supported. The AttributeValue for a key attribute cannot contain an empty string value. "
        "IndexName: GSI2, IndexKey: G2PK",
    ):
        ddb.put_item(TableName=table, Item={"PK": s("a"), "SK": s("1"), "G2PK": s("")})


def test_item_too_large(ddb, table):
    with expect_error("ValidationException", "Item size has exceeded the maximum allowed size"):
        ddb.put_item(TableName=table, Item={"PK": s("a"), "SK": s("1"), "blob": s("x" * 400 * 1024)})


def test_missing_table(ddb):
    with expect_error("ResourceNotFoundException") as info:
        ddb.get_item(TableName="no_such_table", Key={"PK": s("a")})
    expected = (
        "Cannot do operations on a non-existent table" if ddb.is_reference else "Requested resource not found"
    )
    assert info.value.message == expected


def test_return_values_invalid(ddb, table):
    with expect_error("ValidationException", "Return values set to invalid value"):
        ddb.put_item(TableName=table, Item={"PK": s("a"), "SK": s("1")}, ReturnValues="ALL_NEW")
    with expect_error("ValidationException", "Return values set to invalid value"):
        ddb.delete_item(TableName=table, Key={"PK": s("a"), "SK": s("1")}, ReturnValues="UPDATED_NEW")


def test_update_creates_item_and_return_values(ddb, table):
    key = {"PK": s("u"), "SK": s("1")}
    created = ddb.update_item(
        TableName=table,
        Key=key,
        UpdateExpression="SET a = :one, b = :two",
        ExpressionAttributeValues={":one": n("1"), ":two": s("x")},
        ReturnValues="ALL_NEW",
    )
    assert created["Attributes"] == {**key, "a": n("1"), "b": s("x")}
    updated_old = ddb.update_item(
        TableName=table,
        Key=key,
        UpdateExpression="SET a = a + :one REMOVE b",
        ExpressionAttributeValues={":one": n("1")},
        ReturnValues="UPDATED_OLD",
    )
    assert updated_old["Attributes"] == {"a": n("1"), "b": s("x")}
    updated_new = ddb.update_item(
        TableName=table,
        Key=key,
        UpdateExpression="ADD a :one",
        ExpressionAttributeValues={":one": n("0.5")},
        ReturnValues="UPDATED_NEW",
    )
    assert updated_new["Attributes"] == {"a": n("2.5")}
    bare = ddb.update_item(TableName=table, Key={"PK": s("u"), "SK": s("2")}, ReturnValues="ALL_NEW")
    assert bare["Attributes"] == {"PK": s("u"), "SK": s("2")}


def test_update_cannot_touch_key(ddb, table):
    with expect_error(
        "ValidationException",
        "One or more parameter values were invalid: "
        "Cannot update attribute PK. This attribute is part of the key",
    ):
        ddb.update_item(
            TableName=table,
            Key={"PK": s("u"), "SK": s("1")},
            UpdateExpression="SET PK = :v",
            ExpressionAttributeValues={":v": s("x")},
        )


def test_update_keeps_indexes_right(ddb, table):
    key = {"PK": s("idx"), "SK": s("1")}
    ddb.put_item(TableName=table, Item={**key, "G1PK": s("old"), "G1SK": n("1")})
    ddb.update_item(
        TableName=table,
        Key=key,
        UpdateExpression="SET G1PK = :new",
        ExpressionAttributeValues={":new": s("new")},
    )

    def in_gsi(partition: str) -> list:
        return ddb.query(
            TableName=table,
            IndexName="GSI1",
            KeyConditionExpression="G1PK = :p",
            ExpressionAttributeValues={":p": s(partition)},
        )["Items"]

    assert in_gsi("old") == []
    assert [i["PK"] for i in in_gsi("new")] == [s("idx")]
    ddb.update_item(TableName=table, Key=key, UpdateExpression="REMOVE G1SK")
    assert in_gsi("new") == []


def test_delete_item(ddb, table):
    key = {"PK": s("d"), "SK": s("1")}
    ddb.put_item(TableName=table, Item={**key, "v": n("1")})
    with expect_error("ConditionalCheckFailedException", "The conditional request failed"):
        ddb.delete_item(
            TableName=table,
            Key=key,
            ConditionExpression="v = :two",
            ExpressionAttributeValues={":two": n("2")},
        )
    deleted = ddb.delete_item(
        TableName=table, Key=key, ReturnValues="ALL_OLD", ReturnConsumedCapacity="TOTAL"
    )
    assert deleted["Attributes"] == {**key, "v": n("1")}
    assert deleted["ConsumedCapacity"]["CapacityUnits"] == 1.0
    assert "Item" not in ddb.get_item(TableName=table, Key=key)
    again = ddb.delete_item(TableName=table, Key=key, ReturnValues="ALL_OLD")
    assert "Attributes" not in again


def test_projection_expression_on_get(ddb, table):
    key = {"PK": s("p"), "SK": s("1")}
    ddb.put_item(
        TableName=table, Item={**key, "a": {"M": {"b": n("1"), "c": n("2")}}, "l": {"L": [n("0"), n("1")]}}
    )
    got = ddb.get_item(
        TableName=table, Key=key, ProjectionExpression="#a.b, l[1]", ExpressionAttributeNames={"#a": "a"}
    )["Item"]
    assert got == {"a": {"M": {"b": n("1")}}, "l": {"L": [n("1")]}}


def test_mixing_legacy_and_expressions_is_refused(ddb, table):
    with expect_error(
        "ValidationException",
        "Can not use both expression and non-expression parameters in the same request: "
        "Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}",
    ):
        ddb.get_item(
            TableName=table, Key={"PK": s("a"), "SK": s("1")}, AttributesToGet=["a"], ProjectionExpression="a"
        )


def test_names_without_expression_refused(ddb, table):
    with expect_error(
        "ValidationException", "ExpressionAttributeNames can only be specified when using expressions"
    ):
        ddb.get_item(TableName=table, Key={"PK": s("a"), "SK": s("1")}, ExpressionAttributeNames={"#a": "a"})


def test_names_without_expression_refused_beside_other_members(ddb, table):
    # ConsistentRead makes the request more than TableName and Key, without any projection parameter.
    with expect_error(
        "ValidationException", "ExpressionAttributeNames can only be specified when using expressions"
    ):
        ddb.get_item(
            TableName=table,
            Key={"PK": s("a"), "SK": s("1")},
            ConsistentRead=True,
            ExpressionAttributeNames={"#a": "a"},
        )


def test_item_collection_metrics_on_lsi_table(ddb, table_name):
    create(ddb, table_name, lsi=True)
    response = ddb.put_item(
        TableName=table_name,
        Item={"PK": s("a"), "SK": s("1"), "L1SK": s("x")},
        ReturnItemCollectionMetrics="SIZE",
    )
    if ddb.is_reference:
        pytest.skip("DynamoDB Local does not return ItemCollectionMetrics (docs/compatibility.md)")
    assert response["ItemCollectionMetrics"] == {
        "ItemCollectionKey": {"PK": s("a")},
        "SizeEstimateRangeGB": [0.0, 1.0],
    }
