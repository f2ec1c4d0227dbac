"""Every table setting survives ``copy`` and ``import --schema``: keys, billing mode and throughput, a GSI and
an LSI with INCLUDE projections, the stream, TTL, tags, table class, deletion protection, KMS encryption.

Checked three ways: the destination's captured :class:`TableSettings` equals the source's,
``singletable diff`` of the design against the destination says it matches, and a target that does not keep
a setting (DynamoDB Local: tags, table class) gets a warning line naming it. Copies run file to file and
file to a real ``singletable serve``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.data.look_support import run
from transfer_support import table_name

from draws import examples
from pk_sk_table import pk_sk_table
from singletable.data import IndexSettings, TableSettings, Throughput, open_target
from singletable.engine import Engine

DESIGN = "settings_design"
NOW = int(time.time())


def create_source(path: Path, name: str, items: int = 40) -> TableSettings:
    """The design's table with every other setting too, TTL on, ``items`` items (two of them expired)."""
    from settings_design import ledger

    with Engine(str(path), ttl_sweep_interval=3600) as engine:
        engine.create_table(
            **ledger.create_table_params(name),
            Tags=[{"Key": "team", "Value": "payments"}, {"Key": "cost-centre", "Value": "42"}],
            TableClass="STANDARD_INFREQUENT_ACCESS",
            DeletionProtectionEnabled=True,
            SSESpecification={"Enabled": True, "SSEType": "KMS", "KMSMasterKeyId": "alias/ledger"},
        )
        for n in range(items):
            engine.put_item(
                TableName=name,
                Item={
                    "PK": {"S": f"BOOK#{n % 3}"},
                    "SK": {"S": f"ENTRY#{n:03}"},
                    "accountPK": {"S": "ACC#1"},
                    "postedSK": {"S": f"2026-11-{n % 28 + 1:02}"},
                    "amountCents": {"N": str(n * 100)},
                    "memo": {"S": f"entry {n}"},
                    "expiresAt": {"N": str(NOW - 60 if n < 2 else NOW + 86400)},
                },
            )
        engine.update_time_to_live(
            TableName=name, TimeToLiveSpecification={"Enabled": True, "AttributeName": "expiresAt"}
        )
    return captured(str(path), name)


def captured(target: str, name: str) -> TableSettings:
    with open_target(target, read_only=not target.startswith("http")) as opened:
        found = TableSettings.capture(opened, name, pytest.fail)
    assert found is not None
    return found


def assert_matches_design(target: str, name: str) -> None:
    result = run("diff", DESIGN, target, "--table", name)
    assert (result.exit_code, result.stdout) == (0, f"{name} on {target} matches the design\n"), result.output


@pytest.fixture
def source(tmp_path: Path) -> tuple[Path, str, TableSettings]:
    name = table_name("ledger")
    path = tmp_path / "source.db"
    return path, name, create_source(path, name)


def test_the_source_has_every_setting(source) -> None:
    _, _, found = source
    assert found.ttl_attribute == "expiresAt" and found.stream_view == "NEW_AND_OLD_IMAGES"
    assert found.tags == (("cost-centre", "42"), ("team", "payments"))
    assert (found.billing_mode, found.throughput) == ("PROVISIONED", Throughput(7, 3))
    assert [(i.name, i.local, i.projection_type) for i in found.indexes] == [
        ("byAccount", False, "INCLUDE"),
        ("byAmount", True, "INCLUDE"),
    ]
    assert found.table_class == "STANDARD_INFREQUENT_ACCESS" and found.deletion_protection
    assert found.sse_kms_key and found.sse_kms_key.endswith("key/alias/ledger")


