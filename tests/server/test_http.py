"""The HTTP front end over real sockets: protocol errors, headers, CORS, gzip, limits, bodies."""

from __future__ import annotations

import base64
import gzip
import http.client
import json
import zlib

import pytest


def _post(server, body: bytes, target: str | None = "DynamoDB_20120810.ListTables", **headers: str):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    sent = {"Content-Type": "application/x-amz-json-1.0", **headers}
    if target is not None:
        sent["X-Amz-Target"] = target
    connection.request("POST", "/", body, sent)
    response = connection.getresponse()
    payload = response.read()
    connection.close()
    return response, payload


def _json(payload: bytes) -> dict:
    return json.loads(payload)


def _request(server, method: str, path: str = "/", **headers: str):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    connection.request(method, path, headers=headers)
    response = connection.getresponse()
    payload = response.read()
    connection.close()
    return response, payload


def test_health_check_names_the_endpoint_called(http_server):
    response, payload = _request(http_server, "GET")
    assert response.status == 200
    assert payload == f"healthy: 127.0.0.1:{http_server.port} ".encode()
    response, payload = _request(http_server, "GET", Host=f"localhost:{http_server.port}")
    assert payload == f"healthy: localhost:{http_server.port} ".encode()
    response, payload = _request(http_server, "HEAD")
    assert response.status == 200 and payload == b""


@pytest.mark.parametrize("method", ["GET", "HEAD"])
@pytest.mark.parametrize("path", ["/abc", "/health", "//", "/x?y=/"])
def test_health_is_only_on_the_root(http_server, method, path):
    response, payload = _request(http_server, method, path)
    assert response.status == 404 and payload == b""


def test_success_headers(http_server):
    response, payload = _post(http_server, b"{}")
    assert response.status == 200
    assert response.getheader("Content-Type") == "application/x-amz-json-1.0"
    assert int(response.getheader("x-amz-crc32")) == zlib.crc32(payload)
    assert len(response.getheader("x-amzn-RequestId")) == 52
    assert "TableNames" in _json(payload)


def test_application_json_is_accepted(http_server):
    response, payload = _post(http_server, b"{}", **{"Content-Type": "application/json"})
    assert response.status == 200 and "TableNames" in _json(payload)


@pytest.mark.parametrize(
    "target",
    ["DynamoDB_20120810.Nope", "DynamoDBStreams_20120810.Nope", None, "Other_20120810.ListTables"],
)
def test_unknown_operation(http_server, target):
    response, payload = _post(http_server, b"{}", target=target)
    assert response.status == 400
    assert _json(payload) == {"__type": "com.amazon.coral.service#UnknownOperationException"}
    assert int(response.getheader("x-amz-crc32")) == zlib.crc32(payload)


def test_streams_target_is_served(http_server):
    response, payload = _post(http_server, b"{}", target="DynamoDBStreams_20120810.ListStreams")
    assert response.status == 200
    assert "Streams" in _json(payload)


@pytest.mark.parametrize("body", [b"{bad", b"[]", b'"text"', b"\xff\xfe"])
def test_malformed_json_is_serialization_exception(http_server, body):
    response, payload = _post(http_server, body)
    assert response.status == 400
    assert _json(payload) == {"__type": "com.amazon.coral.service#SerializationException"}


def test_engine_errors_use_dynamodb_type(http_server):
    response, payload = _post(
        http_server, b'{"TableName": "missing-table"}', "DynamoDB_20120810.DescribeTable"
    )
    assert response.status == 400
    body = _json(payload)
    assert body["__type"] == "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException"
    assert body["message"].startswith("Requested resource not found")


def test_gzip_request_body(http_server):
    response, payload = _post(http_server, gzip.compress(b"{}"), **{"Content-Encoding": "gzip"})
    assert response.status == 200 and "TableNames" in _json(payload)


def test_corrupt_gzip_is_serialization_exception(http_server):
    response, payload = _post(http_server, b"not gzip at all", **{"Content-Encoding": "gzip"})
    assert response.status == 400
    assert _json(payload) == {"__type": "com.amazon.coral.service#SerializationException"}


def test_body_over_16_mb_is_refused(http_server):
    response, payload = _post(http_server, b" " * (16 * 1024 * 1024 + 1))
    assert response.status == 413
    assert _json(payload)["__type"] == "com.amazon.coral.service#RequestEntityTooLarge"


