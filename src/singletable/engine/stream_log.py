"""DynamoDB Streams' storage: one row per stream, one row per change record, in the engine's database.

Records are appended by :func:`append`, called from the single write path (``common.write_item``) inside the
change's own SQLite transaction, so a stream never shows a change that did not commit nor misses one that
did, and records come out in commit order. ``st_stream_records.seq`` (AUTOINCREMENT, never reused) is the
record's SequenceNumber: monotonic across the whole database, which makes it monotonic within every shard.

A stream outlives its enablement: disabling the stream or deleting the table only closes it, and its records
stay readable for the 24-hour retention period, as on AWS. Whether a stream is still ENABLED is not stored:
it is whether its table still exists and still names it as its ``_StreamId`` -- so DeleteTable needs no hook.
Each stream has exactly one shard (a local table never splits).
"""

from __future__ import annotations

import sqlite3
import uuid
from datetime import UTC, datetime
from typing import Any

import orjson

from singletable.engine import codec

RETENTION_SECONDS = 24 * 3600
SEQUENCE_DIGITS = 21
TTL_IDENTITY = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}
VIEW_TYPES = ("KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES")


def sequence_number(seq: int) -> str:
    return str(seq).zfill(SEQUENCE_DIGITS)


def stream_label(now: float) -> str:
    """AWS's label: the enablement's UTC timestamp to the millisecond."""
    return datetime.fromtimestamp(now, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3]


def create_stream(
    conn: sqlite3.Connection, table_arn: str, description: dict[str, Any], label: str, now: float
) -> int:
    """Record a newly enabled stream of a table; returns its id (the table keeps it as ``_StreamId``).

    Must run inside the table change's write transaction.
    """
    stream = {
        "StreamArn": f"{table_arn}/stream/{label}",
        "StreamLabel": label,
        "StreamViewType": description["StreamSpecification"]["StreamViewType"],
        "CreationRequestDateTime": now,
        "TableName": description["TableName"],
        "KeySchema": [dict(k) for k in description["KeySchema"]],
        "ShardId": f"shardId-{int(now * 1000):020d}-{uuid.uuid4().hex[:8]}",
    }
    cursor = conn.execute(
        "INSERT INTO st_streams (table_name, description) VALUES (?, ?)",
        (description["TableName"], orjson.dumps(stream)),
    )
    return int(cursor.lastrowid)


def streams(conn: sqlite3.Connection, table_name: str | None = None) -> list[tuple[int, dict[str, Any]]]:
    """Every stream (of one table), oldest first."""
    if table_name is None:
        rows = conn.execute("SELECT stream_id, description FROM st_streams ORDER BY stream_id").fetchall()
    else:
        rows = conn.execute(
            "SELECT stream_id, description FROM st_streams WHERE table_name = ? ORDER BY stream_id",
            (table_name,),
        ).fetchall()
    return [(stream_id, orjson.loads(data)) for stream_id, data in rows]


def stream_by_arn(conn: sqlite3.Connection, arn: str) -> tuple[int, dict[str, Any]] | None:
    if "/stream/" not in arn or ":table/" not in arn:
        return None
    table_name = arn.split(":table/", 1)[1].split("/", 1)[0]
    for stream_id, stream in streams(conn, table_name):
        if stream["StreamArn"] == arn:
            return stream_id, stream
    return None


def append(
    storage: Any,
    description: dict[str, Any],
    key: dict[str, Any],
    old: dict[str, Any] | None,
    new: dict[str, Any] | None,
    *,
    ttl_delete: bool = False,
    now: float | None = None,
) -> None:
    """Append the record of one item change, if the table's stream is on and the item really changed.

    AWS writes no record for a PutItem/UpdateItem that leaves the item as it was, nor for deleting an
    absent item.
    """
    stream_id = description.get("_StreamId")
    if stream_id is None or old == new:
        return
    view = description["StreamSpecification"]["StreamViewType"]
    event = "INSERT" if old is None else "REMOVE" if new is None else "MODIFY"
    record: dict[str, Any] = {"e": {"S": event}, "i": {"S": uuid.uuid4().hex}, "K": {"M": key}}
    size = codec.item_size(key)
    if new is not None and view in ("NEW_IMAGE", "NEW_AND_OLD_IMAGES"):
        record["N"] = {"M": new}
        size += codec.item_size(new)
    if old is not None and view in ("OLD_IMAGE", "NEW_AND_OLD_IMAGES"):
        record["O"] = {"M": old}
        size += codec.item_size(old)
    record["z"] = {"N": str(size)}
    record["v"] = {"S": view}
    if ttl_delete:
        record["t"] = {"BOOL": True}
    created = datetime.now(tz=UTC).timestamp() if now is None else now
    storage.conn.execute(
        "INSERT INTO st_stream_records (stream_id, created, record) VALUES (?, ?, ?)",
        (stream_id, created, codec.dumps_item(record)),
    )


def read(
    conn: sqlite3.Connection, stream_ids: tuple[int, ...], from_seq: int, limit: int, not_before: float
) -> list[tuple[int, int, float, dict[str, Any]]]:
    """Up to ``limit`` records with ``seq >= from_seq`` of these streams, in order, within retention."""
    marks = ", ".join("?" for _ in stream_ids)
    rows = conn.execute(
        f"SELECT seq, stream_id, created, record FROM st_stream_records WHERE stream_id IN ({marks})"
        " AND seq >= ? AND created >= ? ORDER BY seq LIMIT ?",
        (*stream_ids, from_seq, not_before, limit),
    ).fetchall()
    return [(seq, stream_id, created, codec.loads_item(data)) for seq, stream_id, created, data in rows]


def bounds(conn: sqlite3.Connection, stream_id: int, not_before: float) -> tuple[int | None, int | None]:
    """The first retained and the last sequence numbers of a stream (None when it has no records)."""
    first, last = conn.execute(
        "SELECT MIN(seq), MAX(seq) FROM st_stream_records WHERE stream_id = ? AND created >= ?",
        (stream_id, not_before),
    ).fetchone()
    return first, last


def last_seq(conn: sqlite3.Connection) -> int:
    """The highest sequence number ever assigned (0 before the first record)."""
    row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'st_stream_records'").fetchone()
    return int(row[0]) if row else 0


def trim(conn: sqlite3.Connection, not_before: float) -> None:
    """Drop records past retention. Must run inside a write transaction."""
    conn.execute("DELETE FROM st_stream_records WHERE created < ?", (not_before,))


def render(seq: int, created: float, stored: dict[str, Any], region: str) -> dict[str, Any]:
    """One record in the shape GetRecords returns (boto3's parsed form)."""
    body: dict[str, Any] = {
        "ApproximateCreationDateTime": datetime.fromtimestamp(int(created), tz=UTC),
        "Keys": stored["K"]["M"],
    }
    if "N" in stored:
        body["NewImage"] = stored["N"]["M"]
    if "O" in stored:
        body["OldImage"] = stored["O"]["M"]
    body["SequenceNumber"] = sequence_number(seq)
    body["SizeBytes"] = int(stored["z"]["N"])
    body["StreamViewType"] = stored["v"]["S"]
    record: dict[str, Any] = {
        "eventID": stored["i"]["S"],
        "eventName": stored["e"]["S"],
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": region,
        "dynamodb": body,
    }
    if "t" in stored:
        record["userIdentity"] = dict(TTL_IDENTITY)
    return record
