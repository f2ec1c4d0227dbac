"""WarmThroughput: DescribeTable shows, for the table and each GSI, the read and write units per second it
can serve at once, as AWS documents: a new on-demand table or GSI starts at 12,000 and 4,000; a provisioned
one is shown at its provisioned capacity. DynamoDB Local shows none (docs/compatibility.md).
"""

from __future__ import annotations

from typing import Any

import pytest

from backends import Backend

LOCAL = "DynamoDB Local 1.25.1 does not show WarmThroughput (docs/compatibility.md)"
KEYS: dict[str, Any] = {
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
    "AttributeDefinitions": [
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "g", "AttributeType": "S"},
    ],
}
INDEX = {
    "IndexName": "byG",
    "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "ALL"},
}


def test_an_on_demand_table_and_its_index(ddb: Backend, table_name: str) -> None:
    created = ddb.create_table(
        TableName=table_name, BillingMode="PAY_PER_REQUEST", GlobalSecondaryIndexes=[INDEX], **KEYS
    )["TableDescription"]
    table = ddb.describe_table(TableName=table_name)["Table"]
    if ddb.is_reference and "WarmThroughput" not in table:
        pytest.skip(LOCAL)
    assert created["WarmThroughput"]["Status"] in ("CREATING", "ACTIVE")
    assert table["WarmThroughput"] == {
        "ReadUnitsPerSecond": 12000,
        "WriteUnitsPerSecond": 4000,
        "Status": "ACTIVE",
    }
    [index] = table["GlobalSecondaryIndexes"]
    assert index["WarmThroughput"] == {
        "ReadUnitsPerSecond": 12000,
        "WriteUnitsPerSecond": 4000,
        "Status": "ACTIVE",
    }


def test_a_provisioned_table_shows_its_capacity(ddb: Backend, table_name: str) -> None:
    ddb.create_table(
        TableName=table_name,
        ProvisionedThroughput={"ReadCapacityUnits": 40, "WriteCapacityUnits": 20},
        GlobalSecondaryIndexes=[
            {**INDEX, "ProvisionedThroughput": {"ReadCapacityUnits": 3, "WriteCapacityUnits": 2}}
        ],
        **KEYS,
    )
    table = ddb.describe_table(TableName=table_name)["Table"]
    if ddb.is_reference and "WarmThroughput" not in table:
        pytest.skip(LOCAL)
    assert table["WarmThroughput"] == {
        "ReadUnitsPerSecond": 40,
        "WriteUnitsPerSecond": 20,
        "Status": "ACTIVE",
    }
    assert table["GlobalSecondaryIndexes"][0]["WarmThroughput"]["WriteUnitsPerSecond"] == 2
    ddb.update_table(
        TableName=table_name, ProvisionedThroughput={"ReadCapacityUnits": 50, "WriteCapacityUnits": 30}
    )
    table = ddb.describe_table(TableName=table_name)["Table"]
    assert table["WarmThroughput"]["WriteUnitsPerSecond"] == 30
    ddb.update_table(TableName=table_name, BillingMode="PAY_PER_REQUEST")
    assert ddb.describe_table(TableName=table_name)["Table"]["WarmThroughput"]["WriteUnitsPerSecond"] == 4000
