"""Who singletable's servers answer: Host names (DNS rebinding) and web origins (CORS), over real sockets.

Each test talks to a real ``singletable serve`` subprocess on 127.0.0.1 with raw HTTP, so the Host and
Origin headers are exactly the bytes a hostile page (or a rebinding attack) would send. Both of serve's
request paths are checked: a plain ``POST /`` API call (answered by the direct protocol) and everything
else (health checks, preflights, the console under ``serve --ui``: the ASGI app). ``singletable ui`` (the
console on its own) shares the Host policy, so every generated Host value is also sent to one, and must get
the same answer. Hypothesis generates the Host and Origin values, each built with the answer it must get:
allowed exactly when it is a loopback name (``localhost``, ``*.localhost``), a loopback IP literal in any
spelling a browser reads (127.0.0.0/8, ``::1``, ``::ffff:127.x.y.z``), or configured; never a 500.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_runs import run_in_process
from draws import examples
from reference import free_port, local_client
from serving import ServerProcess, refused_in_process

EXTRA_HOST = "dynamodb"  # --allow-host, as a docker-compose service name
EXTRA_ORIGIN = "http://app.test:3000"  # --cors-origin
LIST_TABLES = b"{}"
ANSWERED = (
    "this server answers only loopback names (localhost, 127.0.0.1, [::1]), the address it listens on and "
    "names given with --allow-host NAME (a guard against DNS rebinding)"
)


class Answer:
    def __init__(self, raw: bytes) -> None:
        head, _, self.body = raw.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        self.status = int(lines[0].split(" ")[1])
        self.headers = {
            name.lower(): value for name, value in (line.split(": ", 1) for line in lines[1:] if ": " in line)
        }

    def json(self) -> dict:
        return json.loads(self.body)


def exchange(
    port: int,
    *,
    method: str = "POST",
    path: str = "/",
    host: str | None = None,
    headers: dict[str, str] | None = None,
    body: bytes = LIST_TABLES,
    version: str = "HTTP/1.1",
    address: str = "127.0.0.1",
) -> Answer:
    """One request on a new connection, its bytes as given (``host=None``: no Host header at all)."""
    lines = [f"{method} {path} {version}"]
    if host is not None:
        lines.append(f"Host: {host}")
    if method == "POST":
        lines += ["X-Amz-Target: DynamoDB_20120810.ListTables", "Content-Type: application/x-amz-json-1.0"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    lines += [f"Content-Length: {len(body)}", "Connection: close"]
    request = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body
    with socket.create_connection((address, port), timeout=10) as sock:
        sock.sendall(request)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    return Answer(received)


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    served = ServerProcess(None, args=("--allow-host", EXTRA_HOST, "--cors-origin", EXTRA_ORIGIN))
    yield served
    served.stop()


class Console:
    """``singletable ui`` on a new database file and a free loopback port, answering once started."""

    def __init__(self, folder: Path, *args: str) -> None:
        from singletable.engine import Engine

        Engine(str(folder / "console.db")).close()  # the console opens a database; it creates none
        self.port = free_port()
        command = [
            sys.executable,
            "-m",
            "singletable",
            "ui",
            str(folder / "console.db"),
            "--port",
            str(self.port),
        ]
        self.process = subprocess.Popen(
            [*command, *args], env=dict(os.environ), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                if exchange(self.port, method="GET", host="127.0.0.1", body=b"").status == 200:
                    return
            except OSError:
                assert self.process.poll() is None, self.process.stderr.read()
                assert time.monotonic() < deadline, "singletable ui did not answer"
                time.sleep(0.1)

    def stop(self) -> None:
        self.process.terminate()
        self.process.communicate(timeout=15)


@pytest.fixture(scope="module")
def console(tmp_path_factory) -> Iterator[Console]:
    pytest.importorskip("starlette")
    started = Console(tmp_path_factory.mktemp("console"), "--allow-host", EXTRA_HOST)
    yield started
    started.stop()


# -- Host values, each with whether serve (and the console) must answer it -----------------------------------

_PORTS = st.one_of(st.just(""), st.integers(0, 65535).map(lambda port: f":{port}"), st.just(":"))


def _random_case(text: str, data: st.DataObject) -> str:
    flips = data.draw(st.lists(st.booleans(), min_size=len(text), max_size=len(text)))
    return "".join(char.upper() if flip else char for char, flip in zip(text, flips, strict=True))


def _ipv4_spelling(address: int, data: st.DataObject) -> str:
    """``address`` written as a browser still reads it: 1 to 4 parts, each decimal, 0x hex or 0-led octal."""
    parts = data.draw(st.integers(1, 4))
    octets = address.to_bytes(4, "big")
    numbers = [*octets[: parts - 1], int.from_bytes(octets[parts - 1 :], "big")]
    spelled = []
    for number in numbers:
        form = data.draw(st.sampled_from(["dec", "hex", "HEX", "oct"]))
        spelled.append(
            {"dec": str(number), "hex": f"0x{number:x}", "HEX": f"0X{number:X}", "oct": f"0{number:o}"}[form]
        )
    return ".".join(spelled) + data.draw(st.sampled_from(["", "."]))


@st.composite
def host_values(draw: st.DrawFn) -> tuple[str, bool]:
    data = draw(st.data())
    kind = draw(
        st.sampled_from(
            ["localhost", "sub.localhost", "ipv4", "ipv6", "configured", "name", "lookalike", "hostile"]
        )
    )
    port = draw(_PORTS)
    # Labels start with a letter, so a generated name is never an IP literal (those are the "ipv4" kind).
    label = st.from_regex(r"[a-z]([a-z0-9-]{0,10}[a-z0-9])?", fullmatch=True)
    if kind == "localhost":
        return _random_case("localhost", data) + draw(st.sampled_from(["", "."])) + port, True
    if kind == "sub.localhost":
        labels = draw(st.lists(label, min_size=1, max_size=3))
        return _random_case(".".join([*labels, "localhost"]), data) + port, True
    if kind == "ipv4":
        loopback = draw(st.booleans())
        address = draw(st.integers(0x7F000000, 0x7FFFFFFF) if loopback else st.integers(0, 2**32 - 1))
        return _ipv4_spelling(address, data) + port, address >> 24 == 127
    if kind == "ipv6":
        spelling = draw(
            st.sampled_from(
                [
                    ("::1", True),
                    ("0:0:0:0:0:0:0:1", True),
                    ("0000:0000:0000:0000:0000:0000:0000:0001", True),
                    ("::0:1", True),
                    ("::ffff:127.0.0.1", True),
                    ("::FFFF:7f00:1", True),
                    ("::ffff:127.9.8.7", True),
                    ("::2", False),
                    ("::", False),
                    ("fe80::1", False),
                    ("2001:db8::1", False),
                    ("::ffff:10.0.0.1", False),
                    ("::1:0", False),
                ]
            )
        )
        return f"[{spelling[0]}]{port}", spelling[1]
    if kind == "configured":
        return _random_case(EXTRA_HOST, data) + draw(st.sampled_from(["", "."])) + port, True
    if kind == "name":
        labels = draw(st.lists(label, min_size=1, max_size=4))
        name = ".".join(labels)
        return name + port, name in ("localhost", EXTRA_HOST) or name.endswith(".localhost")
    if kind == "lookalike":
        value = draw(
            st.sampled_from(
                [
                    "localhost.evil.example",
                    "127.0.0.1.nip.io",
                    "127.0.0.1.evil.example",
                    "localhostevil.example",
                    "evil-localhost",
                    "localhost.localdomain",
                    "dynamodb.evil.example",
                    "evil.example",
                    "0.0.0.0",
                    "128.0.0.1",
                    "127.0.0.256",
                    "127.0.0.1.1",
                    "1.2.3.4.5",
                    "0x80.0.0.1",
                ]
            )
        )
        return value + port, False
    value = draw(
        st.sampled_from(
            [
                "",
                " ",
                "evil@127.0.0.1",
                "evil.example@localhost",
                "127.0.0.1 evil.example",
                "127.0.0.1/evil",
                "127.0.0.1:80:80",
                "localhost:port",
                "[::1",
                "::1",
                "[::1]x",
                "[localhost]",
                "127.0.0.1\\evil",
                "lo\u00e7alhost",
                "%31%32%37.0.0.1",
                "127.0.0.1%00",
                "localhost..",
                ".localhost",
                "*",
                "*.localhost",
            ]
        )
    )
    return value, False


@settings(
    max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=host_values())
def test_a_host_is_answered_exactly_when_it_is_loopback_or_configured(server, console, case):
    host, allowed = case
    for answer in (
        exchange(server.port, host=host),  # a plain API call: the direct path
        exchange(server.port, method="GET", host=host, body=b""),  # the health check: the ASGI app
        exchange(console.port, method="GET", host=host, body=b""),  # singletable ui: the console's guard
    ):
        assert answer.status != 500
        if allowed:
            assert answer.status == 200, (host, answer.body)
        else:
            assert answer.status == 400, (host, answer.status, answer.body)
            assert not [name for name in answer.headers if name.startswith("access-control-")]
            assert b"csrf" not in answer.body and "set-cookie" not in answer.headers


def test_a_rebound_name_is_refused_before_anything_runs(server):
    created = json.dumps(
        {
            "TableName": "rebound",
            "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}],
            "BillingMode": "PAY_PER_REQUEST",
        }
    ).encode()
    host = f"evil.example:{server.port}"
    for answer in (
        exchange(
            server.port, host=host, headers={"X-Amz-Target": "DynamoDB_20120810.CreateTable"}, body=created
        ),
        exchange(server.port, host=host, headers={"Origin": f"http://{host}"}),
        exchange(server.port, method="OPTIONS", host=host, headers={"Origin": f"http://{host}"}, body=b""),
        exchange(server.port, method="GET", host=host, body=b""),
    ):
        assert answer.status == 400
        assert answer.json() == {
            "__type": "com.amazon.coral.service#AccessDeniedException",
            "message": f"Host '{host}' is not served: {ANSWERED}; to be reached by that name, start it with "
            "--allow-host evil.example",
        }
    assert "rebound" not in server.client().list_tables()["TableNames"]


def test_the_console_refuses_a_host_in_serves_words_on_a_page(console):
    host = f"evil.example:{console.port}"
    answer = exchange(console.port, method="GET", host=host, body=b"")
    assert answer.status == 400 and answer.headers["content-type"] == "text/html; charset=utf-8"
    message = f"Host &#x27;{host}&#x27; is not served: {ANSWERED}; to be reached by that name, start it with "
    assert message + "--allow-host evil.example" in answer.body.decode()


def test_two_host_headers_are_refused_whichever_comes_first(server):
    for first, second in (("127.0.0.1", "evil.example"), ("evil.example", "127.0.0.1")):
        for method in ("POST", "GET"):
            answer = exchange(server.port, method=method, host=first, headers={"Host": second})
            assert answer.status == 400
            assert answer.json()["message"] == "a request with more than one Host header is not served"


def test_sdks_reach_serve_by_localhost_and_by_127_0_0_1(server):
    for endpoint in (f"http://localhost:{server.port}", f"http://127.0.0.1:{server.port}"):
        assert "TableNames" in local_client(endpoint).list_tables()


def test_a_configured_host_names_itself_in_the_health_check(server):
    answer = exchange(server.port, method="GET", host=f"{EXTRA_HOST}:{server.port}", body=b"")
    assert answer.status == 200 and answer.body == f"healthy: {EXTRA_HOST}:{server.port} ".encode()


@pytest.mark.parametrize("version", ["HTTP/1.0", "HTTP/1.1"])
def test_a_request_without_host_over_loopback_is_answered(server, console, version):
    """No Host names nothing a page could rebind; a loopback connection is a local client (HTTP/1.0 tools)."""
    assert exchange(server.port, host=None, version=version).status == 200
    assert exchange(server.port, method="GET", host=None, version=version, body=b"").status == 200
    if version == "HTTP/1.0":  # the console's HTTP parser (h11) refuses an HTTP/1.1 request without one
        assert exchange(console.port, method="GET", host=None, version=version, body=b"").status == 200


def _outside_address() -> str | None:
    """This machine's own non-loopback IPv4 address (the one a route out would use), if it has one."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("198.51.100.1", 9))  # TEST-NET-2: no packet is sent for a UDP connect
            address = probe.getsockname()[0]
    except OSError:
        return None
    return None if address.startswith("127.") else address


