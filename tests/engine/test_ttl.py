"""Time to Live: UpdateTimeToLive/DescribeTimeToLive on every backend; expiry on our engine only.

DynamoDB Local accepts the TTL settings but never expires anything, so expiry is tested against AWS's
documented rules, with an injected clock and ``Engine.expire_items()`` standing in for the passage of time.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from backends import Backend, expect_error
from singletable.engine import Engine

PK = {"AttributeName": "pk", "AttributeType": "S"}
G = {"AttributeName": "g", "AttributeType": "S"}
H = {"AttributeName": "pk", "KeyType": "HASH"}
NOW = 1_700_000_000


def spec(enabled: bool, attribute: str = "ttl") -> dict[str, Any]:
    return {"Enabled": enabled, "AttributeName": attribute}


def test_update_and_describe(ddb: Backend, table_name: str) -> None:
    ddb.create_table(
        TableName=table_name, KeySchema=[H], AttributeDefinitions=[PK], BillingMode="PAY_PER_REQUEST"
    )
    assert ddb.describe_time_to_live(TableName=table_name) == {
        "TimeToLiveDescription": {"TimeToLiveStatus": "DISABLED"}
    }
    with ddb.error("ValidationException", "TimeToLive is already disabled"):
        ddb.update_time_to_live(TableName=table_name, TimeToLiveSpecification=spec(False))
    out = ddb.update_time_to_live(TableName=table_name, TimeToLiveSpecification=spec(True))
    assert out == {"TimeToLiveSpecification": {"Enabled": True, "AttributeName": "ttl"}}
    assert ddb.describe_time_to_live(TableName=table_name) == {
        "TimeToLiveDescription": {"TimeToLiveStatus": "ENABLED", "AttributeName": "ttl"}
    }
    with ddb.error("ValidationException", "TimeToLive is already enabled"):
        ddb.update_time_to_live(TableName=table_name, TimeToLiveSpecification=spec(True))
    for enabled in (True, False):
        with ddb.error("ValidationException", "TimeToLive is active on a different AttributeName"):
            ddb.update_time_to_live(TableName=table_name, TimeToLiveSpecification=spec(enabled, "other"))
    out = ddb.update_time_to_live(TableName=table_name, TimeToLiveSpecification=spec(False))
    assert out == {"TimeToLiveSpecification": {"Enabled": False, "AttributeName": "ttl"}}
    assert ddb.describe_time_to_live(TableName=table_name)["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "DISABLED"
    }


def test_errors(ddb: Backend, table_name: str) -> None:
    missing = "Cannot do operations on a non-existent table"
    with ddb.error(
        "ResourceNotFoundException",
        f"Requested resource not found: Table: {table_name} not found",
        local=missing,
    ):
        ddb.describe_time_to_live(TableName=table_name)
    with ddb.error(
        "ResourceNotFoundException",
        f"Requested resource not found: Table: {table_name} not found",
        local=missing,
    ):
        ddb.update_time_to_live(TableName=table_name, TimeToLiveSpecification=spec(True))
    with ddb.error(
        "ValidationException",
        "1 validation error detected: Value null at 'timeToLiveSpecification.attributeName' failed to "
        "satisfy constraint: Member must not be null",
        local=LOCAL_NULL_ATTRIBUTE,
    ):
        ddb.create_table(
            TableName=table_name, KeySchema=[H], AttributeDefinitions=[PK], BillingMode="PAY_PER_REQUEST"
        )
        ddb.update_time_to_live(TableName=table_name, TimeToLiveSpecification={"Enabled": True})


def _engine(tmp_path: Path, clock: list[float]) -> Engine:
    engine = Engine(str(tmp_path / "ttl.sqlite3"), clock=lambda: clock[0], ttl_sweep_interval=3600)
    engine.create_table(
        TableName="ttl_table",
        KeySchema=[H],
        AttributeDefinitions=[PK, G],
        BillingMode="PAY_PER_REQUEST",
        GlobalSecondaryIndexes=[
            {
                "IndexName": "GSI",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "OLD_IMAGE"},
    )
    engine.update_time_to_live(TableName="ttl_table", TimeToLiveSpecification=spec(True))
    return engine


def test_expiry_follows_aws_rules(tmp_path: Path) -> None:
    clock = [float(NOW)]
    with _engine(tmp_path, clock) as engine:
        items = {
            "past": {"N": str(NOW - 10)},
            "future": {"N": str(NOW + 100)},
            "string": {"S": str(NOW - 10)},  # not a Number: ignored
            "ancient": {"N": str(NOW - 6 * 365 * 86400)},  # more than five years ago: ignored
            "fraction": {"N": f"{NOW - 1}.5"},
        }
        for key, value in items.items():
            engine.put_item(TableName="ttl_table", Item={"pk": {"S": key}, "g": {"S": "x"}, "ttl": value})
        engine.put_item(TableName="ttl_table", Item={"pk": {"S": "none"}, "g": {"S": "x"}})
        # Expired but not yet swept: still returned, as on AWS.
        assert "Item" in engine.get_item(TableName="ttl_table", Key={"pk": {"S": "past"}})
        assert engine.expire_items() == 2
        left = {i["pk"]["S"] for i in engine.scan(TableName="ttl_table")["Items"]}
        assert left == {"future", "string", "ancient", "none"}
        indexed = engine.query(
            TableName="ttl_table",
            IndexName="GSI",
            KeyConditionExpression="g = :g",
            ExpressionAttributeValues={":g": {"S": "x"}},
        )["Items"]
        assert {i["pk"]["S"] for i in indexed} == left
        clock[0] += 200
        assert engine.expire_items() == 1
        assert engine.expire_items() == 0


def test_expiry_stream_records_are_marked(tmp_path: Path) -> None:
    clock = [float(NOW)]
    with _engine(tmp_path, clock) as engine:
        engine.put_item(TableName="ttl_table", Item={"pk": {"S": "a"}, "ttl": {"N": str(NOW - 1)}})
        engine.delete_item(TableName="ttl_table", Key={"pk": {"S": "a"}})
        engine.put_item(TableName="ttl_table", Item={"pk": {"S": "b"}, "ttl": {"N": str(NOW - 1)}})
        assert engine.expire_items() == 1
        arn = engine.describe_table(TableName="ttl_table")["Table"]["LatestStreamArn"]
        shard = engine.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
        iterator = engine.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
        records = engine.get_records(ShardIterator=iterator["ShardIterator"])["Records"]
        assert [r["eventName"] for r in records] == ["INSERT", "REMOVE", "INSERT", "REMOVE"]
        assert "userIdentity" not in records[1]  # a user's delete
        assert records[3]["userIdentity"] == {"type": "Service", "principalId": "dynamodb.amazonaws.com"}
        assert records[3]["dynamodb"]["OldImage"]["pk"] == {"S": "b"}


def test_background_sweeper(tmp_path: Path) -> None:
    with Engine(str(tmp_path / "bg.sqlite3"), ttl_sweep_interval=0.05) as engine:
        engine.create_table(
            TableName="ttl_table", KeySchema=[H], AttributeDefinitions=[PK], BillingMode="PAY_PER_REQUEST"
        )
        engine.put_item(
            TableName="ttl_table", Item={"pk": {"S": "a"}, "ttl": {"N": str(int(time.time()) - 5)}}
        )
        engine.update_time_to_live(TableName="ttl_table", TimeToLiveSpecification=spec(True))
        deadline = time.monotonic() + 10
        while engine.scan(TableName="ttl_table")["Count"]:
            assert time.monotonic() < deadline, "the sweeper never deleted the expired item"
            time.sleep(0.05)


def test_disabled_ttl_expires_nothing(tmp_path: Path) -> None:
    clock = [float(NOW)]
    with _engine(tmp_path, clock) as engine:
        engine.update_time_to_live(TableName="ttl_table", TimeToLiveSpecification=spec(False))
        engine.put_item(TableName="ttl_table", Item={"pk": {"S": "a"}, "ttl": {"N": str(NOW - 1)}})
        assert engine.expire_items() == 0


def test_unknown_table_name_in_arn(tmp_path: Path) -> None:
    with (
        Engine(str(tmp_path / "x.sqlite3")) as engine,
        expect_error("ResourceNotFoundException", "Requested resource not found: Table: nope not found"),
    ):
        engine.describe_time_to_live(TableName="arn:aws:dynamodb:us-east-1:123456789012:table/nope")


LOCAL_NULL_ATTRIBUTE = "AttributeName cannot be null when time to live is being enabled"
