"""``singletable mcp`` as MCP clients meet it: a ``python -m singletable mcp`` subprocess driven by the
official SDK's own client over stdio and over streamable HTTP, on seed designs in engine files and on
DynamoDB Local."""

from __future__ import annotations

import http.client
import json
import os
import select
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import anyio
import pytest
from click.testing import CliRunner
from mcp_seeds import SEEDS, design_table
from mcp_wire import DDB_LOCAL_CREDENTIALS, HTTPServer, check_listing, seed_file, session, stdio

from serving import run_cli
from singletable._cli import main
from singletable.examples import DEMO_CLOCK
from singletable.model import connect

WAVYBLOG = SEEDS["wavyblog"][0]
PLACES = SEEDS["places"][0]


class StdioRun(NamedTuple):
    """One ``singletable mcp`` run over stdio: its tools by name, the answers in call order, its record."""

    tools: dict[str, Any]
    results: list[Any]
    record: Path


READ_CALLS = [
    ("describe_design", {}),
    ("post_all_posts", {"limit": 2}),
    ("post_by_user", {"author_id": 7}),
    ("put_user", {"username": "zed"}),
    ("count", {"pattern": "post_all_posts"}),
]
RAW_CALLS = [
    (
        "query_raw",
        {
            "table": "WavyBlog",
            "key": {"partition": {"attribute": "PK", "value": "USER#jane_smith"}},
            "projection": ["Email"],
        },
    ),
    ("scan_raw", {"table": "Other"}),
]


@pytest.fixture(scope="module")
def read_only_stdio(tmp_path_factory: pytest.TempPathFactory) -> StdioRun:
    """The default (read-only) server with a record file and one raw table, as one process: the tests
    below read its answers to READ_CALLS, then RAW_CALLS."""
    directory = tmp_path_factory.mktemp("stdio")
    db = seed_file("wavyblog", directory / "blog.db")
    record = directory / "calls.jsonl"
    server = stdio(WAVYBLOG, str(db), "--record", str(record), "--raw-table", "WavyBlog")
    listed, results = anyio.run(session, server, READ_CALLS + RAW_CALLS)
    return StdioRun(check_listing(listed), results, record)


def test_stdio_lists_calls_and_refuses(read_only_stdio: StdioRun) -> None:
    tools = read_only_stdio.tools
    assert "post_by_user" in tools and "get_user" in tools and "put_user" not in tools
    assert tools["post_by_user"].input_schema["required"] == ["author_id"]
    assert tools["get_user"].annotations.read_only_hint is True
    item = tools["post_by_user"].output_schema["properties"]["items"]["items"]
    assert item["properties"]["created_at"]["anyOf"][0]["format"] == "date-time"  # the client checks results
    described, page, wrong, refused, counted = read_only_stdio.results[: len(READ_CALLS)]
    assert described.structured_content["table"]["name"] == "WavyBlog"
    assert page.is_error is False and len(page.structured_content["items"]) == 2
    assert json.loads(page.content[0].text) == page.structured_content
    assert page.structured_content["cursor"]
    assert wrong.is_error is True
    assert wrong.content[0].text == "post_by_user: argument author_id: 7 is not of type 'string'"
    assert refused.is_error is True and "no tool 'put_user'" in refused.content[0].text
    assert counted.structured_content["count"] == 8 and counted.structured_content["complete"] is True
    record = read_only_stdio.record
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert [line["tool"] for line in lines] == [name for name, _ in READ_CALLS + RAW_CALLS]
    assert [line["ok"] for line in lines] == [True, True, False, False, True, True, False]


def test_stdio_confirm_plans_writes_and_writes_nothing(tmp_path: Path) -> None:
    db = seed_file("wavyblog", tmp_path / "blog.db")
    user = {"user_id": "u9", "username": "zed", "email": "zed@example.com", "password_hash": "h"}
    server = stdio(WAVYBLOG, str(db), "--write", "User", "--allow-deletes", "--confirm")
    calls = [("put_user", user), ("get_user", {"username": "zed"})]
    listed, (planned, got) = anyio.run(session, server, calls)
    names = set(check_listing(listed))
    assert {"put_user", "update_user", "delete_user"} <= names and "put_post" not in names
    assert check_listing(listed)["delete_user"].annotations.destructive_hint is True
    assert planned.structured_content["written"] is False
    (request,) = planned.structured_content["planned_requests"]
    assert request["operation"] == "TransactWriteItems"
    assert got.structured_content == {"item": None}


