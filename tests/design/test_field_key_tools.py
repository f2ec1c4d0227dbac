"""The design tools on a design with a GSI keyed by fields (a multi-attribute key, ``field_key_design.py``):
synth writes its KeySchema in every format that can hold it (cfn-lint, python-hcl2, ``terraform fmt``, the
CDK app's AST) and Workbench refuses it; diff finds a table the design created equal, and an index whose
key lost an attribute different; docs draws its partitions by every key attribute; cost measures its writes
on the engine. DynamoDB Local 1.25.1 cannot create such a table: diff's test skips it there, saying so."""

from __future__ import annotations

import ast
import itertools
import json
import os
import shutil
import subprocess
from pathlib import Path

import hcl2
import pytest
import yaml
from cfnlint.api import lint_file
from click.testing import CliRunner

from singletable._cli import main
from singletable.data import load_design, open_target
from singletable.design import (
    DesignExportError,
    diff_table,
    to_cdk,
    to_cloudformation,
    to_terraform,
    workbench_model,
)

DESIGN = str(Path(__file__).with_name("field_key_design.py"))
KEY_SCHEMA = [
    {"AttributeName": "tenant", "KeyType": "HASH"},
    {"AttributeName": "status", "KeyType": "HASH"},
    {"AttributeName": "priority", "KeyType": "RANGE"},
    {"AttributeName": "openedAt", "KeyType": "RANGE"},
]
_names = itertools.count()


def _table():  # type: ignore[no-untyped-def]
    return load_design(DESIGN).table


def test_cloudformation_lists_every_key_attribute_and_lints_clean(tmp_path: Path) -> None:
    path = tmp_path / "helpdesk.yaml"
    path.write_text(to_cloudformation(_table()))
    assert [str(match) for match in lint_file(path)] == []
    (resource,) = yaml.safe_load(path.read_text())["Resources"].values()
    gsis = {g["IndexName"]: g for g in resource["Properties"]["GlobalSecondaryIndexes"]}
    assert gsis["byTenantStatus"]["KeySchema"] == KEY_SCHEMA
    definitions = {
        d["AttributeName"]: d["AttributeType"] for d in resource["Properties"]["AttributeDefinitions"]
    }
    assert [definitions[a] for a in ("tenant", "status", "priority", "openedAt")] == ["S", "S", "N", "S"]


def _plain(value):  # type: ignore[no-untyped-def]
    """python-hcl2 keeps string quotes on some versions: compare plain values."""
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, str) and len(value) > 1 and value[0] == value[-1] == '"':
        return value[1:-1]
    return value


def test_terraform_writes_a_key_schema_block_per_attribute() -> None:
    text = to_terraform(_table())
    parsed = _plain(hcl2.loads(text))
    (resources,) = parsed["resource"]
    ((_, body),) = resources["aws_dynamodb_table"].items()
    gsis = {g["name"]: g for g in body["global_secondary_index"]}
    multi = gsis["byTenantStatus"]
    assert "hash_key" not in multi and "range_key" not in multi
    assert [(k["attribute_name"], k["key_type"]) for k in multi["key_schema"]] == [
        (k["AttributeName"], k["KeyType"]) for k in KEY_SCHEMA
    ]
    assert (gsis["GSI1"]["hash_key"], gsis["GSI1"]["range_key"]) == (
        "GSI1PK",
        "GSI1SK",
    )  # one each: as before
    (terraform,) = parsed["terraform"]
    assert terraform["required_providers"][0]["aws"]["version"] == ">= 6.28"