@pytest.mark.parametrize("destination", ["file", "serve"])
def test_copy_carries_every_setting(source, tmp_path: Path, request, destination: str) -> None:
    path, name, expected = source
    target = (
        str(tmp_path / "copy.db")
        if destination == "file"
        else request.getfixturevalue("http_server").endpoint
    )
    result = run("copy", str(path), target, "--table", name, "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert (summary["source_count"], summary["destination_count"], summary["warnings"]) == (40, 40, [])
    assert "warning" not in result.stderr
    assert captured(target, name) == expected
    assert_matches_design(target, name)


def test_import_schema_from_describe_settings_round_trips(source, tmp_path: Path) -> None:
    path, name, expected = source
    described = run("describe", str(path), name, "--settings")
    assert described.exit_code == 0, described.output
    (tmp_path / "settings.json").write_text(described.stdout)
    assert run("export", str(path), name, str(tmp_path / "items.jsonl")).exit_code == 0
    target = str(tmp_path / "imported.db")
    schema = str(tmp_path / "settings.json")
    result = run("import", target, name, str(tmp_path / "items.jsonl"), "--schema", schema)
    assert result.exit_code == 0, result.output
    assert "warning" not in result.stderr
    assert captured(target, name) == expected
    assert_matches_design(target, name)


def test_import_schema_from_the_design_turns_ttl_on(source, tmp_path: Path) -> None:
    path, name, _ = source
    assert run("export", str(path), name, str(tmp_path / "items.jsonl")).exit_code == 0
    target = str(tmp_path / "imported.db")
    result = run("import", target, name, str(tmp_path / "items.jsonl"), "--schema", DESIGN)
    assert result.exit_code == 0, result.output
    assert captured(target, name).ttl_attribute == "expiresAt"
    assert_matches_design(target, name)


def test_an_aws_describe_table_json_still_creates_the_table(source, tmp_path: Path) -> None:
    """What ``aws dynamodb describe-table`` prints: no TTL, no tags -- everything else is carried."""
    path, name, expected = source
    with open_target(str(path), read_only=True) as opened:
        described = opened.call("DescribeTable", TableName=name)
    (tmp_path / "aws.json").write_text(json.dumps(described, default=str))
    (tmp_path / "one.jsonl").write_text('{"PK": {"S": "a"}, "SK": {"S": "b"}}\n')
    target = str(tmp_path / "imported.db")
    result = run("import", target, name, str(tmp_path / "one.jsonl"), "--schema", str(tmp_path / "aws.json"))
    assert result.exit_code == 0, result.output
    assert captured(target, name).differences(expected) == ["ttl_attribute", "tags"]


def test_a_target_that_does_not_keep_a_setting_says_so(source, request) -> None:
    """DynamoDB Local takes tags and a table class in CreateTable without keeping them: a warning each."""
    path, name, _ = source
    endpoint = request.getfixturevalue("reference_server").endpoint
    result = run("copy", str(path), endpoint, "--table", name)
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    assert (
        f"warning: {endpoint} did not keep the tags of {name}: asked for cost-centre=42, team=payments"
        in ("\n".join(warnings))
    )
    assert any("did not keep the table class" in line for line in warnings)
    assert "Traceback" not in result.output


def test_an_existing_destination_with_other_settings_is_named(source, tmp_path: Path) -> None:
    path, name, _ = source
    target = str(tmp_path / "existing.db")
    with Engine(target) as engine:
        engine.create_table(**pk_sk_table(name))
    result = run("copy", str(path), target, "--table", name)
    assert result.exit_code == 0, result.output
    stderr = result.stderr
    assert f"warning: {name} on {target} already exists, and its billing mode (PAY_PER_REQUEST)" in stderr
    assert "its indexes (none) differs from" in stderr and "its tags (none)" in stderr
    assert "ttl attribute" not in stderr  # TTL is turned on at the end of the copy instead
    assert captured(target, name).ttl_attribute == "expiresAt"


# -- any settings: captured, written as JSON, read back, created, captured again ---------------------------

NAMES = st.text("abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=8)


@st.composite
def table_settings(draw: Any) -> TableSettings:
    provisioned = draw(st.booleans())
    throughput = st.builds(Throughput, st.integers(1, 50), st.integers(1, 50))
    has_range = draw(st.booleans())
    key = (("pk", "HASH"), ("sk", "RANGE")) if has_range else (("pk", "HASH"),)
    types = {
        "pk": draw(st.sampled_from("SNB")),
        **({"sk": draw(st.sampled_from("SNB"))} if has_range else {}),
    }
    indexes = []
    for number in range(draw(st.integers(0, 3))):
        local = has_range and draw(st.booleans())
        attribute = f"ix{number}"
        types[attribute] = draw(st.sampled_from("SNB"))
        projection = draw(st.sampled_from(["ALL", "KEYS_ONLY", "INCLUDE"]))
        indexes.append(
            IndexSettings(
                name=f"index{number}",
                local=local,
                key_schema=(("pk", "HASH"), (attribute, "RANGE")) if local else ((attribute, "HASH"),),
                projection_type=projection,
                non_key_attributes=(
                    tuple(sorted(draw(st.sets(NAMES, min_size=1, max_size=3))))
                    if projection == "INCLUDE"
                    else ()
                ),
                throughput=draw(throughput) if provisioned and not local else None,
            )
        )
    tags = draw(st.dictionaries(NAMES, st.text("xyz 0123", max_size=5), max_size=3))
    return TableSettings(
        key_schema=key,
        attribute_types=tuple(sorted(types.items())),
        billing_mode="PROVISIONED" if provisioned else "PAY_PER_REQUEST",
        throughput=draw(throughput) if provisioned else None,
        indexes=tuple(sorted(indexes, key=lambda i: i.name)),
        stream_view=draw(
            st.sampled_from([None, "KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES"])
        ),
        ttl_attribute=draw(st.sampled_from([None, "expires", "ttl"])),
        tags=tuple(sorted(tags.items())),
        table_class=draw(st.sampled_from(["STANDARD", "STANDARD_INFREQUENT_ACCESS"])),
        deletion_protection=draw(st.booleans()),
    )


@settings(max_examples=examples(40), deadline=None)
@given(table_settings())
def test_any_settings_survive_json_and_a_round_trip_through_a_target(wanted: TableSettings) -> None:
    assert TableSettings.from_json(json.loads(json.dumps(wanted.to_json("t-any")))) == wanted
    warnings: list[str] = []
    with open_target(":memory:") as target:
        wanted.create(target, "t-any", warnings.append)
        wanted.apply_ttl(target, "t-any", warnings.append)
        assert TableSettings.capture(target, "t-any", warnings.append) == wanted
    assert warnings == []


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=12,
)
MEMBERS = st.sampled_from(
    [
        *("KeySchema", "AttributeDefinitions", "GlobalSecondaryIndexes", "LocalSecondaryIndexes"),
        *("Projection", "ProjectionType", "NonKeyAttributes", "BillingModeSummary", "BillingMode"),
        *("ProvisionedThroughput", "ReadCapacityUnits", "StreamSpecification", "SSEDescription"),
        *("TableClassSummary", "AttributeName", "KeyType", "AttributeType", "IndexName"),
        *("TimeToLiveDescription", "Tags", "Table"),
    ]
)


@settings(max_examples=examples(150), deadline=None)
@given(st.dictionaries(MEMBERS, JSON | st.dictionaries(MEMBERS, JSON, max_size=4), max_size=6))
def test_a_hostile_schema_is_a_value_error_naming_it(data: dict) -> None:
    """Whatever a schema file holds, reading it answers settings or a ValueError naming the schema."""
    try:
        TableSettings.from_json(data, origin="schema hostile.json")
    except ValueError as error:
        assert str(error).startswith("schema hostile.json: ")
