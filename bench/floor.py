"""How fast SQLite alone can do the engine's writes: the floor under PutItem and the bulk load.

    python3 bench/floor.py [--puts 5000] [--items 50000]

Runs the SQL the engine runs for each write -- ``BEGIN IMMEDIATE``, read the old item, write the item and
its index entries, ``COMMIT`` -- on the engine's schema and pragmas (file-backed, WAL, synchronous=NORMAL,
several processes allowed), with every row built before the clock starts and no engine code in the loop:
no validation, no expressions, no capacity, no response. What it prints is an upper bound on what any
engine built on this storage can reach here, to hold the issues' speed targets against: ``bench/run.py``
prints it beside moto's rate.

The workloads are ``bench/run.py``'s PutItem (fresh ~250-byte items, one GSI) and ``bench/batch.py``'s bulk
load (25-item batches, two GSIs). The WAL is checkpointed the way the engine does it (the writer restarts
it every ~1,000 frames) but that checkpoint is left off the clock, so the floor is, if anything, low.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from singletable.engine import _codec as codec
from singletable.engine._storage.catalog import SCHEMA
from singletable.engine._storage.items import GET_ITEM_SQL, PUT_ENTRY_SQL, PUT_ITEM_SQL

_CHECKPOINT_EVERY_FRAMES = 1000


def _connect(path: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute("PRAGMA synchronous = NORMAL")
    for statement in SCHEMA.split(";"):
        if statement.strip():
            conn.execute(statement)
    return conn


def _key(av: dict[str, Any], kind: str = "S") -> bytes:
    return codec.encode_key(av, kind)


def _item_row(item: dict[str, Any]) -> tuple[Any, ...]:
    pk, sk = _key(item["PK"]), _key(item["SK"])
    blob = bytearray  # bound as the engine binds them (see _storage/items.py: bytes cost an adapter lookup)
    return (1, zlib.crc32(pk), blob(pk), blob(sk), codec.item_size(item), blob(codec.dumps_item(item)))


def _entry_row(index_id: int, ipk: bytes, isk: bytes, item_row: tuple[Any, ...], size: int) -> tuple:
    _, thash, pk, sk, _, _ = item_row
    return (1, index_id, zlib.crc32(ipk), bytearray(ipk), bytearray(isk), pk, sk, thash, size)


def put_floor(puts: int) -> float:
    """Microseconds per PutItem transaction (bench/run.py's items: new keys, one ALL-projection GSI)."""
    from run import item

    rows = []
    for i in range(puts):
        it = item(i)
        row = _item_row(it)
        entry = _entry_row(1, _key(it["GSI1PK"]), _key(it["GSI1SK"]), row, row[4])
        rows.append((row, entry))
    with tempfile.TemporaryDirectory() as tmp:
        conn = _connect(os.path.join(tmp, "floor.sqlite3"))
        cursor = conn.cursor()
        spent = 0.0
        for start in range(0, puts, _CHECKPOINT_EVERY_FRAMES // 2):  # two WAL frames per put
            began = time.perf_counter()
            for row, entry in rows[start : start + _CHECKPOINT_EVERY_FRAMES // 2]:
                cursor.execute("BEGIN IMMEDIATE")
                cursor.execute(GET_ITEM_SQL, row[:4]).fetchone()
                cursor.execute(PUT_ITEM_SQL, row)
                cursor.execute(PUT_ENTRY_SQL, entry)
                cursor.execute("COMMIT")
            spent += time.perf_counter() - began
            cursor.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        conn.close()
    return spent / puts * 1e6


def bulk_floor(items: int) -> float:
    """Microseconds per item of bench/batch.py's bulk load (25-item batches, an ALL and a KEYS_ONLY GSI)."""
    from batch import bulk_item

    batches = []
    for b in range(items // 25):
        batch = []
        for i in range(25):
            it = bulk_item(b, i)
            row = _item_row(it)
            keys_only = codec.item_size({k: it[k] for k in ("PK", "SK", "G2PK")})
            batch.append(
                (
                    row,
                    _entry_row(1, _key(it["G1PK"]), _key(it["G1SK"], "N"), row, row[4]),
                    _entry_row(2, _key(it["G2PK"]), b"", row, keys_only),
                )
            )
        batches.append(batch)
    with tempfile.TemporaryDirectory() as tmp:
        conn = _connect(os.path.join(tmp, "floor.sqlite3"))
        cursor = conn.cursor()
        spent = 0.0
        per_round = max(1, _CHECKPOINT_EVERY_FRAMES // 30)  # ~30 WAL frames per batch
        for start in range(0, len(batches), per_round):
            began = time.perf_counter()
            for batch in batches[start : start + per_round]:
                cursor.execute("BEGIN IMMEDIATE")
                for row, _, _ in batch:
                    cursor.execute(GET_ITEM_SQL, row[:4]).fetchone()
                cursor.executemany(PUT_ITEM_SQL, [row for row, _, _ in batch])
                cursor.executemany(PUT_ENTRY_SQL, [e for _, e, _ in batch] + [e for _, _, e in batch])
                cursor.execute("COMMIT")
            spent += time.perf_counter() - began
            cursor.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        conn.close()
    return spent / (len(batches) * 25) * 1e6


def main(argv: list[str] | None = None) -> tuple[float, float]:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--puts", type=int, default=5000)
    parser.add_argument("--items", type=int, default=50000)
    args = parser.parse_args(argv)
    put_us = min(put_floor(args.puts) for _ in range(3))
    bulk_us = min(bulk_floor(args.items) for _ in range(2))
    print("\nSQLite alone, no engine code (best of runs):")
    print(f"  PutItem transaction:  {put_us:6.1f} µs  -> at most {1e6 / put_us:>9,.0f} PutItems/s")
    print(f"  bulk load, per item:  {bulk_us:6.1f} µs  -> at most {1e6 / bulk_us:>9,.0f} items/s")
    return put_us, bulk_us


if __name__ == "__main__":
    main()
