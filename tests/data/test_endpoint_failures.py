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


def _files(directory: Path) -> Path:
    """What the commands read and write: a line to import and a database file to copy from."""
    directory.mkdir()
    (directory / "in.jsonl").write_text('{"PK": {"S": "b"}}\n')
    with Engine(str(directory / "source.db")) as engine:
        engine.create_table(
            TableName=TABLE,
            KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        engine.put_item(TableName=TABLE, Item={"PK": {"S": "z"}})
    return directory


@pytest.fixture
def files(tmp_path: Path) -> Path:
    return _files(tmp_path / "files")


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


# Runs the command line on each argv of each set of credentials, each set in a process of its own forked
# from this one once it has imported the command line (boto3 keeps the credentials a process first found,
# and this one never looks), with the set's credentials in its environment; answers [exit code, stdout,
# stderr] per argv, per set.
_RUNNER = """
import json, os, sys
from click.testing import CliRunner
from singletable._cli import main
answers = []
for key, secret, argvs in json.loads(sys.stdin.read()):
    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(read)
        os.environ.update(AWS_ACCESS_KEY_ID=key, AWS_SECRET_ACCESS_KEY=secret)
        ran = [CliRunner().invoke(main, argv) for argv in argvs]
        with os.fdopen(write, "w") as out:
            json.dump([[result.exit_code, result.stdout, result.stderr] for result in ran], out)
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as given:
        answers.append(json.load(given))
    assert os.waitpid(child, 0)[1] == 0
print(json.dumps(answers))
"""


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


def _as_users(sets: list[tuple[str, str, list[list[str]]]]) -> list[list[Ran]]:
    done = subprocess.run(
        [sys.executable, "-c", _RUNNER],
        input=json.dumps(sets),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return [[Ran(*answer) for answer in answers] for answers in json.loads(done.stdout)]


def _assert_one_clear_line(result, first_line: str, command: tuple[str, ...]) -> None:
    code = result.returncode if isinstance(result, Ran) else result.exit_code
    assert code == (2 if command[0] == "diff" else 1), result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    lines = result.stderr.splitlines()
    written = " (0 items written before it)" if command[0] == "put" else ""
    # a transfer refused before writing says so in one line; no canonical request, no stack
    assert lines == [f"Error: {first_line}{written}"]


def test_a_wrong_secret_is_one_line_naming_the_endpoint(guarded, answers) -> None:
    _, message = SECRETS["wrong secret"]
    for command, result in zip(COMMANDS, answers.wrong_secret, strict=True):
        _assert_one_clear_line(result, message.format(url=guarded.endpoint), command)


def test_an_unknown_key_is_one_line_naming_the_endpoint(guarded, answers) -> None:
    _, message = SECRETS["unknown key"]
    for command, result in zip(COMMANDS, answers.unknown_key, strict=True):
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


def test_a_missing_table_is_one_line_naming_where(guarded, answers) -> None:
    for (command, message), result in zip(MISSING_TABLE, answers.missing_table, strict=True):
        expected = message.format(url=guarded.endpoint, dir=answers.missing_table_files)
        lines = result.stderr.splitlines()
        assert (result.returncode, lines[0]) == (1, f"Error: {expected}"), (command, result.stderr)
        assert "Traceback" not in result.stderr and len(lines) <= 2
    assert not (
        answers.missing_table_files / "copy.db"
    ).exists()  # a copy that found no table created no file


@dataclass
class Answers:
    wrong_secret: list[Ran]
    unknown_key: list[Ran]
    missing_table: list[Ran]
    missing_table_files: Path


@pytest.fixture(scope="module")
def answers(guarded, tmp_path_factory: pytest.TempPathFactory) -> Answers:
    """Every command run as a user with a wrong secret, with an unknown key, and (good credentials) on a
    missing table, each in files of its own: one process starts the command line for all three."""
    root = tmp_path_factory.mktemp("users")
    wrong, unknown, missing = (_files(root / name) for name in ("wrong", "unknown", "missing"))
    ran = _as_users(
        [
            (*SECRETS["wrong secret"][0], [_argv(c, guarded.endpoint, wrong) for c in COMMANDS]),
            (*SECRETS["unknown key"][0], [_argv(c, guarded.endpoint, unknown) for c in COMMANDS]),
            (*GOOD, [_argv(c, guarded.endpoint, missing) for c, _ in MISSING_TABLE]),
        ]
    )
    return Answers(*ran, missing)


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