def test_stdio_writes_when_allowed(tmp_path: Path) -> None:
    db = seed_file("wavyblog", tmp_path / "blog.db")
    user = {"user_id": "u9", "username": "zed", "email": "zed@example.com", "password_hash": "h"}
    again = {**user, "username": "zed2"}
    calls = [("put_user", user), ("put_user", again), ("get_user", {"username": "zed"})]
    _, (put, duplicate, got) = anyio.run(session, stdio(WAVYBLOG, str(db), "--allow-writes"), calls)
    assert put.is_error is False and put.structured_content["item"]["username"] == "zed"
    assert duplicate.is_error is True and "UniqueViolation" in duplicate.content[0].text
    assert got.structured_content["item"]["email"] == "zed@example.com"


@pytest.fixture(scope="module")
def http_places(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HTTPServer]:
    """One server for the module's streamable HTTP tests on the places seed: they only read."""
    places = seed_file("places", tmp_path_factory.mktemp("http") / "places.db")
    server = HTTPServer(PLACES, str(places), "--max-page-size", "10")
    yield server
    server.stop()


def test_streamable_http_on_an_engine_file(http_places: HTTPServer) -> None:
    calls = [
        ("category_by_name", {}),
        ("collection_by_name", {"limit": 11}),
        ("count", {"pattern": "collection_by_name"}),
        ("place_search", {"search_name": 3}),
    ]
    listed, (categories, too_many, counted, wrong) = anyio.run(session, http_places.url, calls)
    tools = check_listing(listed)
    assert tools["collection_by_name"].input_schema["properties"]["limit"]["maximum"] == 10
    assert [c["name"] for c in categories.structured_content["items"]] == [
        "Census",
        "Nonconformist chapels",
        "Parish registers",
    ]
    assert too_many.is_error is True and "argument limit: 11 is greater than the maximum of 10" in (
        too_many.content[0].text
    )
    assert counted.structured_content["count"] == 3 and counted.structured_content["complete"] is True
    assert wrong.is_error is True
    assert "argument search_name: 3 is not of type 'string'" in wrong.content[0].text


def test_streamable_http_answers_loopback_hosts_only(http_places: HTTPServer) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}

    def status(extra: dict[str, str]) -> int:
        connection = http.client.HTTPConnection("127.0.0.1", http_places.port, timeout=10)
        try:
            connection.request("POST", "/mcp", body, headers={**headers, **extra})
            return connection.getresponse().status
        finally:
            connection.close()

    assert status({"Host": "evil.example"}) in (403, 421)
    assert status({"Host": f"127.0.0.1:{http_places.port}", "Origin": "http://evil.example"}) == 403


@pytest.fixture(scope="module")
def wavyblog_on_dynamodb_local(reference_server: Any) -> Iterator[str]:
    """The wavyblog sample in a table of its own on DynamoDB Local, for the module's tests that read it;
    its name."""
    name = f"t{os.getpid()}_mcp_protocol_wavyblog"
    db = connect(design_table("wavyblog"), reference_server.client(), name=name, clock=lambda: DEMO_CLOCK)
    db.create_table()
    try:
        SEEDS["wavyblog"][1](db)
        yield name
    finally:
        db.delete_table()


def test_streamable_http_on_dynamodb_local(reference_server: Any, wavyblog_on_dynamodb_local: str) -> None:
    endpoint = reference_server.endpoint
    table = wavyblog_on_dynamodb_local
    server = HTTPServer(WAVYBLOG, endpoint, "--table", table, env=DDB_LOCAL_CREDENTIALS)
    try:
        calls = [("post_all_posts", {"limit": 100}), ("get_user", {"username": 1})]
        listed, (posts, wrong) = anyio.run(session, server.url, calls)
    finally:
        logged = server.stop()
    assert "Traceback" not in logged, logged
    assert "post_by_category" in check_listing(listed)
    assert len(posts.structured_content["items"]) == 8
    assert wrong.is_error is True
    assert "argument username: 1 is not of type 'string'" in wrong.content[0].text


