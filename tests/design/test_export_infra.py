"""``synth --format cloudformation|terraform|cdk``: the CreateTable the design sends,
as CloudFormation YAML checked by cfn-lint, Terraform HCL parsed by python-hcl2 (and ``terraform fmt``, and
``terraform validate`` where the AWS provider can be installed), and a CDK app compiled, and synthesized
and compared with the CloudFormation export where aws-cdk-lib is installed -- on the five seeds and the
tracker."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import shutil
import subprocess
import sys

import hcl2
import pytest
import yaml
from cfnlint.api import ManualArgs, lint_by_config
from click.testing import CliRunner
from design_support import DESIGNS, SEEDS, TRACKER, table_of
from hypothesis import example, given, settings
from hypothesis import strategies as st

from draws import examples
from serving import run_cli
from singletable._cli import main
from singletable.design import (
    cloudformation_template,
    export_design,
    to_cdk,
    to_cloudformation,
    to_terraform,
)
from singletable.design._cloudformation import yaml_text as _yaml_text
from singletable.model import DeclarationError, Entity, Keys, Table, connect


@pytest.fixture(scope="module")
def cloudformation_files(tmp_path_factory):
    root = tmp_path_factory.mktemp("cfn")
    files = {}
    for name in DESIGNS:
        files[name] = root / f"{name}.yaml"
        files[name].write_text(to_cloudformation(table_of(name)))
    return files


@pytest.fixture(scope="module")
def cfn_lint_findings(cloudformation_files):
    """What cfn-lint finds in each export and in ``broken.yaml`` (the tracker's export without its key
    schema), by file: one linter run over them all, as ``cfn-lint a.yaml b.yaml`` (each run loads every rule
    and the resource schemas first, which cost more than linting a template)."""
    broken = to_cloudformation(table_of("tracker")).replace("      KeySchema:", "      KeySchemaX:", 1)
    paths = [
        *cloudformation_files.values(),
        next(iter(cloudformation_files.values())).with_name("broken.yaml"),
    ]
    paths[-1].write_text(broken)
    findings = {path.name: [] for path in paths}
    for match in lint_by_config(ManualArgs(templates=[str(path) for path in paths])):
        findings[os.path.basename(match.filename)].append(str(match))
    return findings


def test_cfn_lint_finds_nothing_in_any_export(cfn_lint_findings, cloudformation_files):
    for path in cloudformation_files.values():
        assert cfn_lint_findings[path.name] == []


def test_cfn_lint_would_find_a_mistake(cfn_lint_findings):
    """The check can fail: the same linter run on the tracker's export without its key schema."""
    assert any("E3003" in match for match in cfn_lint_findings["broken.yaml"])


@pytest.mark.parametrize("name", list(DESIGNS))
def test_the_yaml_reads_back_as_the_template(cloudformation_files, name):
    assert yaml.safe_load(cloudformation_files[name].read_text()) == cloudformation_template(table_of(name))


def _properties(name):
    template = cloudformation_template(table_of(name))
    (resource,) = template["Resources"].values()
    assert resource["Type"] == "AWS::DynamoDB::Table"
    assert resource["DeletionPolicy"] == resource["UpdateReplacePolicy"] == "Retain"
    return template, resource["Properties"]


def test_a_name_from_one_environment_variable_is_the_table_name_parameter():
    template, properties = _properties("wavyblog")
    assert template["Parameters"] == {
        "TableName": {
            "Type": "String",
            "Default": "WavyBlog",
            "Description": "The table name; the design reads it from the environment variable DYNAMODB_TABLE",
        }
    }
    assert properties["TableName"] == {"Ref": "TableName"}
    assert list(template["Resources"]) == ["WavyBlogTable"]


def test_a_name_template_becomes_fn_sub_over_one_parameter_per_variable():
    template, properties = _properties("blog_api")
    assert properties["TableName"] == {"Fn::Sub": "${StackName}-${Environment}-blog"}
    assert {k: v["Default"] for k, v in template["Parameters"].items()} == {
        "StackName": "blog-api",
        "Environment": "dev",
    }


