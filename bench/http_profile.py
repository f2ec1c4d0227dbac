"""Where an HTTP request's cost goes in ``singletable serve``: instructions and CPU per request, by stage.

    python3 bench/http_profile.py [--in-memory] [--n 400] [--cpu] [--stages] [--keep DIR]

Default: ``singletable serve`` (one worker, a file unless ``--in-memory``) runs under
``valgrind --tool=callgrind``; one keep-alive raw-socket client sends bench/server.py's requests, one
operation at a time (GetItem, PutItem, Query of 10 items): a warm-up, then ``callgrind_control -z``, ``--n``
requests, ``callgrind_control -d``. The dump holds exactly those requests' user-space instructions, so no
N2-N1 difference is needed; the C functions that mark a stage (the HTTP parser, orjson, SQLite) are read
off ``callgrind_annotate --inclusive=yes``. Instruction counts repeat within ~1% under any load, which
wall-clock timings on a shared 2-core machine do not.

``--cpu``: the same server without valgrind, CPU time (user + system, from ``/proc/PID/schedstat``) per
request, kernel TCP work included. ``--stages``: the layers in-process (under callgrind, markers around each
loop): ``Engine.execute``, ``Dispatcher.handle`` (adds the wire codec and dispatch), the ASGI app called
with an in-memory receive/send (adds our ASGI layer), and ``DirectApiProtocol`` fed raw requests on a sink
transport (the direct path without the socket); the HTTP server's share is the serve total minus the app.
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from server import PRELOAD, _exchange, _raw_request, _requests  # noqa: E402

OPERATIONS = ("GetItem", "PutItem", "Query")
PYTHON = os.path.realpath(sys.executable)  # not a pyenv shim: valgrind must run the interpreter itself
# C functions read off callgrind's inclusive costs (each includes what it calls: llhttp_execute, the parser,
# includes every Python callback it makes -- with the direct path, the whole request).
MARKERS = (
    ("llhttp_execute (parser and its callbacks)", r"^llhttp_execute$"),
    ("orjson.loads", r"^loads$"),
    ("orjson.dumps", r"^dumps$"),
    ("sqlite3_step", r"^sqlite3_step$"),
)


def _ops(seed: int, count: int) -> dict[str, list[tuple[str, bytes]]]:
    by_op: dict[str, list[tuple[str, bytes]]] = {op: [] for op in OPERATIONS}
    for op, body in _requests(seed, count):
        by_op[op].append((op, body))
    return by_op


def _preload_table(port: int) -> None:
    from run import TABLE_SPEC, boto3_client, item

    client = boto3_client(f"http://127.0.0.1:{port}")
    client.create_table(**TABLE_SPEC)
    import json

    sock = socket.create_connection(("127.0.0.1", port))
    buffer = bytearray()
    for i in range(PRELOAD):
        body = json.dumps({"TableName": "bench", "Item": item(i)}).encode()
        assert _exchange(sock, _raw_request("PutItem", body, port), buffer) == 200
    sock.close()


def _start(command: list[str], port: int, timeout: float) -> subprocess.Popen:
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(process.stderr.read().decode()[-2000:])
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2):
                return process
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError("server did not start")


def _cpu_ns(pid: int) -> int:
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])


def _run(sock: socket.socket, requests: list[bytes], n: int, buffer: bytearray) -> None:
    for i in range(n):
        status = _exchange(sock, requests[i % len(requests)], buffer)
        if status != 200:
            raise RuntimeError(f"status {status}")


def _annotate(dump: Path) -> dict[str, int]:
    out = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(dump)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found: dict[str, int] = {}
    for line in out.splitlines():
        match = re.match(r"\s*([\d,]+) \([^)]*\)\s+(?:\S+:)?(\S+)", line)
        if not match:
            continue
        cost, name = int(match.group(1).replace(",", "")), match.group(2)
        for label, pattern in MARKERS:
            if re.match(pattern, name) and label not in found:
                found[label] = cost
    return found


def _total(dump: Path) -> int:
    for line in dump.read_text(errors="replace").splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise RuntimeError(f"no total in {dump}")


def serve_profile(
    in_memory: bool, n: int, cpu: bool, keep: Path | None = None
) -> dict[str, dict[str, float]]:
    from reference import free_port

    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        storage = ["--in-memory"] if in_memory else ["--db", str(Path(tmp) / "bench.sqlite3")]
        serve = [PYTHON, "-m", "singletable", "serve", *storage, "--port", str(port)]
        out = Path(tmp) / "cg.out"
        if not cpu:
            serve = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *serve]
        os.environ["PYTHONHASHSEED"] = "0"
        process = _start(serve, port, 300 if not cpu else 30)
        results: dict[str, dict[str, float]] = {}
        try:
            _preload_table(port)
            by_op = _ops(7, 3000)
            sock = socket.create_connection(("127.0.0.1", port))
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            buffer = bytearray()
            for op in OPERATIONS:
                requests = [_raw_request(o, body, port) for o, body in by_op[op]]
                _run(sock, requests[-200:], 200, buffer)  # warm-up
                if cpu:
                    before = _cpu_ns(process.pid)
                    _run(sock, requests, n, buffer)
                    results[op] = {"cpu_us": (_cpu_ns(process.pid) - before) / n / 1000}
                    continue
                subprocess.run(["callgrind_control", "-z", str(process.pid)], check=True, capture_output=True)
                _run(sock, requests, n, buffer)
                dumps_before = set(Path(tmp).glob("cg.out*"))
                subprocess.run(["callgrind_control", "-d", str(process.pid)], check=True, capture_output=True)
                (dump,) = set(Path(tmp).glob("cg.out*")) - dumps_before
                if keep:
                    keep.mkdir(parents=True, exist_ok=True)
                    dump.rename(keep / f"{'memory' if in_memory else 'file'}-{op}.callgrind")
                    dump = keep / f"{'memory' if in_memory else 'file'}-{op}.callgrind"
                stages = {label: cost / n for label, cost in _annotate(dump).items()}
                results[op] = {"Ir": _total(dump) / n, **stages}
            sock.close()
        finally:
            process.terminate()
            process.wait(60)
    return results


def _drive_app(app, scope: dict, body: bytes) -> None:
    """One ASGI call with a receive that has the body and a send that drops it: neither ever suspends, so
    one ``send(None)`` runs the coroutine to its end -- no event loop, no task (those are uvicorn's share)."""

    async def receive() -> dict:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict) -> None:
        pass

    coroutine = app({**scope, "headers": list(scope["headers"])}, receive, send)
    try:
        coroutine.send(None)
    except StopIteration:
        return
    raise RuntimeError("the ASGI app suspended")