def test_an_endpoint_without_the_async_extra_is_served_by_a_db(
    reference_server: Any, wavyblog_on_dynamodb_local: str
) -> None:
    """Without aiobotocore the command serves an endpoint through a DB whose requests run on worker
    threads: the same tools and answers."""
    server = stdio(
        WAVYBLOG,
        reference_server.endpoint,
        "--table",
        wavyblog_on_dynamodb_local,
        env=DDB_LOCAL_CREDENTIALS,
        without=("aiobotocore",),
    )
    calls = [("post_by_user", {"author_id": "jane_smith"}), ("count", {"pattern": "post_all_posts"})]
    _, (posts, counted) = anyio.run(session, server, calls)
    assert {p["author_id"] for p in posts.structured_content["items"]} == {"jane_smith"}
    assert counted.structured_content["count"] == 8


def test_without_the_extra_the_command_says_what_to_install(tmp_path: Path) -> None:
    """A process of its own: there ``mcp`` cannot be imported, as where the extra is not installed."""
    db = seed_file("wavyblog", tmp_path / "blog.db")
    missing = run_cli("mcp", WAVYBLOG, str(db), without=("mcp",))
    assert missing.returncode == 1
    assert missing.stderr == "Error: singletable mcp needs the 'mcp' extra: pip install 'singletable[mcp]'\n"


def test_command_line_refusals(tmp_path: Path) -> None:
    """Each refused command line exits with click's code and one line saying why (run in-process: each is
    refused before any server starts)."""
    db = seed_file("wavyblog", tmp_path / "blog.db")

    def run(*args: str) -> Any:
        return CliRunner().invoke(main, ["mcp", *args], prog_name="singletable")

    deletes = run(WAVYBLOG, str(db), "--allow-deletes")
    assert deletes.exit_code == 2
    assert "--allow-deletes needs --allow-writes or --write ENTITY" in deletes.stderr
    unknown = run(WAVYBLOG, str(db), "--write", "Comment")
    assert unknown.exit_code == 2
    assert "--write Comment: the design has no such entity (Category, Post, User)" in unknown.stderr
    nofile = run(WAVYBLOG, str(tmp_path / "none.db"))
    assert nofile.exit_code == 1 and "no database file" in nofile.stderr
    assert not (tmp_path / "none.db").exists()
    unrecorded = run(WAVYBLOG, str(db), "--record", str(tmp_path / "no" / "calls.jsonl"))
    assert unrecorded.exit_code == 1
    assert (
        unrecorded.stderr
        == f"Error: cannot open the record file {tmp_path}/no/calls.jsonl: No such file or directory\n"
    )
    nodesign = run("no_such_design_module", str(db))
    assert nodesign.exit_code == 1 and "cannot import design module no_such_design_module" in nodesign.stderr
    bad_table = run(WAVYBLOG, str(db), "--raw-table", "a b")
    assert bad_table.exit_code == 2 and "--raw-table 'a b': not a table name" in bad_table.stderr


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "hand", "version": "1"},
    },
}
# A tools/call whose arguments nest 100,000 lists deep: more than any JSON parser's recursion allows.
DEEP_CALL = (
    '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "count", "arguments": '
    '{"pattern": "category_by_name", "arguments": {"where": ' + "[" * 100_000 + "]" * 100_000 + "}}}}"
)


class RawSession:
    """A streamable HTTP MCP session spoken by hand, to send what no SDK client would."""

    HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}

    def __init__(self, port: int) -> None:
        self.port = port
        self.headers = dict(self.HEADERS)
        status, _ = self.post(json.dumps(INITIALIZE))
        assert status == 200
        self.post(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))

    def post(self, body: str | bytes) -> tuple[int, str]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            connection.request("POST", "/mcp", body, headers=self.headers)
            response = connection.getresponse()
            session_id = response.getheader("mcp-session-id")
            if session_id:
                self.headers["mcp-session-id"] = session_id
            return response.status, response.read().decode(errors="replace")
        finally:
            connection.close()

    def call(self, number: int, name: str, arguments: Any) -> tuple[int, str]:
        request = {
            "jsonrpc": "2.0",
            "id": number,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }
        return self.post(json.dumps(request))


