"""Tagging, DescribeLimits, DescribeEndpoints and the AWS-only operations singletable refuses.

DynamoDB Local does not support tagging ("Tagging is not currently supported in DynamoDB Local.") nor
DescribeEndpoints, so those run on our backends only, against AWS's documented behaviour and texts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from backends import Backend, expect_error
from singletable.engine import Engine
from singletable.engine._engine import _snake
from singletable.engine._registry import UNSUPPORTED_OPERATIONS

PK = {"AttributeName": "pk", "AttributeType": "S"}
H = {"AttributeName": "pk", "KeyType": "HASH"}


@pytest.fixture
def ours(ddb: Backend) -> Backend:
    if ddb.is_reference:
        pytest.skip("DynamoDB Local does not support this operation")
    return ddb


def make(ddb: Backend, name: str, **extra: object) -> str:
    out = ddb.create_table(
        TableName=name, KeySchema=[H], AttributeDefinitions=[PK], BillingMode="PAY_PER_REQUEST", **extra
    )
    return out["TableDescription"]["TableArn"]


def test_tag_lifecycle(ours: Backend, table_name: str) -> None:
    arn = make(ours, table_name, Tags=[{"Key": "team", "Value": "core"}])
    assert ours.list_tags_of_resource(ResourceArn=arn) == {"Tags": [{"Key": "team", "Value": "core"}]}
    ours.tag_resource(
        ResourceArn=arn, Tags=[{"Key": "env", "Value": "dev"}, {"Key": "team", "Value": "data"}]
    )
    assert ours.list_tags_of_resource(ResourceArn=arn)["Tags"] == [
        {"Key": "team", "Value": "data"},
        {"Key": "env", "Value": "dev"},
    ]
    ours.untag_resource(ResourceArn=arn, TagKeys=["team", "absent"])
    assert ours.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "env", "Value": "dev"}]
    ours.untag_resource(ResourceArn=arn, TagKeys=["env"])
    assert ours.list_tags_of_resource(ResourceArn=arn) == {"Tags": []}


def test_tag_errors(ours: Backend, table_name: str) -> None:
    arn = make(ours, table_name)
    missing = arn + "x"
    for call in (
        lambda a: ours.list_tags_of_resource(ResourceArn=a),
        lambda a: ours.tag_resource(ResourceArn=a, Tags=[{"Key": "k", "Value": "v"}]),
        lambda a: ours.untag_resource(ResourceArn=a, TagKeys=["k"]),
    ):
        with expect_error(
            "ResourceNotFoundException", f"Requested resource not found: ResourcArn: {missing} not found"
        ):
            call(missing)
        with expect_error(
            "ValidationException", "Invalid TableArn: Invalid ResourceArn provided as input a:b:c:d:e:f/g"
        ):
            call("a:b:c:d:e:f/g")
    with expect_error("ValidationException", "Atleast one Tag needs to be provided as Input."):
        ours.tag_resource(ResourceArn=arn, Tags=[])
    with expect_error("ValidationException", "Atleast one Tag Key needs to be provided as Input."):
        ours.untag_resource(ResourceArn=arn, TagKeys=[])
    with expect_error("ValidationException", "Tag Key cannot be prefixed with aws:, Key: aws:x"):
        ours.tag_resource(ResourceArn=arn, Tags=[{"Key": "aws:x", "Value": "v"}])
    with expect_error(
        "ValidationException", "Duplicate Tag Keys provided as input: Duplicate Tag Key found k"
    ):
        ours.tag_resource(ResourceArn=arn, Tags=[{"Key": "k", "Value": "1"}, {"Key": "k", "Value": "2"}])
    ours.tag_resource(ResourceArn=arn, Tags=[{"Key": f"k{n}", "Value": "v"} for n in range(50)])
    with expect_error(
        "ValidationException", "Number of Tags exceed the current limit for the provided ResourceArn"
    ):
        ours.tag_resource(ResourceArn=arn, Tags=[{"Key": "one-more", "Value": "v"}])
    with expect_error(
        "ValidationException",
        "1 validation error detected: Value '' at 'tags.1.member.key' failed to satisfy constraint: "
        "Member must have length greater than or equal to 1",
    ):
        ours.tag_resource(ResourceArn=arn, Tags=[{"Key": "", "Value": "v"}])


def test_describe_limits(ddb: Backend) -> None:
    assert ddb.describe_limits() == {
        "AccountMaxReadCapacityUnits": 80000,
        "AccountMaxWriteCapacityUnits": 80000,
        "TableMaxReadCapacityUnits": 40000,
        "TableMaxWriteCapacityUnits": 40000,
    }


def test_describe_endpoints(ours: Backend) -> None:
    assert ours.describe_endpoints() == {
        "Endpoints": [{"Address": "dynamodb.us-east-1.amazonaws.com", "CachePeriodInMinutes": 1440}]
    }


@pytest.mark.parametrize("operation", sorted(UNSUPPORTED_OPERATIONS))
def test_aws_only_operations_are_refused(tmp_path: Path, operation: str) -> None:
    with Engine(str(tmp_path / "x.sqlite3")) as engine:
        with expect_error(
            "UnknownOperationException",
            f"{operation} is an AWS-only operation that singletable does not support locally",
        ):
            getattr(engine, _snake(operation))(TableName="t")
        with expect_error("UnknownOperationException"):
            engine.execute(operation, {})


def test_execute_streams_rejects_dynamodb_operations(tmp_path: Path) -> None:
    with Engine(str(tmp_path / "x.sqlite3")) as engine:
        assert engine.execute_streams("ListStreams", {}) == {"Streams": []}
        with expect_error("UnknownOperationException", "The operation PutItem is not supported"):
            engine.execute_streams("PutItem", {})
