"""mock_dynamodb(): real boto3 / aiobotocore / PynamoDB clients answered in-process, composed with moto,
and everything restored exactly on the way out."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
import unittest

import boto3
import botocore.endpoint
import pytest
from botocore.config import Config
from botocore.exceptions import EndpointConnectionError
from hypothesis import given, settings
from hypothesis import strategies as st
from table_support import g_indexed_table

from draws import examples
from singletable.engine import Engine
from singletable.testing import Call, MockDynamoDB, MockRequest, mock_aws, mock_dynamodb

KEY = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}
ATTRS = {"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]}
ENV_NAMES = (
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_SECURITY_TOKEN",
    "AWS_DEFAULT_REGION",
    "AWS_REGION",
)


def make_table(client, name="orders"):
    client.create_table(TableName=name, BillingMode="PAY_PER_REQUEST", **KEY, **ATTRS)


def patched_state():
    """Every attribute the mock may patch, by identity, and the AWS environment."""
    import aiobotocore.endpoint

    classes = (botocore.endpoint.Endpoint, aiobotocore.endpoint.AioEndpoint)
    attrs = tuple(
        id(cls.__dict__.get(name)) for cls in classes for name in ("create_request", "_do_get_response")
    )
    return attrs, {name: os.environ.get(name) for name in ENV_NAMES}


@pytest.fixture
def real_looking_env(monkeypatch):
    """Credentials the mock must never use (and must put back)."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAREALLOOKING")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "real-secret")
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
    monkeypatch.delenv("AWS_REGION", raising=False)