def test_cors_preflight_and_headers(http_server):
    connection = http.client.HTTPConnection("127.0.0.1", http_server.port)
    connection.request(
        "OPTIONS",
        "/",
        headers={
            "Origin": "http://localhost:3000",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type,x-amz-target,x-amz-date",
        },
    )
    response = connection.getresponse()
    response.read()
    assert response.status == 200
    assert response.getheader("Access-Control-Allow-Origin") == "http://localhost:3000"
    assert response.getheader("Vary") == "Origin"
    assert response.getheader("Access-Control-Allow-Methods") == "POST"
    assert (
        response.getheader("Access-Control-Allow-Headers")
        == "authorization,content-type,x-amz-target,x-amz-date"
    )
    posted, _ = _post(http_server, b"{}", Origin="http://localhost:3000")
    assert posted.getheader("Access-Control-Allow-Origin") == "http://localhost:3000"
    assert "x-amzn-RequestId" in posted.getheader("Access-Control-Expose-Headers")
    failed, _ = _post(http_server, b"{", Origin="http://localhost:3000")
    assert failed.status == 400 and failed.getheader("Access-Control-Allow-Origin") == "http://localhost:3000"
    health, _ = _request(http_server, "GET", Origin="http://localhost:3000")
    assert health.getheader("Access-Control-Allow-Origin") == "http://localhost:3000"


def test_preflight_echoes_any_requested_method(http_server):
    response, _ = _request(
        http_server, "OPTIONS", Origin="http://127.0.0.1:5173", **{"Access-Control-Request-Method": "PUT"}
    )
    assert response.getheader("Access-Control-Allow-Methods") == "PUT"
    assert response.getheader("Access-Control-Allow-Headers") == "*"


def test_no_cors_headers_without_an_origin(http_server):
    posted, _ = _post(http_server, b"{}")
    assert posted.status == 200
    failed, _ = _post(http_server, b"{")
    health, _ = _request(http_server, "GET")
    preflight, payload = _request(http_server, "OPTIONS", **{"Access-Control-Request-Method": "POST"})
    assert preflight.status == 200 and payload == b""
    for response in (posted, failed, health, preflight):
        assert not [name for name, _ in response.getheaders() if name.lower().startswith("access-control-")]


@pytest.mark.parametrize("operation", ["TagResource", "UntagResource"])
def test_tag_and_untag_answer_with_an_empty_body(http_server, table_name, operation):
    client = http_server.client()
    client.create_table(
        TableName=table_name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    arn = client.describe_table(TableName=table_name)["Table"]["TableArn"]
    tags = {"Tags": [{"Key": "k", "Value": "v"}]} if operation == "TagResource" else {"TagKeys": ["k"]}
    body = json.dumps({"ResourceArn": arn, **tags}).encode()
    response, payload = _post(http_server, body, f"DynamoDB_20120810.{operation}")
    assert response.status == 200
    assert payload == b"" and response.getheader("Content-Length") == "0"
    assert int(response.getheader("x-amz-crc32")) == zlib.crc32(b"")
    client.delete_table(TableName=table_name)


def test_binary_and_condition_failure_over_the_wire(http_server, table_name):
    create = {
        "TableName": table_name,
        "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "B"}],
    }
    assert _post(http_server, json.dumps(create).encode(), "DynamoDB_20120810.CreateTable")[0].status == 200
    blob = base64.b64encode(b"\x00\x01\xfe").decode()
    item = {"k": {"B": blob}, "set": {"BS": [blob]}}
    put = {"TableName": table_name, "Item": item}
    assert _post(http_server, json.dumps(put).encode(), "DynamoDB_20120810.PutItem")[0].status == 200
    response, payload = _post(
        http_server,
        json.dumps({"TableName": table_name, "Key": {"k": {"B": blob}}}).encode(),
        "DynamoDB_20120810.GetItem",
    )
    assert _json(payload) == {"Item": item}
    failing = {
        **put,
        "ConditionExpression": "attribute_not_exists(k)",
        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
    }
    response, payload = _post(http_server, json.dumps(failing).encode(), "DynamoDB_20120810.PutItem")
    assert response.status == 400
    assert _json(payload) == {
        "__type": "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException",
        "message": "The conditional request failed",
        "Item": item,
    }


def test_describe_table_timestamps_are_epoch_seconds(http_server, table_name):
    create = {
        "TableName": table_name,
        "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}],
    }
    _, payload = _post(http_server, json.dumps(create).encode(), "DynamoDB_20120810.CreateTable")
    assert isinstance(_json(payload)["TableDescription"]["CreationDateTime"], float)
