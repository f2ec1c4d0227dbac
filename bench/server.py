"""HTTP server benchmark: singletable serve vs Dynoxide and DynamoDB Local under one load generator.

    python3 bench/server.py [--seconds 5] [--clients 4] [--no-reference] [--no-dynoxide]
                            [--workers 1,2]

Servers: ``singletable serve`` on a file (with each ``--workers`` count) and in memory; Dynoxide 1.2.1
(``bench/dynoxide.py``) on a file and in memory; DynamoDB Local 1.25.1 (in memory).
Ratios compare like with like: a file-backed singletable against Dynoxide on a file, in-memory against
in-memory, and every singletable row against DynamoDB Local.

Load: ``--clients`` processes, each holding one keep-alive HTTP/1.1 connection on a raw socket,
sending a fixed mix of
40% GetItem, 40% PutItem and 20% Query (10 items) as fast as answers come back, for ``--seconds`` after a
warm-up. Requests are pre-encoded JSON with a static SigV4-shaped Authorization header (neither server
checks signatures here), so client-side cost is the same for every server. Reports requests/s and
p50/p99 latency, plus start-up time (process start to first answered ``GET /``; for DynamoDB Local to
first accepted connection) and idle RSS of the whole process tree.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

AUTH = (
    "AWS4-HMAC-SHA256 Credential=bench/20260101/us-east-1/dynamodb/aws4_request, "
    "SignedHeaders=host;x-amz-date;x-amz-target, Signature=" + "0" * 64
)
PARTITIONS = 50
PRELOAD = 1000


def _headers(operation: str) -> dict[str, str]:
    return {
        "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Target": f"DynamoDB_20120810.{operation}",
        "Authorization": AUTH,
        "X-Amz-Date": "20260101T000000Z",
    }


def _item(i: int) -> dict[str, Any]:
    from run import item

    return item(i)


def _requests(seed: int, count: int) -> list[tuple[str, bytes]]:
    rng = random.Random(seed)
    out = []
    for n in range(count):
        roll = rng.random()
        i = rng.randrange(PRELOAD)
        if roll < 0.4:
            key = _item(i)
            out.append(
                ("GetItem", json.dumps({"TableName": "bench", "Key": {"PK": key["PK"], "SK": key["SK"]}}))
            )
        elif roll < 0.8:
            out.append(
                ("PutItem", json.dumps({"TableName": "bench", "Item": _item(PRELOAD + seed * count + n)}))
            )
        else:
            out.append(
                (
                    "Query",
                    json.dumps(
                        {
                            "TableName": "bench",
                            "KeyConditionExpression": "PK = :p",
                            "Limit": 10,
                            "ExpressionAttributeValues": {":p": {"S": f"USER#{i % PARTITIONS}"}},
                        }
                    ),
                )
            )
    return [(op, body.encode()) for op, body in out]


def _raw_request(operation: str, body: bytes, port: int) -> bytes:
    head = ["POST / HTTP/1.1", f"Host: 127.0.0.1:{port}", f"Content-Length: {len(body)}"]
    head += [f"{name}: {value}" for name, value in _headers(operation).items()]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def _exchange(sock: socket.socket, request: bytes, buffer: bytearray) -> int:
    """Send one request, read exactly one response off the keep-alive socket; returns the status."""
    sock.sendall(request)
    while True:
        end = buffer.find(b"\r\n\r\n")
        if end >= 0:
            break
        buffer += sock.recv(65536)
    head = bytes(buffer[:end]).lower()
    at = head.find(b"content-length:")
    length = (
        int(head[at + 15 : head.find(b"\r\n", at) if head.find(b"\r\n", at) > 0 else None]) if at >= 0 else 0
    )
    total = end + 4 + length
    while len(buffer) < total:
        buffer += sock.recv(65536)
    status = int(head[9:12])
    del buffer[:total]
    return status


def _client(port: int, seed: int, warmup: float, seconds: float, queue: Any, detail: bool = False) -> None:
    """One keep-alive connection on a raw socket: the cheapest client Python can be, so the server shows.

    With ``detail``, each sample is (send time, latency) in ``time.perf_counter_ns``'s clock, which on Linux
    is CLOCK_MONOTONIC, the same in every process: ``bench/http_tail.py`` lines them up with the server's."""
    requests = [_raw_request(op, body, port) for op, body in _requests(seed, 4000)]
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    buffer = bytearray()
    samples: list[Any] = []
    errors = 0
    start = time.perf_counter()
    measure_from = start + warmup
    stop = measure_from + seconds
    n = 0
    while True:
        now = time.perf_counter()
        if now >= stop:
            break
        request = requests[n % len(requests)]
        n += 1
        t0 = time.perf_counter_ns()
        status = _exchange(sock, request, buffer)
        elapsed = time.perf_counter_ns() - t0
        if status != 200:
            errors += 1
        if now >= measure_from:
            samples.append((t0, elapsed) if detail else elapsed)
        elif detail:
            samples.append((t0, None))  # warm-up: not measured, but the server answered it too
    local_port = sock.getsockname()[1]
    sock.close()
    queue.put((samples, errors, local_port))


