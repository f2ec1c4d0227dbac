"""BatchGetItem and BatchWriteItem on every backend: results, capacity, limits and every error text."""

from __future__ import annotations

import pytest
from messages import KEY_MISMATCH, KEY_MISMATCH_LOCAL, NOT_FOUND_LOCAL
from tables import create, key, s

from backends import expect_error

DUPLICATES = "Provided list of item keys contains duplicates"


def put(item: dict) -> dict:
    return {"PutRequest": {"Item": item}}


def delete(k: dict) -> dict:
    return {"DeleteRequest": {"Key": k}}


def by_table(consumed: list[dict]) -> dict[str, dict]:
    return {entry["TableName"]: entry for entry in consumed}


@pytest.fixture
def tables(ddb, table_name):
    plain = create(ddb, table_name + "a")
    indexed = create(ddb, table_name + "b", gsi=True)
    return plain, indexed


# -- BatchWriteItem ---------------------------------------------------------------------------------------


def test_batch_write_puts_and_deletes_across_tables(ddb, tables):
    plain, indexed = tables
    ddb.put_item(TableName=indexed, Item={**key(9), "G1PK": s("g"), "G1SK": {"N": "1"}})
    response = ddb.batch_write_item(
        RequestItems={
            plain: [put({**key(i), "v": {"N": str(i)}}) for i in range(3)],
            indexed: [delete(key(9)), put({**key(1), "G1PK": s("h"), "G1SK": {"N": "2"}})],
        }
    )
    assert response == {"UnprocessedItems": {}}
    assert ddb.get_item(TableName=plain, Key=key(2))["Item"]["v"] == {"N": "2"}
    assert "Item" not in ddb.get_item(TableName=indexed, Key=key(9))
    found = ddb.query(
        TableName=indexed,
        IndexName="GSI1",
        KeyConditionExpression="G1PK = :g",
        ExpressionAttributeValues={":g": s("h")},
    )
    assert [item["PK"] for item in found["Items"]] == [s("1")]


def test_batch_write_capacity_per_table(ddb, tables):
    plain, indexed = tables
    total = ddb.batch_write_item(
        RequestItems={
            plain: [put(key(i)) for i in range(3)],
            indexed: [put({**key(1), "G1PK": s("g"), "G1SK": {"N": "1"}})],
        },
        ReturnConsumedCapacity="TOTAL",
    )
    assert by_table(total["ConsumedCapacity"]) == {
        plain: {"TableName": plain, "CapacityUnits": 3.0},
        indexed: {"TableName": indexed, "CapacityUnits": 2.0},
    }
    indexes = ddb.batch_write_item(
        RequestItems={indexed: [delete(key(1)), put(key(2))]}, ReturnConsumedCapacity="INDEXES"
    )
    assert indexes["ConsumedCapacity"] == [
        {
            "TableName": indexed,
            "CapacityUnits": 3.0,
            "Table": {"CapacityUnits": 2.0},
            "GlobalSecondaryIndexes": {"GSI1": {"CapacityUnits": 1.0}},
        }
    ]


def test_batch_delete_of_a_missing_item_costs_one_unit(ddb, tables):
    plain, _ = tables
    response = ddb.batch_write_item(
        RequestItems={plain: [delete(key("none"))]}, ReturnConsumedCapacity="TOTAL"
    )
    # DynamoDB Local charges 2 units here; DeleteItem of a missing item costs 1 on both
    # (docs/compatibility.md).
    units = 2.0 if ddb.is_reference else 1.0
    assert response["ConsumedCapacity"] == [{"TableName": plain, "CapacityUnits": units}]


def test_batch_write_too_many_requests(ddb, tables):
    plain, indexed = tables
    with ddb.error("ValidationException", "Too many items requested for the BatchWriteItem call"):
        ddb.batch_write_item(
            RequestItems={
                plain: [put(key(i)) for i in range(13)],
                indexed: [put(key(i)) for i in range(13)],
            }
        )


def test_batch_write_more_than_25_for_one_table_is_a_shape_error(ddb, tables):
    plain, _ = tables
    with expect_error("ValidationException") as info:
        ddb.batch_write_item(RequestItems={plain: [put(key(i)) for i in range(26)]})
    if ddb.is_reference:
        assert info.value.message == "Too many items requested for the BatchWriteItem call"
    else:
        # AWS reports a table's list at the map, with every constraint of the list (Parity Suite).
        assert info.value.message.startswith(
            f"1 validation error detected: Value '{{{plain}=[WriteRequest(putRequest=PutRequest(item={{"
        )
        assert info.value.message.endswith(
            "]}' at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: "
            "[Member must have length less than or equal to 25, "
            "Member must have length greater than or equal to 1]"
        )