def test_clients_made_before_and_after_start_in_any_thread(real_looking_env):
    before = boto3.client("dynamodb", region_name="us-east-1")
    before_resource = boto3.resource("dynamodb", region_name="us-east-1")
    with mock_dynamodb() as mock:
        assert os.environ["AWS_ACCESS_KEY_ID"] == "testing"
        assert os.environ["AWS_DEFAULT_REGION"] == "us-east-1"
        make_table(before)
        after = boto3.client("dynamodb")  # no region, no credentials from the user
        after.put_item(TableName="orders", Item={"pk": {"S": "a"}})
        before_resource.Table("orders").put_item(Item={"pk": "b", "n": 1})
        seen: list[int] = []
        errors: list[BaseException] = []

        def in_thread():
            try:
                seen.append(len(boto3.client("dynamodb").scan(TableName="orders")["Items"]))
                boto3.resource("dynamodb").Table("orders").put_item(Item={"pk": "c"})
            except BaseException as error:  # reported below
                errors.append(error)

        threads = [threading.Thread(target=in_thread) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        assert seen and all(n >= 2 for n in seen)
        assert before.get_item(TableName="orders", Key={"pk": {"S": "b"}})["Item"]["n"] == {"N": "1"}
        assert mock.engine.scan(TableName="orders")["Count"] == 3
    assert os.environ["AWS_ACCESS_KEY_ID"] == "AKIAREALLOOKING"


def test_modeled_errors_and_streams_client():
    with mock_dynamodb():
        client = boto3.client("dynamodb")
        with pytest.raises(client.exceptions.ResourceNotFoundException):
            client.get_item(TableName="missing", Key={"pk": {"S": "x"}})
        client.create_table(
            TableName="events",
            BillingMode="PAY_PER_REQUEST",
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"},
            **KEY,
            **ATTRS,
        )
        client.put_item(TableName="events", Item={"pk": {"S": "a"}})
        with pytest.raises(client.exceptions.ConditionalCheckFailedException) as failed:
            client.put_item(
                TableName="events",
                Item={"pk": {"S": "a"}},
                ConditionExpression="attribute_not_exists(pk)",
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        assert failed.value.response["Item"] == {"pk": {"S": "a"}}
        streams = boto3.client("dynamodbstreams")
        arn = client.describe_table(TableName="events")["Table"]["LatestStreamArn"]
        shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
        iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
        records = streams.get_records(ShardIterator=iterator["ShardIterator"])["Records"]
        assert [r["eventName"] for r in records] == ["INSERT"]


def test_other_services_are_untouched():
    with mock_dynamodb():
        sqs = boto3.client(
            "sqs", endpoint_url="http://127.0.0.1:9", config=Config(retries={"max_attempts": 0})
        )
        with pytest.raises(EndpointConnectionError):
            sqs.list_queues()


def test_leaving_restores_everything_exactly(real_looking_env):
    state = patched_state()
    mock = mock_dynamodb().start()
    assert patched_state() != state
    inner = mock_dynamodb().start()  # nested: the innermost answers
    make_table(boto3.client("dynamodb"))
    assert inner.engine.table_names() == ["orders"] and mock.engine.table_names() == []
    inner.stop()
    assert patched_state() != state
    mock.stop()
    assert patched_state() == state
    with pytest.raises(RuntimeError, match="not active"):
        mock.stop()


def test_a_failing_block_restores_too():
    state = patched_state()
    with pytest.raises(ZeroDivisionError), mock_dynamodb():
        1 / 0  # noqa: B018
    assert patched_state() == state


@pytest.mark.parametrize("moto_first", [True, False])
def test_composes_with_moto_in_either_order(moto_first):
    moto = pytest.importorskip("moto")
    state = patched_state()
    ours = mock_dynamodb()
    theirs = moto.mock_aws()
    first, second = (theirs, ours) if moto_first else (ours, theirs)
    with first, second:
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="kept-by-moto")
        assert [b["Name"] for b in s3.list_buckets()["Buckets"]] == ["kept-by-moto"]
        make_table(boto3.client("dynamodb", region_name="us-east-1"))
        assert ours.engine.table_names() == ["orders"]
        assert [c.operation for c in ours.calls()] == ["CreateTable"]
    assert patched_state() == state


def test_an_engine_target_is_kept_open(tmp_path):
    engine = Engine(str(tmp_path / "app.db"))
    with mock_dynamodb(engine):
        make_table(boto3.client("dynamodb"))
    assert engine.table_names() == ["orders"]
    engine.close()
    with mock_dynamodb(tmp_path / "app.db"):
        assert boto3.client("dynamodb").list_tables()["TableNames"] == ["orders"]


@mock_dynamodb()
def test_decorated_function():
    make_table(boto3.client("dynamodb"))
    assert boto3.client("dynamodb").list_tables()["TableNames"] == ["orders"]


@mock_aws
def test_moto_spelling_without_parentheses():
    make_table(boto3.client("dynamodb"))


@mock_aws()
def test_moto_spelling_with_parentheses():
    assert boto3.client("dynamodb").list_tables()["TableNames"] == []  # a fresh engine per test


@mock_dynamodb()
class TestDecoratedClass:
    def test_first(self):
        make_table(boto3.client("dynamodb"))

    def test_second_starts_empty(self):
        assert boto3.client("dynamodb").list_tables()["TableNames"] == []


@mock_dynamodb()
class DecoratedTestCase(unittest.TestCase):
    def setUp(self):
        make_table(boto3.client("dynamodb"))

    def test_set_up_ran_under_the_mock(self):
        assert boto3.client("dynamodb").list_tables()["TableNames"] == ["orders"]


def test_async_function_with_aiobotocore():
    from aiobotocore.session import get_session

    @mock_dynamodb()
    async def run():
        async with get_session().create_client("dynamodb", region_name="us-east-1") as client:
            await client.create_table(TableName="orders", BillingMode="PAY_PER_REQUEST", **KEY, **ATTRS)
            await client.put_item(TableName="orders", Item={"pk": {"S": "a"}})
            with pytest.raises(client.exceptions.ResourceNotFoundException):
                await client.get_item(TableName="missing", Key={"pk": {"S": "a"}})
            return (await client.scan(TableName="orders"))["Items"]

    state = patched_state()
    assert asyncio.run(run()) == [{"pk": {"S": "a"}}]
    assert patched_state() == state


def test_aiobotocore_client_made_before_start():
    from aiobotocore.session import get_session

    async def run():
        async with get_session().create_client(
            "dynamodb", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y"
        ) as client:
            with mock_dynamodb() as mock:
                await client.create_table(TableName="orders", BillingMode="PAY_PER_REQUEST", **KEY, **ATTRS)
                return mock.calls()

    assert [c.operation for c in asyncio.run(run())] == ["CreateTable"]


def test_each_region_has_its_own_tables():
    """As on AWS (and in moto): a client of another region does not see the table."""
    with mock_dynamodb() as mock:
        east = boto3.client("dynamodb", region_name="us-east-1")
        west = boto3.client("dynamodb", region_name="ca-central-1")
        make_table(east)
        assert east.list_tables()["TableNames"] == ["orders"]
        assert west.list_tables()["TableNames"] == []
        with pytest.raises(west.exceptions.ResourceNotFoundException):
            west.get_item(TableName="orders", Key={"pk": {"S": "a"}})
        description = west.create_table(TableName="orders", BillingMode="PAY_PER_REQUEST", **KEY, **ATTRS)[
            "TableDescription"
        ]
        assert description["TableArn"].startswith("arn:aws:dynamodb:ca-central-1:")
        west.put_item(TableName="orders", Item={"pk": {"S": "w"}})
        assert east.scan(TableName="orders")["Items"] == []
        # the mock's own engine is the first region's; the other region's engine is its own
        assert mock.region == "us-east-1"
        assert mock.engine.list_tables()["TableNames"] == ["orders"]
        assert mock.engine_for("ca-central-1").get_item(TableName="orders", Key={"pk": {"S": "w"}})["Item"]
        assert mock.engine_for("us-east-1") is mock.engine
        assert [c.operation for c in mock.calls(table="orders")] == [
            "CreateTable",
            "GetItem",
            "CreateTable",
            "PutItem",
            "Scan",
        ]
        other = mock.engine_for("ca-central-1")
    with pytest.raises(sqlite3.ProgrammingError, match="closed"):  # stop() closed it
        other.put_item(TableName="orders", Item={"pk": {"S": "x"}})


def test_the_engine_seeded_before_the_first_request_is_that_requests_region():
    """Tables made on mock.engine (the pytest plugin's seeded copies) belong to whichever region asks
    first -- unless region= says which."""
    mock = mock_dynamodb()
    mock.engine.create_table(TableName="orders", BillingMode="PAY_PER_REQUEST", **KEY, **ATTRS)
    with mock:
        client = boto3.client("dynamodb", region_name="eu-west-1")
        assert client.list_tables()["TableNames"] == ["orders"]
        assert client.describe_table(TableName="orders")["Table"]["TableArn"].startswith(
            "arn:aws:dynamodb:eu-west-1:"
        )
    with mock_dynamodb(region="us-west-2") as pinned:
        pinned.engine.create_table(TableName="orders", BillingMode="PAY_PER_REQUEST", **KEY, **ATTRS)
        assert boto3.client("dynamodb", region_name="eu-west-1").list_tables()["TableNames"] == []
        assert boto3.client("dynamodb", region_name="us-west-2").list_tables()["TableNames"] == ["orders"]


def test_calls_record_operation_table_index_params_and_capacity():
    with mock_dynamodb() as mock:
        client = boto3.client("dynamodb")
        client.create_table(**g_indexed_table("orders"))
        put = client.put_item(TableName="orders", Item={"pk": {"S": "a"}, "g": {"S": "x"}})
        assert "ConsumedCapacity" not in put  # not asked for: not answered, as on AWS
        asked = client.put_item(TableName="orders", Item={"pk": {"S": "b"}}, ReturnConsumedCapacity="TOTAL")
        assert asked["ConsumedCapacity"] == {"TableName": "orders", "CapacityUnits": 1.0}
        client.query(
            TableName="orders",
            IndexName="byG",
            KeyConditionExpression="g = :g",
            ExpressionAttributeValues={":g": {"S": "x"}},
        )
        with pytest.raises(client.exceptions.ResourceNotFoundException):
            client.scan(TableName="missing")
        assert mock.calls("Scan", table="orders") == []
        assert [c.operation for c in mock.calls()] == ["CreateTable", "PutItem", "PutItem", "Query", "Scan"]
        first_put = mock.calls("PutItem")[0]
        assert isinstance(first_put, Call)
        assert first_put.table == "orders" and first_put.params["Item"] == {"pk": {"S": "a"}, "g": {"S": "x"}}
        assert "ReturnConsumedCapacity" not in first_put.params
        assert first_put.capacity["GlobalSecondaryIndexes"] == {"byG": {"CapacityUnits": 1.0}}
        assert first_put.capacity_units == 2.0
        query = mock.calls("Query")[0]
        assert (query.index, query.count, query.scanned_count) == ("byG", 1, 1)
        failed = mock.calls("Scan")[0]
        assert (failed.error, failed.capacity) == ("ResourceNotFoundException", None)
        mock.reset_calls()
        assert mock.calls() == []


def test_request_hooks_answer_before_the_engine():
    from singletable._protocol import coral_error, error_reply

    with mock_dynamodb() as mock:
        seen = []

        def throttle(request):
            seen.append((request.service, request.operation))
            if request.operation == "ListTables":
                return error_reply(coral_error("ThrottlingException", "slow down"))
            return None

        mock.request_hooks.append(throttle)
        client = boto3.client("dynamodb", config=Config(retries={"total_max_attempts": 1}))
        with pytest.raises(client.exceptions.ClientError, match="ThrottlingException"):
            client.list_tables()
        make_table(client)
        assert seen == [("dynamodb", "ListTables"), ("dynamodb", "CreateTable")]


def test_pynamodb_model_under_the_mock():
    pynamodb = pytest.importorskip("pynamodb")
    from pynamodb.attributes import NumberAttribute, UnicodeAttribute
    from pynamodb.models import Model

    assert pynamodb

    class Thing(Model):
        class Meta:
            table_name = "things"
            region = "us-east-1"

        pk = UnicodeAttribute(hash_key=True)
        size = NumberAttribute(default=0)

    with mock_dynamodb() as mock:
        Thing.create_table(billing_mode="PAY_PER_REQUEST", wait=True)
        Thing("a", size=3).save()
        assert Thing.get("a").size == 3
        assert [t.pk for t in Thing.scan()] == ["a"]
        assert mock.calls("Scan", table="things")


def test_a_mock_cannot_start_twice():
    mock = MockDynamoDB()
    with mock, pytest.raises(RuntimeError, match="already active"):
        mock.start()


TARGETS = st.one_of(
    st.none(),
    st.text(max_size=40),
    st.sampled_from(
        ["DynamoDB_20120810.PutItem", "DynamoDB_20120810.Query", "DynamoDBStreams_20120810.GetRecords"]
    ),
)


@settings(max_examples=examples(80), deadline=None)
@given(target=TARGETS, body=st.one_of(st.binary(max_size=200), st.text(max_size=200).map(str.encode)))
def test_the_handler_answers_any_request_with_dynamodbs_error_never_raises(target, body):
    mock = MockDynamoDB()
    status, headers, payload = mock.handle(MockRequest("dynamodb", target, body))
    assert status in (200, 400)
    assert dict(headers)["content-type"] == "application/x-amz-json-1.0"
    if status == 400:
        assert b"__type" in payload
    mock.engine.close()


ATTRIBUTE_VALUES = st.one_of(
    st.text(min_size=1, max_size=30).map(lambda s: {"S": s}),
    st.integers(-(10**30), 10**30).map(lambda n: {"N": str(n)}),
    st.binary(min_size=1, max_size=30).map(lambda b: {"B": b}),
    st.booleans().map(lambda b: {"BOOL": b}),
    st.lists(st.text(max_size=5), max_size=3).map(lambda items: {"L": [{"S": i} for i in items]}),
)


@settings(max_examples=examples(40), deadline=None)
@given(
    values=st.dictionaries(
        st.text(min_size=1, max_size=10).filter(lambda k: k != "pk"), ATTRIBUTE_VALUES, max_size=5
    )
)
def test_items_round_trip_through_a_mocked_boto3_client(values):
    with mock_dynamodb() as mock:
        client = boto3.client("dynamodb")
        make_table(client)
        item = {"pk": {"S": "k"}, **values}
        client.put_item(TableName="orders", Item=item)
        assert client.get_item(TableName="orders", Key={"pk": {"S": "k"}})["Item"] == item
        assert [c.operation for c in mock.calls()] == ["CreateTable", "PutItem", "GetItem"]


def test_a_client_made_with_no_credentials_anywhere_is_answered(monkeypatch, tmp_path):
    for name in (*ENV_NAMES, "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    early = boto3.session.Session().client("dynamodb", region_name="us-east-1")
    with mock_dynamodb():
        make_table(early)
        assert early.list_tables()["TableNames"] == ["orders"]
    assert "AWS_ACCESS_KEY_ID" not in os.environ


def test_without_boto3_it_says_which_extra(monkeypatch):
    from singletable._extras import MissingExtra

    state = patched_state()
    monkeypatch.setitem(__import__("sys").modules, "boto3", None)
    with pytest.raises(MissingExtra) as missing:
        mock_dynamodb().start()
    assert str(missing.value) == (
        "singletable.testing.mock_dynamodb() needs the 'client' extra: pip install 'singletable[client]'"
    )
    assert patched_state() == state
