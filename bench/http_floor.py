"""The HTTP floor: the least a Python server on this storage and this HTTP stack can do per request.

    python3 bench/http_floor.py [--seconds 5] [--clients 4] [--runs 3] [--floor-only]

``bench/floor.py`` holds the engine's PutItem to the bare SQL; this holds ``singletable serve``'s latency to a
server that does only what any server must: the same event loop and parser as ``serve`` (uvloop, httptools;
one process, one thread), then per request ``orjson.loads`` of the body, the storage's SQL on the engine's
schema and pragmas, and one write of the stored bytes spliced into a JSON body. GetItem is one SELECT;
PutItem is ``floor.put_transaction`` (BEGIN IMMEDIATE, read the old item, write the item and its GSI entry,
COMMIT); Query is the partition's first 10 rows by the engine's own statement. No validation, expressions,
capacity, errors, SigV4 or request ids: nothing DynamoDB requires, so not a DynamoDB -- a floor. On a file,
the engine's WAL checkpointer runs beside it as beside ``serve`` (its rounds, its idle priority, and the
write that checkpoints the backlog when asked), so both keep the same WAL.

Each run measures, under ``bench/server.py``'s load generator (the same 40/40/20 mix, the same items), the
floor on a file, ``singletable serve`` on a file (one worker), the floor in memory and ``serve --in-memory``,
and prints requests/s, p50 and p99 side by side (``--floor-only``: the floor's two rows; ``bench/run.py``
prints them after ``bench/server.py``'s table). If the floor's p99 is near a goal, no server on this stack
meets it by much; what ``serve`` spends above the floor is what it could still cut.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import sys
import tempfile
import zlib
from pathlib import Path
from typing import Any

import httptools
import orjson
import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import floor
import server
from singletable.engine._storage.connection import Checkpointer
from singletable.engine._storage.items import _QUERY_SQL, GET_ITEM_SQL, KEY_MAX, TABLE

# The engine's statement for a table Query on the partition key alone (no sort-key condition, forward).
QUERY_SQL = _QUERY_SQL[(TABLE, False, False, True, False)]
QUERY_LIMIT = 10
HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: "


class FloorStore:
    """The engine's schema and pragmas; items written and read by the engine's own SQL, nothing else."""

    def __init__(self, path: str) -> None:
        self.conn = floor._connect(path)
        self.cursor = self.conn.cursor()
        self.restart_wal = False
        self.checkpointer = None if path == ":memory:" else Checkpointer(path, self._want_restart)

    def _want_restart(self, held_up: bool) -> None:  # one process: a PASSIVE checkpoint always restarts
        self.restart_wal = True

    def get(self, body: dict[str, Any]) -> bytes:
        key = body["Key"]
        pk, sk = floor._key(key["PK"]), floor._key(key["SK"])
        row = self.cursor.execute(GET_ITEM_SQL, (1, zlib.crc32(pk), bytearray(pk), bytearray(sk))).fetchone()
        return b'{"Item":' + row[0] + b"}" if row is not None else b"{}"

    def put(self, body: dict[str, Any]) -> bytes:
        row, entry = floor.put_rows(body["Item"])
        if self.restart_wal:  # as the engine's write does when its checkpointer asks (checkpoint_backlog)
            self.restart_wal = False
            self.cursor.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        floor.put_transaction(self.cursor, row, entry)
        return b"{}"

    def query(self, body: dict[str, Any]) -> bytes:
        pk = floor._key(body["ExpressionAttributeValues"][":p"])
        params = (1, zlib.crc32(pk), bytearray(pk), bytearray(b""), bytearray(KEY_MAX))
        items = [row[0] for row in self.conn.execute(QUERY_SQL, params).fetchmany(QUERY_LIMIT)]
        count = str(len(items)).encode()
        return b'{"Items":[' + b",".join(items) + b'],"Count":' + count + b',"ScannedCount":' + count + b"}"

    def close(self) -> None:
        if self.checkpointer is not None:
            self.checkpointer.stop()
        self.conn.close()


class FloorProtocol(asyncio.Protocol):
    """Keep-alive HTTP/1.1: each complete request answered in the parser's callback, one write."""

    def __init__(self, store: FloorStore) -> None:
        self.store = store
        self.parser = httptools.HttpRequestParser(self)
        self.target = b""
        self.body: list[bytes] = []
        self.transport: Any = None

    def connection_made(self, transport: Any) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.parser.feed_data(data)

    def on_header(self, name: bytes, value: bytes) -> None:
        if name.lower() == b"x-amz-target":
            self.target = value

    def on_body(self, body: bytes) -> None:
        self.body.append(body)

    def on_message_complete(self) -> None:
        request = orjson.loads(b"".join(self.body))
        self.body = []
        operation = self.target.rpartition(b".")[2]
        if operation == b"GetItem":
            payload = self.store.get(request)
        elif operation == b"PutItem":
            payload = self.store.put(request)
        else:
            payload = self.store.query(request)
        self.transport.write(HEAD + str(len(payload)).encode() + b"\r\n\r\n" + payload)


def _serve(path: str, port: int, ready: Any) -> None:
    """The floor server's process: preload bench/server.py's items, then answer until terminated."""
    from run import item

    store = FloorStore(path)
    for i in range(server.PRELOAD):
        floor.put_transaction(store.cursor, *floor.put_rows(item(i)))
    loop = uvloop.new_event_loop()
    listener = loop.run_until_complete(loop.create_server(lambda: FloorProtocol(store), "127.0.0.1", port))
    ready.set()
    try:
        loop.run_forever()
    finally:
        listener.close()
        store.close()


def bench_floor(clients: int, seconds: float, in_memory: bool) -> dict[str, Any]:
    from reference import free_port

    with tempfile.TemporaryDirectory() as tmp:
        path = ":memory:" if in_memory else os.path.join(tmp, "floor.sqlite3")
        port = free_port()
        ready = multiprocessing.Event()
        process = multiprocessing.Process(target=_serve, args=(path, port, ready), daemon=True)
        process.start()
        try:
            if not ready.wait(60):
                raise RuntimeError("the floor server did not start")
            return server.load(port, clients, seconds)
        finally:
            process.terminate()
            process.join()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--floor-only", action="store_true", help="measure the floor, not serve")
    args = parser.parse_args(argv)
    print(
        f"HTTP floor and singletable serve: {args.clients} keep-alive clients, 40/40/20, {args.seconds:g} s"
    )
    print(f"{'run':>3} {'server':<34} {'req/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'errors':>6}")
    for run in range(1, args.runs + 1):
        rows = (
            ("HTTP floor (file)", lambda: bench_floor(args.clients, args.seconds, in_memory=False)),
            ("singletable serve (1w, file)", lambda: server.bench_ours(1, args.clients, args.seconds)),
            ("HTTP floor (memory)", lambda: bench_floor(args.clients, args.seconds, in_memory=True)),
            (
                "singletable serve (1w, memory)",
                lambda: server.bench_ours(1, args.clients, args.seconds, in_memory=True),
            ),
        )
        for name, measure in rows:
            if args.floor_only and not name.startswith("HTTP floor"):
                continue
            r = measure()
            print(
                f"{run:>3} {name:<34} {r['rps']:>8,.0f} {r['p50']:>7.2f} {r['p99']:>7.2f} {r['errors']:>6.0f}"
            )


if __name__ == "__main__":
    main()