def test_batch_write_empty_request(ddb, tables):
    plain, _ = tables
    with ddb.error(
        "ValidationException",
        "The requestItems parameter is required for BatchWriteItem",
        local="BatchWriteItem cannot have a null or no requests set",
    ):
        ddb.batch_write_item(RequestItems={})
    with ddb.error(
        "ValidationException",
        f"1 validation error detected: Value '{{{plain}=[]}}' at 'requestItems' failed to satisfy "
        "constraint: Map value must satisfy constraint: [Member must have length less than or equal to 25, "
        "Member must have length greater than or equal to 1]",
        local=f"The batch write request list for a table cannot be null or empty: {plain}",
    ):
        ddb.batch_write_item(RequestItems={plain: []})


def test_batch_write_missing_table(ddb, tables):
    plain, _ = tables
    with ddb.error("ResourceNotFoundException", "Requested resource not found", local=NOT_FOUND_LOCAL):
        ddb.batch_write_item(RequestItems={plain: [put(key(1))], plain + "zz": [put(key(1))]})


@pytest.mark.parametrize("second", [put(key(1)), delete(key(1))], ids=["put", "delete"])
def test_batch_write_duplicate_keys(ddb, tables, second):
    plain, indexed = tables
    with ddb.error("ValidationException", DUPLICATES):
        ddb.batch_write_item(RequestItems={plain: [put({**key(1), "a": s("1")}), second]})
    # The same key in two tables is two items.
    assert ddb.batch_write_item(RequestItems={plain: [put(key(1))], indexed: [put(key(1))]}) == {
        "UnprocessedItems": {}
    }


@pytest.mark.parametrize("request_", [{}, {**put(key(1)), **delete(key(2))}], ids=["neither", "both"])
def test_batch_write_request_needs_exactly_one_of_put_and_delete(ddb, tables, request_):
    plain, _ = tables
    with ddb.error(
        "ValidationException",
        "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported "
        "datatypes",
    ):
        ddb.batch_write_item(RequestItems={plain: [request_]})


def test_batch_write_key_errors_match_single_item_operations(ddb, tables):
    plain, _ = tables
    with ddb.error("ValidationException", KEY_MISMATCH, local=KEY_MISMATCH_LOCAL):
        ddb.batch_write_item(RequestItems={plain: [delete({"PK": s("1")})]})
    with ddb.error("ValidationException", "One of the required keys was not given a value"):
        ddb.batch_write_item(RequestItems={plain: [put({"PK": s("1")})]})
    # A put item's wrong-typed (or non-scalar) table key is worded as a Key's in a batch (AWS, the Parity
    # Suite's captures), unlike PutItem's "Type mismatch for key SK expected: S actual: N".
    for wrong in ({"N": "1"}, {"L": [s("x")]}):
        with ddb.error(
            "ValidationException",
            KEY_MISMATCH,
            local="One or more parameter values were invalid: Type mismatch for key"
            if "N" in wrong
            else "Invalid attribute value type",
        ):
            ddb.batch_write_item(RequestItems={plain: [put({"PK": s("1"), "SK": wrong})]})
    with ddb.error("ValidationException", "Item size has exceeded the maximum allowed size"):
        ddb.batch_write_item(RequestItems={plain: [put({**key(1), "big": s("x" * 400 * 1024)})]})


def test_batch_write_rejected_request_writes_nothing(ddb, tables):
    plain, _ = tables
    with expect_error("ValidationException"):
        ddb.batch_write_item(RequestItems={plain: [put(key("ok")), put({"PK": s("bad")})]})
    assert "Item" not in ddb.get_item(TableName=plain, Key=key("ok"))


def test_batch_write_item_collection_metrics(ddb, table_name):
    table = create(ddb, table_name, lsi=True)
    response = ddb.batch_write_item(
        RequestItems={table: [put({**key(1), "L1SK": s("a")})]}, ReturnItemCollectionMetrics="SIZE"
    )
    if ddb.is_reference:
        pytest.skip("DynamoDB Local does not return ItemCollectionMetrics (docs/compatibility.md)")
    assert response["ItemCollectionMetrics"] == {
        table: [{"ItemCollectionKey": {"PK": s("1")}, "SizeEstimateRangeGB": [0.0, 1.0]}]
    }


# -- BatchGetItem -----------------------------------------------------------------------------------------


def test_batch_get_with_projection_consistency_and_capacity(ddb, tables):
    plain, indexed = tables
    ddb.batch_write_item(
        RequestItems={
            plain: [put({**key(i), "v": {"N": str(i)}}) for i in (1, 2)],
            indexed: [put({**key(9), "w": s("x" * 5000)})],
        }
    )
    response = ddb.batch_get_item(
        RequestItems={
            plain: {
                "Keys": [key(1), key(2), key(77)],
                "ProjectionExpression": "#v",
                "ExpressionAttributeNames": {"#v": "v"},
            },
            indexed: {"Keys": [key(9)], "ConsistentRead": True},
        },
        ReturnConsumedCapacity="INDEXES",
    )
    assert sorted(response["Responses"][plain], key=lambda item: item["v"]["N"]) == [
        {"v": {"N": "1"}},
        {"v": {"N": "2"}},
    ]
    assert response["Responses"][indexed][0]["w"] == s("x" * 5000)
    assert response["UnprocessedKeys"] == {}
    assert by_table(response["ConsumedCapacity"]) == {
        plain: {"TableName": plain, "CapacityUnits": 1.0, "Table": {"CapacityUnits": 1.0}},
        indexed: {"TableName": indexed, "CapacityUnits": 2.0, "Table": {"CapacityUnits": 2.0}},
    }


