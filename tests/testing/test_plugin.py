"""The pytest plugin, run by pytest itself (pytester) on small test files: each fixture, each table source
and seed format, per-test isolation, xdist, the server fixture, and the failures a user can cause."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]

TEMPLATE = """\
Parameters:
  Env: {Type: String, Default: unit}
Resources:
  Orders:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: !Sub "orders-${Env}"
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions:
        - {AttributeName: pk, AttributeType: S}
        - {AttributeName: status, AttributeType: S}
      KeySchema: [{AttributeName: pk, KeyType: HASH}]
      GlobalSecondaryIndexes:
        - IndexName: byStatus
          KeySchema: [{AttributeName: status, KeyType: HASH}]
          Projection: {ProjectionType: ALL}
  Users:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: !Ref UsersTable
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions: [{AttributeName: id, AttributeType: S}]
      KeySchema: [{AttributeName: id, KeyType: HASH}]
"""

SEED = "".join(
    json.dumps({"pk": {"S": f"o{i}"}, "status": {"S": "open" if i % 2 else "done"}}) + "\n" for i in range(10)
)

TERRAFORM = """\
variable "env" {
  default = "unit"
}
resource "aws_dynamodb_table" "things" {
  name         = "things-${var.env}"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
}
"""

DESIGN = """\
from singletable.model import Entity, Keys, Table

table = Table("shop", pk="PK", sk="SK")


class Customer(Entity, table=table):
    keys = Keys(PK="CUSTOMER#{id}", SK="PROFILE")
    id: str
    name: str
"""


@pytest.fixture
def project(pytester, monkeypatch):
    """A pytester project that loads the plugin explicitly (and no other installed plugin)."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    (pytester.path / "template.yaml").write_text(TEMPLATE.replace("!Ref UsersTable", "!Sub users-${Env}"))
    (pytester.path / "orders.jsonl").write_text(SEED)
    (pytester.path / "main.tf").write_text(TERRAFORM)
    (pytester.path / "shopdesign.py").write_text(DESIGN)
    pytester.makeini(
        """
        [pytest]
        singletable_tables = template.yaml
        singletable_seed = orders-unit=orders.jsonl
        singletable_design = shopdesign
        """
    )
    return pytester


def run(pytester, *args):
    """An inner pytest session in this process: the plugin is loaded by name (``-p``) either way, and a
    subprocess would spend most of its time importing what this process has imported already. The xdist
    test runs in a subprocess (its workers are processes of their own). Each inner test file is named
    ``test_inner_*``: in one process a name shared with one of this suite's modules would not import."""
    return pytester.runpytest_inprocess("-p", "singletable_pytest", "-p", "no:cacheprovider", *args)


def test_each_fixture_with_a_cloudformation_template_and_seed(project):
    project.makepyfile(
        test_inner_app="""
        import boto3

        def test_client_sees_tables_and_seed(dynamodb_client, dynamodb):
            names = dynamodb_client.list_tables()["TableNames"]
            assert sorted(names) == ["orders-unit", "shop", "users-unit"]
            found = dynamodb_client.query(
                TableName="orders-unit", IndexName="byStatus", KeyConditionExpression="#s = :s",
                ExpressionAttributeNames={"#s": "status"}, ExpressionAttributeValues={":s": {"S": "open"}},
            )
            assert found["Count"] == 5
            assert dynamodb.calls("Scan") == []
            (query,) = dynamodb.calls("Query")
            assert (query.table, query.index, query.capacity_units) == ("orders-unit", "byStatus", 0.5)

        def test_resource(dynamodb_resource):
            assert len(dynamodb_resource.Table("orders-unit").scan()["Items"]) == 10

        def test_engine(dynamodb_engine, dynamodb):
            assert dynamodb.engine is dynamodb_engine
            assert dynamodb_engine.scan(TableName="orders-unit")["Count"] == 10

        def test_any_client_the_code_makes(dynamodb):
            boto3.client("dynamodb").put_item(TableName="users-unit", Item={"id": {"S": "u1"}})
            assert dynamodb.engine.scan(TableName="users-unit")["Count"] == 1

        def test_model_db(singletable_db):
            from shopdesign import Customer
            singletable_db.put(Customer(id="c1", name="Ada"))
            assert singletable_db.get(Customer, id="c1").name == "Ada"
        """
    )
    result = run(project)
    result.assert_outcomes(passed=5)


