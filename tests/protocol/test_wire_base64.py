"""Binary values on the wire: strict, canonical base64 only, as AWS accepts it.

Whatever the codec accepts re-encodes to exactly the text that was sent (so nothing is silently dropped or
truncated); everything else is a SerializationException naming the length or the bad character. Checked on
the codec by property, and end to end on the HTTP server (the in-process client shares the dispatcher, but
boto3 only ever sends valid base64)."""

from __future__ import annotations

import base64
import binascii
import http.client
import json
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from draws import examples
from singletable._protocol import wire_json as wire
from singletable.engine import DynamoDBError

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
INVALID = "Invalid last non-pad Base64 character dectected"  # sic: AWS's text
MESSAGES = (INVALID, "Base64 encoded length is expected a multiple of 4 bytes but found: ")
BAD = [
    "!!!",
    "YWJj??!!",
    "YW Jj",
    "YWJj ZGVm",
    "YWJ",
    "YWJjZA=",
    "YWJjZA===",
    "=+/=",
    "+/+=",
    "YR==",
    "YQ==YQ==",
]
BAD += ["YWJ\n", "YWJ\u00e9", "-_-_", "YWJj\nZGVm"]


def canonical(text: str) -> bool:
    """The reference rule: ``text`` is exactly what standard base64 encoding produces for some bytes."""
    try:
        return base64.b64encode(base64.b64decode(text, validate=True)).decode() == text
    except (binascii.Error, ValueError):
        return False


def put_body(blob: Any, kind: str = "B") -> bytes:
    value = [blob] if kind == "BS" else blob
    return json.dumps({"TableName": "t", "Item": {"pk": {"S": "a"}, "b": {kind: value}}}).encode()


def decoded(text: str, kind: str = "B") -> bytes:
    params = wire.decode_request("PutItem", put_body(text, kind))
    value = params["Item"]["b"][kind]
    return value[0] if kind == "BS" else value


@settings(max_examples=examples(400), deadline=None)
@given(st.text(alphabet=ALPHABET + " \n!?-_\u00e9", max_size=24), st.sampled_from(["B", "BS"]))
@example("YWJjZA", "B")
@example("YQ", "BS")
def test_whatever_is_accepted_round_trips_and_everything_else_is_refused(text: str, kind: str) -> None:
    try:
        data = decoded(text, kind)
    except DynamoDBError as error:
        assert error.code == "SerializationException"
        assert error.extra["_prefix"] == wire.CORAL_PREFIX
        assert error.message.startswith(MESSAGES)
        assert not canonical(text)
        return
    assert canonical(text)
    assert base64.b64encode(data).decode() == text


@settings(max_examples=examples(200), deadline=None)
@given(st.binary(max_size=64))
def test_any_bytes_survive_the_wire(data: bytes) -> None:
    assert decoded(base64.b64encode(data).decode()) == data


@pytest.mark.parametrize("text", BAD)
def test_malformed_base64_is_refused(text: str) -> None:
    with pytest.raises(DynamoDBError) as info:
        decoded(text)
    assert info.value.code == "SerializationException"
    if len(text) % 4:
        assert (
            info.value.message
            == f"Base64 encoded length is expected a multiple of 4 bytes but found: {len(text)}"
        )
    else:
        assert info.value.message == INVALID


def test_empty_binary_is_accepted() -> None:
    assert decoded("") == b""


def _post(server: Any, target: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    headers = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": f"DynamoDB_20120810.{target}"}
    connection.request("POST", "/", json.dumps(body).encode(), headers)
    response = connection.getresponse()
    payload = json.loads(response.read() or b"{}")
    connection.close()
    return response.status, payload


@pytest.mark.parametrize("text", ["!!!!", "YWJj??!!", "YW Jj", "YWJjZA="])
@pytest.mark.parametrize("where", ["B", "BS", "nested", "key"])
def test_http_refuses_malformed_base64_and_writes_nothing(
    http_server: Any, table_name: str, text: str, where: str
) -> None:
    client = http_server.client()
    client.create_table(
        TableName=table_name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "B"}],
        BillingMode="PAY_PER_REQUEST",
    )
    value = {
        "B": {"b": {"B": text}},
        "BS": {"b": {"BS": ["YWJj", text]}},
        "nested": {"m": {"M": {"l": {"L": [{"B": text}]}}}},
        "key": {},
    }[where]
    key = {"pk": {"B": text if where == "key" else "a2V5"}}
    status, payload = _post(http_server, "PutItem", {"TableName": table_name, "Item": {**key, **value}})
    assert status == 400
    assert payload["__type"] == "com.amazon.coral.service#SerializationException"
    assert payload["message"].startswith(MESSAGES)
    assert client.scan(TableName=table_name)["Count"] == 0
    client.delete_table(TableName=table_name)