def test_host_adds_the_address_it_listens_on_and_only_loopback_peers_may_omit_host():
    address = _outside_address()
    if address is None:
        pytest.skip("no non-loopback address on this machine")
    served = ServerProcess(None, host=address)
    try:
        port = served.port
        assert exchange(port, host=f"{address}:{port}", address=address).status == 200
        assert exchange(port, method="GET", host=address, address=address, body=b"").status == 200
        assert exchange(port, host=f"evil.example:{port}", address=address).status == 400
        no_host = exchange(port, host=None, address=address, version="HTTP/1.0")  # not a loopback peer
        assert no_host.status == 400
        assert no_host.json()["message"] == f"no Host header is not served: {ANSWERED}"
    finally:
        served.stop()


def test_allow_host_star_answers_any_name():
    served = ServerProcess(None, args=("--allow-host", "*"))
    try:
        for host in ("evil.example", "db:8000", "", "[::2]"):
            assert exchange(served.port, host=host).status == 200, host
            assert exchange(served.port, method="GET", host=host, body=b"").status == 200, host
    finally:
        served.stop()


# -- Origins ------------------------------------------------------------------------------------------------


@st.composite
def origins(draw: st.DrawFn) -> tuple[str, bool]:
    """An Origin header value and whether serve lets it in (the server's own Host is 127.0.0.1:PORT)."""
    scheme = draw(st.sampled_from(["http", "https", "HTTP", "ftp", "chrome-extension"]))
    web = scheme.lower() in ("http", "https")
    port = draw(st.one_of(st.just(""), st.integers(1, 65535).map(lambda port: f":{port}")))
    kind = draw(st.sampled_from(["loopback", "foreign", "configured", "hostile"]))
    if kind == "loopback":
        host = draw(
            st.sampled_from(["localhost", "127.0.0.1", "[::1]", "app.localhost", "127.3.4.5", "LocalHost"])
        )
        return f"{scheme}://{host}{port}", web
    if kind == "foreign":
        host = draw(st.from_regex(r"[a-z]{1,10}\.(example|test|com)", fullmatch=True))
        return f"{scheme}://{host}{port}", False
    if kind == "configured":
        return draw(st.sampled_from([EXTRA_ORIGIN, EXTRA_ORIGIN.upper(), EXTRA_ORIGIN + "/"])), True
    value = draw(
        st.sampled_from(
            [
                "null",
                "",
                "*",
                "localhost",
                "http://",
                "http://localhost.evil.example",
                "http://127.0.0.1.nip.io",
                "http://evil@127.0.0.1",
                "http://127.0.0.1/path",
                "file://",
                "//localhost",
                "http://app.test:3001",
                "https://app.test:3000",
            ]
        )
    )
    return value, False


