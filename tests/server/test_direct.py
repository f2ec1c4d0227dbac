"""The direct path (``_server/direct.py``): API calls answered in the parser's callbacks, over real TCP.

Part one serves a real engine with uvicorn's own protocol machinery (``Config``, ``ServerState``) and our
``DirectApiProtocol`` on 127.0.0.1, and talks raw HTTP/1.1 to it, so each test can also see which path
answered (a request through ASGI leaves uvicorn's ``RequestResponseCycle`` on the protocol; a direct one
does not). Part two sends the same kinds of raw requests to a real ``singletable serve`` subprocess.
"""

from __future__ import annotations

import asyncio
import json
import socket

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from uvicorn.config import Config
from uvicorn.server import ServerState

from singletable._server.app import MAX_BODY_BYTES, DynamoDBApp
from singletable._server.direct import DirectApiProtocol
from singletable.engine import Engine

TABLE = {
    "TableName": "direct",
    "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
    "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
    "BillingMode": "PAY_PER_REQUEST",
}


def _request(
    operation: str | None,
    payload: bytes | dict,
    *,
    headers: dict[str, str] | None = None,
    method: str = "POST",
    path: str = "/",
    version: str = "HTTP/1.1",
    chunked: bool = False,
) -> bytes:
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    lines = [f"{method} {path} {version}", "Host: 127.0.0.1", "Content-Type: application/x-amz-json-1.0"]
    if operation is not None:
        lines.append(f"X-Amz-Target: DynamoDB_20120810.{operation}")
    if chunked:
        lines.append("Transfer-Encoding: chunked")
        body = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    elif "Content-Length" not in (headers or {}):
        lines.append(f"Content-Length: {len(body)}")
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


