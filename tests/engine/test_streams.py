"""DynamoDB Streams on every backend (DynamoDB Local has its own 'dynamodbstreams' client), plus the
engine's in-process subscriptions."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from backends import Backend, expect_error
from singletable.engine import Engine

PK = {"AttributeName": "pk", "AttributeType": "S"}
H = {"AttributeName": "pk", "KeyType": "HASH"}
INVALID = "One or more parameter values were invalid: "


def make(ddb: Backend, name: str, view: str = "NEW_AND_OLD_IMAGES") -> str:
    ddb.create_table(
        TableName=name,
        KeySchema=[H],
        AttributeDefinitions=[PK],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": view},
    )
    return ddb.describe_table(TableName=name)["Table"]["LatestStreamArn"]


@pytest.fixture
def streams(ddb: Backend) -> Backend:
    return ddb.streams()


def read_all(streams: Backend, arn: str, kind: str = "TRIM_HORIZON", **extra: Any) -> list[dict[str, Any]]:
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType=kind, **extra)
    return streams.get_records(ShardIterator=iterator["ShardIterator"])["Records"]


def changes(ddb: Backend, name: str) -> None:
    ddb.put_item(TableName=name, Item={"pk": {"S": "a"}, "v": {"N": "1"}})
    ddb.put_item(TableName=name, Item={"pk": {"S": "a"}, "v": {"N": "1"}})  # unchanged: no record
    ddb.update_item(
        TableName=name,
        Key={"pk": {"S": "a"}},
        UpdateExpression="SET v = :v",
        ExpressionAttributeValues={":v": {"N": "2"}},
    )
    ddb.delete_item(TableName=name, Key={"pk": {"S": "missing"}})  # nothing deleted: no record
    ddb.delete_item(TableName=name, Key={"pk": {"S": "a"}})


def test_records_shape_and_order(ddb: Backend, streams: Backend, table_name: str) -> None:
    arn = make(ddb, table_name)
    changes(ddb, table_name)
    records = read_all(streams, arn)
    assert [r["eventName"] for r in records] == ["INSERT", "MODIFY", "REMOVE"]
    first, modify, remove = records
    assert first["eventVersion"] == "1.1" and first["eventSource"] == "aws:dynamodb"
    body = modify["dynamodb"]
    assert body["Keys"] == {"pk": {"S": "a"}}
    assert body["NewImage"] == {"pk": {"S": "a"}, "v": {"N": "2"}}
    assert body["OldImage"] == {"pk": {"S": "a"}, "v": {"N": "1"}}
    assert body["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    assert body["SizeBytes"] == 15  # keys + both images
    assert "NewImage" not in remove["dynamodb"] and remove["dynamodb"]["OldImage"]["v"] == {"N": "2"}
    numbers = [r["dynamodb"]["SequenceNumber"] for r in records]
    assert all(len(n) == 21 and n.isdigit() for n in numbers)
    assert numbers == sorted(numbers, key=int) and len(set(numbers)) == 3


@pytest.mark.parametrize("view", ["KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE"])
def test_view_types(ddb: Backend, streams: Backend, table_name: str, view: str) -> None:
    arn = make(ddb, table_name, view)
    changes(ddb, table_name)
    modify = read_all(streams, arn)[1]["dynamodb"]
    assert modify["StreamViewType"] == view
    assert ("NewImage" in modify) is (view == "NEW_IMAGE")
    assert ("OldImage" in modify) is (view == "OLD_IMAGE")


def test_iterators_and_paging(ddb: Backend, streams: Backend, table_name: str) -> None:
    arn = make(ddb, table_name)
    for number in range(5):
        ddb.put_item(TableName=table_name, Item={"pk": {"S": f"k{number}"}})
    stream = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    assert stream["StreamStatus"] == "ENABLED" and stream["TableName"] == table_name
    assert stream["KeySchema"] == [H]
    shard = stream["Shards"][0]
    assert "EndingSequenceNumber" not in shard["SequenceNumberRange"]
    iterator = streams.get_shard_iterator(
        StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
    )
    page = streams.get_records(ShardIterator=iterator["ShardIterator"], Limit=2)
    assert len(page["Records"]) == 2
    page = streams.get_records(ShardIterator=page["NextShardIterator"], Limit=10)
    assert len(page["Records"]) == 3
    empty = streams.get_records(ShardIterator=page["NextShardIterator"])
    assert empty["Records"] == [] and "NextShardIterator" in empty
    all_records = read_all(streams, arn)
    second = all_records[1]["dynamodb"]["SequenceNumber"]
    at = read_all(streams, arn, "AT_SEQUENCE_NUMBER", SequenceNumber=second)
    after = read_all(streams, arn, "AFTER_SEQUENCE_NUMBER", SequenceNumber=second)
    assert [r["dynamodb"]["SequenceNumber"] for r in at] == [
        r["dynamodb"]["SequenceNumber"] for r in all_records[1:]
    ]
    assert after == at[1:]
    latest = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="LATEST")
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "new"}})
    records = streams.get_records(ShardIterator=latest["ShardIterator"])["Records"]
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in records] == ["new"]


def test_list_streams_and_disable(ddb: Backend, streams: Backend, table_name: str) -> None:
    arn = make(ddb, table_name)
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "a"}})
    listed = streams.list_streams(TableName=table_name)["Streams"]
    label = arn.rsplit("/", 1)[1]
    assert listed == [{"StreamArn": arn, "TableName": table_name, "StreamLabel": label}]
    assert streams.list_streams(TableName=table_name + "x")["Streams"] == []
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
    ddb.update_table(TableName=table_name, StreamSpecification={"StreamEnabled": False})
    stream = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    assert stream["StreamStatus"] == "DISABLED"
    assert stream["Shards"][0]["SequenceNumberRange"]["EndingSequenceNumber"]
    page = streams.get_records(ShardIterator=iterator["ShardIterator"])
    # Still readable after disabling; the page that reaches the end of a closed shard has no next iterator.
    assert len(page["Records"]) == 1 and "NextShardIterator" not in page
    ddb.delete_table(TableName=table_name)
    assert streams.describe_stream(StreamArn=arn)["StreamDescription"]["StreamStatus"] == "DISABLED"


def test_errors(ddb: Backend, streams: Backend, table_name: str) -> None:
    arn = make(ddb, table_name)
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    with ddb.error("ResourceNotFoundException", f"Requested resource not found: Stream: {arn}x not found"):
        streams.describe_stream(StreamArn=arn + "x")
    with ddb.error("ResourceNotFoundException", "Shard does not exist"):
        streams.get_shard_iterator(
            StreamArn=arn, ShardId="shardId-00000001414562045508-2bac9cd2", ShardIteratorType="LATEST"
        )
    with ddb.error(
        "ValidationException",
        INVALID + "SequenceNumber should not be passed for this iterator type",
    ):
        streams.get_shard_iterator(
            StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON", SequenceNumber="0" * 21
        )
    with ddb.error(
        "ValidationException", "One or more parameter values were invalid: Invalid SequenceNumber"
    ):
        streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="AT_SEQUENCE_NUMBER")
    with ddb.error(
        "ValidationException",
        "1 validation error detected: Value '12' at 'sequenceNumber' failed to satisfy constraint: "
        "Member must have length greater than or equal to 21",
    ):
        streams.get_shard_iterator(
            StreamArn=arn, ShardId=shard, ShardIteratorType="AT_SEQUENCE_NUMBER", SequenceNumber="12"
        )
    with ddb.error("ValidationException", "Invalid ShardIterator"):
        streams.get_records(ShardIterator="garbage")
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="LATEST")
    with ddb.error(
        "ValidationException",
        "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: "
        "Member must have value greater than or equal to 1",
    ):
        streams.get_records(ShardIterator=iterator["ShardIterator"], Limit=0)
    with ddb.error(
        "ValidationException",
        "One or more parameter values were invalid: Limit should be less than or equal to 1000",
    ):
        streams.get_records(ShardIterator=iterator["ShardIterator"], Limit=1001)


def test_list_streams_limit_above_100_is_refused(ddb: Backend, streams: Backend) -> None:
    with ddb.error(
        "ValidationException",
        INVALID + "Limit cannot be greater than the maximum allowed size: 100",
    ):
        streams.list_streams(Limit=101)
    assert "Streams" in streams.list_streams(Limit=100)


@pytest.mark.parametrize("start", ["known", "shardId-00000001414562045508-2bac9cd2"])
def test_describe_stream_after_a_shard_lists_no_shards(
    ddb: Backend, streams: Backend, table_name: str, start: str
) -> None:
    if ddb.is_reference and start != "known":
        pytest.skip("DynamoDB Local lists the shard after an unknown ExclusiveStartShardId; AWS lists none")
    arn = make(ddb, table_name)
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    after = streams.describe_stream(StreamArn=arn, ExclusiveStartShardId=shard if start == "known" else start)
    assert after["StreamDescription"]["Shards"] == []
    assert after["StreamDescription"]["StreamArn"] == arn


MALFORMED_STREAM_ARNS = [
    "garbage-that-is-long-enough-for-the-shape",
    "arn:aws:dynamodb:us-east-1:000000000000:table/some_table",
    "arn:aws:dynamodb:us-east-1:000000000000:table/some_table/stream/",
    "arn:aws:dynamodb:us-east-1:000000000000:table/xx/stream/2024-01-01T00:00:00.000",
    "arn:aws:dynamodb:us-east-1:0000:table/some_table/stream/2024-01-01T00:00:00.000",
    "arn:aws:s3:us-east-1:000000000000:table/some_table/stream/2024-01-01T00:00:00.000",
]


@pytest.mark.parametrize("arn", MALFORMED_STREAM_ARNS)
def test_malformed_stream_arn_is_invalid_before_any_lookup(ddb: Backend, streams: Backend, arn: str) -> None:
    if ddb.is_reference:
        pytest.skip("DynamoDB Local answers ResourceNotFoundException; AWS rejects the ARN as malformed")
    with expect_error("ValidationException", "Invalid StreamArn"):
        streams.describe_stream(StreamArn=arn)
    with expect_error("ValidationException", "Invalid StreamArn"):
        streams.get_shard_iterator(
            StreamArn=arn, ShardId="shardId-00000001414562045508-2bac9cd2", ShardIteratorType="LATEST"
        )


def test_well_formed_unknown_stream_arn_is_not_found(ddb: Backend, streams: Backend) -> None:
    arn = "arn:aws:dynamodb:us-east-1:000000000000:table/no_such_table/stream/2024-01-01T00:00:00.000"
    with ddb.error("ResourceNotFoundException", f"Requested resource not found: Stream: {arn} not found"):
        streams.describe_stream(StreamArn=arn)


# -- in-process subscriptions (engine only) --------------------------------------------------------------


def _engine(tmp_path: Path) -> Engine:
    engine = Engine(str(tmp_path / "sub.sqlite3"))
    make(Backend("engine", engine), "subs")
    return engine


def test_subscription_delivers_batches_in_order(tmp_path: Path) -> None:
    with _engine(tmp_path) as engine:
        engine.put_item(TableName="subs", Item={"pk": {"S": "before"}})  # LATEST: not delivered
        batches: list[dict[str, Any]] = []
        done = threading.Event()

        def handler(event: dict[str, Any]) -> None:
            batches.append(event)
            if sum(len(b["Records"]) for b in batches) >= 7:
                done.set()

        subscription = engine.subscribe("subs", handler, batch_size=3)
        for number in range(7):
            engine.put_item(TableName="subs", Item={"pk": {"S": f"k{number}"}})
        assert done.wait(10)
        subscription.close()
        records = [r for b in batches for r in b["Records"]]
        assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in records] == [f"k{n}" for n in range(7)]
        assert all(len(b["Records"]) <= 3 for b in batches)
        assert records[0]["eventSourceARN"].startswith("arn:aws:dynamodb:")
        assert not subscription.active


def test_subscription_retries_failed_batches(tmp_path: Path) -> None:
    with _engine(tmp_path) as engine:
        engine.put_item(TableName="subs", Item={"pk": {"S": "a"}})
        seen: list[str] = []
        done = threading.Event()
        failures = [2]

        def handler(event: dict[str, Any]) -> None:
            if failures[0]:
                failures[0] -= 1
                raise RuntimeError("transient")
            seen.extend(r["dynamodb"]["Keys"]["pk"]["S"] for r in event["Records"])
            done.set()

        import singletable.engine._background as background

        original = background.RETRY_DELAY
        background.RETRY_DELAY = 0.01
        try:
            subscription = engine.subscribe("subs", handler, starting_position="TRIM_HORIZON")
            assert done.wait(10)
        finally:
            background.RETRY_DELAY = original
        subscription.unsubscribe()
        assert seen == ["a"]


def test_subscription_errors(tmp_path: Path) -> None:
    with _engine(tmp_path) as engine:
        engine.create_table(
            TableName="plain", KeySchema=[H], AttributeDefinitions=[PK], BillingMode="PAY_PER_REQUEST"
        )
        with expect_error(
            "ValidationException", "Table plain has no stream enabled; enable StreamSpecification first"
        ):
            engine.subscribe("plain", print)
        with expect_error("ResourceNotFoundException", "Requested resource not found: Table: nope not found"):
            engine.subscribe("nope", print)
        with expect_error("ValidationException", "starting_position must be LATEST or TRIM_HORIZON"):
            engine.subscribe("subs", print, starting_position="AT")


def test_close_stops_subscriptions(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    subscription = engine.subscribe("subs", print)
    engine.close()
    time.sleep(0.01)
    assert not subscription.active
