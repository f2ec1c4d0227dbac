"""Storage's DynamoDB Streams: one row per stream, one row per change record, in the engine's database.

A record is appended inside the write transaction of the change it describes (the write path calls
:meth:`StreamData.append_stream_record` through ``stream_records.append``), so a stream never shows a
change that did not commit nor misses one that did, and records come out in commit order.
``st_stream_records.seq`` (AUTOINCREMENT, never reused) is the record's SequenceNumber: monotonic across the
whole database, which makes it monotonic within every shard. What a stream and a record contain is decided
in :mod:`singletable.engine._stream_records`; this module only stores and finds them.
"""

from __future__ import annotations

from typing import Any, cast

import orjson

from singletable.engine import _attribute_values as codec
from singletable.engine._storage.connection import Connection

# (sequence number, stream id, creation epoch seconds, the record as stream_records built it)
StoredRecord = tuple[int, int, float, dict[str, Any]]


class StreamData(Connection):
    """Streams and their records; part of ``Storage``."""

    def insert_stream(self, table_name: str, stream: dict[str, Any]) -> int:
        """Store a newly enabled stream's description; returns its id. Must run inside :meth:`write`."""
        cursor = self._conn.execute(
            "INSERT INTO st_streams (table_name, description) VALUES (?, ?)",
            (table_name, orjson.dumps(stream)),
        )
        return cast(int, cursor.lastrowid)  # an INSERT sets it

    def streams(self, table_name: str | None = None) -> list[tuple[int, dict[str, Any]]]:
        """Every stream (of one table), oldest first, as (stream id, description)."""
        if table_name is None:
            rows = self._conn.execute(
                "SELECT stream_id, description FROM st_streams ORDER BY stream_id"
            ).fetchall()
        else:
            rows = self._conn.execute(
                "SELECT stream_id, description FROM st_streams WHERE table_name = ? ORDER BY stream_id",
                (table_name,),
            ).fetchall()
        return [(stream_id, orjson.loads(data)) for stream_id, data in rows]

    def append_stream_record(self, stream_id: int, created: float, record: dict[str, Any]) -> None:
        """Append one change record to a stream. Must run inside the change's own :meth:`write`."""
        self._conn.execute(
            "INSERT INTO st_stream_records (stream_id, created, record) VALUES (?, ?, ?)",
            (stream_id, created, codec.dumps_item(record)),
        )

    def stream_records(
        self, stream_ids: tuple[int, ...], from_seq: int, limit: int, not_before: float
    ) -> list[StoredRecord]:
        """Up to ``limit`` records with ``seq >= from_seq`` of these streams, in order, created no earlier
        than ``not_before``."""
        marks = ", ".join("?" for _ in stream_ids)
        rows = self._conn.execute(
            f"SELECT seq, stream_id, created, record FROM st_stream_records WHERE stream_id IN ({marks})"
            " AND seq >= ? AND created >= ? ORDER BY seq LIMIT ?",
            (*stream_ids, from_seq, not_before, limit),
        ).fetchall()
        return [(seq, stream_id, created, codec.loads_item(data)) for seq, stream_id, created, data in rows]

    def stream_bounds(self, stream_id: int, not_before: float) -> tuple[int | None, int | None]:
        """The first and last sequence numbers of a stream's records created no earlier than ``not_before``
        (None when it has none)."""
        first, last = self._conn.execute(
            "SELECT MIN(seq), MAX(seq) FROM st_stream_records WHERE stream_id = ? AND created >= ?",
            (stream_id, not_before),
        ).fetchone()
        return first, last

    def last_stream_seq(self) -> int:
        """The highest sequence number ever assigned (0 before the first record)."""
        row = self._conn.execute(
            "SELECT seq FROM sqlite_sequence WHERE name = 'st_stream_records'"
        ).fetchone()
        return int(row[0]) if row else 0

    def trim_stream_records(self, not_before: float) -> None:
        """Drop records created before ``not_before``. Must run inside :meth:`write`."""
        self._conn.execute("DELETE FROM st_stream_records WHERE created < ?", (not_before,))