def load(
    port: int, clients: int, seconds: float, warmup: float = 1.0, detail: bool = False
) -> dict[str, Any]:
    """Run the mix against 127.0.0.1:port; requests/s and latency percentiles (ms).

    With ``detail``, also ``"connections"``: each client's local port with its (send time, latency) list
    (latency None for the warm-up's requests), in the order sent."""
    queue: Any = multiprocessing.Queue()
    workers = [
        multiprocessing.Process(target=_client, args=(port, seed, warmup, seconds, queue, detail))
        for seed in range(clients)
    ]
    for worker in workers:
        worker.start()
    samples: list[int] = []
    connections: dict[int, list[Any]] = {}
    errors = 0
    for _ in workers:
        got, failed, local_port = queue.get(timeout=seconds + warmup + 60)
        if detail:
            connections[local_port] = got
            got = [elapsed for _, elapsed in got if elapsed is not None]
        samples.extend(got)
        errors += failed
    for worker in workers:
        worker.join()
    samples.sort()
    result: dict[str, Any] = {
        "rps": len(samples) / seconds,
        "p50": samples[len(samples) // 2] / 1e6,
        "p99": samples[int(len(samples) * 0.99)] / 1e6,
        "errors": errors,
    }
    if detail:
        result["connections"] = connections
    return result


def preload(endpoint: str) -> None:
    from run import TABLE_SPEC, boto3_client

    client = boto3_client(endpoint)
    client.create_table(**TABLE_SPEC)
    for i in range(PRELOAD):
        client.put_item(TableName="bench", Item=_item(i))


def rss_kib(pid: int) -> int:
    """Resident memory of a process and all its descendants."""
    total = 0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        pending.extend(int(child) for child in children)
    return total


def _measure(
    pid: int, endpoint: str, port: int, clients: int, seconds: float, warm_up: bool = False
) -> dict[str, float]:
    """Idle memory, then the preload and the timed mix (after one untimed pass when ``warm_up``: a JIT)."""
    time.sleep(0.5)
    idle = rss_kib(pid)
    preload(endpoint)
    if warm_up:
        load(port, clients, seconds)
    return {**load(port, clients, seconds), "idle_rss_mib": idle / 1024}


def bench_ours(workers: int, clients: int, seconds: float, in_memory: bool = False) -> dict[str, float]:
    from serving import ServerProcess

    with tempfile.TemporaryDirectory() as tmp:
        db = None if in_memory else Path(tmp) / "bench.sqlite3"
        process = ServerProcess(db, args=("--workers", str(workers)))
        try:
            result = _measure(process.process.pid, process.endpoint, process.port, clients, seconds)
        finally:
            process.stop()
    return {**result, "startup_s": process.ready_after}


def bench_reference(clients: int, seconds: float) -> dict[str, float] | None:
    from reference import DynamoDBLocal, ReferenceUnavailable

    started = time.perf_counter()
    try:
        server = DynamoDBLocal()
    except ReferenceUnavailable as why:
        print(f"DynamoDB Local skipped: {why}")
        return None
    startup = time.perf_counter() - started
    try:
        result = _measure(server.process.pid, server.endpoint, server.port, clients, seconds, warm_up=True)
    finally:
        server.stop()
    return {**result, "startup_s": startup}


def bench_dynoxide(clients: int, seconds: float, on_file: bool) -> dict[str, float] | None:
    from dynoxide import DynoxideServer, DynoxideUnavailable

    with tempfile.TemporaryDirectory() as tmp:
        try:
            server = DynoxideServer(Path(tmp) / "bench.sqlite3" if on_file else None)
        except DynoxideUnavailable as why:
            print(f"Dynoxide skipped: {why}")
            return None
        try:
            result = _measure(server.process.pid, server.endpoint, server.port, clients, seconds)
        finally:
            server.stop()
    return {**result, "startup_s": server.ready_after}


OURS_IN_MEMORY = "singletable serve (uvicorn, 1w, memory)"
DYNOXIDE_FILE = "Dynoxide 1.2.1 (file)"
DYNOXIDE_MEMORY = "Dynoxide 1.2.1 (memory)"
REFERENCE = "DynamoDB Local 1.25.1"


def _run_all(args: argparse.Namespace) -> dict[str, dict[str, float]]:
    runs: dict[str, dict[str, float]] = {}
    for workers in (int(w) for w in args.workers.split(",")):
        runs[f"singletable serve (uvicorn, {workers}w)"] = bench_ours(workers, args.clients, args.seconds)
    runs[OURS_IN_MEMORY] = bench_ours(1, args.clients, args.seconds, in_memory=True)
    if not args.no_dynoxide:
        for name, on_file in ((DYNOXIDE_FILE, True), (DYNOXIDE_MEMORY, False)):
            result = bench_dynoxide(args.clients, args.seconds, on_file)
            if result is not None:
                runs[name] = result
    if not args.no_reference:
        reference = bench_reference(args.clients, args.seconds)
        if reference is not None:
            runs[REFERENCE] = reference
    return runs


def _print_table(runs: dict[str, dict[str, float]], args: argparse.Namespace) -> None:
    print(f"\nHTTP, {args.clients} keep-alive clients, 40% get / 40% put / 20% query, {args.seconds:g} s")
    print(
        f"{'server':<40} {'req/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'errors':>6} "
        f"{'start s':>8} {'idle MiB':>9}"
    )
    for name, r in runs.items():
        print(
            f"{name:<40} {r['rps']:>8,.0f} {r['p50']:>7.2f} {r['p99']:>7.2f} {r['errors']:>6.0f} "
            f"{r['startup_s']:>8.2f} {r['idle_rss_mib']:>9.1f}"
        )


def _print_ratios(runs: dict[str, dict[str, float]]) -> None:
    """Each singletable row against its like-for-like Dynoxide row and against DynamoDB Local."""
    ours = {name: r for name, r in runs.items() if name.startswith("singletable")}
    for name, r in ours.items():
        peer = DYNOXIDE_MEMORY if name == OURS_IN_MEMORY else DYNOXIDE_FILE
        if peer in runs:
            print(f"{name:<40} {r['rps'] / runs[peer]['rps']:>7.2f}x {peer}'s requests/s")
    if REFERENCE in runs:
        for name, r in ours.items():
            print(f"{name:<40} {r['rps'] / runs[REFERENCE]['rps']:>7.2f}x {REFERENCE}'s requests/s")


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument(
        "--workers", default="1,2", help="comma-separated worker counts to try (one row each)"
    )
    parser.add_argument("--no-reference", action="store_true", help="skip DynamoDB Local")
    parser.add_argument("--no-dynoxide", action="store_true", help="skip Dynoxide")
    args = parser.parse_args(argv)
    runs = _run_all(args)
    _print_table(runs, args)
    _print_ratios(runs)
    return runs


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    main()