def test_each_test_gets_its_own_copy(project):
    project.makepyfile(
        test_inner_isolation="""
        import pytest

        @pytest.mark.parametrize("n", range(6))
        def test_write_is_invisible_to_the_next(dynamodb_client, n):
            count = dynamodb_client.scan(TableName="orders-unit", Select="COUNT")["Count"]
            assert count == 10
            dynamodb_client.put_item(TableName="orders-unit", Item={"pk": {"S": f"new{n}"}})
            dynamodb_client.delete_item(TableName="orders-unit", Key={"pk": {"S": "o1"}})
        """
    )
    run(project).assert_outcomes(passed=6)


def test_marker_names_other_sources_terraform_describe_and_export(project, tmp_path):
    from singletable.data import Target, export_table
    from singletable.engine import Engine

    engine = Engine(":memory:")
    engine.create_table(
        TableName="described",
        BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
    )
    (project.path / "describe.json").write_text(
        json.dumps(engine.describe_table(TableName="described"), default=str)
    )
    for i in range(3):
        engine.put_item(TableName="described", Item={"k": {"S": str(i)}})
    export_table(Target("e", engine=engine), "described", project.path / "export")
    project.makepyfile(
        test_inner_marker="""
        import pytest

        @pytest.mark.singletable(tables=["main.tf", "describe.json"], seed=["described=export"])
        def test_terraform_and_described(dynamodb_client):
            assert sorted(dynamodb_client.list_tables()["TableNames"]) == ["described", "shop", "things-unit"]
            assert dynamodb_client.scan(TableName="described")["Count"] == 3

        @pytest.mark.singletable(tables=[], seed=[], design=None)
        def test_nothing(dynamodb_client):
            assert dynamodb_client.list_tables()["TableNames"] == []
        """
    )
    run(project).assert_outcomes(passed=2)


def test_with_xdist_each_worker_builds_its_own(project):
    project.makepyfile(
        test_inner_parallel="""
        import os
        import pytest

        @pytest.mark.parametrize("n", range(8))
        def test_isolated_in_each_worker(dynamodb_client, n):
            assert os.environ.get("PYTEST_XDIST_WORKER")
            assert dynamodb_client.scan(TableName="orders-unit", Select="COUNT")["Count"] == 10
            dynamodb_client.put_item(TableName="orders-unit", Item={"pk": {"S": f"x{n}"}})
        """
    )
    result = project.runpytest_subprocess(
        "-p", "singletable_pytest", "-p", "no:cacheprovider", "-p", "xdist.plugin", "-n", "2"
    )
    result.assert_outcomes(passed=8)


def test_dynamodb_server_for_subprocesses(project):
    project.makepyfile(
        test_inner_server="""
        import os, subprocess, sys

        def test_a_subprocess_reaches_it(dynamodb_server):
            assert os.environ["AWS_ENDPOINT_URL_DYNAMODB"] == dynamodb_server.endpoint
            code = "import boto3; print(sorted(boto3.client('dynamodb').list_tables()['TableNames']))"
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
            assert out.stdout.strip() == "['orders-unit', 'shop', 'users-unit']", out.stderr
            assert dynamodb_server.client().scan(TableName="orders-unit")["Count"] == 10

        def test_another_test_shares_the_server(dynamodb_server):
            assert dynamodb_server.client().scan(TableName="orders-unit")["Count"] == 10
        """
    )
    project.makeconftest(
        """
        import os

        def pytest_unconfigure(config):
            with open("after-session.txt", "w") as out:
                out.write(os.environ.get("AWS_ENDPOINT_URL_DYNAMODB", "absent"))
        """
    )
    run(project).assert_outcomes(passed=2)
    assert (project.path / "after-session.txt").read_text() == "absent"


