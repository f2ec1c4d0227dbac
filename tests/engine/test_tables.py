"""CreateTable, DescribeTable, ListTables and DeleteTable on both backends.

Where DynamoDB Local's answer differs from AWS's (see docs/compatibility.md) a test states both: our engine
must give AWS's, the reference gives its own.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from backends import Backend, expect_error

H = {"AttributeName": "pk", "KeyType": "HASH"}
R = {"AttributeName": "sk", "KeyType": "RANGE"}
PK = {"AttributeName": "pk", "AttributeType": "S"}
SK = {"AttributeName": "sk", "AttributeType": "N"}
G = {"AttributeName": "g", "AttributeType": "S"}
PPR = "PAY_PER_REQUEST"
THROUGHPUT = {"ReadCapacityUnits": 5, "WriteCapacityUnits": 7}
INVALID = "One or more parameter values were invalid: "


def pick(ddb: Backend, aws: str, local: str) -> str:
    """The message this backend gives: AWS's on our engine, DynamoDB Local's own on the reference."""
    return local if ddb.is_reference else aws


def gsi(name: str, *keys: dict[str, str], projection: dict[str, Any] | None = None, **extra: Any) -> dict:
    return {
        "IndexName": name,
        "KeySchema": list(keys),
        "Projection": projection or {"ProjectionType": "ALL"},
        **extra,
    }


def simple(name: str, **overrides: Any) -> dict[str, Any]:
    params = {"TableName": name, "KeySchema": [H], "AttributeDefinitions": [PK], "BillingMode": PPR}
    params.update(overrides)
    return params


def not_found_message(ddb: Backend, name: str) -> str:
    return pick(
        ddb,
        f"Requested resource not found: Table: {name} not found",
        "Cannot do operations on a non-existent table",
    )


def test_lifecycle_on_demand(ddb: Backend, table_name: str) -> None:
    created = ddb.create_table(**simple(table_name))["TableDescription"]
    # AWS answers CreateTable while the table is CREATING; DynamoDB Local says ACTIVE at once.
    assert created["TableStatus"] == pick(ddb, "CREATING", "ACTIVE")
    table = ddb.describe_table(TableName=table_name)["Table"]
    assert table["TableStatus"] == "ACTIVE"
    assert table["TableName"] == table_name
    assert table["KeySchema"] == [H]
    assert table["AttributeDefinitions"] == [PK]
    assert table["ItemCount"] == 0 and table["TableSizeBytes"] == 0
    # DynamoDB Local's ARNs carry 000000000000; ours AWS's documentation example account.
    assert table["TableArn"].endswith(f":{pick(ddb, '123456789012', '000000000000')}:table/{table_name}")
    assert table["BillingModeSummary"]["BillingMode"] == PPR
    assert table["ProvisionedThroughput"]["ReadCapacityUnits"] == 0
    assert table["ProvisionedThroughput"]["WriteCapacityUnits"] == 0
    assert table["ProvisionedThroughput"]["NumberOfDecreasesToday"] == 0
    assert table["DeletionProtectionEnabled"] is False
    assert isinstance(table["CreationDateTime"], datetime) and table["CreationDateTime"].tzinfo is not None
    assert table["CreationDateTime"] == created["CreationDateTime"]
    assert "GlobalSecondaryIndexes" not in table and "LocalSecondaryIndexes" not in table
    if not ddb.is_reference:
        assert len(table["TableId"]) == 36
    assert (
        table_name in ddb.list_tables(ExclusiveStartTableName=table_name[:-1] + "", Limit=100)["TableNames"]
    )

    deleted = ddb.delete_table(TableName=table_name)["TableDescription"]
    # AWS reports DELETING; DynamoDB Local still says ACTIVE.
    assert deleted["TableStatus"] == pick(ddb, "DELETING", "ACTIVE")
    assert deleted["TableName"] == table_name and deleted["ItemCount"] == 0
    with expect_error("ResourceNotFoundException", not_found_message(ddb, table_name)):
        ddb.describe_table(TableName=table_name)
    with expect_error("ResourceNotFoundException", not_found_message(ddb, table_name)):
        ddb.delete_table(TableName=table_name)


def test_provisioned_with_indexes_and_live_counts(ddb: Backend, table_name: str) -> None:
    ddb.create_table(
        TableName=table_name,
        KeySchema=[H, R],
        AttributeDefinitions=[PK, SK, G],
        ProvisionedThroughput=THROUGHPUT,
        GlobalSecondaryIndexes=[
            gsi(
                "byG",
                {"AttributeName": "g", "KeyType": "HASH"},
                projection={"ProjectionType": "INCLUDE", "NonKeyAttributes": ["a", "b"]},
                ProvisionedThroughput={"ReadCapacityUnits": 2, "WriteCapacityUnits": 3},
            )
        ],
        LocalSecondaryIndexes=[
            gsi(
                "lsi",
                H,
                {"AttributeName": "g", "KeyType": "RANGE"},
                projection={"ProjectionType": "KEYS_ONLY"},
            )
        ],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"},
    )
    ddb.put_item(
        TableName=table_name, Item={"pk": {"S": "a"}, "sk": {"N": "1"}, "g": {"S": "x"}, "a": {"S": "hello"}}
    )
    table = ddb.describe_table(TableName=table_name)["Table"]
    assert table["ItemCount"] == 1 and table["TableSizeBytes"] > 0
    assert table["ProvisionedThroughput"]["ReadCapacityUnits"] == 5
    assert table["ProvisionedThroughput"]["WriteCapacityUnits"] == 7
    assert "BillingModeSummary" not in table
    [index] = table["GlobalSecondaryIndexes"]
    assert index["IndexName"] == "byG" and index["IndexStatus"] == "ACTIVE"
    assert index["Projection"] == {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["a", "b"]}
    assert index["ProvisionedThroughput"]["ReadCapacityUnits"] == 2
    assert index["ProvisionedThroughput"]["WriteCapacityUnits"] == 3
    assert index["ItemCount"] == 1 and index["IndexSizeBytes"] > 0
    assert index["IndexArn"] == table["TableArn"] + "/index/byG"
    [local] = table["LocalSecondaryIndexes"]
    assert "IndexStatus" not in local and "ProvisionedThroughput" not in local
    assert local["Projection"] == {"ProjectionType": "KEYS_ONLY"}
    assert local["ItemCount"] == 1
    assert table["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}
    assert table["LatestStreamArn"] == f"{table['TableArn']}/stream/{table['LatestStreamLabel']}"
    assert not any(key.startswith("_") for key in table)
    assert not any(key.startswith("_") for key in index)


def test_on_demand_gsi_throughput_is_zero(ddb: Backend, table_name: str) -> None:
    ddb.create_table(
        **simple(
            table_name,
            AttributeDefinitions=[PK, G],
            GlobalSecondaryIndexes=[gsi("byG", {"AttributeName": "g", "KeyType": "HASH"})],
        )
    )
    [index] = ddb.describe_table(TableName=table_name)["Table"]["GlobalSecondaryIndexes"]
    assert index["ProvisionedThroughput"]["ReadCapacityUnits"] == 0
    assert index["ProvisionedThroughput"]["WriteCapacityUnits"] == 0


def test_deletion_protection(ddb: Backend, table_name: str) -> None:
    ddb.create_table(**simple(table_name, DeletionProtectionEnabled=True))
    assert ddb.describe_table(TableName=table_name)["Table"]["DeletionProtectionEnabled"] is True
    with expect_error(
        "ValidationException",
        "Resource cannot be deleted as it is currently protected "
        "against deletion. Disable deletion protection first.",
    ):
        ddb.delete_table(TableName=table_name)


def test_existing_table(ddb: Backend, table_name: str) -> None:
    ddb.create_table(**simple(table_name))
    with expect_error(
        "ResourceInUseException",
        pick(ddb, f"Table already exists: {table_name}", "Cannot create preexisting table"),
    ):
        ddb.create_table(**simple(table_name))


def test_list_tables_paging(ddb: Backend, table_name: str) -> None:
    names = [f"{table_name}_{suffix}" for suffix in ("a", "b", "c")]
    for name in reversed(names):
        ddb.create_table(**simple(name))
    first = ddb.list_tables(ExclusiveStartTableName=table_name, Limit=2)
    assert first["TableNames"] == names[:2]
    assert first["LastEvaluatedTableName"] == names[1]
    second = ddb.list_tables(ExclusiveStartTableName=first["LastEvaluatedTableName"], Limit=1)
    assert second["TableNames"] == names[2:]


@pytest.mark.parametrize(
    "limit, aws, local",
    [
        (
            0,
            "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: "
            "Member must have value greater than or equal to 1",
            "Limit must be greater than or equal to 1",
        ),
        (
            101,
            "1 validation error detected: Value '101' at 'limit' failed to satisfy constraint: "
            "Member must have value less than or equal to 100",
            "Limit in ListTables must be <= 100",
        ),
    ],
)
def test_list_tables_limit(ddb: Backend, limit: int, aws: str, local: str) -> None:
    with expect_error("ValidationException", pick(ddb, aws, local)):
        ddb.list_tables(Limit=limit)


LSI_RANGE = {"AttributeName": "g", "KeyType": "RANGE"}
G_HASH = {"AttributeName": "g", "KeyType": "HASH"}
NAME_RULE = (
    "Invalid table/index name.  Table/index names must be between 3 and 255 characters long, and may "
    "contain only the characters a-z, A-Z, 0-9, '_', '-', and '.'"
)

# (id, overrides of a valid hash+range on-demand definition, AWS's message, DynamoDB Local's message)
CREATE_ERRORS = [
    (
        "key-undefined",
        {"AttributeDefinitions": [PK]},
        INVALID + "Some index key attributes are not defined in AttributeDefinitions. Keys: [pk, sk], "
        "AttributeDefinitions: [pk]",
        "Range Key not specified in Attribute Definitions.  Type unknown.",
    ),
    (
        "unused-definition",
        {"AttributeDefinitions": [PK, SK, G]},
        INVALID + "Number of attributes in KeySchema does not exactly match number of attributes defined in "
        "AttributeDefinitions",
        "The number of attributes in key schema must match the number of attributes defined in attribute "
        "definitions.",
    ),
    (
        "duplicate-definition",
        {"AttributeDefinitions": [PK, SK, PK]},
        "Attribute Name is duplicated: pk",
        "Cannot have two attributes with the same name",
    ),
    (
        "range-first",
        {"KeySchema": [R, H]},
        "Invalid KeySchema: The first KeySchemaElement is not a HASH key type",
        "Invalid key order. Hash Key must be specified first in key schema, "
        "Range Key must be specifed second",
    ),
    (
        "same-key-name",
        {"KeySchema": [H, {"AttributeName": "pk", "KeyType": "RANGE"}], "AttributeDefinitions": [PK]},
        "Invalid KeySchema: Some index key attribute have no definition",
        "Two keys can not have the same name",
    ),
    (
        "pt-on-demand",
        {"ProvisionedThroughput": THROUGHPUT},
        INVALID + "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is "
        "PAY_PER_REQUEST",
        None,
    ),
    (
        "provisioned-no-pt",
        {"BillingMode": "PROVISIONED"},
        INVALID
        + "ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED",
        "No provisioned throughput specified for the table",
    ),
    (
        "lsi-hash-table",
        {
            "KeySchema": [H],
            "AttributeDefinitions": [PK, G],
            "LocalSecondaryIndexes": [gsi("lsi", H, LSI_RANGE)],
        },
        INVALID + "Table KeySchema does not have a range key, which is required when specifying a "
        "LocalSecondaryIndex",
        "Local Secondary indices are not allowed on hash tables, only hash and range tables",
    ),
    (
        "lsi-other-hash",
        {"AttributeDefinitions": [PK, SK, G], "LocalSecondaryIndexes": [gsi("lsi", G_HASH, R)]},
        INVALID
        + "Index KeySchema does not have the same leading hash key as table KeySchema for index: lsi. "
        "index hash key: g, table hash key: pk",
        "Local Secondary indices must have the same hash key as the main table",
    ),
    (
        "lsi-no-range",
        {"LocalSecondaryIndexes": [gsi("lsi", H)]},
        INVALID + "Index KeySchema does not have a range key for index: lsi",
        "Local secondary indices must have a range key",
    ),
    (
        "lsi-too-many",
        {
            "AttributeDefinitions": [PK, SK, G],
            "LocalSecondaryIndexes": [gsi(f"lsi{i}", H, LSI_RANGE) for i in range(6)],
        },
        INVALID + "Number of LocalSecondaryIndexes exceeds per-table limit of 5",
        "Cannot have more than 5 local secondary indexes per table",
    ),
    (
        "gsi-too-many",
        {
            "AttributeDefinitions": [PK, SK, G],
            "GlobalSecondaryIndexes": [gsi(f"gsi{i}", G_HASH) for i in range(21)],
        },
        INVALID + "GlobalSecondaryIndex count exceeds the per-table limit of 20",
        "GlobalSecondaryIndex count exceeds the per-table limit",
    ),
    (
        "gsi-undefined",
        {"GlobalSecondaryIndexes": [gsi("gsi", G_HASH)]},
        INVALID + "Some index key attributes are not defined in AttributeDefinitions. Keys: [g], "
        "AttributeDefinitions: [pk, sk]",
        "Global Secondary Index hash key not specified in Attribute Definitions.Type unknown.",
    ),
    (
        "duplicate-index",
        {
            "AttributeDefinitions": [PK, SK, G],
            "GlobalSecondaryIndexes": [gsi("idx", G_HASH)],
            "LocalSecondaryIndexes": [gsi("idx", H, LSI_RANGE)],
        },
        INVALID + "Duplicate index name: idx",
        "Local Secondary Indices AND Global Secondary Indices must have different names",
    ),
    (
        "empty-gsi-list",
        {"GlobalSecondaryIndexes": []},
        INVALID + "List of GlobalSecondaryIndexes is empty",
        "GSI list is empty/invalid",
    ),
    (
        "all-with-attributes",
        {
            "AttributeDefinitions": [PK, SK, G],
            "GlobalSecondaryIndexes": [
                gsi("gsi", G_HASH, projection={"ProjectionType": "ALL", "NonKeyAttributes": ["a"]})
            ],
        },
        INVALID + "ProjectionType is ALL, but NonKeyAttributes is specified",
        "No attributes should be specified to be projected unless projection type is INCLUDE",
    ),
    (
        "include-without-attributes",
        {
            "AttributeDefinitions": [PK, SK, G],
            "GlobalSecondaryIndexes": [gsi("gsi", G_HASH, projection={"ProjectionType": "INCLUDE"})],
        },
        INVALID + "ProjectionType is INCLUDE, but NonKeyAttributes is not specified",
        "If Projection type INCLUDE is specified, some non-key attributes to include in the projection "
        "must be "
        "specified as well",
    ),
    (
        "no-projection-type",
        {
            "AttributeDefinitions": [PK, SK, G],
            "GlobalSecondaryIndexes": [gsi("gsi", G_HASH, projection={"NonKeyAttributes": ["a"]})],
        },
        INVALID + "Unknown ProjectionType: null",
        "Indexes must have a projection specified",
    ),
    (
        "too-many-projected",
        {
            "AttributeDefinitions": [PK, SK, G],
            "GlobalSecondaryIndexes": [
                gsi(
                    f"gsi{j}",
                    G_HASH,
                    projection={
                        "ProjectionType": "INCLUDE",
                        "NonKeyAttributes": [f"a{j}_{i}" for i in range(20 if j < 5 else 1)],
                    },
                )
                for j in range(6)
            ],
        },
        INVALID + "Number of projected attributes in all indexes exceeds limit of 100, number of projected "
        "attributes: 101",
        "No more than 20 attributes per table can be projected into Local Secondary Indices",
    ),
    (
        "gsi-pt-on-demand",
        {
            "AttributeDefinitions": [PK, SK, G],
            "GlobalSecondaryIndexes": [gsi("gsi", G_HASH, ProvisionedThroughput=THROUGHPUT)],
        },
        INVALID
        + "ProvisionedThroughput should not be specified for index: gsi when BillingMode is PAY_PER_REQUEST",
        None,
    ),
    (
        "gsi-no-pt-provisioned",
        {
            "BillingMode": "PROVISIONED",
            "ProvisionedThroughput": THROUGHPUT,
            "AttributeDefinitions": [PK, SK, G],
            "GlobalSecondaryIndexes": [gsi("gsi", G_HASH)],
        },
        INVALID + "ProvisionedThroughput is not specified for index: gsi",
        "No provisioned throughput specified for the global secondary index",
    ),
    (
        "stream-without-view",
        {"StreamSpecification": {"StreamEnabled": True}},
        INVALID + "Table is being created with a stream enabled, UpdateViewType is required",
        "Invalid StreamViewType: Stream ViewType must not be null or empty when enabling streams.",
    ),
    (
        "stream-disabled-with-view",
        {"StreamSpecification": {"StreamEnabled": False, "StreamViewType": "KEYS_ONLY"}},
        INVALID + "Table is being created with a stream disabled, UpdateViewType should not be specified",
        "Invalid StreamViewType: Stream StreamEnabled was false but a StreamViewType was present.",
    ),
    (
        "bad-index-name",
        {"AttributeDefinitions": [PK, SK, G], "GlobalSecondaryIndexes": [gsi("g!", G_HASH)]},
        "2 validation errors detected: Value 'g!' at 'globalSecondaryIndexes.1.member.indexName' "
        "failed to satisfy "
        "constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; Value 'g!' at "
        "'globalSecondaryIndexes.1.member.indexName' failed to satisfy constraint: Member must have length "
        "greater than or equal to 3",
        NAME_RULE,
    ),
    (
        "bad-table-name",
        {"TableName": "ab"},
        "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: "
        "Member must have "
        "length greater than or equal to 3",
        NAME_RULE,
    ),
]


@pytest.mark.parametrize("case, overrides, aws, local", CREATE_ERRORS, ids=[c[0] for c in CREATE_ERRORS])
def test_create_table_errors(
    ddb: Backend, table_name: str, case: str, overrides: dict, aws: str, local: str | None
) -> None:
    params = {
        "TableName": table_name,
        "KeySchema": [H, R],
        "AttributeDefinitions": [PK, SK],
        "BillingMode": PPR,
    }
    params.update(overrides)
    if local is None and ddb.is_reference:
        # DynamoDB Local accepts this definition; AWS rejects it (docs/compatibility.md).
        ddb.create_table(**params)
        return
    with expect_error("ValidationException", pick(ddb, aws, local)):
        ddb.create_table(**params)


def test_recorded_options_engine_only(table_name: str, tmp_path) -> None:
    """SSE, table class and tags: DynamoDB Local ignores them, so only AWS's documented shape is checked."""
    from singletable.engine import Engine

    with Engine(str(tmp_path / "x.sqlite3")) as engine:
        engine.create_table(
            **simple(
                table_name,
                SSESpecification={"Enabled": True},
                TableClass="STANDARD_INFREQUENT_ACCESS",
                Tags=[{"Key": "team", "Value": "core"}],
            )
        )
        table = engine.describe_table(TableName=table_name)["Table"]
        assert table["SSEDescription"]["Status"] == "ENABLED"
        assert table["SSEDescription"]["SSEType"] == "KMS"
        assert table["TableClassSummary"] == {"TableClass": "STANDARD_INFREQUENT_ACCESS"}
        assert engine.describe_table(TableName=table["TableArn"])["Table"]["TableName"] == table_name
