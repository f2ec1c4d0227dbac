"""``serve --record``'s recorder in the server's request handler (the real app and engine, no socket):
one JSON line per request whatever the request was -- refused, malformed, spread over several lines -- and
the client's response unchanged by recording. The run over HTTP is in tests/design/test_check_traffic.py.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from singletable._protocol import Dispatcher
from singletable._server.app import DynamoDBApp
from singletable._server.record import RecordingDispatcher
from singletable.engine import Engine

TABLE = "recorded"


@pytest.fixture
def engine() -> Engine:
    engine = Engine(":memory:")
    engine.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    return engine


def send(
    app: DynamoDBApp, operation: str, body: bytes | dict[str, Any]
) -> tuple[int, dict[str, Any] | bytes]:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    status, _, payload = app.handle_api({}, {b"x-amz-target": f"DynamoDB_20120810.{operation}".encode()}, raw)
    try:
        return status, json.loads(payload)
    except ValueError:
        return status, payload


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_without_record_the_plain_dispatcher_serves(engine: Engine) -> None:
    app = DynamoDBApp(engine=engine)
    assert type(app.dispatcher) is Dispatcher


def test_each_request_is_one_line(engine: Engine, tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    app = DynamoDBApp(engine=engine, record=str(path))
    assert isinstance(app.dispatcher, RecordingDispatcher)
    status, reply = send(app, "PutItem", {"TableName": TABLE, "Item": {"PK": {"S": "a"}, "b": {"B": "AP8="}}})
    assert status == 200 and reply == {}  # capacity recorded, not answered
    status, reply = send(
        app, "GetItem", {"TableName": TABLE, "Key": {"PK": {"S": "a"}}, "ReturnConsumedCapacity": "TOTAL"}
    )
    assert reply["ConsumedCapacity"] == {"TableName": TABLE, "CapacityUnits": 0.5}  # asked: kept
    status, reply = send(app, "Query", b'{"TableName": "recorded",\n "KeyConditionExpression": "PK = :a",\n'
                                       b' "ExpressionAttributeValues": {":a": {"S": "a"}}}')  # fmt: skip
    assert reply["Count"] == 1
    status, reply = send(app, "GetItem", {"TableName": TABLE, "Key": {"XX": {"S": "a"}}})
    assert status == 400
    status, reply = send(app, "GetItem", b"{not json")
    assert status == 400
    app.close()
    put, get, query, refused, garbled = lines(path)
    assert put["operation"] == "PutItem" and put["params"]["Item"]["b"] == {"B": "AP8="}
    assert put["capacity"] == {"TableName": TABLE, "CapacityUnits": 1.0, "Table": {"CapacityUnits": 1.0}}
    assert get["capacity"] == {"TableName": TABLE, "CapacityUnits": 0.5}
    assert (
        query["params"]["KeyConditionExpression"] == "PK = :a"
        and query["count"] == query["scanned_count"] == 1
    )
    assert refused["error"]["code"] == "ValidationException" and refused["capacity"] is None
    assert "key element does not match the schema" in refused["error"]["message"]
    assert garbled["error"]["code"] == "SerializationException" and garbled["params"] == "{not json"
    assert put["time"] <= get["time"] <= garbled["time"]


def test_the_file_is_appended_to(engine: Engine, tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"operation": "Scan", "params": {}}\n')
    app = DynamoDBApp(engine=engine, record=str(path))
    send(app, "GetItem", {"TableName": TABLE, "Key": {"PK": {"S": "a"}}})
    app.close()
    assert [r["operation"] for r in lines(path)] == ["Scan", "GetItem"]


RECORDING_STOPPED = "recording stopped, requests are still served"


def _add_one(app: DynamoDBApp) -> tuple[int, dict[str, Any] | bytes]:
    return send(
        app,
        "UpdateItem",
        {
            "TableName": TABLE,
            "Key": {"PK": {"S": "n"}},
            "UpdateExpression": "ADD n :one",
            "ExpressionAttributeValues": {":one": {"N": "1"}},
            "ReturnValues": "UPDATED_NEW",
        },
    )


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="/dev/full is Linux's")
def test_a_record_that_cannot_be_written_changes_no_answer(engine: Engine, caplog) -> None:
    app = DynamoDBApp(engine=engine, record="/dev/full")
    for expected in range(1, 4):
        assert _add_one(app) == (200, {"Attributes": {"n": {"N": str(expected)}}})
    status, reply = send(app, "GetItem", {"TableName": TABLE, "Key": {"XX": {"S": "a"}}})
    assert status == 400 and reply["__type"].endswith("ValidationException")  # refused: still its own answer
    app.close()
    stopped = [record for record in caplog.records if RECORDING_STOPPED in record.getMessage()]
    assert len(stopped) == 1
    assert stopped[0].getMessage() == (
        "singletable serve: cannot write to the record file /dev/full (No space left on device); "
        "recording stopped, requests are still served"
    )


def test_a_record_file_swapped_for_a_read_only_one_mid_run_changes_no_answer(
    engine: Engine, tmp_path: Path, caplog
) -> None:
    """The recorder's descriptor is made to point at a file opened read-only (as if its file system had been
    remounted read-only): the next write fails with EBADF, and the answers do not change."""
    path = tmp_path / "r.jsonl"
    app = DynamoDBApp(engine=engine, record=str(path))
    assert _add_one(app)[0] == 200
    read_only = os.open(path, os.O_RDONLY)
    os.dup2(read_only, app.dispatcher.fd)  # type: ignore[attr-defined]
    os.close(read_only)
    for expected in range(2, 5):
        assert _add_one(app) == (200, {"Attributes": {"n": {"N": str(expected)}}})
    app.close()
    assert [line["operation"] for line in lines(path)] == ["UpdateItem"]  # the line written before
    assert sum(RECORDING_STOPPED in record.getMessage() for record in caplog.records) == 1
    assert "Bad file descriptor" in caplog.text
