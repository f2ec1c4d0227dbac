"""``singletable diff``: a design against its live table on a database file, a real
``singletable serve`` and DynamoDB Local -- nothing on a table the design created, and every kind of drift
found with its fix; exit codes 0 (same), 1 (different), 2 (cannot compare)."""

from __future__ import annotations

import itertools
import json
import os

import pytest
from click.testing import CliRunner
from design_support import DESIGNS, SEEDS, TRACKER, table_of

from serving import run_cli
from singletable._cli import main
from singletable.data import open_target
from singletable.design import Difference, diff_table
from singletable.engine import Engine
from singletable.model import connect

TARGETS = ["file", "serve", "reference"]
_names = itertools.count()


@pytest.fixture(scope="module", params=TARGETS)
def target(request, tmp_path_factory):
    if request.param == "file":
        return str(tmp_path_factory.mktemp("diff") / "live.db")
    server = {"serve": "http_server", "reference": "reference_server"}[request.param]
    return request.getfixturevalue(server).endpoint


def _name(design: str) -> str:
    return f"diff-{design}-{os.getpid()}-{next(_names)}"


def _created(table, target) -> str:
    name = _name(table.resolved_name())
    with connect(table, target, name=name) as db:
        db.ensure_table()
    return name


@pytest.mark.parametrize("design", list(DESIGNS))
def test_a_table_the_design_created_has_no_differences(target, design):
    table = table_of(design)
    assert diff_table(table, target, _created(table, target)) == []


def _create(target: str, **params) -> str:
    name = _name("drift")
    with open_target(target) as live:
        live.call("CreateTable", TableName=name, **params)
    return name


def _key(name, kind):
    return {"AttributeName": name, "KeyType": kind}


def _gsi(name, pk, sk=None, projection=None, throughput=None):
    index = {
        "IndexName": name,
        "KeySchema": [_key(pk, "HASH")] + ([_key(sk, "RANGE")] if sk else []),
        "Projection": projection or {"ProjectionType": "ALL"},
    }
    if throughput:
        index["ProvisionedThroughput"] = throughput
    return index


def _attributes(**types):
    return [{"AttributeName": a, "AttributeType": t} for a, t in types.items()]


def test_every_drift_of_a_blog_table_is_found_with_its_fix(target):
    capacity = {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}
    name = _create(
        target,
        KeySchema=[_key("PK", "HASH"), _key("SK", "RANGE")],
        AttributeDefinitions=_attributes(PK="S", SK="S", GSI1PK="S", GSI1SK="S", EntityType="S", legacy="S"),
        BillingMode="PROVISIONED",
        ProvisionedThroughput=capacity,
        GlobalSecondaryIndexes=[
            _gsi("GSI1", "GSI1PK", "GSI1SK", {"ProjectionType": "KEYS_ONLY"}, capacity),
            _gsi("GSI3", "EntityType", "PK", throughput=capacity),
            _gsi("legacy", "legacy", throughput=capacity),
        ],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"},
    )
    with open_target(target) as live:
        live.call(
            "UpdateTimeToLive",
            TableName=name,
            TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"},
        )
    found = diff_table(table_of("wavyblog"), target, name)
    rebuild = (
        "a GSI's keys and projection never change in place: create a new GSI with the design's definition, "
        "move readers to it, then delete this one"
    )
    assert found == [
        Difference(
            "billing",
            name,
            "PAY_PER_REQUEST",
            "PROVISIONED",
            "UpdateTable BillingMode=PAY_PER_REQUEST (allowed once per 24 hours)",
        ),
        Difference("projection", "GSI1", "ALL", "KEYS_ONLY", rebuild),
        Difference(
            "index-missing",
            "GSI2",
            "GSI HASH GSI2PK (S), RANGE GSI2SK (S)",
            "none",
            "UpdateTable GlobalSecondaryIndexUpdates Create (DynamoDB backfills it online)",
        ),
        Difference(
            "index-extra",
            "legacy",
            "none",
            "GSI HASH legacy (S)",
            "declare it in the design, or delete it (UpdateTable GlobalSecondaryIndexUpdates Delete)",
        ),
        Difference(
            "ttl",
            name,
            "off",
            "enabled on expires",
            "declare ttl_attribute='expires' (or an entity's ttl field), or disable TTL (UpdateTimeToLive)",
        ),
        Difference(
            "stream",
            name,
            "off",
            "NEW_IMAGE",
            "declare stream='NEW_IMAGE' in the design, or disable the stream (UpdateTable)",
        ),
    ]