class Response:
    def __init__(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def header(self, name: str) -> str | None:
        return next((value for key, value in self.headers if key == name), None)

    def json(self) -> dict:
        return json.loads(self.body)


async def _read_response(reader: asyncio.StreamReader) -> Response:
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = [(name.lower(), value) for name, value in (line.split(": ", 1) for line in lines[1:] if line)]
    length = next((int(value) for name, value in headers if name == "content-length"), 0)
    body = await asyncio.wait_for(reader.readexactly(length), 10) if length else b""
    return Response(status, headers, body)


class Served:
    """One engine behind uvicorn's machinery and DirectApiProtocol on a loopback port."""

    def __init__(self, app: DynamoDBApp, **config: object) -> None:
        self.app = app
        self.config = Config(
            app, http=DirectApiProtocol, lifespan="off", log_level="warning", proxy_headers=False, **config
        )
        self.config.load()
        self.state = ServerState()
        self.protocols: list[DirectApiProtocol] = []
        self.received = 0  # bytes the server has read, over all its connections
        self._read: asyncio.Event | None = None

    def _protocol(self) -> DirectApiProtocol:
        protocol = DirectApiProtocol(self.config, self.state, {}, _loop=asyncio.get_running_loop())
        self.protocols.append(protocol)
        read = protocol.data_received

        def counted(data: bytes) -> None:  # the server's reads, counted so a client can wait for them
            self.received += len(data)
            read(data)
            if self._read is not None:
                self._read.set()

        protocol.data_received = counted  # type: ignore[method-assign]
        return protocol

    async def read_all(self, sent: int) -> None:
        """Wait until the server has read ``sent`` bytes: what is sent next comes in a read of its own."""
        assert self._read is not None, "read_all runs inside exchange"
        while self.received < sent:
            self._read.clear()
            await asyncio.wait_for(self._read.wait(), 10)

    async def exchange(
        self, *chunks: bytes, responses: int = 1, apart: bool = False, probe: bool = False
    ) -> list[Response]:
        """Send ``chunks`` on one new connection (with ``apart``, each read by the server before the next is
        sent); read ``responses``. With ``probe``, then ``closed_after``: whether the server had closed the
        connection, told by one more call sent after them, which a connection kept open answers."""
        loop = asyncio.get_running_loop()
        server = await loop.create_server(self._protocol, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        sent = self.received
        self._read = asyncio.Event()  # of this exchange's event loop
        try:
            for chunk in chunks:
                writer.write(chunk)
                await writer.drain()
                sent += len(chunk)
                if apart:
                    await self.read_all(sent)
            self.answers = [await _read_response(reader) for _ in range(responses)]
            if probe:
                self.closed_after = await _closed_or_answering(reader, writer)
        finally:
            writer.close()
            server.close()
        return self.answers

    def run(
        self, *chunks: bytes, responses: int = 1, apart: bool = False, probe: bool = False
    ) -> list[Response]:
        return asyncio.run(self.exchange(*chunks, responses=responses, apart=apart, probe=probe))

    @property
    def went_through_asgi(self) -> bool:
        return self.protocols[-1].cycle is not None


async def _closed_or_answering(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
    """True if the server has closed the connection; False if it answers one more plain call on it."""
    try:
        writer.write(_request(*GET_A))
        await writer.drain()
        await _read_response(reader)
    except (asyncio.IncompleteReadError, ConnectionError):
        return True
    return False


@pytest.fixture(scope="module")
def engine():
    engine = Engine(":memory:")
    engine.execute("CreateTable", TABLE)
    engine.execute("PutItem", {"TableName": "direct", "Item": {"PK": {"S": "a"}, "n": {"N": "1"}}})
    yield engine
    engine.close()


@pytest.fixture
def served(engine):
    return Served(DynamoDBApp(engine=engine))


GET_A = ("GetItem", {"TableName": "direct", "Key": {"PK": {"S": "a"}}})


def test_a_plain_call_is_answered_directly_with_the_api_headers(served):
    (answer,) = served.run(_request(*GET_A), probe=True)
    assert not served.went_through_asgi
    assert answer.status == 200
    assert answer.json() == {"Item": {"PK": {"S": "a"}, "n": {"N": "1"}}}
    assert answer.header("content-type") == "application/x-amz-json-1.0"
    assert len(answer.header("x-amzn-requestid")) == 52
    import zlib

    assert answer.header("x-amz-crc32") == str(zlib.crc32(answer.body))
    assert answer.header("content-length") == str(len(answer.body))
    assert answer.header("connection") is None and not served.closed_after


def test_the_direct_answer_matches_the_asgi_answer(served, engine):
    (direct,) = served.run(_request(*GET_A))
    asgi_served = Served(DynamoDBApp(engine=engine))
    # Expect: 100-continue sends a request down the ASGI path: the interim 100, then the same answer.
    interim, asgi = asgi_served.run(_request(*GET_A, headers={"Expect": "100-continue"}), responses=2)
    assert asgi_served.went_through_asgi and interim.status == 100
    assert (asgi.status, asgi.body) == (direct.status, direct.body)
    assert [name for name, _ in asgi.headers] == [name for name, _ in direct.headers]


def test_keep_alive_and_pipelined_calls_are_answered_in_order(served):
    calls = b"".join(
        _request(operation, payload)
        for operation, payload in (
            GET_A,
            ("PutItem", {"TableName": "direct", "Item": {"PK": {"S": "b"}}}),
            ("GetItem", {"TableName": "direct", "Key": {"PK": {"S": "b"}}}),
            ("ListTables", {}),
        )
    )
    first, put, get_b, tables = served.run(calls, responses=4)
    assert not served.went_through_asgi
    assert [first.status, put.status, get_b.status, tables.status] == [200] * 4
    assert first.json()["Item"]["PK"] == {"S": "a"} and put.json() == {}
    assert get_b.json() == {"Item": {"PK": {"S": "b"}}}
    assert "direct" in tables.json()["TableNames"]
    assert len({answer.header("x-amzn-requestid") for answer in (first, put, get_b, tables)}) == 4


def test_an_asgi_request_ahead_keeps_pipelined_answers_in_order(served):
    health = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    answers = served.run(health + _request(*GET_A) + health + _request("ListTables", {}), responses=4)
    assert [answer.status for answer in answers] == [200] * 4
    assert answers[0].body.startswith(b"healthy: ") and answers[2].body.startswith(b"healthy: ")
    assert answers[1].json()["Item"]["PK"] == {"S": "a"} and "TableNames" in answers[3].json()


def test_a_body_arriving_in_pieces(served):
    request = _request(*GET_A)
    cut = request.index(b"\r\n\r\n") + 10
    (answer,) = served.run(request[:20], request[20:cut], request[cut:], apart=True)
    assert not served.went_through_asgi
    assert answer.json()["Item"]["n"] == {"N": "1"}


def test_connection_close_is_honoured(served):
    (answer,) = served.run(_request(*GET_A, headers={"Connection": "close"}), probe=True)
    assert not served.went_through_asgi
    assert answer.status == 200 and answer.header("connection") == "close"
    assert served.closed_after


@pytest.mark.parametrize(
    ("operation", "body", "code", "message"),
    [
        ("GetItem", b"{not json", "com.amazon.coral.service#SerializationException", None),
        ("GetItem", b"[1]", "com.amazon.coral.service#SerializationException", None),
        ("NoSuchThing", b"{}", "com.amazon.coral.service#UnknownOperationException", None),
        (
            "GetItem",
            b'{"TableName": "missing", "Key": {"PK": {"S": "a"}}}',
            "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException",
            "Requested resource not found",
        ),
    ],
)
def test_refused_calls_get_dynamodb_errors_directly(served, operation, body, code, message):
    (answer,) = served.run(_request(operation, body), probe=True)
    assert not served.went_through_asgi
    assert answer.status == 400
    assert answer.json().get("__type") == code
    assert answer.json().get("message") == message
    assert answer.header("x-amz-crc32") is not None and not served.closed_after


def test_a_missing_target_takes_the_asgi_path_to_the_same_error(served):
    (answer,) = served.run(_request(None, b"{}"))
    assert served.went_through_asgi
    assert answer.status == 400
    assert answer.json() == {"__type": "com.amazon.coral.service#UnknownOperationException"}


def test_a_chunked_body_takes_the_asgi_path(served):
    (answer,) = served.run(_request(*GET_A, chunked=True))
    assert served.went_through_asgi
    assert answer.json()["Item"]["PK"] == {"S": "a"}


def test_a_body_over_the_limit_is_refused_by_the_asgi_path(served):
    (answer,) = served.run(_request(*GET_A, headers={"Content-Length": str(MAX_BODY_BYTES + 1)}))
    assert served.went_through_asgi
    assert answer.status == 413
    assert answer.json() == {
        "__type": "com.amazon.coral.service#RequestEntityTooLarge",
        "message": f"Request body exceeds the maximum allowed size of {MAX_BODY_BYTES} bytes",
    }


def test_http_1_0_takes_the_asgi_path_and_closes(served):
    (answer,) = served.run(_request(*GET_A, version="HTTP/1.0"), probe=True)
    assert served.went_through_asgi
    assert answer.json()["Item"]["PK"] == {"S": "a"} and served.closed_after


def test_a_cors_request_takes_the_asgi_path_for_its_headers(served):
    (answer,) = served.run(_request(*GET_A, headers={"Origin": "http://localhost:3000"}))
    assert served.went_through_asgi
    assert answer.header("access-control-allow-origin") == "http://localhost:3000"


def test_a_host_not_answered_is_refused_by_the_app_and_an_allowed_one_stays_direct(served):
    def with_host(host: str) -> bytes:
        return _request(*GET_A).replace(b"Host: 127.0.0.1\r\n", f"Host: {host}\r\n".encode())

    (refused,) = served.run(with_host("evil.example"))
    assert served.went_through_asgi
    assert refused.status == 400
    assert refused.json()["__type"] == "com.amazon.coral.service#AccessDeniedException"
    for allowed in ("localhost:8000", "LOCALHOST:8000", "127.1", "[::1]:80", "localhost:8000"):
        (answer,) = served.run(with_host(allowed))
        assert not served.went_through_asgi and answer.status == 200
    # Each parsed once; from then on, one set lookup of the raw bytes.
    assert {b"localhost:8000", b"LOCALHOST:8000", b"127.1", b"[::1]:80"} <= served.app.access.known_hosts


def test_a_repeated_header_takes_the_asgi_path(served):
    (answer,) = served.run(
        _request("ListTables", {}, headers={"X-Amz-Target": "DynamoDB_20120810.ListTables"})
    )
    assert served.went_through_asgi
    assert answer.status == 200 and "TableNames" in answer.json()  # as before the direct path existed


def test_a_graceful_stop_answers_the_call_whose_body_is_arriving_then_closes(served):
    request = _request("PutItem", {"TableName": "direct", "Item": {"PK": {"S": "stopping"}}})
    cut = request.index(b"\r\n\r\n") + 10

    async def scenario() -> tuple[Response, bool]:
        server = await asyncio.get_running_loop().create_server(served._protocol, "127.0.0.1", 0)
        reader, writer = await asyncio.open_connection("127.0.0.1", server.sockets[0].getsockname()[1])
        writer.write(request[:cut])
        for _ in range(500):  # until the server has read the headers (and the first bytes of the body)
            await asyncio.sleep(0.01)
            if served.protocols and served.protocols[-1]._direct_headers is not None:
                break
        served.protocols[-1].shutdown()  # what uvicorn's Server does to every connection on SIGTERM
        writer.write(request[cut:])
        answer = await _read_response(reader)
        closed = await asyncio.wait_for(reader.read(1), 5) == b""
        writer.close()
        server.close()
        return answer, closed

    answer, closed = asyncio.run(scenario())
    assert not served.went_through_asgi
    assert answer.status == 200 and answer.header("connection") == "close" and closed
    assert served.app.dispatcher.engine.execute(
        "GetItem", {"TableName": "direct", "Key": {"PK": {"S": "stopping"}}}
    ) == {"Item": {"PK": {"S": "stopping"}}}


def test_an_idle_connection_closes_at_once_on_a_graceful_stop(served):
    async def scenario() -> bool:
        server = await asyncio.get_running_loop().create_server(served._protocol, "127.0.0.1", 0)
        reader, writer = await asyncio.open_connection("127.0.0.1", server.sockets[0].getsockname()[1])
        writer.write(_request(*GET_A))
        await _read_response(reader)
        served.protocols[-1].shutdown()
        closed = await asyncio.wait_for(reader.read(1), 5) == b""
        writer.close()
        server.close()
        return closed

    assert asyncio.run(scenario())


KEEP_ALIVE = 0.6  # seconds; a client stalled by a loaded machine for 0.5 s still counts as busy


async def _connect(served: Served) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, asyncio.Server]:
    server = await asyncio.get_running_loop().create_server(served._protocol, "127.0.0.1", 0)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.sockets[0].getsockname()[1])
    return reader, writer, server


async def _closed_within(reader: asyncio.StreamReader, seconds: float) -> bool:
    try:
        return await asyncio.wait_for(reader.read(1), seconds) == b""
    except TimeoutError:
        return False


def test_keep_alive_timeout_closes_an_idle_connection_not_a_busy_one(engine):
    served = Served(DynamoDBApp(engine=engine), timeout_keep_alive=KEEP_ALIVE)

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        reader, writer, server = await _connect(served)
        # Calls every 0.1 s for two timeouts: never idle for a whole timeout, never closed.
        started = loop.time()
        sent = 0
        while loop.time() - started < 2 * KEEP_ALIVE:
            sent += 1
            writer.write(_request(*GET_A))
            assert (await _read_response(reader)).status == 200
            await asyncio.sleep(0.1)
        # A call whose body arrives after more than a timeout: busy, not idle; it is answered.
        request = _request(*GET_A)
        cut = request.index(b"\r\n\r\n") + 4
        writer.write(request[:cut])
        await asyncio.sleep(KEEP_ALIVE * 1.5)
        writer.write(request[cut:])
        assert (await _read_response(reader)).status == 200
        # Then idle: closed after the timeout, not before.
        idle_from = loop.time()
        assert not await _closed_within(reader, KEEP_ALIVE * 0.5)
        assert await _closed_within(reader, KEEP_ALIVE * 2)
        assert KEEP_ALIVE * 0.9 <= loop.time() - idle_from <= KEEP_ALIVE * 2.5
        assert served.state.total_requests == sent + 1
        writer.close()
        server.close()

    asyncio.run(scenario())
    assert not served.went_through_asgi


def test_keep_alive_timeout_after_an_asgi_request(engine):
    served = Served(DynamoDBApp(engine=engine), timeout_keep_alive=KEEP_ALIVE)

    async def scenario() -> None:
        reader, writer, server = await _connect(served)
        writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert (await _read_response(reader)).status == 200
        assert not await _closed_within(reader, KEEP_ALIVE * 0.5)
        assert await _closed_within(reader, KEEP_ALIVE * 2)
        writer.close()
        server.close()

    asyncio.run(scenario())
    assert served.went_through_asgi


def test_a_gzip_body_is_answered_directly(served):
    import gzip

    body = gzip.compress(json.dumps(GET_A[1]).encode())
    (answer,) = served.run(_request("GetItem", body, headers={"Content-Encoding": "gzip"}))
    assert not served.went_through_asgi
    assert answer.json()["Item"]["PK"] == {"S": "a"}


def _signed_request(secret: str, body: bytes) -> bytes:
    """A ListTables call signed by botocore for AKIDTEST, as a raw HTTP/1.1 request to 127.0.0.1."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    request = AWSRequest(
        method="POST",
        url="http://127.0.0.1/",
        data=body,
        headers={
            "X-Amz-Target": "DynamoDB_20120810.ListTables",
            "Content-Type": "application/x-amz-json-1.0",
        },
    )
    SigV4Auth(Credentials("AKIDTEST", secret), "dynamodb", "us-east-1").add_auth(request)
    head = "".join(f"{name}: {value}\r\n" for name, value in request.headers.items())
    return f"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {len(body)}\r\n{head}\r\n".encode() + body


def test_sigv4_is_checked_on_the_direct_path(engine):
    from singletable._server.sigv4 import SigV4Verifier

    served = Served(DynamoDBApp(engine=engine, verifier=SigV4Verifier({"AKIDTEST": "test-secret"})))
    good, wrong_secret, tampered, unsigned = served.run(
        _signed_request("test-secret", b"{}"),
        _signed_request("other-secret", b"{}"),
        _signed_request("test-secret", b"{}").replace(b"\r\n\r\n{}", b"\r\n\r\n[]"),
        _request("ListTables", {}),
        responses=4,
    )
    assert not served.went_through_asgi
    assert good.status == 200 and "TableNames" in good.json()
    assert wrong_secret.status == 400
    assert wrong_secret.json()["__type"] == "com.amazon.coral.service#InvalidSignatureException"
    assert tampered.json()["__type"] == "com.amazon.coral.service#InvalidSignatureException"
    assert unsigned.json() == {
        "__type": "com.amazon.coral.service#MissingAuthenticationTokenException",
        "message": "Request is missing Authentication Token",
    }


def test_a_wrapped_app_is_served_through_asgi_only(engine):
    async def wrapped(scope, receive, send):
        await DynamoDBApp(engine=engine)(scope, receive, send)

    served = Served(wrapped)  # type: ignore[arg-type]
    (answer,) = served.run(_request(*GET_A))
    assert served.went_through_asgi
    assert answer.json()["Item"]["PK"] == {"S": "a"}


# Part two: a real ``singletable serve`` subprocess.


def _raw_exchange(port: int, data: bytes, responses: int, *, until_closed: bool = False) -> list[bytes]:
    """Send ``data`` on one socket; the raw responses (by Content-Length). With ``until_closed``, the server
    must then close the connection (within 10 s)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(data)
        buffer = b""
        out = []
        while len(out) < responses:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                chunk = sock.recv(65536)
                assert chunk, "server closed early"
                buffer += chunk
                continue
            head = buffer[:end].decode("latin-1").lower()
            length = (
                int(head.split("content-length: ")[1].split("\r\n")[0]) if "content-length: " in head else 0
            )
            while len(buffer) < end + 4 + length:
                buffer += sock.recv(65536)
            out.append(buffer[: end + 4 + length])
            buffer = buffer[end + 4 + length :]
        if until_closed:
            assert sock.recv(1) == b"", "the server kept the connection open"
    return out


def test_serve_answers_pipelined_calls_in_order_and_honours_close(http_server):
    tables = _request("ListTables", {})
    pipelined = (
        tables
        + _request("GetItem", b"{oops")
        + tables
        + _request("ListTables", {}, headers={"Connection": "close"})
    )
    answers = _raw_exchange(http_server.port, pipelined, 4, until_closed=True)
    assert [answer.split(b" ", 2)[1] for answer in answers] == [b"200", b"400", b"200", b"200"]
    assert b"SerializationException" in answers[1]
    assert b"connection: close" in answers[3].lower()
    for answer in answers:
        assert b"\r\ndate: " in answer.lower() and b"x-amzn-requestid: " in answer.lower()


def test_serve_takes_chunked_and_100_continue_bodies(http_server):
    answers = _raw_exchange(http_server.port, _request("ListTables", {}, chunked=True), 1)
    assert answers[0].startswith(b"HTTP/1.1 200") and b"TableNames" in answers[0]
    answers = _raw_exchange(
        http_server.port, _request("ListTables", {}, headers={"Expect": "100-continue"}), 2
    )
    assert answers[0].startswith(b"HTTP/1.1 100") and answers[1].startswith(b"HTTP/1.1 200")


def test_serve_uses_the_direct_protocol():
    from singletable._server.run import _http_protocol

    assert _http_protocol() is DirectApiProtocol


def test_a_uvicorn_without_the_parts_the_direct_path_overrides_is_not_used_for_it():
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    from singletable._server.direct import UVICORN_PARTS, fits_uvicorn

    assert fits_uvicorn(HttpToolsProtocol)  # the installed uvicorn: the direct path is used (test above)
    older = type("OlderHttpToolsProtocol", (), {part: lambda self: None for part in UVICORN_PARTS[1:]})
    assert not fits_uvicorn(older)  # uvicorn 0.30 had no _start_asgi_task


# The head bound counts only reads that continue an open head; a read that arrives with no head open (the
# usual one) goes to the parser uncounted. Whatever the reads' boundaries, no head under 64 KB is refused
# (tests/server/test_request_bounds.py refuses the ones over it, on both paths).
_PADDED_HEAD = 40 * 1024  # one header this long: a head that spans reads when cut, still under the bound


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_heads_under_the_bound_cut_anywhere_are_answered(served, data):
    stream, cuts = b"", set()
    for _ in range(data.draw(st.integers(1, 4), label="requests")):
        request = _request(
            *GET_A, headers={"X-Pad": "p" * data.draw(st.integers(0, _PADDED_HEAD), label="pad")}
        )
        head = request.index(b"\r\n\r\n") + 4
        # Reads that end inside this head (several: a read wholly inside one head is a counted one).
        cuts.update(
            len(stream) + cut for cut in data.draw(st.lists(st.integers(1, head), max_size=3), label="cuts")
        )
        stream += request
    ends = sorted(cut for cut in cuts if cut < len(stream))
    pieces = [stream[a:b] for a, b in zip([0, *ends], [*ends, len(stream)], strict=True)]
    answers = served.run(*pieces, responses=stream.count(b"POST /"), apart=True)
    assert [answer.status for answer in answers] == [200] * len(answers)
    assert all(answer.json()["Item"]["PK"] == {"S": "a"} for answer in answers)


def test_each_head_is_counted_alone(served):
    """Four heads of 40 KB, each read mostly in a read of its own (152 KB counted in all): none refused."""
    requests = [_request(*GET_A, headers={"X-Pad": "p" * _PADDED_HEAD}) for _ in range(4)]
    pieces = []
    for request in requests:
        pieces += [request[:1000], request[1000:39_000], request[39_000:]]
    answers = served.run(*pieces, responses=4, apart=True)
    assert [answer.status for answer in answers] == [200] * 4
