"""``check --traffic``: recorded requests checked for scans, rejected key conditions, hot keys and wasteful
filters -- from a real ``db.trace()`` saved with ``Trace.save``, and from a real ``singletable serve
--record`` run on 127.0.0.1 (seed 001, HustleHub, loaded with its sample data in both).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from serving import ServerProcess
from singletable.design import check
from singletable.examples.hustlehub import sample
from singletable.examples.hustlehub.design import Listing, hub
from singletable.model import DB, RequestError, connect

DESIGN = "singletable.examples.hustlehub.design"
IN_MESSAGE = "Invalid operator used in KeyConditionExpression: IN"


def run_the_app(db: DB) -> None:
    """What the application does: the newest listings page many times, one filtered feed that keeps a few
    of the listings it reads, one Scan, and the design's bulk slug query."""
    service = sample.open_service(db)
    for _ in range(25):
        service.newest_listings(5)
    automated = Listing.latest().filter(Listing.f.verification_level == "automated")
    assert 0 < len(list(db.query(automated))) < 10
    db.call("Scan", {"TableName": db.table_name, "Limit": 10})
    with pytest.raises(RequestError, match=IN_MESSAGE):
        service.bulk_slug_query_as_designed(
            [("listing", "etsy-handmade-crafts"), ("category", "gig-economy")]
        )


def loaded(db: DB) -> DB:
    db.ensure_table()
    sample.load(sample.open_service(db))
    return db


def by_rule(report: Any) -> dict[str, list[Any]]:
    """The traffic findings (ST7xx) by rule; the design's own (HustleHub's two ST101) are not these tests'."""
    found: dict[str, list[Any]] = {}
    for finding in report.findings:
        if finding.rule.startswith("ST7"):
            found.setdefault(finding.rule, []).append(finding)
    return found


def assert_traffic_findings(report: Any, traffic: Path, listings_queries: int = 26) -> None:
    found = by_rule(report)
    assert set(found) == {"ST701", "ST702", "ST703", "ST704"}
    lines = traffic.read_text().splitlines()
    (scan,) = found["ST701"]
    assert scan.subject == "Scan HustleHubDirectory" and "read 10 items and returned 10" in scan.message
    assert json.loads(lines[scan.line - 1])["operation"] == "Scan"
    (rejected,) = found["ST702"]
    assert rejected.subject == "Query HustleHubDirectory index GSI4-SlugLookupIndex"
    assert f"1 request(s) refused: ValidationException: {IN_MESSAGE}" in rejected.message
    assert "GSI4PK IN (:slug1, :slug2)" in rejected.message
    (hot,) = found["ST703"]
    assert hot.subject == "HustleHubDirectory index GSI2-ListingsByDateIndex key 'LISTINGS'"
    count = f"{listings_queries} of {listings_queries} requests (100%)"
    assert count in hot.message and "GSI2PK = 'LISTINGS'" in hot.message
    (waste,) = found["ST704"]
    assert "kept" in waste.message and "of 24 items read" in waste.message
    assert all(f.file == str(traffic) for f in found["ST703"] + found["ST704"])


def test_a_saved_trace(tmp_path: Path) -> None:
    db = loaded(connect(hub, ":memory:"))
    with db.trace() as trace:
        run_the_app(db)
    traffic = tmp_path / "trace.jsonl"
    trace.save(traffic)
    records = [json.loads(line) for line in traffic.read_text().splitlines()]
    assert len(records) == len(trace) and {r["operation"] for r in records} == {"Query", "Scan"}
    assert all(r["time"] > 0 and set(r) >= {"params", "capacity", "count", "scanned_count"} for r in records)
    assert records[-1]["error"] == {"code": "ValidationException", "message": IN_MESSAGE}
    report = check(DESIGN, traffic=traffic)
    assert_traffic_findings(report, traffic)
    assert report.traffic is not None and report.traffic["requests"] == len(trace)
    assert report.traffic["operations"]["Query"] == len(trace) - 1


@pytest.fixture
def recorded(tmp_path: Path) -> Iterator[tuple[ServerProcess, Path]]:
    traffic = tmp_path / "served.jsonl"
    server = ServerProcess(tmp_path / "app.db", args=("--record", str(traffic)))
    try:
        yield server, traffic
    finally:
        server.stop()