def test_the_tracker_without_ttl_stream_and_with_other_capacity_and_key_types(target):
    small = {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}
    name = _create(
        target,
        KeySchema=[_key("PK", "HASH"), _key("SK", "RANGE")],
        AttributeDefinitions=_attributes(PK="S", SK="S", assigneePK="S", dueSK="S", priority="S"),
        BillingMode="PROVISIONED",
        ProvisionedThroughput=small,
        GlobalSecondaryIndexes=[
            _gsi(
                "myOpenIssues",
                "assigneePK",
                "dueSK",
                {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["status", "title"]},
                small,
            )
        ],
        LocalSecondaryIndexes=[_gsi("byPriority", "PK", "priority", {"ProjectionType": "KEYS_ONLY"})],
    )
    found = diff_table(table_of("tracker"), target, name)
    assert [(d.kind, d.subject, d.design, d.table) for d in found] == [
        ("attribute-type", name, "priority is N", "priority is S"),
        (
            "throughput",
            name,
            "ReadCapacityUnits 10, WriteCapacityUnits 5",
            "ReadCapacityUnits 5, WriteCapacityUnits 5",
        ),
        (
            "throughput",
            "myOpenIssues",
            "ReadCapacityUnits 10, WriteCapacityUnits 5",
            "ReadCapacityUnits 5, WriteCapacityUnits 5",
        ),
        ("index-keys", "byPriority", "HASH PK (S), RANGE priority (N)", "HASH PK (S), RANGE priority (S)"),
        ("ttl", name, "on expiresAt", "off"),
        ("stream", name, "NEW_AND_OLD_IMAGES", "off"),
    ]
    assert found[-2].fix == "UpdateTimeToLive Enabled=true AttributeName=expiresAt"


def test_another_key_schema_and_a_missing_table(target):
    name = _create(
        target,
        KeySchema=[_key("id", "HASH")],
        AttributeDefinitions=_attributes(id="S"),
        BillingMode="PAY_PER_REQUEST",
    )
    (key,) = [d for d in diff_table(table_of("places"), target, name) if d.kind == "key-schema"]
    assert (key.design, key.table) == ("HASH PK (S), RANGE SK (S)", "HASH id (S)")
    assert diff_table(table_of("places"), target, "no-such-table") == [
        Difference(
            "table-missing",
            "no-such-table",
            "a table",
            "none",
            "create it: singletable synth MODULE --format cloudformation",
        )
    ]


# -- the command line ------------------------------------------------------------------------------------


def test_the_command_says_the_answer_by_its_exit_code(tmp_path):
    db = str(tmp_path / "live.db")
    same = _created(table_of("blog_api"), db)
    runner = CliRunner()
    equal = runner.invoke(main, ["diff", SEEDS["blog_api"], db, "--table", same])
    assert equal.exit_code == 0
    assert equal.stdout == f"{same} on {db} matches the design\n"
    different = runner.invoke(main, ["diff", SEEDS["wavyblog"], db, "--table", same, "--json"])
    assert different.exit_code == 1
    shown = json.loads(different.stdout)
    assert (shown["table"], shown["target"], shown["equal"]) == (same, db, False)
    expected = diff_table(table_of("wavyblog"), db, same)
    assert shown["differences"] == [d.as_dict() for d in expected]
    assert [(d.kind, d.subject) for d in expected] == [
        ("index-missing", "GSI3"),
    ]
    rich = runner.invoke(main, ["diff", SEEDS["wavyblog"], db, "--table", same])
    assert rich.exit_code == 1
    assert rich.stdout.startswith(f"{same} on {db}: 1 difference from the design\n")
    assert rich.stdout.endswith(
        "\n  index-missing: GSI3\n    design: GSI HASH EntityType (S), RANGE PK (S)\n    table:  none\n"
        "    fix:    UpdateTable GlobalSecondaryIndexUpdates Create (DynamoDB backfills it online)\n"
    )


def test_what_cannot_be_compared_exits_2(tmp_path):
    runner = CliRunner()
    unknown = runner.invoke(main, ["diff", "no_such_design", str(tmp_path / "x.db")])
    assert unknown.exit_code == 2
    assert unknown.stderr == (
        "Error: cannot import design module no_such_design: ModuleNotFoundError: "
        "No module named 'no_such_design'\n"
    )
    missing = runner.invoke(main, ["diff", TRACKER, str(tmp_path / "x.db")])
    assert missing.exit_code == 2 and missing.stderr.startswith("Error: no such database file: ")
    assert not (tmp_path / "x.db").exists()  # comparing never creates (or changes) a file
    Engine(str(tmp_path / "x.db")).close()
    refused = runner.invoke(main, ["diff", TRACKER, str(tmp_path / "x.db"), "--table", "bad name!"])
    assert refused.exit_code == 2 and refused.stderr.startswith("Error: ValidationException: ")


def test_diff_as_a_user_runs_it(tmp_path):
    db = str(tmp_path / "live.db")
    name = _created(table_of("fus_main"), db)
    # A drift exits 1 from a real process; a match exits 0 in-process
    # (test_the_command_says_the_answer_by_its_exit_code).
    drifted = run_cli("diff", SEEDS["hustlehub"], db, "--table", name, "--json")
    assert (drifted.returncode, drifted.stderr) == (1, "")
    assert json.loads(drifted.stdout)["equal"] is False