@settings(
    max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=origins())
def test_an_origin_is_let_in_exactly_when_it_is_loopback_or_configured(server, case):
    origin, allowed = case
    host = f"127.0.0.1:{server.port}"
    preflight = exchange(
        server.port,
        method="OPTIONS",
        host=host,
        headers={"Origin": origin, "Access-Control-Request-Method": "POST"},
        body=b"",
    )
    posted = exchange(server.port, host=host, headers={"Origin": origin})
    for answer in (preflight, posted):
        assert answer.status != 500
        if allowed:
            assert answer.status == 200, (origin, answer.body)
            assert answer.headers["access-control-allow-origin"] == origin
            assert answer.headers["vary"] == "Origin"
        else:
            assert answer.status == 403, (origin, answer.status, answer.body)
            assert "access-control-allow-origin" not in answer.headers
            assert answer.json()["__type"] == "com.amazon.coral.service#AccessDeniedException"
    if allowed:
        assert preflight.headers["access-control-allow-methods"] == "POST"


def test_a_foreign_page_cannot_write(server):
    put = json.dumps({"TableName": "written", "Item": {"k": {"S": "x"}}}).encode()
    server.client().create_table(
        TableName="written",
        KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    answer = exchange(
        server.port,
        host=f"127.0.0.1:{server.port}",
        headers={"Origin": "https://evil.example", "X-Amz-Target": "DynamoDB_20120810.PutItem"},
        body=put,
    )
    assert answer.status == 403
    assert answer.json()["message"] == (
        "Origin 'https://evil.example' is not allowed: singletable serve lets in only loopback origins and "
        "those given with --cors-origin ORIGIN"
    )
    assert server.client().scan(TableName="written")["Count"] == 0


def test_a_page_served_by_serve_itself_is_same_origin(server):
    """A page at the server's own origin (the console, or any page it serves) is not cross-origin."""
    host = f"{EXTRA_HOST}:{server.port}"
    answer = exchange(server.port, host=host, headers={"Origin": f"http://{host}"})
    assert answer.status == 200 and answer.headers["access-control-allow-origin"] == f"http://{host}"


def test_cors_origin_star_answers_any_origin_with_a_star():
    served = ServerProcess(None, args=("--cors-origin", "*"))
    try:
        answer = exchange(served.port, host="127.0.0.1", headers={"Origin": "https://anything.example"})
        assert answer.status == 200 and answer.headers["access-control-allow-origin"] == "*"
        assert "vary" not in answer.headers
    finally:
        served.stop()


# The console under ``serve --ui`` answers only loopback hosts and same-origin posts: see
# tests/ui/test_serve_console.py (test_the_mounted_console_answers_only_its_own_host_names), in one worker
# and in two.


# -- The command line --------------------------------------------------------------------------------------

NOT_A_HOST = "is not a host name or IP address (give the name alone: no scheme, no port)"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--cors-origin", "evil.example"), "'evil.example' is not an origin (scheme://host[:port])"),
        (("--cors-origin", "http://x/path"), "'http://x/path' is not an origin (scheme://host[:port])"),
        (("--allow-host", "bad name"), f"'bad name' {NOT_A_HOST}"),
        (("--allow-host", "db:8000"), f"'db:8000' {NOT_A_HOST}"),
        (("--host", "http://db"), f"'http://db' {NOT_A_HOST}"),
    ],
)
def test_malformed_flags_are_usage_errors(args, message):
    result = refused_in_process("serve", "--in-memory", *args)
    assert result.returncode == 2
    assert f"Invalid value for {args[0]}: {message}" in result.stderr and "Traceback" not in result.stderr


def test_help_names_the_flags():
    result = run_in_process("serve", "--help")
    assert "--allow-host NAME" in result.stdout and "--cors-origin ORIGIN" in result.stdout
    assert "DNS rebinding" in result.stdout and "0600" in result.stdout