def test_a_recorded_serve_run(recorded: tuple[ServerProcess, Path]) -> None:
    server, traffic = recorded
    client = server.client()
    db = loaded(connect(hub, client))
    run_the_app(db)
    plain = client.query(
        TableName=db.table_name,
        IndexName="GSI2-ListingsByDateIndex",
        KeyConditionExpression="GSI2PK = :p",
        ExpressionAttributeValues={":p": {"S": "LISTINGS"}},
        Limit=1,
    )
    assert "ConsumedCapacity" not in plain  # recorded, but not sent to a client that did not ask
    server.stop()
    records = [json.loads(line) for line in traffic.read_text().splitlines()]
    assert records[0]["operation"] == "DescribeTable" or records[0]["operation"] == "CreateTable"
    last = records[-1]
    assert last["operation"] == "Query" and last["params"]["Limit"] == 1 and last["error"] is None
    assert last["capacity"]["TableName"] == "HustleHubDirectory" and last["capacity"]["CapacityUnits"] > 0
    assert last["count"] == 1 and last["scanned_count"] == 1 and last["time"] > records[0]["time"]
    writes = [r for r in records if r["operation"] == "TransactWriteItems"]
    assert writes and all(isinstance(r["capacity"], list) for r in writes)
    report = check(DESIGN, traffic=traffic)
    assert_traffic_findings(report, traffic, listings_queries=27)


def test_a_key_condition_the_engine_refuses_on_replay() -> None:
    """A request recorded without its error (a lenient endpoint, or a hand-written record) is replayed on an
    empty copy of the design's table: the engine's own validation says what DynamoDB would."""
    in_query = {
        "TableName": "HustleHubDirectory",
        "IndexName": "GSI4-SlugLookupIndex",
        "KeyConditionExpression": "GSI4PK IN (:a, :b)",
        "ExpressionAttributeValues": {":a": {"S": "SLUG#listing#x"}, ":b": {"S": "SLUG#listing#y"}},
    }
    fine = dict(in_query, KeyConditionExpression="GSI4PK = :a", ExpressionAttributeValues={":a": {"S": "x"}})
    other_table = dict(in_query, TableName="elsewhere")
    traffic = [{"operation": "Query", "params": p} for p in (in_query, in_query, fine, other_table)]
    found = by_rule(check(DESIGN, traffic=traffic))
    assert list(found) == ["ST702"]
    assert found["ST702"][0].message.startswith(f"2 request(s) refused: ValidationException: {IN_MESSAGE}")
    assert found["ST702"][0].file is None
    # From describe() data alone there is no table to replay on: only recorded errors count.
    assert by_rule(check(hub.describe(), traffic=traffic)) == {}


def test_spread_keys_are_not_hot() -> None:
    traffic = [
        {
            "operation": "GetItem",
            "params": {"TableName": "HustleHubDirectory", "Key": {"PK": {"S": f"USER#{n % 10}"}}},
            "capacity": {"TableName": "HustleHubDirectory", "CapacityUnits": 0.5},
        }
        for n in range(100)
    ]
    assert by_rule(check(DESIGN, traffic=traffic)) == {}
    hot = traffic + [{**traffic[0]} for _ in range(150)]
    (finding,) = by_rule(check(DESIGN, traffic=hot))["ST703"]
    assert (
        finding.subject == "HustleHubDirectory key 'USER#0'"
        and "160 of 250 requests (64%)" in finding.message
    )


def test_a_trace_saves_binary_values_as_base64(tmp_path: Path) -> None:
    from singletable.model import Entity, Keys, Table

    files = Table(name="files")

    class Blob(Entity, table=files, type="BLOB", timestamps=False):
        blob_id: str
        data: bytes

        keys = Keys(PK="BLOB#{blob_id}", SK="BLOB")

    db = connect(files, ":memory:")
    db.ensure_table()
    with db.trace() as trace:
        db.create(Blob(blob_id="b1", data=b"\x00\xff"))
    trace.save(tmp_path / "t.jsonl")
    (record,) = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert record["operation"] == "PutItem" and record["params"]["Item"]["data"] == {"B": "AP8="}
    assert record["capacity"]["CapacityUnits"] == 1.0 and record["error"] is None


def test_serve_refuses_a_record_file_it_cannot_write(tmp_path: Path) -> None:
    from reference import free_port
    from serving import run_cli

    done = run_cli(
        "serve", "--port", str(free_port()), "--record", str(tmp_path / "no" / "such" / "dir.jsonl")
    )
    assert done.returncode == 1
    assert "Error: cannot record to" in done.stderr and "No such file or directory" in done.stderr
