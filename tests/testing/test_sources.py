"""Table sources (CloudFormation / SAM, Terraform, DescribeTable JSON, design modules) and seed data, read
from real files into a real engine; every malformed source is one SourceError naming the file."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from table_support import g_indexed_table

from draws import examples
from singletable.data import export_table
from singletable.engine import Engine
from singletable.testing._sources import SourceError, create_tables, seed, table_definitions

CFN_YAML = """\
AWSTemplateFormatVersion: "2010-09-09"
Transform: AWS::Serverless-2016-10-31
Parameters:
  Stage:
    Type: String
    Default: test
Resources:
  Orders:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: !Sub "${AWS::StackName}-orders-${Stage}"
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions:
        - {AttributeName: pk, AttributeType: S}
        - {AttributeName: sk, AttributeType: S}
        - {AttributeName: gpk, AttributeType: S}
      KeySchema:
        - {AttributeName: pk, KeyType: HASH}
        - {AttributeName: sk, KeyType: RANGE}
      GlobalSecondaryIndexes:
        - IndexName: byStatus
          KeySchema: [{AttributeName: gpk, KeyType: HASH}, {AttributeName: sk, KeyType: RANGE}]
          Projection: {ProjectionType: INCLUDE, NonKeyAttributes: [total]}
      TimeToLiveSpecification: {AttributeName: expires, Enabled: true}
      StreamSpecification: {StreamViewType: NEW_AND_OLD_IMAGES}
  Users:
    Type: AWS::Serverless::SimpleTable
    Properties:
      TableName: !Ref UsersName
      PrimaryKey: {Name: userId, Type: String}
  Global:
    Type: AWS::DynamoDB::GlobalTable
    Properties:
      TableName: !Join ["-", [global, !Ref Stage]]
      BillingMode: PROVISIONED
      AttributeDefinitions: [{AttributeName: id, AttributeType: N}]
      KeySchema: [{AttributeName: id, KeyType: HASH}]
      ProvisionedThroughput: {ReadCapacityUnits: 5, WriteCapacityUnits: "2"}
  Bucket:
    Type: AWS::S3::Bucket
"""

TERRAFORM = """\
variable "env" {
  default = "cienv"
}
locals {
  prefix = "shop"
}
resource "aws_s3_bucket" "b" {
  bucket = "x"
}
resource "aws_dynamodb_table" "orders" {
  name         = "${local.prefix}-orders-${var.env}"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "pk"
  range_key    = "sk"
  attribute {
    name = "pk"
    type = "S"
  }
  attribute {
    name = "sk"
    type = "S"
  }
  attribute {
    name = "g"
    type = "N"
  }
  global_secondary_index {
    name            = "byG"
    hash_key        = "g"
    projection_type = "KEYS_ONLY"
  }
  local_secondary_index {
    name            = "byG2"
    range_key       = "g"
    projection_type = "ALL"
  }
  ttl {
    attribute_name = "expires"
    enabled        = true
  }
}
resource "aws_dynamodb_table" "plain" {
  name           = var.env
  hash_key       = "id"
  read_capacity  = 3
  write_capacity = 4
  attribute {
    name = "id"
    type = "S"
  }
}
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def built(definitions):
    engine = Engine(":memory:")
    create_tables(engine, definitions)
    return engine