def test_only_key_attributes_are_defined_and_projections_are_kept():
    _, properties = _properties("hustlehub")
    defined = [a["AttributeName"] for a in properties["AttributeDefinitions"]]
    assert defined == ["PK", "SK"] + [f"GSI{i}{k}" for i in range(1, 5) for k in ("PK", "SK")]
    projections = {i["IndexName"]: i["Projection"] for i in properties["GlobalSecondaryIndexes"]}
    assert projections["GSI1-UserEmailIndex"] == {"ProjectionType": "KEYS_ONLY"}
    assert projections["GSI4-SlugLookupIndex"] == {
        "ProjectionType": "INCLUDE",
        "NonKeyAttributes": ["entityType", "catId", "listingId", "verified", "createdAt"],
    }


def test_a_numeric_index_key_is_defined_as_a_number():
    _, properties = _properties("fus_main")
    assert {"AttributeName": "starRating", "AttributeType": "N"} in properties["AttributeDefinitions"]


@pytest.mark.parametrize("name", list(SEEDS))
def test_seeds_have_on_demand_billing_and_no_ttl_stream_or_lsi(name):
    _, properties = _properties(name)
    assert properties["BillingMode"] == "PAY_PER_REQUEST"
    for absent in ("ProvisionedThroughput", "TimeToLiveSpecification", "StreamSpecification"):
        assert absent not in properties
    assert "LocalSecondaryIndexes" not in properties


def test_the_tracker_has_its_ttl_stream_lsi_and_capacity():
    template, properties = _properties("tracker")
    assert properties["TimeToLiveSpecification"] == {"AttributeName": "expiresAt", "Enabled": True}
    assert properties["StreamSpecification"] == {"StreamViewType": "NEW_AND_OLD_IMAGES"}
    assert properties["ProvisionedThroughput"] == {"ReadCapacityUnits": 10, "WriteCapacityUnits": 5}
    (gsi,) = properties["GlobalSecondaryIndexes"]
    assert gsi["ProvisionedThroughput"] == {"ReadCapacityUnits": 10, "WriteCapacityUnits": 5}
    assert gsi["Projection"] == {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["title", "status"]}
    (lsi,) = properties["LocalSecondaryIndexes"]
    assert lsi == {
        "IndexName": "byPriority",
        "KeySchema": [
            {"AttributeName": "PK", "KeyType": "HASH"},
            {"AttributeName": "priority", "KeyType": "RANGE"},
        ],
        "Projection": {"ProjectionType": "KEYS_ONLY"},
    }
    assert template["Outputs"]["StreamArn"] == {"Value": {"Fn::GetAtt": ["TrackerTable", "StreamArn"]}}


def test_entities_that_expire_in_different_attributes_are_refused_at_declaration():
    """DynamoDB has one TTL attribute per table; the model refuses the second one, so no export sees it."""
    table = Table(name="two-ttls")

    class Session(Entity, table=table, type="SESSION", ttl="ends"):
        id: str
        ends: __import__("datetime").datetime
        keys = Keys(PK="S#{id}", SK="S")

    with pytest.raises(DeclarationError) as error:

        class Token(Entity, table=table, type="TOKEN", ttl="expires"):
            id: str
            expires: __import__("datetime").datetime
            keys = Keys(PK="T#{id}", SK="T")

    assert str(error.value) == (
        "entities keep their expiry in different attributes: ends (Session); expires (Token); DynamoDB has "
        "one TTL attribute per table: store every ttl field under one name, or declare "
        "Table(ttl_attribute=...)"
    )
    (resource,) = yaml.safe_load(to_cloudformation(table))["Resources"].values()
    assert resource["Properties"]["TimeToLiveSpecification"] == {"AttributeName": "ends", "Enabled": True}


def test_a_table_stream_is_declared_checked_and_created(tmp_path):
    with pytest.raises(DeclarationError) as error:
        Table(name="x", stream="NEW")
    assert str(error.value) == (
        "stream must be one of KEYS_ONLY, NEW_IMAGE, OLD_IMAGE, NEW_AND_OLD_IMAGES, not 'NEW'"
    )
    table = table_of("tracker")
    assert table.describe()["table"]["stream"] == "NEW_AND_OLD_IMAGES"
    with connect(table, str(tmp_path / "t.db")) as db:
        db.ensure_table()
        described = db.call("DescribeTable", {"TableName": db.table_name})["Table"]
    assert described["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}


# -- Terraform -------------------------------------------------------------------------------------------


def _plain(value):
    """python-hcl2's tree with its quotes and block markers taken off: ``'"PK"'`` -> ``'PK'``."""
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items() if k != "__is_block__"}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, str) and len(value) > 1 and value[0] == value[-1] == '"':
        return value[1:-1]
    return value


