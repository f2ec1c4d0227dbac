"""What makes the tail of ``singletable serve``'s latency: the server's own time against the client's.

    python3 bench/http_tail.py [--in-memory] [--seconds 5] [--clients 4]

Runs ``singletable serve``'s uvicorn set-up in this process (one worker, a file unless ``--in-memory``) and
bench/server.py's load generator in another, and records, inside the server: the time each direct API
call spends from its parser's "message complete" to its response written (engine, codec and write; wall
clock, and the thread's CPU time: where the two differ, the server was waiting for a CPU), every
garbage-collector pass (generation and duration, through ``gc.callbacks``), and the WAL checkpoints that
the next write had to finish (``Connection.checkpoint_backlog``). Printed side by side with the client's
p50/p99, it says which part of the tail is the server's work and which is waiting for a CPU: with the
load generator on the same two cores, a request whose server time is 0.1 ms can still see 2 ms.

It then splits every request the client timed into three parts, lined up by connection and order (both
sides read CLOCK_MONOTONIC): *before the answer* (from the client's send until the server starts answering:
the requests of the other connections served first, reading and parsing), *the answer* (engine, codec,
write) and *the client's wake-up* (from the response written until the client has read it), with each
part's percentiles over all requests and its median over the slowest 1%; and, for the slowest 1%, how many
answers to other connections came between a request's send and its own answer, how long they took, and how
long the server answered nothing meanwhile (reading, parsing, the event loop, the kernel).
"""

from __future__ import annotations

import argparse
import bisect
import gc
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

LOAD = """
import json, sys
sys.path.insert(0, {bench!r}); sys.path.insert(0, {tests!r})
import server
server.preload("http://127.0.0.1:{port}")
print(json.dumps(server.load({port}, {clients}, {seconds}, detail=True)))
"""


def _percentiles(samples: list[float]) -> str:
    if not samples:
        return "none"
    samples = sorted(samples)
    pick = lambda q: samples[min(len(samples) - 1, int(len(samples) * q))] * 1000  # noqa: E731
    return (
        f"n={len(samples)}, p50 {pick(0.5):.3f} ms, p99 {pick(0.99):.3f} ms, max {samples[-1] * 1000:.2f} ms"
    )


def _instrument(record: dict[str, list[float]], answers: dict[int, list[tuple[int, int]]]) -> None:
    """Timers around the direct path's answer, the collector and the write that restarts the WAL;
    ``answers`` gets each connection's (start, end) of every answer, by the client's port."""
    from singletable._server.direct import DirectApiProtocol
    from singletable.engine._storage.connection import Connection

    answer = DirectApiProtocol.on_message_complete

    def timed_answer(self: DirectApiProtocol) -> None:
        start, cpu, since = time.perf_counter(), time.thread_time(), time.perf_counter_ns()
        answer(self)
        until = time.perf_counter_ns()
        record["server"].append(time.perf_counter() - start)
        record["server cpu"].append(time.thread_time() - cpu)
        answers[self.transport.get_extra_info("peername")[1]].append((since, until))

    DirectApiProtocol.on_message_complete = timed_answer  # type: ignore[method-assign]
    backlog = Connection.checkpoint_backlog

    def timed_backlog(self: Connection) -> None:
        start = time.perf_counter()
        backlog(self)
        record["checkpoint backlog"].append(time.perf_counter() - start)

    Connection.checkpoint_backlog = timed_backlog  # type: ignore[method-assign]
    started: list[float] = [0.0]

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            record[f"gc gen{info['generation']}"].append(time.perf_counter() - started[0])

    gc.callbacks.append(on_gc)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--in-memory", action="store_true")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()
    from reference import free_port
    from singletable._server.run import ServeOptions, serve_uvicorn

    record: dict[str, list[float]] = {
        name: [] for name in ("server", "server cpu", "checkpoint backlog", "gc gen0", "gc gen1", "gc gen2")
    }
    answers: dict[int, list[tuple[int, int]]] = defaultdict(list)
    _instrument(record, answers)
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        db = ":memory:" if args.in_memory else str(Path(tmp) / "bench.sqlite3")
        script = LOAD.format(
            bench=str(ROOT / "bench"),
            tests=str(ROOT / "tests"),
            port=port,
            clients=args.clients,
            seconds=args.seconds,
        )
        result: dict[str, str] = {}

        def drive() -> None:
            time.sleep(1.0)  # the server starts listening
            out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
            result["load"] = out.stdout.strip() or out.stderr[-2000:]
            for samples in record.values():
                samples.clear()  # the next run is the measured one
            answers.clear()
            result["gc before"] = [stats["collections"] for stats in gc.get_stats()]
            out = subprocess.run(
                [sys.executable, "-c", script.replace("server.preload", "(lambda _: 0)")],
                capture_output=True,
                text=True,
            )
            result["load"] = out.stdout.strip() or out.stderr[-2000:]
            result["gc after"] = [stats["collections"] for stats in gc.get_stats()]
            os.kill(os.getpid(), 2)

        threading.Thread(target=drive, daemon=True).start()
        serve_uvicorn(ServeOptions(db=db, port=port))
    load = json.loads(result["load"]) if result.get("load", "").startswith("{") else None
    if load is None:
        sys.exit(f"the load generator failed: {result.get('load')}")
    connections = load.pop("connections")
    print(f"client ({args.clients} keep-alive connections): {json.dumps(load)}")
    print(f"collections per generation during the run: {result.get('gc before')} -> {result.get('gc after')}")
    for name, samples in record.items():
        print(f"{name:<20} {_percentiles(samples)}")
    _print_split(connections, answers)