def test_batch_get_of_missing_items_returns_empty_list_and_costs_nothing(ddb, tables):
    plain, _ = tables
    response = ddb.batch_get_item(
        RequestItems={plain: {"Keys": [key(77), key(78)]}}, ReturnConsumedCapacity="TOTAL"
    )
    assert response == {
        "Responses": {plain: []},
        "UnprocessedKeys": {},
        "ConsumedCapacity": [{"TableName": plain, "CapacityUnits": 0.0}],
    }


def test_batch_get_too_many_keys(ddb, tables):
    plain, indexed = tables
    with ddb.error("ValidationException", "Too many items requested for the BatchGetItem call"):
        ddb.batch_get_item(
            RequestItems={
                plain: {"Keys": [key(i) for i in range(51)]},
                indexed: {"Keys": [key(i) for i in range(50)]},
            }
        )


def test_batch_get_errors(ddb, tables):
    plain, _ = tables
    with ddb.error("ValidationException", DUPLICATES):
        ddb.batch_get_item(RequestItems={plain: {"Keys": [key(1), key(1)]}})
    with ddb.error("ResourceNotFoundException", "Requested resource not found", local=NOT_FOUND_LOCAL):
        ddb.batch_get_item(RequestItems={plain + "zz": {"Keys": [key(1)]}})
    with ddb.error("ValidationException", KEY_MISMATCH, local=KEY_MISMATCH_LOCAL):
        ddb.batch_get_item(RequestItems={plain: {"Keys": [{**key(1), "extra": s("1")}]}})
    with ddb.error(
        "ValidationException", "ExpressionAttributeNames can only be specified when using expressions"
    ):
        ddb.batch_get_item(RequestItems={plain: {"Keys": [key(1)], "ExpressionAttributeNames": {"#p": "PK"}}})
    with ddb.error(
        "ValidationException", "Value provided in ExpressionAttributeNames unused in expressions: keys: {#p}"
    ):
        ddb.batch_get_item(
            RequestItems={
                plain: {
                    "Keys": [key(1)],
                    "ExpressionAttributeNames": {"#p": "PK"},
                    "ProjectionExpression": "PK",
                },
            }
        )
    with ddb.error(
        "ValidationException", 'Invalid ProjectionExpression: Syntax error; token: ",", near: ",,"'
    ):
        ddb.batch_get_item(RequestItems={plain: {"Keys": [key(1)], "ProjectionExpression": "PK,,"}})
    with ddb.error(
        "ValidationException",
        "The requestItems parameter is required for BatchGetItem",
        local="BatchGetItem must have some requests set",
    ):
        ddb.batch_get_item(RequestItems={})
    with ddb.error(
        "ValidationException",
        # AWS names Keys as the API spells it, with no value (as for more than 100 keys, Parity Suite).
        f"1 validation error detected: Value at 'RequestItems.{plain}.member.Keys' failed to satisfy "
        "constraint: Member must have length greater than or equal to 1",
        local=f"The list of keys in RequestItems for BatchGetItem is required: {plain} has empty list",
    ):
        ddb.batch_get_item(RequestItems={plain: {"Keys": []}})
    for spec in ({}, {"ProjectionExpression": "PK"}):  # no Keys at all: a null member, not a crash
        with ddb.error(
            "ValidationException",
            f"1 validation error detected: Value at 'RequestItems.{plain}.member.Keys' failed to satisfy "
            "constraint: Member must not be null",
            local=f"The list of keys in RequestItems for BatchGetItem is required: {plain} has empty list",
        ):
            ddb.batch_get_item(RequestItems={plain: spec})


def test_batch_get_over_16_mb_returns_unprocessed_keys(ddb, tables):
    plain, _ = tables
    big = "x" * (400 * 1024 - 100)
    keys = [key(i) for i in range(45)]
    for start in (0, 20, 40):
        ddb.batch_write_item(
            RequestItems={plain: [put({**k, "big": s(big)}) for k in keys[start : start + 20]]}
        )
    spec = {"Keys": keys, "ProjectionExpression": "PK, SK"}
    first = ddb.batch_get_item(RequestItems={plain: spec})
    got = first["Responses"][plain]
    left = first["UnprocessedKeys"][plain]
    assert 0 < len(got) < 45
    assert len(got) + len(left["Keys"]) == 45
    assert left["ProjectionExpression"] == "PK, SK"
    second = ddb.batch_get_item(RequestItems={plain: left})
    assert second["UnprocessedKeys"] == {}
    seen = {item["PK"]["S"] for item in got + second["Responses"][plain]}
    assert seen == {str(i) for i in range(45)}