def _resource(name):
    parsed = _plain(hcl2.loads(to_terraform(table_of(name))))
    (resources,) = parsed["resource"]
    ((label, body),) = resources["aws_dynamodb_table"].items()
    return parsed, label, body


@pytest.mark.parametrize("name", list(DESIGNS))
def test_terraform_parses_and_matches_the_create_table_request(name):
    _, _, body = _resource(name)
    params = table_of(name).create_table_params()
    assert body["hash_key"] == params["KeySchema"][0]["AttributeName"]
    assert [(a["name"], a["type"]) for a in body["attribute"]] == [
        (a["AttributeName"], a["AttributeType"]) for a in params["AttributeDefinitions"]
    ]
    gsis = [i["name"] for i in body.get("global_secondary_index", [])]
    assert gsis == [i["IndexName"] for i in params.get("GlobalSecondaryIndexes", [])]
    assert ("ttl" in body) == (name == "tracker")


def test_terraform_of_the_tracker_and_of_a_name_template():
    parsed, label, body = _resource("tracker")
    assert label == "tracker"
    assert body["name"] == "${var.table_name}"
    assert [v["table_name"]["default"] for v in parsed["variable"]] == ["tracker"]
    assert body["stream_enabled"] is True and body["stream_view_type"] == "NEW_AND_OLD_IMAGES"
    assert (body["read_capacity"], body["write_capacity"]) == (10, 5)
    (lsi,) = body["local_secondary_index"]
    assert (lsi["range_key"], lsi["projection_type"]) == ("priority", "KEYS_ONLY")
    assert body["global_secondary_index"][0]["non_key_attributes"] == ["title", "status"]
    assert [(t["attribute_name"], t["enabled"]) for t in body["ttl"]] == [("expiresAt", True)]
    _, _, blog = _resource("blog_api")
    assert blog["name"] == "${var.stack_name}-${var.environment}-blog"


needs_terraform = pytest.mark.skipif(shutil.which("terraform") is None, reason="terraform is not on PATH")


@needs_terraform
def test_terraform_fmt_leaves_every_export_as_it_is(tmp_path):
    for name in DESIGNS:
        (tmp_path / f"{name}.tf").write_text(to_terraform(table_of(name)))
    fmt = subprocess.run(
        ["terraform", "fmt", "-check", "-diff", str(tmp_path)], capture_output=True, text=True
    )
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr


@needs_terraform
def test_terraform_validate_where_the_aws_provider_installs(tmp_path):
    (tmp_path / "main.tf").write_text(to_terraform(table_of("tracker")))
    init = subprocess.run(
        ["terraform", "init", "-backend=false", "-input=false", "-no-color"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if init.returncode != 0:
        reason = next((line for line in init.stderr.splitlines() if "registry" in line), init.stderr[-200:])
        pytest.skip(f"terraform init cannot install the hashicorp/aws provider here: {reason.strip()}")
    validate = subprocess.run(
        ["terraform", "validate", "-no-color"], cwd=tmp_path, capture_output=True, text=True
    )
    assert validate.returncode == 0, validate.stdout + validate.stderr


# -- CDK -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(DESIGNS))
def test_the_cdk_app_compiles_to_one_stack_with_one_cfn_table(name):
    tree = ast.parse(to_cdk(table_of(name)))
    (stack,) = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    assert [ast.unparse(base) for base in stack.bases] == ["cdk.Stack"]
    calls = [ast.unparse(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)]
    assert calls.count("dynamodb.CfnTable") == 1
    assert "table.override_logical_id" in calls and "app.synth" in calls


def _cdk_installed() -> bool:
    """Found, not imported: importing aws_cdk starts its node runtime in the test process."""
    return importlib.util.find_spec("aws_cdk") is not None and shutil.which("node") is not None


@pytest.mark.skipif(
    not _cdk_installed(), reason="aws-cdk-lib (and node) not installed: the apps are AST-checked only"
)
def test_cdk_synth_gives_the_cloudformation_export(tmp_path):
    """All six apps in one process, so the jsii runtime starts once (about 15 s of CPU); each stack has
    its own name, so their templates sit side by side in one output directory."""
    script = ["import runpy"]
    stacks = {}
    for name in DESIGNS:
        source = to_cdk(table_of(name))
        stacks[name] = next(n.name for n in ast.parse(source).body if isinstance(n, ast.ClassDef))
        (tmp_path / f"{name}_app.py").write_text(source)
        script.append(f"runpy.run_path({str(tmp_path / f'{name}_app.py')!r})")
    env = {
        **os.environ,
        "CDK_OUTDIR": str(tmp_path / "out"),
        "JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION": "1",
        "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "1",
    }
    synth = subprocess.run(
        [sys.executable, "-c", "\n".join(script)], capture_output=True, text=True, env=env, timeout=600
    )
    assert synth.returncode == 0, synth.stderr[-2000:]
    for name, stack in stacks.items():
        synthesized = json.loads((tmp_path / "out" / f"{stack}.template.json").read_text())
        exported = cloudformation_template(table_of(name))
        synthesized["Parameters"].pop("BootstrapVersion")
        if not synthesized["Parameters"]:
            del synthesized["Parameters"]
        for key in ("Description", "Parameters", "Resources", "Outputs"):
            assert synthesized.get(key) == exported.get(key), (name, key)


# -- the command line ------------------------------------------------------------------------------------


def _deprecation(format_: str) -> str:
    return (
        f"`singletable export --format {format_}` is now `singletable synth MODULE --format {format_}`; "
        "the old spelling will be removed\n"
    )


@pytest.mark.parametrize("format_", ["cloudformation", "terraform", "cdk"])
def test_synth_prints_the_design_or_writes_it(tmp_path, format_):
    runner = CliRunner()
    printed = runner.invoke(main, ["synth", SEEDS["wavyblog"], "--format", format_])
    assert printed.exit_code == 0, printed.output
    assert printed.stdout == export_design(SEEDS["wavyblog"], format_) and printed.stderr == ""
    dashed = runner.invoke(main, ["synth", SEEDS["wavyblog"], "-", "--format", format_])
    assert dashed.exit_code == 0 and dashed.stdout == printed.stdout
    written = runner.invoke(main, ["synth", TRACKER, str(tmp_path / "out.txt"), "--format", format_])
    assert written.exit_code == 0 and written.stdout == ""
    assert written.stderr == f"wrote the {format_} export of {TRACKER} to {tmp_path / 'out.txt'}\n"
    assert (tmp_path / "out.txt").read_text() == export_design(TRACKER, format_)


@pytest.mark.parametrize("format_", ["cloudformation", "terraform", "cdk", "workbench"])
def test_the_old_export_spelling_does_what_synth_does_after_one_deprecation_line(tmp_path, format_):
    runner = CliRunner()
    module = SEEDS["blog_api"]
    synth = runner.invoke(main, ["synth", module, "--format", format_])
    old = runner.invoke(main, ["export", module, "--format", format_])
    assert old.exit_code == synth.exit_code == 0, old.output
    assert old.stdout == synth.stdout
    assert old.stderr == _deprecation(format_) + synth.stderr
    assert old.stderr.count("synth") == 1
    written = runner.invoke(main, ["export", module, str(tmp_path / "out"), "--format", format_])
    assert written.exit_code == 0 and written.stdout == ""
    assert written.stderr.splitlines()[0] == _deprecation(format_).rstrip("\n")
    assert (tmp_path / "out").read_text() == synth.stdout


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            ["a", "b", "c", "--format", "terraform"],
            "--format terraform takes MODULE [DESTINATION], not 3 arguments",
        ),
        (["--format", "cdk"], "--format cdk takes MODULE [DESTINATION], not 0 arguments"),
        (
            ["app.db", "t"],
            "export takes TARGET TABLE DESTINATION, not 2 arguments; for a design module: "
            "singletable synth MODULE [DESTINATION] --format cloudformation|terraform|cdk|workbench",
        ),
        (
            [SEEDS["places"]],
            "export takes TARGET TABLE DESTINATION, not 1 argument; for a design module: "
            "singletable synth MODULE [DESTINATION] --format cloudformation|terraform|cdk|workbench",
        ),
        (["a", "b", "c", "d"], "export takes TARGET TABLE DESTINATION, not 4 arguments"),
    ],
)
def test_a_wrong_number_of_arguments_is_a_usage_error_naming_the_forms(arguments, message):
    result = CliRunner().invoke(main, ["export", *arguments])
    assert result.exit_code == 2
    assert result.stderr.endswith(f"Error: {message}\n")
    assert "Usage: " in result.stderr and " export [OPTIONS] TARGET TABLE DESTINATION" in result.stderr


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["synth", SEEDS["places"]], "Missing option '--format'"),
        (["synth", "--format", "cdk"], "Missing argument 'MODULE'"),
        (["synth", "a", "b", "c", "--format", "cdk"], "Got unexpected extra argument (c)"),
        (["synth", "a", "--format", "jsonl"], "'jsonl' is not one of 'cloudformation', 'terraform', 'cdk'"),
        (["synth", "a", "--format", "cdk", "--json"], "No such option '--json'"),
        (["export", "a", "b", "c", "--format", "yaml"], "'yaml' is not one of 'dynamodb', 'jsonl', 'csv'."),
    ],
)
def test_synth_and_export_refuse_what_is_not_theirs(arguments, message):
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 2 and message in result.stderr, result.stderr
    if "Missing option" not in message:  # click lists the choices of a missing option, one a line
        assert result.stderr.count("\n") == 4  # click's usage, its hint, a blank line and one Error line


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            [SEEDS["places"], "--format", "cdk", "--json"],
            "--json: only for a table's items, not --format cdk",
        ),
        (
            [SEEDS["places"], "--format", "terraform", "--plain", "--segments", "4"],
            "--plain, --segments: only for a table's items, not --format terraform",
        ),
        (
            ["app.db", "t", "out.jsonl", "--without-lsi"],
            "--without-lsi: only for singletable synth --format workbench",
        ),
    ],
)
def test_an_option_of_the_other_form_is_a_usage_error(arguments, message):
    result = CliRunner().invoke(main, ["export", *arguments])
    assert result.exit_code == 2 and result.stderr.endswith(f"Error: {message}\n")