class _SinkTransport:
    """Where the direct protocol's answers go when it is measured without a socket: nowhere."""

    def write(self, data: bytes) -> None:
        pass

    def is_closing(self) -> bool:
        return False

    def get_extra_info(self, name: str, default: object = None) -> object:
        return ("127.0.0.1", 8000) if name in ("sockname", "peername") else default

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def close(self) -> None:
        pass


def _direct_protocol(app):
    """A DirectApiProtocol on a sink transport, with uvicorn's own Config and ServerState, and uvloop's loop
    (not running: its keep-alive timers are armed and cancelled as in the server)."""
    import uvloop
    from uvicorn.config import Config
    from uvicorn.server import ServerState

    from singletable._server.direct import DirectApiProtocol

    config = Config(app, http=DirectApiProtocol, lifespan="off", proxy_headers=False, log_level="warning")
    config.load()
    protocol = DirectApiProtocol(config, ServerState(), {}, _loop=uvloop.new_event_loop())
    protocol.connection_made(_SinkTransport())  # type: ignore[arg-type]
    return protocol


def stages_inner(n: int) -> None:
    """Runs under callgrind (see ``stages``): os.getppid() zeroes, os.getpgrp() dumps around each loop."""
    import orjson

    from run import TABLE_SPEC, item
    from singletable._protocol import Dispatcher
    from singletable._protocol import wire_json as wire
    from singletable._server.app import DynamoDBApp
    from singletable.engine import Engine

    engine = Engine(":memory:")
    engine.execute("CreateTable", TABLE_SPEC)
    for i in range(PRELOAD):
        engine.execute("PutItem", {"TableName": "bench", "Item": item(i)})
    dispatcher = Dispatcher(engine)
    app = DynamoDBApp(engine=engine)
    protocol = _direct_protocol(app)
    by_op = _ops(7, 3000)
    for op in OPERATIONS:
        bodies = [body for _, body in by_op[op]]
        params = [wire.decode_request(op, body) for body in bodies]
        raw = [_raw_request(op, body, 8000) for body in bodies]
        target = f"DynamoDB_20120810.{op}"
        scope = {
            "type": "http",
            "method": "POST",
            "path": "/",
            "query_string": b"",
            "client": ("127.0.0.1", 40000),
            "headers": [
                (b"host", b"127.0.0.1:8000"),
                (b"content-type", b"application/x-amz-json-1.0"),
                (b"x-amz-target", target.encode()),
            ],
        }
        calls = (
            (
                "engine",
                lambda i, op=op, p=params: engine.execute(op, orjson.loads(orjson.dumps(p[i % len(p)]))),
            ),
            ("dispatcher", lambda i, t=target, b=bodies: dispatcher.handle(t, b[i % len(b)])),
            ("asgi app", lambda i, s=scope, b=bodies: _drive_app(app, s, b[i % len(b)])),
            ("direct protocol", lambda i, r=raw: protocol.data_received(r[i % len(r)])),
        )
        for label, call in calls:
            for i in range(n, n + 100):
                call(i)
            os.getppid()
            for i in range(n):
                call(i)
            os.getpgrp()
            print(f"{op} {label}", flush=True)


def stages(n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg.out"
        command = [
            "valgrind",
            "--tool=callgrind",
            "--zero-before=os_getppid*",
            "--dump-before=os_getpgrp*",
            f"--callgrind-out-file={out}",
            PYTHON,
            __file__,
            "--stages-inner",
            "--n",
            str(n),
        ]
        labels = subprocess.run(
            command, capture_output=True, text=True, check=True, env={**os.environ, "PYTHONHASHSEED": "0"}
        ).stdout.split("\n")
        dumps = sorted(Path(tmp).glob("cg.out.*"), key=lambda p: int(p.name.rsplit(".", 1)[1]))
        for label, dump in zip(labels, dumps, strict=False):
            print(f"{label:<22} {_total(dump) / n:>10,.0f} instructions per call")
    print("(engine includes one orjson round trip of the parameters, ~2-3k: the engine mutates its input)")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--in-memory", action="store_true")
    parser.add_argument("--n", type=int, default=400)
    parser.add_argument("--cpu", action="store_true", help="CPU µs per request, no valgrind")
    parser.add_argument("--stages", action="store_true", help="in-process layers under callgrind")
    parser.add_argument("--keep", type=Path, help="keep each operation's callgrind dump in this directory")
    parser.add_argument("--stages-inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.stages_inner:
        stages_inner(args.n)
        return
    if args.stages:
        stages(args.n)
        return
    results = serve_profile(args.in_memory, args.n, args.cpu, args.keep)
    where = "memory" if args.in_memory else "file"
    for op, figures in results.items():
        text = ", ".join(f"{label} {value:,.0f}" for label, value in figures.items())
        print(f"serve ({where}) {op}: {text}")


if __name__ == "__main__":
    main()