def test_cloudformation_yaml_with_short_forms_and_sam(tmp_path):
    path = write(tmp_path, "stack.yaml", CFN_YAML.replace("!Ref UsersName", "!Sub users-${Stage}"))
    tables = {t["TableName"]: t for t in table_definitions(path)}
    assert sorted(tables) == ["global-test", "stack-orders-test", "users-test"]
    orders = tables["stack-orders-test"]
    assert orders["GlobalSecondaryIndexes"][0]["Projection"]["NonKeyAttributes"] == ["total"]
    assert tables["global-test"]["ProvisionedThroughput"] == {"ReadCapacityUnits": 5, "WriteCapacityUnits": 2}
    engine = built(list(tables.values()))
    described = engine.describe_table(TableName="stack-orders-test")["Table"]
    assert described["StreamSpecification"]["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    ttl = engine.describe_time_to_live(TableName="stack-orders-test")["TimeToLiveDescription"]
    assert ttl["AttributeName"] == "expires"
    assert engine.describe_table(TableName="users-test")["Table"]["KeySchema"][0]["AttributeName"] == "userId"


def test_cloudformation_json_with_fn_sub_variables_and_join(tmp_path):
    template = {
        "Parameters": {"Env": {"Type": "String", "Default": "qa"}},
        "Resources": {
            "T": {
                "Type": "AWS::DynamoDB::Table",
                "Properties": {
                    "TableName": {
                        "Fn::Sub": ["${Prefix}-${Env}", {"Prefix": {"Fn::Join": ["", ["a", "b"]]}}]
                    },
                    "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}],
                    "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}],
                    "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
                },
            },
            "Unnamed": {
                "Type": "AWS::DynamoDB::Table",
                "Properties": {
                    "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}],
                    "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}],
                    "BillingMode": "PAY_PER_REQUEST",
                },
            },
        },
    }
    path = write(tmp_path, "app.json", json.dumps(template))
    names = [t["TableName"] for t in table_definitions(path)]
    assert names == ["ab-qa", "app-Unnamed"]
    built(table_definitions(path))


def test_a_ref_without_default_is_named(tmp_path):
    path = write(tmp_path, "stack.yaml", CFN_YAML)
    with pytest.raises(SourceError, match=r"stack\.yaml: Users.*!Ref UsersName names no parameter"):
        table_definitions(path)


def test_terraform_with_variables_locals_and_indexes(tmp_path):
    path = write(tmp_path, "main.tf", TERRAFORM)
    tables = {t["TableName"]: t for t in table_definitions(path)}
    assert sorted(tables) == ["cienv", "shop-orders-cienv"]
    assert tables["cienv"]["ProvisionedThroughput"] == {"ReadCapacityUnits": 3, "WriteCapacityUnits": 4}
    engine = built(list(tables.values()))
    described = engine.describe_table(TableName="shop-orders-cienv")["Table"]
    assert [i["IndexName"] for i in described["GlobalSecondaryIndexes"]] == ["byG"]
    assert [i["IndexName"] for i in described["LocalSecondaryIndexes"]] == ["byG2"]
    ttl = engine.describe_time_to_live(TableName="shop-orders-cienv")["TimeToLiveDescription"]
    assert ttl["AttributeName"] == "expires"


def test_terraform_key_schema_blocks_of_a_multi_attribute_index(tmp_path):
    """synth's Terraform for a GSI keyed by fields (``key_schema`` blocks, not ``hash_key``) builds the
    index with every attribute."""
    from singletable.data import load_design
    from singletable.design import to_terraform

    table = load_design(str(Path(__file__).resolve().parents[1] / "design" / "field_key_design.py")).table
    path = write(tmp_path, "main.tf", to_terraform(table))
    (definition,) = table_definitions(path)
    gsi = next(i for i in definition["GlobalSecondaryIndexes"] if i["IndexName"] == "byTenantStatus")
    assert [(k["AttributeName"], k["KeyType"]) for k in gsi["KeySchema"]] == [
        ("tenant", "HASH"),
        ("status", "HASH"),
        ("priority", "RANGE"),
        ("openedAt", "RANGE"),
    ]
    described = built([definition]).describe_table(TableName="helpdesk")["Table"]
    index = next(i for i in described["GlobalSecondaryIndexes"] if i["IndexName"] == "byTenantStatus")
    assert index["KeySchema"] == gsi["KeySchema"]


def test_terraform_unresolvable_reference(tmp_path):
    path = write(tmp_path, "main.tf", TERRAFORM.replace("var.env}", "var.missing}"))
    with pytest.raises(SourceError, match=r"aws_dynamodb_table\.orders: cannot resolve \$\{var\.missing\}"):
        table_definitions(path)


def test_describe_table_json_one_or_several(tmp_path):
    source = Engine(":memory:")
    source.create_table(**g_indexed_table("described"))
    described = source.describe_table(TableName="described")
    one = write(tmp_path, "one.json", json.dumps(described, default=str))
    several = write(tmp_path, "several.json", json.dumps([described["Table"]], default=str))
    for path in (one, several):
        engine = built(table_definitions(path))
        assert (
            engine.describe_table(TableName="described")["Table"]["GlobalSecondaryIndexes"][0]["IndexName"]
            == "byG"
        )


def test_design_module(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(
        tmp_path,
        "shopdesign.py",
        textwrap.dedent(
            """
            from singletable.model import Table, GSI
            table = Table("shop", pk="PK", sk="SK", indexes=[GSI("GSI1", pk="GSI1PK", sk="GSI1SK")])
            """
        ),
    )
    (definition,) = table_definitions("shopdesign")
    assert definition["TableName"] == "shop"
    built([definition])
    with pytest.raises(SourceError, match="cannot import design module nosuchdesign"):
        table_definitions("nosuchdesign")


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("bad.json", "{", r"bad\.json:1: not JSON"),
        ("bad.yaml", "a: [", r"bad\.yaml:\d+: not YAML"),
        ("empty.yaml", "Resources: {}", r"declares no AWS::DynamoDB::Table"),
        ("other.json", '{"x": 1}', r"neither a CloudFormation template"),
        ("bad.tf", 'resource "x" {', r"bad\.tf: not Terraform"),
        ("none.tf", 'variable "a" {}', r"declares no aws_dynamodb_table"),
        (
            "nokeys.yaml",
            "Resources:\n  T:\n    Type: AWS::DynamoDB::Table\n    Properties: {TableName: x}\n",
            r"nokeys\.yaml: T: missing KeySchema",
        ),
    ],
)
def test_malformed_sources_are_one_line_naming_the_file(tmp_path, name, text, message):
    with pytest.raises(SourceError, match=message):
        table_definitions(write(tmp_path, name, text))