@pytest.mark.skipif(shutil.which("terraform") is None, reason="terraform is not on PATH")
def test_terraform_fmt_leaves_it_as_it_is(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(to_terraform(_table()))
    fmt = subprocess.run(
        ["terraform", "fmt", "-check", "-diff", str(tmp_path)], capture_output=True, text=True
    )
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr


def test_the_cdk_app_passes_the_key_schema_through() -> None:
    tree = ast.parse(to_cdk(_table()))
    keys = [
        {k.arg: ast.literal_eval(k.value) for k in node.keywords}
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "dynamodb.CfnTable.KeySchemaProperty"
    ]
    as_schema = [{"AttributeName": k["attribute_name"], "KeyType": k["key_type"]} for k in keys]
    assert as_schema[2:6] == KEY_SCHEMA  # after the table's PK and SK


def test_workbench_refuses_what_its_model_cannot_hold() -> None:
    with pytest.raises(DesignExportError) as raised:
        workbench_model(_table())
    assert str(raised.value) == (
        "NoSQL Workbench models key an index on one partition and one sort attribute, and the design's GSI "
        "byTenantStatus on tenant, status / priority, openedAt keys on several: export it to cloudformation, "
        "terraform or cdk, which declare multi-attribute keys"
    )
    result = CliRunner().invoke(main, ["synth", DESIGN, "--format", "workbench"])
    assert result.exit_code != 0 and "byTenantStatus on tenant, status / priority, openedAt" in result.output


@pytest.fixture(params=["file", "serve", "reference"])
def live(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "file":
        return str(tmp_path / "live.db")
    server = {"serve": "http_server", "reference": "reference_server"}[request.param]
    return request.getfixturevalue(server).endpoint


def test_diff_finds_the_created_table_equal_and_a_lost_key_attribute(live: str) -> None:
    table = _table()
    name = f"fk-{os.getpid()}-{next(_names)}"
    params = table.create_table_params(name)
    with open_target(live) as target:
        try:
            target.call("CreateTable", **params)
        except Exception as error:
            if "reference" in live or "Key Schema too big" in str(error):
                pytest.skip(f"DynamoDB Local 1.25.1 has no multi-attribute GSI keys ({error})")
            raise
        assert diff_table(table, target, name) == []
        drifted = f"{name}-x"
        gsi = next(g for g in params["GlobalSecondaryIndexes"] if g["IndexName"] == "byTenantStatus")
        gsi["KeySchema"] = gsi["KeySchema"][:3]  # the live index lost openedAt
        params["AttributeDefinitions"] = [
            d for d in params["AttributeDefinitions"] if d["AttributeName"] != "openedAt"
        ]
        target.call("CreateTable", **{**params, "TableName": drifted})
        (difference,) = diff_table(table, target, drifted)
    assert (difference.kind, difference.subject) == ("index-keys", "byTenantStatus")
    assert difference.design == "HASH tenant (S), HASH status (S), RANGE priority (N), RANGE openedAt (S)"
    assert difference.table == "HASH tenant (S), HASH status (S), RANGE priority (N)"


def test_docs_draw_the_index_by_every_key_attribute(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["docs", DESIGN, "-o", str(tmp_path / "docs")])
    assert result.exit_code == 0, result.output
    readme = (tmp_path / "docs" / "README.md").read_text()
    assert "tenant (S), status (S)" in readme and "priority (N), openedAt (S)" in readme
    picture = (tmp_path / "docs" / "index-byTenantStatus.svg").read_text()
    assert "tenant, status / priority, openedAt" in picture
    assert " | " in picture  # a partition shown as its values joined


def test_cost_measures_writes_through_the_index(tmp_path: Path) -> None:
    profile = tmp_path / "traffic.toml"
    profile.write_text(
        '[patterns]\n"Ticket.by_status" = 100_000\n\n[entities.Ticket]\ncreates = 10_000\nupdates = 10_000\n'
        'update_field = "status"\nstored = 100_000\n'
    )
    result = CliRunner().invoke(main, ["cost", DESIGN, "--traffic", str(profile), "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["unmeasured"] == {}
    create = report["gsi_write_amplification"]["Ticket"]["create"]
    assert create["table"] == 1.0 and create["byTenantStatus"] == 1.0 and create["GSI1"] == 1.0


def test_recorded_traffic_names_a_hot_partition_by_every_attribute(tmp_path: Path) -> None:
    """ST703 on an index keyed on several attributes: the partition is the values of all of them."""
    from datetime import UTC, datetime

    from singletable.design import check
    from singletable.model import connect

    design = load_design(DESIGN)
    ticket = design.module.Ticket
    db = connect(design.table, ":memory:")
    db.create_table()
    db.create(ticket(tenant="t1", ticket_id="a", title="A", opened_at=datetime(2026, 1, 1, tzinfo=UTC)))
    with db.trace() as trace:
        for _ in range(24):
            list(db.query(ticket.by_status("t1", "open")))
    traffic = tmp_path / "trace.jsonl"
    trace.save(traffic)
    db.close()
    (hot,) = [f for f in check(DESIGN, traffic=traffic).findings if f.rule == "ST703"]
    assert hot.subject == "helpdesk index byTenantStatus key 't1' | 'open'"
    assert "24 of 24 requests (100%) used tenant, status = 't1' | 'open'" in hot.message
