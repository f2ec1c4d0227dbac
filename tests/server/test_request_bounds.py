"""``singletable serve`` bounds what a request may make it hold, on both of its paths (the direct API path
and ASGI): a body past 16 MB is refused while it arrives (413), a request head past 64 KB too (400), each
with DynamoDB's JSON error, never a 500; the server's peak memory (VmHWM) stays where it was, and it goes on
answering. Real ``serve`` processes, raw sockets."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from draws import examples
from serving import ServerProcess, send_until_answered

API = {"X-Amz-Target": "DynamoDB_20120810.ListTables", "Content-Type": "application/x-amz-json-1.0"}
HEAD_LIMIT = 64 * 1024


@pytest.fixture(scope="module")
def server():
    process = ServerProcess(None)
    yield process
    process.stop()


def _peak_kb(server: ServerProcess) -> int:
    status = Path(f"/proc/{server.process.pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status)[1])


def _stream(port: int, head: bytes, piece: bytes, total: int, end: bytes) -> tuple[int, dict, int]:
    """Send ``head``, then ``piece`` until ``total`` bytes or the server answers, then ``end``: the answer's
    status and JSON body, and how many bytes were sent."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sent = send_until_answered(sock, head, piece, total, end)
        status, body = _answer(sock)
    return status, body, sent


def _answer(sock: socket.socket) -> tuple[int, dict]:
    data = b""
    while True:
        head, _, body = data.partition(b"\r\n\r\n")
        length = re.search(rb"content-length: (\d+)", head, re.I) if _ else None
        if length and len(body) >= int(length[1]):
            return int(head.split(b" ")[1]), json.loads(body[: int(length[1])])
        chunk = sock.recv(65536)
        assert chunk, f"closed without a whole answer: {data[:300]!r}"
        data += chunk


def _head(port: int, method: str, extra: dict[str, str]) -> bytes:
    lines = [f"{method} / HTTP/1.1", f"Host: 127.0.0.1:{port}", *(f"{k}: {v}" for k, v in extra.items())]
    return ("\r\n".join(lines) + "\r\n").encode()


# The direct path takes a plain API call; an Origin header (CORS), a GET, or a chunked body go through ASGI.
PATHS = {
    "direct": ("POST", API),
    "asgi (Origin)": ("POST", {**API, "Origin": "http://localhost:3000"}),
    "asgi (GET)": ("GET", {}),
}


@pytest.mark.parametrize("path", PATHS)
def test_an_endless_header_line_is_refused_while_it_arrives(server: ServerProcess, path: str) -> None:
    method, headers = PATHS[path]
    before = _peak_kb(server)
    head = _head(server.port, method, headers) + b"X-Long: "
    status, body, sent = _stream(server.port, head, b"a" * 65536, 100 * 2**20, b"\r\n\r\n")
    assert (status, body) == (
        400,
        {
            "__type": "com.amazon.coral.service#SerializationException",
            "message": f"Request headers exceed the maximum allowed size of {HEAD_LIMIT} bytes",
        },
    )
    assert sent < 50 * 2**20  # refused long before the 100 MB were sent
    assert _peak_kb(server) - before < 20_000
    assert server.client().list_tables()["TableNames"] == []


@pytest.mark.parametrize("path", ["direct", "asgi (Origin)"])
def test_a_200_mb_chunked_body_is_refused_while_it_arrives(server: ServerProcess, path: str) -> None:
    _, headers = PATHS[path]
    before = _peak_kb(server)
    head = _head(server.port, "POST", {**headers, "Transfer-Encoding": "chunked"}) + b"\r\n"
    chunk = b"a" * 65536
    status, body, sent = _stream(
        server.port, head, b"%x\r\n" % len(chunk) + chunk + b"\r\n", 200 * 2**20, b"0\r\n\r\n"
    )
    assert (status, body["__type"]) == (413, "com.amazon.coral.service#RequestEntityTooLarge")
    assert body["message"] == "Request body exceeds the maximum allowed size of 16777216 bytes"
    assert sent < 60 * 2**20
    assert _peak_kb(server) - before < 40_000  # the 16 MB it may hold, and no more
    assert server.client().list_tables()["TableNames"] == []


def test_a_declared_length_over_the_limit_is_refused_before_the_body(server: ServerProcess) -> None:
    head = _head(server.port, "POST", {**API, "Content-Length": str(200 * 2**20)}) + b"\r\n"
    status, body, sent = _stream(server.port, head, b"a" * 65536, 200 * 2**20, b"")
    assert (status, body["__type"]) == (413, "com.amazon.coral.service#RequestEntityTooLarge")
    assert sent < 60 * 2**20


@settings(
    max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(size=st.integers(1, 200_000), piece=st.integers(1, 70_000), path=st.sampled_from(sorted(PATHS)))
def test_a_head_under_the_limit_is_answered_and_one_far_over_it_is_refused(
    server: ServerProcess, size: int, piece: int, path: str
) -> None:
    """Sent in pieces of any size: a head within 64 KB is never refused, one past 64 KB plus one read
    (256 KB) always is; in between either, never anything else."""
    method, headers = PATHS[path]
    head = _head(server.port, method, headers) + b"X-Pad: " + b"p" * size + b"\r\n"
    body = b"{}" if method == "POST" else b""
    whole = head + f"Content-Length: {len(body)}\r\n\r\n".encode() + body
    with socket.create_connection(("127.0.0.1", server.port), timeout=60) as sock:
        try:
            for start in range(0, len(whole), piece):
                sock.sendall(whole[start : start + piece])
        except (BrokenPipeError, ConnectionResetError):
            pass
        data = b""
        while b"\r\n\r\n" not in data and (chunk := sock.recv(65536)):
            data += chunk
    status = int(data.split(b" ")[1])
    if len(head) <= HEAD_LIMIT:
        assert status == 200, data[:300]
    elif len(head) > HEAD_LIMIT + 256 * 1024:
        assert status == 400, data[:300]
    else:
        assert status in (200, 400), data[:300]
