"""The testing server (the ``dynamodb_server`` fixture's): serve's app in a thread over real HTTP, answering
from the active mock or its own engine, with each region's tables apart as on AWS."""

from __future__ import annotations

import os

import pytest
from botocore.config import Config
from hypothesis import given, settings
from hypothesis import strategies as st
from table_support import g_indexed_table

from draws import examples
from singletable.engine import Engine
from singletable.testing import FaultPlan, mock_dynamodb
from singletable.testing._server import Server, signed_region


def client(server: Server, region: str = "us-east-1"):
    return server.client(region_name=region)


@pytest.fixture
def server():
    engine = Engine(":memory:")
    engine.create_table(**g_indexed_table("seeded"))
    with Server(engine) as running:
        yield running
    engine.close()


def test_its_own_engine_and_the_environment_for_subprocesses(server):
    assert os.environ["AWS_ENDPOINT_URL_DYNAMODB"] == server.endpoint
    assert os.environ["AWS_ACCESS_KEY_ID"] == "testing"
    assert client(server).list_tables()["TableNames"] == ["seeded"]
    client(server).put_item(TableName="seeded", Item={"pk": {"S": "a"}})
    assert server.engine.get_item(TableName="seeded", Key={"pk": {"S": "a"}})["Item"] == {"pk": {"S": "a"}}


def test_the_environment_is_restored_after_stop():
    before = os.environ.get("AWS_ENDPOINT_URL_DYNAMODB")
    engine = Engine(":memory:")
    with Server(engine):
        pass
    assert os.environ.get("AWS_ENDPOINT_URL_DYNAMODB") == before
    engine.close()


def test_each_signed_region_has_its_own_tables(server):
    """The server's engine holds the tables of the first region that asks (here us-east-1)."""
    assert client(server).list_tables()["TableNames"] == ["seeded"]
    west = client(server, "eu-west-1")
    assert west.list_tables()["TableNames"] == []
    with pytest.raises(west.exceptions.ResourceNotFoundException):
        west.describe_table(TableName="seeded")
    arn = west.create_table(**g_indexed_table("west-only"))["TableDescription"]["TableArn"]
    assert arn.startswith("arn:aws:dynamodb:eu-west-1:")
    assert client(server).list_tables()["TableNames"] == ["seeded"]


def test_while_a_mock_is_active_it_answers_from_the_mocks_engine_faults_and_calls(server):
    with mock_dynamodb() as mock:
        mock.engine.create_table(**g_indexed_table("mocked"))
        over_http = client(server)
        assert over_http.list_tables()["TableNames"] == ["mocked"]
        with FaultPlan().attach(mock) as faults:
            faults.internal_error("GetItem")
            once = server.client(config=Config(retries={"total_max_attempts": 1}))
            with pytest.raises(once.exceptions.InternalServerError):
                once.get_item(TableName="mocked", Key={"pk": {"S": "x"}})
            assert [attempt.fault for attempt in faults.attempts()] == ["InternalServerError"]
        assert [call.operation for call in mock.calls()] == ["ListTables"]
    assert client(server).list_tables()["TableNames"] == ["seeded"]


@pytest.mark.parametrize(
    ("header", "region"),
    [
        (
            b"AWS4-HMAC-SHA256 Credential=AKID/20260101/eu-west-1/dynamodb/aws4_request, SignedHeaders=host, "
            b"Signature=abc",
            "eu-west-1",
        ),
        (b"AWS4-HMAC-SHA256 Credential=AKID/20260101//dynamodb/aws4_request", None),
        (b"AWS4-HMAC-SHA256 Credential=AKID/eu-west-1", None),
        (b"Bearer token", None),
        (b"", None),
        (None, None),
    ],
)
def test_signed_region(header, region):
    assert signed_region(header) == region


@settings(max_examples=examples(100), deadline=None)
@given(st.binary(max_size=120))
def test_signed_region_never_raises_on_any_header(header):
    found = signed_region(header)
    assert found is None or isinstance(found, str)
