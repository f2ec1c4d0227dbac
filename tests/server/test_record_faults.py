"""``serve --record FILE`` when FILE is not private or cannot be written: real ``serve`` subprocesses.

The record file holds item values, so it is created 0600 whatever the umask, and a file others could read is
made private. Recording never changes an answer: with the file on a full device (``/dev/full``) or filling up
during the run (a file size limit on the server process: writes past it fail with EFBIG, the one crossing it
is cut short), every request is answered as it would be without recording -- a write is committed once and
acknowledged once, so an SDK's retries never repeat it -- and the server says once on stderr that recording
stopped.
"""

from __future__ import annotations

import json
import os
import resource
import stat
from pathlib import Path

import pytest
from botocore.exceptions import ClientError

from serving import ServerProcess, refused_in_process

TABLE = "faults"
LOG_LINE = "recording stopped, requests are still served"


def _create_table(client) -> dict:
    return client.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )


def _add_one(client, key: str = "counter") -> dict:
    return client.update_item(
        TableName=TABLE,
        Key={"k": {"S": key}},
        UpdateExpression="ADD n :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
        ReturnValues="UPDATED_NEW",
    )


def _stop_and_read_stderr(server: ServerProcess) -> str:
    """Stops the server and returns everything it wrote on stderr."""
    if server.process.poll() is None:
        server.process.terminate()
    _, err = server.process.communicate(timeout=15)
    return err.decode()


def test_the_record_file_is_created_private_whatever_the_umask(tmp_path: Path):
    path = tmp_path / "traffic.jsonl"
    old = os.umask(0)  # a world-writable default: the file is still 0600
    try:
        server = ServerProcess(None, args=("--record", str(path)))
    finally:
        os.umask(old)
    try:
        server.client().list_tables()
    finally:
        server.stop()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text().splitlines()[0])["operation"] == "ListTables"


def test_an_existing_record_file_others_can_read_is_made_private(tmp_path: Path):
    path = tmp_path / "traffic.jsonl"
    path.write_text('{"operation": "Scan", "params": {}}\n')
    path.chmod(0o644)
    server = ServerProcess(None, args=("--record", str(path)))
    try:
        server.client().list_tables()
    finally:
        stderr = _stop_and_read_stderr(server)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert f"{path} was open to others (mode 0644): made private (0600)" in stderr
    assert [json.loads(line)["operation"] for line in path.read_text().splitlines()] == ["Scan", "ListTables"]


def test_a_record_file_that_cannot_be_opened_stops_serve_before_it_starts(tmp_path: Path):
    missing = tmp_path / "missing" / "traffic.jsonl"
    result = refused_in_process("serve", "--in-memory", "--record", str(missing))
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "does not exist" in result.stderr or "cannot record to" in result.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="/dev/full is Linux's")
def test_a_full_record_device_changes_no_answer():
    server = ServerProcess(None, args=("--record", "/dev/full"))
    try:
        client = server.client(retries={"max_attempts": 5, "mode": "standard"})
        created = _create_table(client)
        assert created["ResponseMetadata"]["HTTPStatusCode"] == 200
        assert created["TableDescription"]["TableName"] == TABLE
        assert _add_one(client)["Attributes"] == {"n": {"N": "1"}}  # retries on: still added once
        for expected in range(2, 5):
            assert _add_one(client)["Attributes"] == {"n": {"N": str(expected)}}
        with pytest.raises(ClientError) as refused:  # a refused request is still answered as refused
            client.get_item(TableName="no-such-table", Key={"k": {"S": "x"}})
        assert refused.value.response["Error"]["Code"] == "ResourceNotFoundException"
        item = client.get_item(TableName=TABLE, Key={"k": {"S": "counter"}})["Item"]
        assert item["n"] == {"N": "4"}
    finally:
        stderr = _stop_and_read_stderr(server)
    assert stderr.count(LOG_LINE) == 1
    assert "cannot write to the record file /dev/full (No space left on device)" in stderr
    assert "Traceback" not in stderr and "InternalServerError" not in stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="/dev/full is Linux's")
def test_a_full_record_device_changes_no_answer_on_the_asgi_path():
    """A request with an Origin takes the ASGI app, not the direct protocol: the same rule there."""
    import http.client

    server = ServerProcess(None, args=("--record", "/dev/full"))
    try:
        body = json.dumps(
            {
                "TableName": TABLE,
                "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}],
                "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}],
                "BillingMode": "PAY_PER_REQUEST",
            }
        )
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        connection.request(
            "POST",
            "/",
            body,
            {
                "X-Amz-Target": "DynamoDB_20120810.CreateTable",
                "Content-Type": "application/x-amz-json-1.0",
                "Origin": "http://localhost:3000",
            },
        )
        answer = connection.getresponse()
        assert answer.status == 200 and json.loads(answer.read())["TableDescription"]["TableName"] == TABLE
        assert answer.getheader("Access-Control-Allow-Origin") == "http://localhost:3000"
        connection.close()
    finally:
        stderr = _stop_and_read_stderr(server)
    assert stderr.count(LOG_LINE) == 1


def _limit_file_size(limit: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def test_a_record_file_that_fills_up_during_the_run_changes_no_answer(tmp_path: Path):
    """The server's files may grow to 3,000 bytes (its database is in memory): the first lines fit, one is
    cut short at the limit, and from then on nothing more is written -- and every answer is the same."""
    path = tmp_path / "traffic.jsonl"
    limit = 3000
    server = ServerProcess(None, args=("--record", str(path)), preexec_fn=_limit_file_size(limit))
    try:
        client = server.client(retries={"max_attempts": 5, "mode": "standard"})
        assert _create_table(client)["ResponseMetadata"]["HTTPStatusCode"] == 200
        for expected in range(1, 31):
            assert _add_one(client)["Attributes"] == {"n": {"N": str(expected)}}
    finally:
        stderr = _stop_and_read_stderr(server)
    assert stderr.count(LOG_LINE) == 1 and "File too large" in stderr
    data = path.read_bytes()
    assert len(data) == limit  # filled to the limit, then recording stopped
    *whole, cut = data.split(b"\n")
    assert 1 < len(whole) < 31 and cut  # the line that crossed the limit is cut short
    assert [json.loads(line)["operation"] for line in whole] == ["CreateTable"] + ["UpdateItem"] * (
        len(whole) - 1
    )