def _print_split(connections: dict[str, list[Any]], answers: dict[int, list[tuple[int, int]]]) -> None:
    """Each timed request as before-the-answer / answer / client wake-up (see the module docstring)."""
    parts: list[tuple[int, ...]] = []  # latency, before, answer, wake-up, send time (ns)
    for port, sent in connections.items():
        served = answers.get(int(port), [])
        if len(served) != len(sent):
            print(f"connection {port}: {len(sent)} requests sent, {len(served)} answered directly: no split")
            return
        for (t0, latency), (since, until) in zip(sent, served, strict=True):
            if latency is not None:
                parts.append((latency, since - t0, until - since, t0 + latency - until, t0))
    parts.sort()
    slowest = parts[int(len(parts) * 0.99) :]
    _print_queue(answers, slowest)
    print(f"split of {len(parts)} requests (us):       p50    p99   slowest 1%: median")
    for column, name in ((1, "before the answer"), (2, "the answer"), (3, "the client's wake-up")):
        every = sorted(row[column] for row in parts)
        tail = sorted(row[column] for row in slowest)
        print(
            f"  {name:<32} {every[len(every) // 2] / 1e3:>6.0f} {every[int(len(every) * 0.99)] / 1e3:>6.0f}"
            f" {tail[len(tail) // 2] / 1e3:>12.0f}"
        )


def _print_queue(answers: dict[int, list[tuple[int, int]]], slowest: list[tuple[int, ...]]) -> None:
    """For the slowest 1%: how many answers to other requests the server gave between a request's send and
    its own answer, how long they took, and how long the server spent answering nothing meanwhile."""
    timeline = sorted(answer for served in answers.values() for answer in served)
    starts = [since for since, _ in timeline]
    counts, busy, idle = [], [], []
    for row in slowest:
        sent, since = row[4], row[4] + row[1]
        ahead = timeline[bisect.bisect_left(starts, sent) : bisect.bisect_left(starts, since)]
        answering = sum(min(until, since) - began for began, until in ahead)
        counts.append(len(ahead))
        busy.append(answering)
        idle.append(since - sent - answering)
    if not slowest:
        return
    median = lambda values: sorted(values)[len(values) // 2]  # noqa: E731
    print(
        f"slowest 1%, between send and answer (medians): {median(counts)} other answers taking "
        f"{median(busy) / 1e3:.0f} us, {median(idle) / 1e3:.0f} us answering nothing"
    )


if __name__ == "__main__":
    main()