def test_the_help_of_each_names_its_own_formats():
    export_help = CliRunner().invoke(main, ["export", "--help"], prog_name="singletable").stdout
    assert "Usage: singletable export [OPTIONS] TARGET TABLE DESTINATION" in export_help
    assert "[dynamodb|jsonl|csv]" in export_help
    assert "singletable synth" in export_help
    for word in ("cloudformation", "terraform", "cdk", "workbench", "lsi", "MODULE"):
        assert word not in export_help.lower().replace("module is", ""), word
    synth_help = CliRunner().invoke(main, ["synth", "--help"], prog_name="singletable").stdout
    assert "Usage: singletable synth [OPTIONS] MODULE [DESTINATION]" in synth_help
    assert "[cloudformation|terraform|cdk|workbench]" in synth_help and "--without-lsi" in synth_help
    listing = CliRunner().invoke(main, ["--help"]).stdout
    assert "synth             A design as CloudFormation, Terraform, CDK or Workbench." in listing
    assert "export            A table's items to S3 export layout, JSON Lines or CSV." in listing


@pytest.mark.parametrize("command", [["synth"], ["export"]])
def test_a_design_that_does_not_load_is_one_line_and_exit_1(command):
    result = CliRunner().invoke(main, [*command, "no_such_design_module", "--format", "cloudformation"])
    assert result.exit_code == 1
    assert result.stderr.endswith(
        "Error: cannot import design module no_such_design_module: ModuleNotFoundError: "
        "No module named 'no_such_design_module'\n"
    )
    assert result.stderr.count("\n") == (1 if command == ["synth"] else 2)


def test_synth_as_a_user_runs_it():
    result = run_cli("synth", SEEDS["places"], "--format", "terraform")
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout == to_terraform(table_of("places"))


def test_the_old_spelling_as_a_user_runs_it():
    result = run_cli("export", SEEDS["places"], "--format", "terraform")
    assert result.returncode == 0 and result.stderr == _deprecation("terraform")
    assert result.stdout == to_terraform(table_of("places"))


# -- the YAML emitter, on anything a template may hold ---------------------------------------------------

_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=20)
_scalars = st.one_of(_text, st.integers(-(10**12), 10**12), st.booleans())
_documents = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_text, inner, max_size=4)),
    max_leaves=20,
)


@settings(max_examples=examples(100), deadline=None)
@given(st.dictionaries(_text, _documents, max_size=5))
@example({"": ["A:"]})  # a text ending in ":" read back as a key when left unquoted
@example({"Description": "Patterns:", "Fn::Sub": "a:b"})
def test_the_yaml_emitter_writes_what_a_yaml_parser_reads_back(document):
    assert yaml.safe_load(_yaml_text(document)) == document
