"""Every data command against an endpoint that refuses it -- a wrong secret, an unknown access key, nothing
listening, a missing table -- fails with one clear line: AWS's error code and the first line of its message,
naming the endpoint when the trouble is reaching or signing in to it. Never a traceback, never the
signature's canonical request (a dozen lines), and exit 1 (``diff``: 2, "could not compare").

The endpoint is a real ``singletable serve --credentials``, so the signature failures are real SigV4 ones;
the commands run as a user runs them, in their own process with the credentials in its environment (boto3
keeps the credentials a process first found).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import boto3
import pytest
from tests.data.look_support import run

from serving import ServerProcess
from singletable.engine import Engine

TABLE = "ledger"
GOOD = ("AKIDGOOD", "secretgood")


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory):
    """``serve --credentials`` with one key, and a table in it."""
    directory = tmp_path_factory.mktemp("guarded")
    (directory / "creds").write_text(f"{GOOD[0]}:{GOOD[1]}\n")
    server = ServerProcess(directory / "s.db", args=("--credentials", str(directory / "creds")))
    client = boto3.client(
        "dynamodb",
        endpoint_url=server.endpoint,
        region_name="us-east-1",
        aws_access_key_id=GOOD[0],
        aws_secret_access_key=GOOD[1],
    )
    client.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    client.put_item(TableName=TABLE, Item={"PK": {"S": "a"}})
    yield server
    server.stop()


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "in.jsonl").write_text('{"PK": {"S": "b"}}\n')
    with Engine(str(tmp_path / "source.db")) as engine:
        engine.create_table(
            TableName=TABLE,
            KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        engine.put_item(TableName=TABLE, Item={"PK": {"S": "z"}})
    return tmp_path


COMMANDS = [
    ("tables", "{url}"),
    ("describe", "{url}", TABLE),
    ("describe", "{url}", TABLE, "--settings"),
    ("get", "{url}", TABLE, "PK=a"),
    ("query", "{url}", TABLE, "PK=a"),
    ("scan", "{url}", TABLE),
    ("count", "{url}", TABLE),
    ("put", "{url}", TABLE, '{{"PK": {{"S": "c"}}}}'),
    ("delete", "{url}", TABLE, "PK=a"),
    ("export", "{url}", TABLE, "{dir}/out.jsonl"),
    ("import", "{url}", TABLE, "{dir}/in.jsonl"),
    ("copy", "{dir}/source.db", "{url}"),
    ("copy", "{url}", "{dir}/copy.db"),
    ("diff", "singletable.examples.wavyblog.design", "{url}", "--table", TABLE),
]

SECRETS = {
    "wrong secret": (
        (GOOD[0], "not-the-secret"),
        "InvalidSignatureException: The request signature we calculated does not match the signature you "
        "provided. Check your AWS Secret Access Key and signing method. Consult the service documentation "
        "for details. (endpoint {url})",
    ),
    "unknown key": (
        ("AKIDUNKNOWN", GOOD[1]),
        "UnrecognizedClientException: The security token included in the request is invalid. "
        "(endpoint {url})",
    ),
}


def _argv(command: tuple[str, ...], url: str, directory: Path) -> list[str]:
    return [part.format(url=url, dir=directory) for part in command]


# Runs each argv with the command line in one process of its own (boto3 keeps the credentials a process
# first found, so each set of credentials gets its own), answering [exit code, stdout, stderr] per argv.
_RUNNER = """
import json, sys
from click.testing import CliRunner
from singletable._cli import main
answers = []
for argv in json.loads(sys.stdin.read()):
    result = CliRunner().invoke(main, argv)
    answers.append([result.exit_code, result.stdout, result.stderr])
print(json.dumps(answers))
"""


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


def _as_user(argvs: list[list[str]], key: str, secret: str) -> list[Ran]:
    env = {**os.environ, "AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": secret}
    done = subprocess.run(
        [sys.executable, "-c", _RUNNER],
        input=json.dumps(argvs),
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return [Ran(*answer) for answer in json.loads(done.stdout)]


def _assert_one_clear_line(result, first_line: str, command: tuple[str, ...]) -> None:
    code = result.returncode if isinstance(result, Ran) else result.exit_code
    assert code == (2 if command[0] == "diff" else 1), result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    lines = result.stderr.splitlines()
    written = " (0 items written before it)" if command[0] == "put" else ""
    # a transfer refused before writing says so in one line; no canonical request, no stack
    assert lines == [f"Error: {first_line}{written}"]


def test_a_wrong_secret_is_one_line_naming_the_endpoint(guarded, files: Path) -> None:
    (key, password), message = SECRETS["wrong secret"]
    results = _as_user([_argv(c, guarded.endpoint, files) for c in COMMANDS], key, password)
    for command, result in zip(COMMANDS, results, strict=True):
        _assert_one_clear_line(result, message.format(url=guarded.endpoint), command)


def test_an_unknown_key_is_one_line_naming_the_endpoint(guarded, files: Path) -> None:
    (key, password), message = SECRETS["unknown key"]
    results = _as_user([_argv(c, guarded.endpoint, files) for c in COMMANDS], key, password)
    for command, result in zip(COMMANDS, results, strict=True):
        _assert_one_clear_line(result, message.format(url=guarded.endpoint), command)


MISSING_TABLE = [
    (("count", "{url}", "absent"), "ResourceNotFoundException: Requested resource not found"),
    (
        ("describe", "{url}", "absent", "--settings"),
        "ResourceNotFoundException: Requested resource not found: Table: absent not found",
    ),
    (("export", "{url}", "absent", "{dir}/out.jsonl"), "table absent does not exist in {url}"),
    (
        ("import", "{url}", "absent", "{dir}/in.jsonl"),
        "table absent does not exist in {url}: create it first, or give a schema",
    ),
    (("copy", "{url}", "{dir}/copy.db", "--table", "absent"), "table absent does not exist in {url}"),
    (
        ("copy", "{dir}/source.db", "{url}", "--table", "absent"),
        "table absent does not exist in {dir}/source.db",
    ),
]


def test_a_missing_table_is_one_line_naming_where(guarded, files: Path) -> None:
    results = _as_user([_argv(c, guarded.endpoint, files) for c, _ in MISSING_TABLE], *GOOD)
    for (command, message), result in zip(MISSING_TABLE, results, strict=True):
        expected = message.format(url=guarded.endpoint, dir=files)
        lines = result.stderr.splitlines()
        assert (result.returncode, lines[0]) == (1, f"Error: {expected}"), (command, result.stderr)
        assert "Traceback" not in result.stderr and len(lines) <= 2
    assert not (files / "copy.db").exists()  # a copy that found no table created no file


def _closed_port() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


@pytest.mark.slow  # each waits out botocore's retries of a refused connection (4-5 s)
@pytest.mark.parametrize("command", [("count", "{url}", TABLE), ("describe", "{url}", TABLE, "--settings")])
def test_nothing_listening_is_one_line(files: Path, command) -> None:
    url = _closed_port()
    result = run(*_argv(command, url, files))
    _assert_one_clear_line(
        result, f'EndpointConnectionError: Could not connect to the endpoint URL: "{url}/"', command
    )
