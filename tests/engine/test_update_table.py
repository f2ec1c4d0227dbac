"""UpdateTable on every backend: billing and throughput, online GSI creation and deletion, streams.

Where DynamoDB Local's answer differs from AWS's (docs/compatibility.md) a test states both.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from backends import Backend, expect_error
from singletable import DynamoDBError

PK = {"AttributeName": "pk", "AttributeType": "S"}
G = {"AttributeName": "g", "AttributeType": "S"}
H = {"AttributeName": "pk", "KeyType": "HASH"}
TP = {"ReadCapacityUnits": 3, "WriteCapacityUnits": 4}
INVALID = "One or more parameter values were invalid: "
ONE_INDEX = (
    "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table"
)


def pick(ddb: Backend, aws: Any, local: Any) -> Any:
    return local if ddb.is_reference else aws


def gsi(name: str = "GSI", attr: str = "g", **extra: Any) -> dict[str, Any]:
    return {
        "IndexName": name,
        "KeySchema": [{"AttributeName": attr, "KeyType": "HASH"}],
        "Projection": {"ProjectionType": "ALL"},
        **extra,
    }


def make(ddb: Backend, name: str, **extra: Any) -> None:
    params: dict[str, Any] = {"TableName": name, "KeySchema": [H], "AttributeDefinitions": [PK]}
    params.update(extra or {"BillingMode": "PAY_PER_REQUEST"})
    ddb.create_table(**params)


def wait_active(ddb: Backend, table: str, index: str, timeout: float = 15.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        try:
            table_description = ddb.describe_table(TableName=table)["Table"]
        except DynamoDBError as error:
            # DynamoDB Local now and then answers a DescribeTable during an index's backfill with a 500
            # (InternalFailure), which every AWS SDK retries; the engine never does
            if not (ddb.is_reference and error.code == "InternalFailure") or time.monotonic() > deadline:
                raise
            time.sleep(0.05)
            continue
        found = [i for i in table_description.get("GlobalSecondaryIndexes", ()) if i["IndexName"] == index]
        if found and found[0]["IndexStatus"] == "ACTIVE":
            return found[0]
        assert time.monotonic() < deadline, f"index {index} still not ACTIVE: {found}"
        time.sleep(0.05)


def add_gsi(ddb: Backend, table: str, **extra: Any) -> dict[str, Any]:
    return ddb.update_table(
        TableName=table, AttributeDefinitions=[PK, G], GlobalSecondaryIndexUpdates=[{"Create": gsi(**extra)}]
    )["TableDescription"]


def query_g(ddb: Backend, table: str, value: str) -> list[str]:
    items = ddb.query(
        TableName=table,
        IndexName="GSI",
        KeyConditionExpression="g = :g",
        ExpressionAttributeValues={":g": {"S": value}},
    )["Items"]
    return sorted(item["pk"]["S"] for item in items)


def test_billing_mode_and_throughput(ddb: Backend, table_name: str) -> None:
    make(ddb, table_name)
    out = ddb.update_table(TableName=table_name, BillingMode="PROVISIONED", ProvisionedThroughput=TP)
    table = out["TableDescription"]
    assert table["TableStatus"] == pick(ddb, "UPDATING", "ACTIVE")
    assert table["BillingModeSummary"]["BillingMode"] == "PROVISIONED"
    assert table["ProvisionedThroughput"]["ReadCapacityUnits"] == 3
    with ddb.error(
        "ValidationException",
        "The provisioned throughput for the table will not change. The requested value equals the current "
        "value. Current ReadCapacityUnits provisioned for the table: 3. Requested ReadCapacityUnits: 3. "
        "Current WriteCapacityUnits provisioned for the table: 4. Requested WriteCapacityUnits: 4. Refer to "
        "the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
        local="The requested throughput value equals the current value",
    ):
        ddb.update_table(TableName=table_name, ProvisionedThroughput=TP)
    ddb.update_table(
        TableName=table_name, ProvisionedThroughput={"ReadCapacityUnits": 9, "WriteCapacityUnits": 4}
    )
    described = ddb.describe_table(TableName=table_name)["Table"]
    assert described["ProvisionedThroughput"]["ReadCapacityUnits"] == 9
    ddb.update_table(TableName=table_name, BillingMode="PAY_PER_REQUEST")
    described = ddb.describe_table(TableName=table_name)["Table"]
    assert described["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert described["ProvisionedThroughput"]["ReadCapacityUnits"] == 0


def test_billing_errors(ddb: Backend, table_name: str) -> None:
    make(ddb, table_name)
    with ddb.error(
        "ValidationException",
        INVALID
        + "ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED",
        local="No provisioned throughput specified for the table",
    ):
        ddb.update_table(TableName=table_name, BillingMode="PROVISIONED")
    if not ddb.is_reference:  # DynamoDB Local accepts (and ignores) throughput on an on-demand table
        with expect_error(
            "ValidationException",
            INVALID + "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is "
            "PAY_PER_REQUEST",
        ):
            ddb.update_table(TableName=table_name, ProvisionedThroughput=TP)


def test_nothing_to_update_and_missing_table(ddb: Backend, table_name: str) -> None:
    make(ddb, table_name)
    with ddb.error(
        "ValidationException",
        "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, "
        "GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required",
        local="Nothing to update",
    ):
        ddb.update_table(TableName=table_name)
    with ddb.error(
        "ResourceNotFoundException",
        f"Requested resource not found: Table: {table_name}x not found",
        local="Cannot do operations on a non-existent table",
    ):
        ddb.update_table(TableName=table_name + "x", BillingMode="PAY_PER_REQUEST")


def test_create_gsi_backfills_existing_items(ddb: Backend, table_name: str) -> None:
    make(ddb, table_name)
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "a"}, "g": {"S": "x"}})
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "b"}, "g": {"S": "x"}, "n": {"N": "1"}})
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "c"}, "g": {"S": "y"}})
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "d"}})  # sparse: not in the index
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "e"}, "g": {"N": "5"}})  # wrong type: left out
    table = add_gsi(ddb, table_name)
    index = table["GlobalSecondaryIndexes"][0]
    assert index["IndexStatus"] == "CREATING"
    assert index["Backfilling"] is pick(ddb, True, False)
    assert table["AttributeDefinitions"] == pick(ddb, [PK, G], [G, PK])
    index = wait_active(ddb, table_name, "GSI")
    assert "Backfilling" not in index
    # AWS leaves index key violations out of the backfill; DynamoDB Local counts the wrong-typed item.
    assert index["ItemCount"] == pick(ddb, 3, 4)
    assert query_g(ddb, table_name, "x") == ["a", "b"]
    assert query_g(ddb, table_name, "y") == ["c"]
    # The new index is maintained by every later write, and enforces its key type.
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "d"}, "g": {"S": "y"}})
    ddb.delete_item(TableName=table_name, Key={"pk": {"S": "c"}})
    assert query_g(ddb, table_name, "y") == ["d"]
    with ddb.error(
        "ValidationException",
        INVALID + "Type mismatch for Index Key g Expected: S Actual: N IndexName: GSI",
        local=INVALID + "Type mismatch for Index Key",
    ):
        ddb.put_item(TableName=table_name, Item={"pk": {"S": "f"}, "g": {"N": "1"}})
    assert ddb.get_item(TableName=table_name, Key={"pk": {"S": "e"}})["Item"]["g"] == {"N": "5"}


def test_delete_gsi(ddb: Backend, table_name: str) -> None:
    make(ddb, table_name)
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "a"}, "g": {"S": "x"}})
    add_gsi(ddb, table_name)
    wait_active(ddb, table_name, "GSI")
    out = ddb.update_table(
        TableName=table_name, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "GSI"}}]
    )
    shown = out["TableDescription"]["GlobalSecondaryIndexes"]
    assert [i["IndexStatus"] for i in shown] == ["DELETING"]
    deadline = time.monotonic() + 15
    while "GlobalSecondaryIndexes" in ddb.describe_table(TableName=table_name)["Table"]:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    with expect_error("ValidationException", "The table does not have the specified index: GSI"):
        query_g(ddb, table_name, "x")
    # The attribute is no longer a key: any type is accepted again.
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "b"}, "g": {"N": "1"}})


def test_index_update_errors(ddb: Backend, table_name: str) -> None:
    make(ddb, table_name)
    with ddb.error("LimitExceededException", ONE_INDEX):
        ddb.update_table(
            TableName=table_name,
            AttributeDefinitions=[PK, G],
            GlobalSecondaryIndexUpdates=[{"Create": gsi()}, {"Create": gsi("Other")}],
        )
    with ddb.error("ResourceNotFoundException", "Requested resource not found"):
        ddb.update_table(
            TableName=table_name, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "Nope"}}]
        )
    with ddb.error(
        "ValidationException",
        INVALID + "Some index key attributes are not defined in AttributeDefinitions. "
        "Keys: [g], AttributeDefinitions: [pk]",
        local="No Attribute Schema Defined",
    ):
        ddb.update_table(TableName=table_name, GlobalSecondaryIndexUpdates=[{"Create": gsi()}])
    if ddb.is_reference:  # Local accepts throughput on an on-demand table's new index
        return
    with expect_error(
        "ValidationException",
        INVALID + "ProvisionedThroughput should not be specified for index: GSI when BillingMode is "
        "PAY_PER_REQUEST",
    ):
        add_gsi(ddb, table_name, ProvisionedThroughput=TP)
    with expect_error("ResourceNotFoundException", "Requested resource not found: Index: Nope not found"):
        ddb.update_table(
            TableName=table_name,
            GlobalSecondaryIndexUpdates=[{"Update": {"IndexName": "Nope", "ProvisionedThroughput": TP}}],
        )


def test_create_existing_index(ddb: Backend, table_name: str) -> None:
    make(ddb, table_name)
    add_gsi(ddb, table_name)
    wait_active(ddb, table_name, "GSI")
    with ddb.error("ValidationException", "Attempting to create an index which already exists"):
        add_gsi(ddb, table_name)


def test_provisioned_table_gsi_needs_throughput(ddb: Backend, table_name: str) -> None:
    make(ddb, table_name, ProvisionedThroughput=TP)
    if ddb.is_reference:
        pytest.skip("DynamoDB Local answers InternalFailure here")
    with expect_error(
        "ValidationException", INVALID + "ProvisionedThroughput is not specified for index: GSI"
    ):
        add_gsi(ddb, table_name)
    add_gsi(ddb, table_name, ProvisionedThroughput=TP)
    index = wait_active(ddb, table_name, "GSI")
    assert index["ProvisionedThroughput"]["ReadCapacityUnits"] == 3


def test_stream_specification_changes(ddb: Backend, table_name: str) -> None:
    make(ddb, table_name)
    assert "LatestStreamArn" not in ddb.describe_table(TableName=table_name)["Table"]
    with ddb.error("ValidationException", "Table has no stream to disable"):
        ddb.update_table(TableName=table_name, StreamSpecification={"StreamEnabled": False})
    with ddb.error(
        "ValidationException",
        "Invalid StreamViewType: Stream ViewType must not be null or empty when enabling streams.",
    ):
        ddb.update_table(TableName=table_name, StreamSpecification={"StreamEnabled": True})
    out = ddb.update_table(
        TableName=table_name, StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}
    )["TableDescription"]
    assert out["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}
    label = out["LatestStreamLabel"]
    assert out["LatestStreamArn"].endswith(f":table/{table_name}/stream/{label}")
    with ddb.error("ValidationException", "Table already has an enabled stream"):
        ddb.update_table(
            TableName=table_name, StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}
        )
    with ddb.error(
        "ValidationException",
        "Invalid StreamViewType: Stream StreamEnabled was false but a StreamViewType was present.",
    ):
        ddb.update_table(
            TableName=table_name, StreamSpecification={"StreamEnabled": False, "StreamViewType": "NEW_IMAGE"}
        )
    ddb.update_table(TableName=table_name, StreamSpecification={"StreamEnabled": False})
    table = ddb.describe_table(TableName=table_name)["Table"]
    assert "StreamSpecification" not in table
    assert table["LatestStreamLabel"] == label


def test_backfill_in_progress_engine(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """While the backfill has not run: CREATING/Backfilling, reads refused, writes already indexed."""
    from singletable.engine import Engine
    from singletable.engine import _backfill as backfill

    monkeypatch.setattr(backfill, "AUTO_START", False)
    engine = Engine(str(tmp_path / "db.sqlite3"))
    ddb = Backend("engine", engine)
    try:
        make(ddb, "tbl")
        for key in "abc":
            ddb.put_item(TableName="tbl", Item={"pk": {"S": key}, "g": {"S": "x"}})
        add_gsi(ddb, "tbl")
        index = ddb.describe_table(TableName="tbl")["Table"]["GlobalSecondaryIndexes"][0]
        assert (index["IndexStatus"], index["Backfilling"]) == ("CREATING", True)
        with expect_error("ValidationException", "Cannot read from backfilling global secondary index"):
            query_g(ddb, "tbl", "x")
        with expect_error("LimitExceededException", ONE_INDEX):
            ddb.update_table(
                TableName="tbl",
                AttributeDefinitions=[PK, {"AttributeName": "h", "AttributeType": "S"}],
                GlobalSecondaryIndexUpdates=[{"Create": gsi("Other", "h")}],
            )
        with expect_error(
            "ResourceInUseException",
            "Attempt to change a resource which is still in use: Index is being created.",
        ):
            ddb.update_table(TableName="tbl", GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "GSI"}}])
        ddb.put_item(TableName="tbl", Item={"pk": {"S": "d"}, "g": {"S": "x"}})
        ddb.delete_item(TableName="tbl", Key={"pk": {"S": "a"}})
        engine.background.run_backfills()
        index = ddb.describe_table(TableName="tbl")["Table"]["GlobalSecondaryIndexes"][0]
        assert index["IndexStatus"] == "ACTIVE" and index["ItemCount"] == 3
        assert query_g(ddb, "tbl", "x") == ["b", "c", "d"]
    finally:
        engine.close()


def test_backfill_resumes_after_restart(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from singletable.engine import Engine
    from singletable.engine import _backfill as backfill

    path = str(tmp_path / "db.sqlite3")
    monkeypatch.setattr(backfill, "AUTO_START", False)
    with Engine(path) as engine:
        ddb = Backend("engine", engine)
        make(ddb, "tbl")
        for number in range(600):  # more than one backfill chunk
            ddb.put_item(TableName="tbl", Item={"pk": {"S": f"k{number}"}, "g": {"S": "x"}})
        add_gsi(ddb, "tbl")
    monkeypatch.setattr(backfill, "AUTO_START", True)
    with Engine(path) as engine:
        ddb = Backend("engine", engine)
        assert wait_active(ddb, "tbl", "GSI")["ItemCount"] == 600
        assert len(query_g(ddb, "tbl", "x")) == 600
