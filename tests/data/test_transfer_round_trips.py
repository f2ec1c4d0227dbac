"""Export, import and copy on every target -- a database file, a real ``singletable serve`` and DynamoDB
Local -- in every format, with items of every attribute type; and a hand-built copy of DynamoDB's export to
S3 imported as AWS writes it."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json

import pytest
from transfer_support import SPEC, contents, create, full_item, load, small_item, table_name

from singletable.data import copy_table, export_table, import_table, open_target


@pytest.mark.slow
def test_round_trip_of_100000_items_through_the_s3_layout_on_a_file(tmp_path):
    source, name = str(tmp_path / "a.db"), table_name()
    items = [small_item(i) for i in range(100_000)]
    with open_target(source) as target:
        create(target, name)
        from singletable.engine._bulk_load import bulk_put

        for start in range(0, len(items), 20_000):
            assert bulk_put(target.engine, name, items[start : start + 20_000]).written == 20_000
        exported = export_table(target, name, tmp_path / "export")
        assert exported.items == 100_000
        imported = import_table(str(tmp_path / "b.db"), name, exported.destination, schema={"Table": SPEC})
        assert imported.items == 100_000 and imported.rejected == 0
        original = contents(target, name)
    copied = contents(str(tmp_path / "b.db"), name)
    assert len(original) == len(copied) == 100_000
    assert copied == original


@pytest.mark.parametrize("format_", ["dynamodb", "jsonl", "csv"])
def test_export_then_import_on_every_target(endpoint, tmp_path, format_):
    name = table_name()
    items = [full_item(i) for i in range(120)]
    with open_target(endpoint) as target:
        create(target, name)
        load(target, name, items)
        destination = (
            tmp_path / {"dynamodb": "export", "jsonl": "items.jsonl.gz", "csv": "items.csv"}[format_]
        )
        exported = export_table(target, name, destination, format=format_, segments=3)
        assert exported.items == 120
        into = table_name("copy")
        imported = import_table(
            target, into, exported.destination, format=format_, schema={"Table": {**SPEC}}, chunk_size=50
        )
        assert (imported.items, imported.rejected) == (120, 0)
        assert contents(target, into) == contents(target, name)


def test_plain_json_lines_and_csv_keep_what_plain_json_can_say(tmp_path):
    name = table_name()
    item = {"PK": {"S": "a"}, "SK": {"N": "12345678901234567890.123456789"}, "list": {"L": [{"BOOL": True}]}}
    with open_target(str(tmp_path / "a.db")) as target:
        create(target, name)
        load(target, name, [item])
        export_table(target, name, tmp_path / "plain.jsonl", plain=True, format="jsonl")
        export_table(target, name, tmp_path / "plain.csv", plain=True, format="csv")
        assert json.loads((tmp_path / "plain.jsonl").read_text()) == {
            "PK": "a",
            "SK": 12345678901234567890.123456789,
            "list": [True],
        }
        assert "12345678901234567890.123456789" in (tmp_path / "plain.jsonl").read_text()
        assert (tmp_path / "plain.csv").read_text().splitlines() == [
            "PK,SK,list",
            "a,12345678901234567890.123456789,[true]",
        ]
        for source, format_ in ((tmp_path / "plain.jsonl", "jsonl"), (tmp_path / "plain.csv", "csv")):
            into = table_name()
            import_table(target, into, source, format=format_, plain=True, schema={"Table": SPEC})
            assert contents(target, into) == contents(target, name)


@pytest.mark.parametrize("destination", ["file", "http", "reference"])
def test_copy_from_a_file_to_every_target_with_counts(destination, tmp_path, request):
    name = table_name()
    into = (
        str(tmp_path / "b.db")
        if destination == "file"
        else request.getfixturevalue(
            {"http": "http_server", "reference": "reference_server"}[destination]
        ).endpoint
    )
    with open_target(str(tmp_path / "a.db")) as source:
        create(source, name)
        load(source, name, [full_item(i) for i in range(90)])
        summary = copy_table(source, into, name, segments=2)
        assert (summary.items, summary.source_count, summary.destination_count) == (90, 90, 90)
        assert summary.counts_match
        assert contents(into, name) == contents(source, name)
    # and back, endpoint -> file, through a second copy under another name
    back = copy_table(into, str(tmp_path / "c.db"), name, destination_table=f"{name}-back")
    assert back.counts_match and back.items == 90
    assert contents(str(tmp_path / "c.db"), f"{name}-back") == contents(into, name)


def _aws_export(root, items_by_file):
    """DynamoDB's export to S3 as AWS's documentation describes it, copied to ``root`` (the bucket)."""
    export_id = "01700000000000-a1b2c3d4"
    base = root / "my-prefix" / "AWSDynamoDB" / export_id
    (base / "data").mkdir(parents=True)
    (base / "_started").write_text("")
    entries = []
    for name, lines in items_by_file.items():
        data = gzip.compress("".join(json.dumps({"Item": item}) + "\n" for item in lines).encode())
        (base / "data" / name).write_bytes(data)
        digest = hashlib.md5(data).digest()
        entries.append(
            {
                "itemCount": len(lines),
                "md5Checksum": base64.b64encode(digest).decode(),
                "etag": digest.hex(),
                "dataFileS3Key": f"my-prefix/AWSDynamoDB/{export_id}/data/{name}",
            }
        )
    (base / "manifest-files.json").write_text("".join(json.dumps(e) + "\n" for e in entries))
    summary = {
        "version": "2020-06-30",
        "exportArn": f"arn:aws:dynamodb:eu-west-1:123456789012:table/Orders/export/{export_id}",
        "startTime": "2026-11-04T07:28:34.028Z",
        "endTime": "2026-11-04T07:33:43.897Z",
        "tableArn": "arn:aws:dynamodb:eu-west-1:123456789012:table/Orders",
        "tableId": "12345a12-abcd-123a-ab12-1234abc12345",
        "exportTime": "2026-11-04T07:28:34.028Z",
        "s3Bucket": "my-bucket",
        "s3Prefix": "my-prefix",
        "s3SseAlgorithm": "AES256",
        "s3SseKmsKeyId": None,
        "manifestFilesS3Key": f"my-prefix/AWSDynamoDB/{export_id}/manifest-files.json",
        "billedSizeBytes": 1234,
        "itemCount": sum(len(v) for v in items_by_file.values()),
        "outputFormat": "DYNAMODB_JSON",
        "exportType": "FULL_EXPORT",
    }
    (base / "manifest-summary.json").write_text(json.dumps(summary))
    return base


def test_import_a_hand_built_aws_export(endpoint, tmp_path):
    wire = [
        {
            "PK": {"S": f"user#{i}"},
            "SK": {"N": str(i)},
            "G1": {"S": "day#1"},
            "G2": {"B": base64.b64encode(b"\x00\x01").decode()},
            "tags": {"SS": ["a", "b"]},
            "blob": {"BS": [base64.b64encode(b"\xff").decode()]},
            "nested": {"M": {"l": {"L": [{"NULL": True}, {"N": "3.5"}]}}},
        }
        for i in range(30)
    ]
    _aws_export(
        tmp_path / "bucket", {"a1b2c3.json.gz": wire[:20], "d4e5f6.json.gz": wire[20:], "empty.json.gz": []}
    )
    name = table_name()
    # the bucket's root: the one export below it is found
    summary = import_table(endpoint, name, tmp_path / "bucket", schema={"Table": SPEC})
    assert summary.items == 30
    items = contents(endpoint, name)
    assert len(items) == 30
    assert items[("user#7", "7")]["G2"] == {"B": b"\x00\x01"}
    assert items[("user#7", "7")]["blob"] == {"BS": [b"\xff"]}
    assert items[("user#25", "25")]["nested"]["M"]["l"]["L"][1]["N"] == 3.5


def test_import_creates_the_table_from_a_describe_table_file_and_a_design_module(tmp_path):
    pytest.importorskip("pydantic")
    with open_target(str(tmp_path / "a.db")) as target:
        create(target, "source")
        load(target, "source", [full_item(i) for i in range(10)])
        (tmp_path / "schema.json").write_text(
            json.dumps(target.call("DescribeTable", TableName="source"), default=str)
        )
        export_table(target, "source", tmp_path / "items.jsonl", format="jsonl")
        import_table(
            target, "fromjson", tmp_path / "items.jsonl", format="jsonl", schema=str(tmp_path / "schema.json")
        )
        described = target.call("DescribeTable", TableName="fromjson")["Table"]
        assert [i["IndexName"] for i in described["GlobalSecondaryIndexes"]] == ["byG1", "byG2"]
        assert len(contents(target, "fromjson")) == 10
        (tmp_path / "design.jsonl").write_text(
            json.dumps({"PK": {"S": "USER#1"}, "SK": {"S": "PROFILE"}}) + "\n"
        )
        import_table(
            target,
            "hub",
            tmp_path / "design.jsonl",
            format="jsonl",
            schema="singletable.examples.hustlehub.design",
        )
        from singletable.examples.hustlehub.design import hub

        expected = hub.create_table_params("hub")
        described = target.call("DescribeTable", TableName="hub")["Table"]
        assert described["KeySchema"] == expected["KeySchema"]
        assert target.call("Scan", TableName="hub")["Count"] == 1
