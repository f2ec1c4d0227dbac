"""What the route walker needs: a real ``singletable ui`` process (its memory readable in /proc), a raw HTTP
client that sends exactly the bytes it is given (any Host, any path, chunked bodies), the console's routes
read from its own route table, and the names of every field its pages send or its handlers read."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reference import free_port
from serving import send_until_answered

HERE = Path(__file__).resolve().parent
UI_SOURCE = HERE.parent.parent / "src" / "singletable" / "ui"
ALLOWED_NAME = "console.test"  # given with --allow-host


@dataclass(slots=True)
class Raw:
    """An answer as it came over the socket."""

    status: int
    head: str
    text: str

    def header(self, name: str) -> str:
        found = re.search(rf"^{re.escape(name)}: *(.*?)\r?$", self.head, re.I | re.M)
        return found[1] if found else ""


class ConsoleProcess:
    """``python -m singletable ui FILE --design console_design`` on a free loopback port, ready on return."""

    def __init__(self, database: Path, *args: str) -> None:
        self.port = free_port()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}
        command = [sys.executable, "-m", "singletable", "ui", str(database), "--port", str(self.port)]
        self.process = subprocess.Popen(
            [*command, "--design", "console_design", *args],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                if request(self.port, "GET", "/static/console.css").status == 200:
                    break
            except OSError:
                pass
            assert self.process.poll() is None, self.process.stderr.read()
            assert time.monotonic() < deadline, "singletable ui did not answer"
            time.sleep(0.1)

    def peak_memory_kb(self) -> int:
        """The process's resident-memory high-water mark (VmHWM)."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return int(re.search(r"VmHWM:\s+(\d+) kB", status)[1])

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> str:
        """Stop it; what it wrote to stderr."""
        self.process.terminate()
        try:
            _, errors = self.process.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, errors = self.process.communicate()
        return errors


def request(
    port: int,
    method: str,
    path: str,
    *,
    host: str | None = None,
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
) -> Raw:
    """One request on its own connection, written byte for byte (``host=""`` sends no Host header)."""
    lines = [f"{method} {path} HTTP/1.1"]
    host = f"127.0.0.1:{port}" if host is None else host
    if host:
        lines.append(f"Host: {host}")
    for name, value in (headers or {}).items():
        lines.append(f"{name}: {value}")
    if body is not None:
        lines.append(f"Content-Length: {len(body)}")
    lines.append("Connection: close")
    data = ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8", "surrogateescape") + (body or b"")
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(data)
        return _answer(sock)


def chunked_post(port: int, path: str, total: int, headers: dict[str, str]) -> tuple[Raw, int]:
    """POST ``total`` bytes in 64 KB chunks, stopping as soon as the server answers (or closes); the answer
    and how many bytes were sent."""
    head = [f"POST {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Transfer-Encoding: chunked"]
    head += [f"{name}: {value}" for name, value in headers.items()]
    chunk = b"a" * 65536
    frame = b"%x\r\n" % len(chunk) + chunk + b"\r\n"
    return _stream(port, ("\r\n".join(head) + "\r\n\r\n").encode(), frame, total, b"0\r\n\r\n")


def endless_header(port: int, total: int) -> tuple[Raw, int]:
    """A GET whose one header line grows to ``total`` bytes, stopping as soon as the server answers."""
    head = f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Long: ".encode()
    return _stream(port, head, b"a" * 65536, total, b"\r\n\r\n")


def _stream(port: int, head: bytes, piece: bytes, total: int, end: bytes) -> tuple[Raw, int]:
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sent = send_until_answered(sock, head, piece, total, end)
        return _answer(sock), sent


def _answer(sock: socket.socket) -> Raw:
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except ConnectionResetError:
        pass  # a server closing with request bytes unread resets; what arrived before is the answer
    head, _, body = received.partition(b"\r\n\r\n")
    status_line = head.split(b"\r\n", 1)[0].decode("latin-1")
    assert status_line.startswith("HTTP/1.1 "), received[:200]
    return Raw(int(status_line.split()[1]), head.decode("latin-1"), body.decode("utf-8", "replace"))


@dataclass(frozen=True, slots=True)
class Walked:
    """One route of the console: its path template and the methods it answers."""

    template: str
    methods: frozenset[str]

    def path(self, **values: str) -> str:
        """The template with each ``{param}`` replaced (values already percent-encoded as wanted)."""
        return re.sub(r"\{(\w+)(?::\w+)?\}", lambda m: values.get(m[1], "x"), self.template)


def routes_of(app: Any) -> list[Walked]:
    """Every route in the app's own route table (a mounted app, such as the static files, as one route
    with a ``{path}`` below it)."""
    from starlette.routing import Mount, Route

    walked = []
    for route in app.routes:
        if isinstance(route, Route):
            walked.append(Walked(route.path, frozenset(route.methods or ())))
        elif isinstance(route, Mount):
            walked.append(Walked(route.path + "/{path}", frozenset({"GET", "HEAD"})))
    return walked


def field_names() -> list[str]:
    """Every field the console's pages send (their templates' ``name=``) or its handlers read
    (``form.get("...")``), so a new field is walked without naming it here."""
    names: set[str] = set()
    for template in (UI_SOURCE / "templates").glob("*.html"):
        names.update(re.findall(r'<(?:input|select|textarea)[^>]*\bname="([\w.]+)"', template.read_text()))
    for module in UI_SOURCE.glob("*.py"):
        names.update(re.findall(r'form(?:\.get\(|\[)"(\w+)"', module.read_text()))
    return sorted(names)


def encoded(fields: dict[str, str]) -> bytes:
    return urllib.parse.urlencode(fields).encode()