def test_a_missing_file(tmp_path):
    with pytest.raises(SourceError, match=r"nothere\.yaml: cannot read"):
        table_definitions(tmp_path / "nothere.yaml")


@settings(max_examples=examples(60), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=st.text(max_size=200),
    suffix=st.sampled_from([".json", ".yaml", ".tf"]),
)
def test_any_text_is_tables_or_a_source_error(tmp_path, text, suffix):
    path = tmp_path / f"hostile{suffix}"
    path.write_text(text, encoding="utf-8")
    try:
        tables = table_definitions(path)
    except SourceError as error:
        assert "hostile" in str(error)
    else:
        assert all("TableName" in t for t in tables)


@settings(max_examples=examples(40), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    stage=st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_.-", min_size=1, max_size=20),
    prefix=st.text(alphabet="ABCxyz09_-.", min_size=1, max_size=20),
)
def test_sub_names_resolve_exactly(tmp_path, stage, prefix):
    text = CFN_YAML.replace("Default: test", f"Default: '{stage}'").replace("!Ref UsersName", f"'{prefix}'")
    names = sorted(t["TableName"] for t in table_definitions(write(tmp_path, "s.yaml", text)))
    assert names == sorted([f"s-orders-{stage}", prefix, f"global-{stage}"])


def test_seed_json_lines_and_export_directory(tmp_path):
    definitions = table_definitions(write(tmp_path, "main.tf", TERRAFORM))
    engine = built(definitions)
    lines = write(
        tmp_path,
        "orders.jsonl",
        "".join(json.dumps({"pk": {"S": f"p{i}"}, "sk": {"S": "x"}}) + "\n" for i in range(5)),
    )
    assert seed(engine, f"shop-orders-cienv={lines}", ["shop-orders-cienv", "cienv"]) == 5
    export_table(_target(engine), "shop-orders-cienv", tmp_path / "export")
    fresh = built(definitions)
    assert seed(fresh, f"shop-orders-cienv = {tmp_path / 'export'}", ["shop-orders-cienv", "cienv"]) == 5
    assert fresh.scan(TableName="shop-orders-cienv")["Count"] == 5


def _target(engine):
    from singletable.data import Target

    return Target("engine", engine=engine)


def test_seed_errors(tmp_path):
    engine = built(table_definitions(write(tmp_path, "main.tf", TERRAFORM)))
    names = ["shop-orders-cienv", "cienv"]
    with pytest.raises(SourceError, match="name its table"):
        seed(engine, str(tmp_path / "x.jsonl"), names)
    with pytest.raises(SourceError, match="no table nope"):
        seed(engine, "nope=x.jsonl", names)
    with pytest.raises(SourceError, match="no such file or directory"):
        seed(engine, f"cienv={tmp_path / 'absent.jsonl'}", names)
    bad = write(tmp_path, "bad.jsonl", '{"id": {"S": "a"}}\nnot json\n')
    with pytest.raises(SourceError, match=r"bad\.jsonl"):
        seed(engine, f"cienv={bad}", names)


def test_a_table_dynamodb_would_refuse_is_named(tmp_path):
    path = write(tmp_path, "short.tf", TERRAFORM.replace('default = "cienv"', 'default = "ab"'))
    with pytest.raises(SourceError, match=r"table 'ab': ValidationException: .*tableName"):
        built(table_definitions(path))


@pytest.mark.parametrize(
    ("module", "name", "feature"),
    [("yaml", "t.yaml", "a CloudFormation YAML template"), ("hcl2", "t.tf", "a Terraform table source")],
)
def test_a_missing_extra_is_one_line(tmp_path, monkeypatch, module, name, feature):
    from singletable._extras import MissingExtra

    monkeypatch.setitem(__import__("sys").modules, module, None)
    with pytest.raises(MissingExtra) as missing:
        table_definitions(write(tmp_path, name, "Resources: {}"))
    assert str(missing.value) == f"{feature} needs the 'testing' extra: pip install 'singletable[testing]'"
