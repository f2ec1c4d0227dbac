"""Index key schemas, key conditions, stream ARNs and continuous backups answered as AWS answers them.

Evidence: ScyllaDB Alternator's test suite (run against AWS) and the Parity Suite's captures. Where DynamoDB
Local 1.25.1 answers otherwise, the reference backend skips saying so (docs/compatibility.md).
"""

from __future__ import annotations

from typing import Any

import pytest

from backends import Backend, expect_error

LOCAL = "DynamoDB Local 1.25.1 answers this differently (docs/compatibility.md)"
H = {"AttributeName": "p", "KeyType": "HASH"}
PROJECTION = {"ProjectionType": "ALL"}


def definitions(**types: str) -> list[dict[str, str]]:
    return [{"AttributeName": name, "AttributeType": kind} for name, kind in types.items()]


@pytest.mark.parametrize("kind", ["LocalSecondaryIndexes", "GlobalSecondaryIndexes"])
def test_an_index_key_schema_naming_one_attribute_twice(ddb: Backend, table_name: str, kind: str) -> None:
    index = {
        "IndexName": "hello",
        "KeySchema": [H, {"AttributeName": "p", "KeyType": "RANGE"}],
        "Projection": PROJECTION,
    }
    with expect_error("ValidationException", "Two keys can not have the same name"):
        ddb.create_table(
            TableName=table_name,
            KeySchema=[H, {"AttributeName": "c", "KeyType": "RANGE"}],
            AttributeDefinitions=definitions(p="S", c="S"),
            BillingMode="PAY_PER_REQUEST",
            **{kind: [index]},
        )


