"""How fast SQLite alone can do the engine's writes: the floor under PutItem and the bulk load.

    python3 bench/floor.py [--puts 5000] [--items 50000] [--variants]

Runs the SQL the engine runs for each write -- ``BEGIN IMMEDIATE``, read the old item, write the item and
its index entries, ``COMMIT`` -- on the engine's schema and pragmas (file-backed, WAL, synchronous=NORMAL,
several processes allowed), with every row built before the clock starts and no engine code in the loop:
no validation, no expressions, no capacity, no response. What it prints is an upper bound on what any
engine built on this storage can reach here, to hold the issues' speed targets against: ``bench/run.py``
prints it beside moto's rate.

The workloads are ``bench/run.py``'s PutItem (fresh ~250-byte items, one GSI) and ``bench/batch.py``'s bulk
load (25-item batches, two GSIs), and the same items through the bulk entry point's SQL (10,000-item
chunks; ``--variants`` adds the levers measured for it). It also prints the *engine minimum* of a PutItem:
that SQL plus only what DynamoDB requires of every PutItem -- the request's and the item's checks, the
size, the capacity, the response -- each done by the engine's own code with no dispatch around it
(:func:`engine_minimum_put`): the floor under the engine's Python. The WAL is checkpointed the way the
engine's writer restarts it once it has grown, but every 500 puts (~2,650 frames) and off the clock, so the
floor is, if anything, low: a fresh Engine's WAL grows until its checkpointer's first round, 0.2 s in, and
appending pages costs more than overwriting them (the "WAL growing" line runs the same SQL that way).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import TABLE_SPEC
from singletable.engine import _attribute_values as codec
from singletable.engine._capacity import Capacity, write_units
from singletable.engine._schema import TableSchema
from singletable.engine._storage.catalog import SCHEMA
from singletable.engine._storage.items import GET_ITEM_SQL, PUT_ENTRY_SQL, PUT_ITEM_SQL
from singletable.engine._validation import SHAPES, check_input
from singletable.engine._write_path import check_index_keys, check_item_size, index_entry, key_from_item

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


def _entry_row(
    index_id: int, ipk: bytes, isk: bytes, item_row: tuple[Any, ...], size: int, projected: bytes
) -> tuple:
    """An index entry row; ``projected`` is the item as the index stores it (the item's bytes for ALL)."""
    _, thash, pk, sk, _, _ = item_row
    blob = bytearray
    return (1, index_id, zlib.crc32(ipk), blob(ipk), blob(isk), pk, sk, thash, size, blob(projected))


def put_transaction(cursor: sqlite3.Cursor, row: tuple[Any, ...], entry: tuple[Any, ...]) -> None:
    """One PutItem's SQL: the engine's statements, in its order, bound as it binds them."""
    cursor.execute("BEGIN IMMEDIATE")
    cursor.execute(GET_ITEM_SQL, row[:4]).fetchone()
    cursor.execute(PUT_ITEM_SQL, row)
    cursor.execute(PUT_ENTRY_SQL, entry)
    cursor.execute("COMMIT")


def _timed_puts(put: Callable[[Any], object], args: list[Any], restart_wal: bool) -> float:
    """Microseconds per ``put(arg)`` on a fresh file. With ``restart_wal`` the WAL is checkpointed off the
    clock every 500 puts, so each next write starts it over and overwrites its pages (the floor's regime);
    without it the WAL grows by appending for the whole run, as the Engine's does in a run shorter than its
    checkpointer's first round (0.2 s) -- the regime ``bench/put_ratio.py`` measures the Engine in."""
    with tempfile.TemporaryDirectory() as tmp:
        conn = _connect(os.path.join(tmp, "floor.sqlite3"))
        cursor = conn.cursor()
        spent = 0.0
        step = _CHECKPOINT_EVERY_FRAMES // 2 if restart_wal else len(args)
        for start in range(0, len(args), step):  # ~1,000 frames or more per round
            began = time.perf_counter()
            for arg in args[start : start + step]:
                put(cursor, arg)
            spent += time.perf_counter() - began
            if restart_wal:
                cursor.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        conn.close()
    return spent / len(args) * 1e6


def put_rows(item: dict[str, Any]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """A bench/run.py item's rows as the engine stores them: the item's and its GSI1 (ALL) entry's."""
    row = _item_row(item)
    return row, _entry_row(1, _key(item["GSI1PK"]), _key(item["GSI1SK"]), row, row[4], row[5])


def put_floor(puts: int, *, restart_wal: bool = True) -> float:
    """Microseconds per PutItem transaction (bench/run.py's items: new keys, one ALL-projection GSI)."""
    from run import item

    rows = [put_rows(item(i)) for i in range(puts)]
    return _timed_puts(lambda cursor, pair: put_transaction(cursor, *pair), rows, restart_wal)


# bench/run.py's table as the engine holds it (its GSI is index 1, as in put_floor's rows).
_SCHEMA = TableSchema.from_description(
    1, {**TABLE_SPEC, "GlobalSecondaryIndexes": [{**TABLE_SPEC["GlobalSecondaryIndexes"][0], "_IndexId": 1}]}
)
_GSI = _SCHEMA.indexes["GSI1"]


def engine_minimum_put(cursor: sqlite3.Cursor, request: dict[str, Any]) -> dict[str, Any]:
    """What any PutItem on this storage must do, with the engine's own code for each part and nothing else
    (no dispatch, no prepared-write object, no catalog lookup by name): DynamoDB's checks of the request's
    shape and of every attribute of the item with its size, the four key values' checks and bytes, the
    item's JSON, the SQL transaction the engine runs (``PRAGMA data_version`` is its check, inside the
    transaction, that no other process changed the table), the capacity and the response.

    For bench/run.py's table only (string keys, one ALL GSI): the floor under the engine's PutItem, as
    :func:`put_transaction` is the floor under its SQL."""
    check_input(SHAPES, "PutItemInput", request)
    item, size = codec.validate_item_sized(request["Item"])
    check_item_size(size)
    pk, sk = key_from_item(_SCHEMA, item)
    check_index_keys(_SCHEMA, item)
    ipk, isk = index_entry(_SCHEMA, _GSI, item)  # type: ignore[misc]  # bench items are all in the index
    stored = bytearray(codec.dumps_item(item))
    thash, bpk, bsk = zlib.crc32(pk), bytearray(pk), bytearray(sk)
    cursor.execute("BEGIN IMMEDIATE")
    cursor.execute("PRAGMA data_version").fetchone()
    cursor.execute(GET_ITEM_SQL, (1, thash, bpk, bsk)).fetchone()
    cursor.execute(PUT_ITEM_SQL, (1, thash, bpk, bsk, size, stored))
    cursor.execute(
        PUT_ENTRY_SQL, (1, 1, zlib.crc32(ipk), bytearray(ipk), bytearray(isk), bpk, bsk, thash, size, stored)
    )
    cursor.execute("COMMIT")
    units = write_units(size)
    capacity = Capacity(request["TableName"])
    capacity.table += units
    capacity.add_index("GSI1", True, units)
    response: dict[str, Any] = {}
    consumed = capacity.render(request.get("ReturnConsumedCapacity"))
    if consumed is not None:
        response["ConsumedCapacity"] = consumed
    return response


def engine_minimum(puts: int, *, restart_wal: bool = True) -> float:
    """Microseconds per :func:`engine_minimum_put` on bench/run.py's items (requests built beforehand)."""
    from run import TABLE, item

    requests = [{"TableName": TABLE, "Item": item(i)} for i in range(puts)]
    return _timed_puts(engine_minimum_put, requests, restart_wal)


def _bulk_rows(items: int) -> list[list[tuple[tuple, tuple, tuple]]]:
    """bench/batch.py's bulk-load items as 25-item batches of (item row, GSI1 entry, GSI2 entry)."""
    from batch import bulk_item

    batches = []
    for b in range(items // 25):
        batch = []
        for i in range(25):
            it = bulk_item(b, i)
            row = _item_row(it)
            keys_only = {k: it[k] for k in ("G2PK", "PK", "SK")}
            batch.append(
                (
                    row,
                    _entry_row(1, _key(it["G1PK"]), _key(it["G1SK"], "N"), row, row[4], row[5]),
                    _entry_row(
                        2, _key(it["G2PK"]), b"", row, codec.item_size(keys_only), codec.dumps_item(keys_only)
                    ),
                )
            )
        batches.append(batch)
    return batches


def bulk_floor(items: int) -> float:
    """Microseconds per item of bench/batch.py's bulk load (25-item batches, an ALL and a KEYS_ONLY GSI)."""
    batches = _bulk_rows(items)
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


def chunk_floor(items: int, chunk: int = 10_000, *, sort: bool = False, bare_entries: bool = False) -> float:
    """CPU microseconds per item of the bulk entry point's SQL (``engine/_bulk_load.py``): ``chunk`` items
    per transaction, each item's old-item lookup, then one ``executemany`` per statement, ``COMMIT``.

    CPU time of this process, not wall time (the machine is shared; SQLite runs in-process); the checkpoint
    after each chunk is off the clock. ``sort`` inserts each chunk's rows in key order; ``bare_entries``
    writes index entries without their projected item (storage schema version 1's layout, for the cost of
    the copy)."""
    rows = [row for batch in _bulk_rows(items) for row in batch]
    if bare_entries:
        rows = [(row, (*g1[:-1], b""), (*g2[:-1], b"")) for row, g1, g2 in rows]
    with tempfile.TemporaryDirectory() as tmp:
        conn = _connect(os.path.join(tmp, "floor.sqlite3"))
        cursor = conn.cursor()
        spent = 0.0
        for start in range(0, len(rows), chunk):
            part = rows[start : start + chunk]
            began = time.process_time()
            cursor.execute("BEGIN IMMEDIATE")
            for row, _, _ in part:
                cursor.execute(GET_ITEM_SQL, row[:4]).fetchone()
            item_rows = [row for row, _, _ in part]
            entry_rows = [e for _, e, _ in part] + [e for _, _, e in part]
            if sort:
                item_rows.sort(key=lambda r: r[:4])
                entry_rows.sort(key=lambda r: r[:7])
            cursor.executemany(PUT_ITEM_SQL, item_rows)
            cursor.executemany(PUT_ENTRY_SQL, entry_rows)
            cursor.execute("COMMIT")
            spent += time.process_time() - began
            cursor.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        conn.close()
    return spent / len(rows) * 1e6


def main(argv: list[str] | None = None) -> tuple[float, float, float, float, float]:
    """Prints the floors; returns µs per PutItem transaction, per bulk-loaded item, per engine minimum, per
    PutItem transaction with the WAL growing (see :func:`_timed_puts`) and per engine minimum with the WAL
    growing."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--puts", type=int, default=5000)
    parser.add_argument("--items", type=int, default=50000)
    parser.add_argument(
        "--grown-puts",
        type=int,
        help="PutItems of the WAL-growing run (default --puts): the Engine run's length it is held against,"
        " since the longer a WAL grows the more each appended page costs",
    )
    parser.add_argument("--variants", action="store_true", help="also the bulk levers: sorted rows, ...")
    args = parser.parse_args(argv)
    put_us = min(put_floor(args.puts) for _ in range(3))
    minimum_us = min(engine_minimum(args.puts) for _ in range(3))
    grown_us = min(put_floor(args.grown_puts or args.puts, restart_wal=False) for _ in range(3))
    minimum_grown_us = min(engine_minimum(args.grown_puts or args.puts, restart_wal=False) for _ in range(3))
    bulk_us = min(bulk_floor(args.items) for _ in range(2))
    chunk_us = min(chunk_floor(args.items) for _ in range(2))
    print("\nSQLite alone, no engine code (best of runs):")
    print(f"  PutItem transaction:  {put_us:6.1f} µs  -> at most {1e6 / put_us:>9,.0f} PutItems/s")
    print(
        f"  PutItem, engine minimum (the checks DynamoDB makes + that SQL): {minimum_us:6.1f} µs"
        f" = {minimum_us / put_us:.2f}x the transaction"
    )
    print(
        f"  PutItem transaction, WAL growing (a fresh Engine's regime before its first checkpoint):"
        f" {grown_us:6.1f} µs = {grown_us / put_us:.2f}x"
    )
    print(
        f"  PutItem, engine minimum, WAL growing (no engine code beyond the checks, in that regime):"
        f" {minimum_grown_us:6.1f} µs = {minimum_grown_us / put_us:.2f}x the transaction"
    )
    print(f"  bulk load, per item:  {bulk_us:6.1f} µs  -> at most {1e6 / bulk_us:>9,.0f} items/s")
    print(
        f"  bulk entry point, 10,000-item chunks, per item: {chunk_us:6.1f} CPU µs"
        f"  -> at most {1e6 / chunk_us:>9,.0f} items per CPU second"
    )
    if args.variants:
        for name, options in (
            ("  ... rows sorted by key", {"sort": True}),
            ("  ... entries without their item (schema v1)", {"bare_entries": True}),
            ("  ... 50,000-item chunks", {"chunk": 50_000}),
        ):
            us = min(chunk_floor(args.items, **options) for _ in range(2))  # type: ignore[arg-type]
            print(f"{name:<48} {us:6.1f} CPU µs -> at most {1e6 / us:>9,.0f} items per CPU second")
    return put_us, bulk_us, minimum_us, grown_us, minimum_grown_us


if __name__ == "__main__":
    main()