def test_streamable_http_survives_hostile_requests(http_places: HTTPServer) -> None:
    """Bodies no SDK client sends -- JSON nested 100,000 deep, 3 and 5 MB of text, arguments that are not an
    object, broken JSON -- are refused or answered as tool errors; the server stays up, logs no traceback,
    and answers the next call."""
    raw = RawSession(http_places.port)
    status, _ = raw.post(DEEP_CALL)
    assert status < 500
    status, text = raw.call(2, "place_search", {"search_name": "x" * 5_000_000})
    assert status == 413  # the SDK's own bound on a request body (4 MB)
    status, text = raw.call(2, "place_search", {"search_name": "x" * 3_000_000})
    assert status == 200 and (
        '"isError":true' in text.replace(" ", "") or '"items":[]' in text.replace(" ", "")
    )
    status, text = raw.call(3, "category_by_name", ["not", "an", "object"])
    assert status < 500 and "Traceback" not in text
    status, _ = raw.post(b'{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {')
    assert status < 500
    status, text = raw.call(5, "category_by_name", {"limit": -5})
    assert status == 200 and "argument limit: -5 is less than the minimum of 1" in text
    assert http_places.alive()
    _, (answer,) = anyio.run(session, http_places.url, [("category_by_name", {})])
    assert answer.is_error is False and len(answer.structured_content["items"]) == 3
    assert "Traceback" not in http_places.logged()


def test_raw_tables_on_the_command_line(read_only_stdio: StdioRun) -> None:
    tools = read_only_stdio.tools
    found, refused = read_only_stdio.results[len(READ_CALLS) :]
    assert tools["query_raw"].input_schema["properties"]["table"]["enum"] == ["WavyBlog"]
    assert tools["scan_raw"].annotations.read_only_hint is True
    assert found.structured_content["items"] == [{"Email": "jane@example.com"}]
    assert refused.is_error and "scan_raw: argument table: 'Other' is not one of ['WavyBlog']" in (
        refused.content[0].text
    )


def test_stdio_survives_hostile_lines(tmp_path: Path) -> None:
    """Over stdio, a line of JSON nested 100,000 deep, a broken line and arguments that are not an object
    leave the server answering the next call."""
    from mcp_wire import child_env

    db = seed_file("places", tmp_path / "places.db")
    lines = [
        json.dumps(INITIALIZE),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        DEEP_CALL,
        '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {',
        json.dumps(
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "count", "arguments": [1]}}
        ),
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 4,
                "method": "tools/call",
                "params": {"name": "category_by_name", "arguments": {}},
            }
        ),
    ]
    process = subprocess.Popen(
        [sys.executable, "-m", "singletable", "mcp", PLACES, str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_env(),
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    process.stdin.write("\n".join(lines) + "\n")
    process.stdin.flush()
    answers: dict[Any, Any] = {}
    deadline = time.monotonic() + 180
    # Read the pipe itself, not through the text wrapper: a readline can buffer the next answer where
    # select does not see it (answers 3 and 4 arriving together would wait out the deadline).
    unfinished = b""
    while 4 not in answers and time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], 1.0)
        if not ready:
            continue
        chunk = os.read(process.stdout.fileno(), 1 << 16)
        if not chunk:
            break
        *lines_read, unfinished = (unfinished + chunk).split(b"\n")
        for line in lines_read:
            message = json.loads(line)
            answers[message.get("id")] = message
    process.stdin.close()
    process.wait(timeout=30)
    stderr = process.stderr.read()
    process.stdout.close()
    process.stderr.close()
    assert 4 in answers, (answers, stderr[-3000:])
    assert answers[4]["result"]["isError"] is False
    assert [c["name"] for c in answers[4]["result"]["structuredContent"]["items"]] == [
        "Census",
        "Nonconformist chapels",
        "Parish registers",
    ]
    assert "Traceback" not in stderr, stderr[-2000:]