def test_a_new_index_cannot_redefine_an_attribute_type(ddb: Backend, table_name: str) -> None:
    ddb.create_table(
        TableName=table_name,
        KeySchema=[H],
        AttributeDefinitions=definitions(p="S", xyz="S"),
        GlobalSecondaryIndexes=[
            {
                "IndexName": "index1",
                "KeySchema": [{"AttributeName": "xyz", "KeyType": "HASH"}],
                "Projection": PROJECTION,
            }
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    create = {
        "Create": {
            "IndexName": "index2",
            "KeySchema": [{"AttributeName": "xyz", "KeyType": "HASH"}],
            "Projection": PROJECTION,
        }
    }
    if ddb.is_reference:
        pytest.skip(LOCAL)
    with expect_error(
        "ValidationException",
        "One or more parameter values were invalid: Attributes cannot be redefined. Please check that your "
        "attribute has the same type as previously defined. Existing schema: Schema:[SchemaElement: "
        "key{xyz:S:HASH}] New schema: Schema:[SchemaElement: key{xyz:N:HASH}]",
    ):
        ddb.update_table(
            TableName=table_name,
            AttributeDefinitions=definitions(xyz="N"),
            GlobalSecondaryIndexUpdates=[create],
        )
    assert [
        i["IndexName"] for i in ddb.describe_table(TableName=table_name)["Table"]["GlobalSecondaryIndexes"]
    ] == ["index1"]


@pytest.fixture
def sorted_table(ddb: Backend, table_name: str) -> str:
    ddb.create_table(
        TableName=table_name,
        KeySchema=[H, {"AttributeName": "c", "KeyType": "RANGE"}],
        AttributeDefinitions=definitions(p="S", c="N"),
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"},
    )
    return table_name


def query(ddb: Backend, table: str, condition: str, **values: dict[str, Any]) -> Any:
    return ddb.query(
        TableName=table,
        KeyConditionExpression=condition,
        ExpressionAttributeValues={f":{name}": value for name, value in values.items()},
    )


def test_key_conditions_on_nested_or_extra_attributes(ddb: Backend, sorted_table: str) -> None:
    p, three = {"S": "x"}, {"N": "3"}
    nested = "KeyConditionExpressions cannot have conditions on nested attributes"
    with expect_error("ValidationException", nested):
        query(ddb, sorted_table, "p = :p AND a.b < :a", p=p, a=three)
    with ddb.error(
        "ValidationException",
        "Query condition missed key schema element: c",
        local="Query condition missed key schema element",
    ):
        query(ddb, sorted_table, "p = :p AND a < :a", p=p, a=three)
    if ddb.is_reference:
        pytest.skip(LOCAL)
    with expect_error(
        "ValidationException", nested
    ):  # on a key attribute too (AWS; Local: "must be scalars")
        query(ddb, sorted_table, "p = :p AND c.b < :a", p=p, a=three)
    with expect_error(
        "ValidationException",
        "The number of query conditions (3) exceeds the number of key attributes defined in the schema (2)",
    ):
        query(ddb, sorted_table, "p = :p AND c < :c AND a < :a", p=p, c=three, a=three)
    with expect_error(
        "ValidationException",
        "Invalid KeyConditionExpression: KeyConditionExpressions must only contain one condition per key",
    ):
        query(ddb, sorted_table, "p = :p AND c > :c AND c < :a", p=p, c=three, a=three)


def test_list_streams_refuses_a_malformed_start_arn(ddb: Backend, sorted_table: str) -> None:
    streams = ddb.streams()
    arn = streams.list_streams(TableName=sorted_table)["Streams"][0]["StreamArn"]
    assert streams.list_streams(TableName=sorted_table, ExclusiveStartStreamArn=arn)["Streams"] == []
    if ddb.is_reference:
        pytest.skip(LOCAL)
    with expect_error("ValidationException", "Invalid StreamArn"):
        streams.list_streams(
            TableName=sorted_table, ExclusiveStartStreamArn="kossaapaaasdafsdaasdasdasdasasdasfadf"
        )


def test_describe_continuous_backups_as_a_table_without_pitr(ddb: Backend, sorted_table: str) -> None:
    if ddb.is_reference:
        pytest.skip("DynamoDB Local 1.25.1 does not know DescribeContinuousBackups (docs/compatibility.md)")
    assert ddb.describe_continuous_backups(TableName=sorted_table) == {
        "ContinuousBackupsDescription": {
            "ContinuousBackupsStatus": "ENABLED",
            "PointInTimeRecoveryDescription": {"PointInTimeRecoveryStatus": "DISABLED"},
        }
    }
    with expect_error("TableNotFoundException", f"Table not found: {sorted_table}x"):
        ddb.describe_continuous_backups(TableName=f"{sorted_table}x")
    with expect_error("UnknownOperationException"):
        ddb.update_continuous_backups(
            TableName=sorted_table, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True}
        )


@pytest.mark.parametrize("operation", ["query", "scan"])
def test_all_projected_attributes_without_an_index(ddb: Backend, sorted_table: str, operation: str) -> None:
    params: dict[str, Any] = {"TableName": sorted_table, "Select": "ALL_PROJECTED_ATTRIBUTES"}
    if operation == "query":
        params.update(KeyConditionExpression="p = :p", ExpressionAttributeValues={":p": {"S": "x"}})
    # The projection conflict first; then the missing index, worded for Query on a Scan too.
    with expect_error(
        "ValidationException",
        "Cannot specify the ProjectionExpression when choosing to get ALL_PROJECTED_ATTRIBUTES",
    ):
        ddb.call(operation, ProjectionExpression="a", **params)
    with expect_error(
        "ValidationException", "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName"
    ):
        ddb.call(operation, **params)


def test_batch_get_refuses_expression_and_legacy_projections_across_tables(
    ddb: Backend, sorted_table: str
) -> None:
    other = f"{sorted_table}b"
    ddb.create_table(
        TableName=other,
        KeySchema=[H],
        AttributeDefinitions=definitions(p="S"),
        BillingMode="PAY_PER_REQUEST",
    )
    request = {
        sorted_table: {"Keys": [{"p": {"S": "a"}, "c": {"N": "1"}}], "ProjectionExpression": "p"},
        other: {"Keys": [{"p": {"S": "a"}}], "AttributesToGet": ["p"]},
    }
    with expect_error(
        "ValidationException",
        "Can not use both expression and non-expression parameters in the same request: "
        "Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}",
    ):
        ddb.batch_get_item(RequestItems=request)
    del request[other]["AttributesToGet"]
    assert ddb.batch_get_item(RequestItems=request)["Responses"] == {sorted_table: [], other: []}
