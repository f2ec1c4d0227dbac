"""What the four DynamoDB Streams operations share: finding a stream, its status, shard, and iterators.

Shard iterators are opaque to callers; ours are base64 of (stream id, next sequence number, issue time,
ARN), so they survive restarts and work from any process on the same database. Like AWS's, they expire
15 minutes after GetShardIterator issued them (GetRecords' NextShardIterator is a fresh one).
"""

from __future__ import annotations

import base64
import binascii
import time
from datetime import UTC, datetime
from typing import Any

import orjson

from singletable.engine import stream_log
from singletable.engine.errors import DynamoDBError, not_found, validation

ITERATOR_LIFETIME = 15 * 60


def find_stream(engine: Any, arn: str) -> tuple[int, dict[str, Any]]:
    found = stream_log.stream_by_arn(engine.storage.conn, arn)
    if found is None:
        raise not_found(f"Requested resource not found: Stream: {arn} not found")
    return found


def is_enabled(engine: Any, stream_id: int, stream: dict[str, Any]) -> bool:
    schema = engine.find_table(stream["TableName"])
    return schema is not None and schema.description.get("_StreamId") == stream_id


def not_before() -> float:
    return time.time() - stream_log.RETENTION_SECONDS


def shard(engine: Any, stream_id: int, stream: dict[str, Any]) -> dict[str, Any]:
    first, last = stream_log.bounds(engine.storage.conn, stream_id, not_before())
    if first is None:
        first = stream_log.last_seq(engine.storage.conn) + 1
    numbers = {"StartingSequenceNumber": stream_log.sequence_number(first)}
    if not is_enabled(engine, stream_id, stream) and last is not None:
        numbers["EndingSequenceNumber"] = stream_log.sequence_number(last)
    return {"ShardId": stream["ShardId"], "SequenceNumberRange": numbers}


def describe(engine: Any, stream_id: int, stream: dict[str, Any]) -> dict[str, Any]:
    return {
        "StreamArn": stream["StreamArn"],
        "StreamLabel": stream["StreamLabel"],
        "StreamStatus": "ENABLED" if is_enabled(engine, stream_id, stream) else "DISABLED",
        "StreamViewType": stream["StreamViewType"],
        "CreationRequestDateTime": datetime.fromtimestamp(stream["CreationRequestDateTime"], tz=UTC),
        "TableName": stream["TableName"],
        "KeySchema": [dict(k) for k in stream["KeySchema"]],
        "Shards": [shard(engine, stream_id, stream)],
    }


def encode_iterator(stream_id: int, arn: str, position: int) -> str:
    payload = orjson.dumps([stream_id, position, int(time.time() * 1000), arn])
    return base64.urlsafe_b64encode(payload).decode("ascii")


def decode_iterator(text: str) -> tuple[int, int, float, str]:
    """(stream id, next sequence number, issued epoch seconds, ARN) or AWS's invalid-iterator error."""
    try:
        stream_id, position, issued, arn = orjson.loads(base64.urlsafe_b64decode(text.encode("ascii")))
        if not (isinstance(stream_id, int) and isinstance(position, int) and isinstance(issued, int)):
            raise ValueError(text)
        return stream_id, position, issued / 1000, str(arn)
    except (ValueError, TypeError, binascii.Error, orjson.JSONDecodeError, UnicodeError):
        raise validation("Invalid ShardIterator") from None


def expired_iterator() -> DynamoDBError:
    return DynamoDBError("ExpiredIteratorException", "Iterator expired")
