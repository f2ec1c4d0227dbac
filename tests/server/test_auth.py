"""SigV4 authentication when credentials are configured: AWS's refusals, codes and texts."""

from __future__ import annotations

import datetime
import http.client
import json

import boto3
import botocore.auth
import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials

from serving import ServerProcess

MISMATCH = (
    "The request signature we calculated does not match the signature you provided. Check your AWS "
    "Secret Access Key and signing method. Consult the service documentation for details."
)


@pytest.fixture(scope="module")
def secured(tmp_path_factory):
    directory = tmp_path_factory.mktemp("auth")
    credentials = directory / "credentials"
    credentials.write_text("# access key : secret\nAKIDALICE:alice-secret\nAKIDBOB = bob-secret\n")
    server = ServerProcess(directory / "auth.sqlite3", args=("--credentials", str(credentials)))
    yield server
    server.stop()


def _client(server, key: str, secret: str):
    return boto3.client(
        "dynamodb",
        endpoint_url=server.endpoint,
        region_name="us-east-1",
        aws_access_key_id=key,
        aws_secret_access_key=secret,
        config=Config(retries={"max_attempts": 1}),
    )


def _error(server, key: str, secret: str) -> dict:
    with pytest.raises(Exception) as info:
        _client(server, key, secret).list_tables()
    return info.value.response


def test_known_keys_are_accepted(secured):
    assert "TableNames" in _client(secured, "AKIDALICE", "alice-secret").list_tables()
    assert "TableNames" in _client(secured, "AKIDBOB", "bob-secret").list_tables()


def test_unknown_key_is_unrecognized_client(secured):
    response = _error(secured, "AKIDMALLORY", "whatever")
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert response["Error"] == {
        "Code": "UnrecognizedClientException",
        "Message": "The security token included in the request is invalid.",
    }


def test_wrong_secret_is_invalid_signature(secured):
    response = _error(secured, "AKIDALICE", "not-alices-secret")
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert response["Error"]["Code"] == "InvalidSignatureException"
    message = response["Error"]["Message"]
    assert message.startswith(
        MISMATCH + "\n\nThe Canonical String for this request should have been\n'POST\n/\n"
    )
    assert "\n\nThe String-to-Sign should have been\n'AWS4-HMAC-SHA256\n" in message


def _raw(server, headers: dict[str, str], body: bytes = b"{}"):
    connection = http.client.HTTPConnection("127.0.0.1", server.port)
    connection.request("POST", "/", body, headers)
    response = connection.getresponse()
    return response.status, json.loads(response.read())


def test_missing_authorization(secured):
    status, body = _raw(secured, {"X-Amz-Target": "DynamoDB_20120810.ListTables"})
    assert status == 400
    assert body == {
        "__type": "com.amazon.coral.service#MissingAuthenticationTokenException",
        "message": "Request is missing Authentication Token",
    }


def _signed(server, when: datetime.datetime, monkeypatch=None) -> dict[str, str]:
    if monkeypatch is not None:  # sign as of ``when``: botocore's clock, not ours, is what moves
        monkeypatch.setattr(botocore.auth, "get_current_datetime", lambda *_, **__: when.replace(tzinfo=None))
    request = AWSRequest(
        method="POST",
        url=server.endpoint + "/",
        data=b"{}",
        headers={
            "X-Amz-Target": "DynamoDB_20120810.ListTables",
            "Content-Type": "application/x-amz-json-1.0",
        },
    )
    SigV4Auth(Credentials("AKIDALICE", "alice-secret"), "dynamodb", "us-east-1").add_auth(request)
    return dict(request.headers.items())


def test_signature_by_hand_is_accepted(secured):
    now = datetime.datetime.now(datetime.UTC)
    status, body = _raw(secured, _signed(secured, now))
    assert status == 200 and "TableNames" in body


def test_expired_signature(secured, monkeypatch):
    old = datetime.datetime.now(datetime.UTC) - datetime.timedelta(hours=1)
    status, body = _raw(secured, _signed(secured, old, monkeypatch))
    assert status == 400
    assert body["__type"] == "com.amazon.coral.service#InvalidSignatureException"
    assert body["message"].startswith(
        f"Signature expired: {old.strftime('%Y%m%dT%H%M%SZ')} is now earlier than "
    )
    assert body["message"].endswith(" - 15 min.)")


def _separated(headers: dict[str, str], separator: str) -> dict[str, str]:
    """The same Authorization header with its fields parted by ``separator`` instead of ", "."""
    return {**headers, "Authorization": headers["Authorization"].replace(", ", separator)}


@pytest.mark.parametrize("separator", [" ", ",", "  ", " , "])
def test_authorization_fields_may_be_separated_by_spaces_or_commas(secured, separator):
    headers = _separated(_signed(secured, datetime.datetime.now(datetime.UTC)), separator)
    status, body = _raw(secured, headers)
    assert status == 200 and "TableNames" in body


@pytest.mark.parametrize("hours", [-1, 1])
def test_clock_errors_with_space_separated_authorization(secured, monkeypatch, hours):
    when = datetime.datetime.now(datetime.UTC) + datetime.timedelta(hours=hours)
    status, body = _raw(secured, _separated(_signed(secured, when, monkeypatch), " "))
    assert status == 400
    assert body["__type"] == "com.amazon.coral.service#InvalidSignatureException"
    stamp = when.strftime("%Y%m%dT%H%M%SZ")
    if hours < 0:
        assert body["message"].startswith(f"Signature expired: {stamp} is now earlier than ")
    else:
        assert body["message"].startswith(f"Signature not yet current: {stamp} is still later than ")
        assert body["message"].endswith(" + 15 min.)")


def test_tampered_body_fails_the_signature(secured):
    headers = _signed(secured, datetime.datetime.now(datetime.UTC))
    status, body = _raw(secured, headers, b'{"Limit": 1}')
    assert status == 400
    assert body["__type"] == "com.amazon.coral.service#InvalidSignatureException"
    assert body["message"].startswith(MISMATCH)


def test_without_credentials_any_signature_is_accepted(http_server):
    assert "TableNames" in _client(http_server, "anything", "at-all").list_tables()
