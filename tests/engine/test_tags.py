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
            "ValidationException",
            "One or more parameter values were invalid: ARNs must start with 'arn:': a:b:c:d:e:f/g",
        ):
            call("a:b:c:d:e:f/g")
        with expect_error(
            "ValidationException",
            f"Invalid TableArn: Invalid ResourceArn provided as input {arn}/index/gsi",
        ):
            call(arn + "/index/gsi")
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


def test_another_accounts_arn_is_access_denied(ours: Backend, table_name: str) -> None:
    """Whether or not the table exists there: the caller may not look into another account."""
    arn = make(ours, table_name)
    assert ":123456789012:table/" in arn
    for foreign in (
        arn.replace(":123456789012:", ":000000000000:"),
        "arn:aws:dynamodb:us-east-1:111:table/abc",
    ):
        for call in (
            lambda a: ours.list_tags_of_resource(ResourceArn=a),
            lambda a: ours.tag_resource(ResourceArn=a, Tags=[{"Key": "k", "Value": "v"}]),
            lambda a: ours.untag_resource(ResourceArn=a, TagKeys=["k"]),
        ):
            with expect_error("AccessDeniedException", "Access is denied"):
                call(foreign)
    assert ours.list_tags_of_resource(ResourceArn=arn) == {"Tags": []}


TAG_PATTERN = r"[\p{L}\p{Z}\p{N}_.:/=+\-@]*"


@pytest.mark.parametrize(
    ("tag", "bad"),
    [
        ({"Key": "ok", "Value": "#!%%^$$&"}, "tags.1.member.value"),
        ({"Key": "->>;-)])", "Value": "ok"}, "tags.1.member.key"),
        ({"Key": "a!", "Value": "v"}, "tags.1.member.key"),
        ({"Key": "k", "Value": '"quoted"'}, "tags.1.member.value"),
        ({"Key": "k", "Value": "50%"}, "tags.1.member.value"),
    ],
)
def test_tag_characters_outside_aws_set_are_refused(
    ours: Backend, table_name: str, tag: dict, bad: str
) -> None:
    arn = make(ours, table_name)
    value = tag["Key"] if bad.endswith("key") else tag["Value"]
    with expect_error(
        "ValidationException",
        f"1 validation error detected: Value '{value}' at '{bad}' failed to satisfy constraint: "
        f"Member must satisfy regular expression pattern: {TAG_PATTERN}",
    ):
        ours.tag_resource(ResourceArn=arn, Tags=[tag])
    assert ours.list_tags_of_resource(ResourceArn=arn) == {"Tags": []}


def test_tag_characters_inside_aws_set_are_kept(ours: Backend, table_name: str) -> None:
    arn = make(ours, table_name)
    tags = [
        {"Key": "team name: core/data", "Value": "a+b=c.d_e-f@g"},
        {"Key": "законные буквы", "Value": "ѮѮ Ѯ 123 ٣"},
        {"Key": "empty", "Value": ""},
    ]
    ours.tag_resource(ResourceArn=arn, Tags=tags)
    assert ours.list_tags_of_resource(ResourceArn=arn) == {"Tags": tags}


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
def test_aws_only_operations_are_refused(engine_file: Engine, operation: str) -> None:
    with expect_error(
        "UnknownOperationException",
        f"{operation} is an AWS-only operation that singletable does not support locally",
    ):
        getattr(engine_file, _snake(operation))(TableName="t")
    with expect_error("UnknownOperationException"):
        engine_file.execute(operation, {})


def test_execute_streams_rejects_dynamodb_operations(tmp_path: Path) -> None:
    with Engine(str(tmp_path / "x.sqlite3")) as engine:
        assert engine.execute_streams("ListStreams", {}) == {"Streams": []}
        with expect_error("UnknownOperationException", "The operation PutItem is not supported"):
            engine.execute_streams("PutItem", {})