# One process answering calls line by line (``[operation, params]`` in, the response or the error code out):
# a boto3 client made from the environment, as any tool a test starts would make one.
SUBPROCESS_CALLS = """\
import json, sys, boto3
from botocore.config import Config
from botocore.exceptions import ClientError
client = boto3.client("dynamodb", config=Config(retries={"total_max_attempts": 1}))
for line in sys.stdin:
    operation, params = json.loads(line)
    try:
        print(json.dumps(getattr(client, operation)(**params), default=str), flush=True)
    except ClientError as error:
        print(json.dumps(error.response["Error"]["Code"]), flush=True)
"""


def test_dynamodb_server_answers_from_the_tests_engine_faults_clock_and_calls(project):
    """A subprocess reaches the test's own engine through the server: what the test wrote, its injected
    faults, its clock, its calls(); between tests, the server's own copy of the session's tables."""
    (project.path / "calls.py").write_text(SUBPROCESS_CALLS)
    project.makepyfile(
        test_inner_server_engine="""
        import json, subprocess, sys
        import pytest

        KEY = {"pk": {"S": "new"}}

        @pytest.fixture(scope="module")
        def caller(dynamodb_server):
            process = subprocess.Popen([sys.executable, "calls.py"], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, text=True)
            yield process
            process.stdin.close()
            assert process.wait(60) == 0

        @pytest.fixture
        def call(caller):
            def call_(operation, **params):
                caller.stdin.write(json.dumps([operation, params]) + "\\n")
                caller.stdin.flush()
                return json.loads(caller.stdout.readline())
            return call_

        def test_faults_clock_and_calls(dynamodb, dynamodb_server, dynamodb_faults, dynamodb_clock, call):
            dynamodb.engine.put_item(TableName="orders-unit", Item=KEY)
            assert call("get_item", TableName="orders-unit", Key=KEY)["Item"] == KEY
            dynamodb_faults.throttle("GetItem", table="orders-unit")
            throttled = "ProvisionedThroughputExceededException"
            assert call("get_item", TableName="orders-unit", Key=KEY) == throttled
            assert [attempt.fault for attempt in dynamodb_faults.attempts("GetItem")] == [None, throttled]
            dynamodb_clock.set(dynamodb_clock.now().replace(year=2001))
            created = call("create_table", TableName="dated", BillingMode="PAY_PER_REQUEST",
                           KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
                           AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}])
            assert created["TableDescription"]["CreationDateTime"].startswith("2001-")
            assert [c.operation for c in dynamodb.calls()] == ["GetItem", "CreateTable"]
            assert "dated" in dynamodb.engine.list_tables()["TableNames"]

        def test_between_tests_it_answers_from_its_own_copy(dynamodb_server, call):
            assert "Item" not in call("get_item", TableName="orders-unit", Key=KEY)
            assert call("scan", TableName="orders-unit", Select="COUNT")["Count"] == 10
            assert "dated" not in call("list_tables")["TableNames"]
        """
    )
    run(project).assert_outcomes(passed=2)


def test_a_bad_source_fails_the_test_with_one_line(project):
    (project.path / "broken.yaml").write_text("Resources:\n  T:\n    Type: AWS::DynamoDB::Table\n")
    project.makepyfile(
        test_inner_broken="""
        import pytest

        @pytest.mark.singletable(tables=["broken.yaml"], seed=[])
        def test_it(dynamodb):
            pass

        @pytest.mark.singletable(seed=["nope=orders.jsonl"])
        def test_seed(dynamodb):
            pass

        @pytest.mark.singletable(design=None)
        def test_db(singletable_db):
            pass
        """
    )
    result = run(project)
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(
        [
            "*singletable: *broken.yaml: T: missing KeySchema*",
            "*singletable: seed *nope=*: no table nope*",
            "*singletable_db needs a design*",
        ]
    )


def test_loading_the_plugin_imports_neither_boto3_nor_the_engine():
    code = (
        "import sys, singletable_pytest; "
        "print(sorted(m for m in sys.modules if m.startswith(('boto', 'singletable.'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"


def test_registered_through_pytest11():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["entry-points"]["pytest11"] == {"singletable": "singletable_pytest"}
    assert "pyyaml>=6" in project["optional-dependencies"]["testing"]
