"""What the four DynamoDB Streams operations share: finding a stream, its status, shard, and iterators.

Shard iterators are opaque to callers; ours are base64 of (stream id, next sequence number, issue time,
ARN), so they survive restarts and work from any process on the same database. Like AWS's, they expire
15 minutes after GetShardIterator issued them (GetRecords' NextShardIterator is a fresh one).
"""

from __future__ import annotations

import base64
import binascii
import re
import time
from datetime import UTC, datetime
from typing import Any, Protocol

import orjson

from singletable.engine import _stream_records as stream_records
from singletable.engine._errors import DynamoDBError, not_found, validation
from singletable.engine._schema import TableSchema
from singletable.engine._storage import Storage

ITERATOR_LIFETIME = 15 * 60
# arn:PARTITION:dynamodb:REGION:ACCOUNT:table/NAME/stream/LABEL -- anything else is no stream ARN at all.
_STREAM_ARN = re.compile(
    r"arn:aws[a-z-]*:dynamodb:[a-z0-9-]+:[0-9]{12}:table/[a-zA-Z0-9_.-]{3,255}/stream/[^/]+"
)


class StreamsEngine(Protocol):
    """What the stream operations and these helpers use of the engine."""

    @property
    def storage(self) -> Storage: ...

    @property
    def region(self) -> str: ...

    def find_table(self, name: str) -> TableSchema | None: ...


def check_stream_arn(arn: str) -> None:
    """A text that is no stream ARN at all is a ValidationException, wherever a stream ARN is expected."""
    if _STREAM_ARN.fullmatch(arn) is None:
        raise validation("Invalid StreamArn")


def find_stream(engine: StreamsEngine, arn: str) -> tuple[int, dict[str, Any]]:
    """(stream id, stream description) of the stream with this ARN, or AWS's errors: a malformed ARN is a
    ValidationException before any lookup, a well-formed one naming no stream is not found."""
    check_stream_arn(arn)
    table_name = arn.split(":table/", 1)[1].split("/", 1)[0]
    for stream_id, stream in engine.storage.streams(table_name):
        if stream["StreamArn"] == arn:
            return stream_id, stream
    raise not_found(f"Requested resource not found: Stream: {arn} not found")


def is_enabled(engine: StreamsEngine, stream_id: int, stream: dict[str, Any]) -> bool:
    schema = engine.find_table(stream["TableName"])
    return schema is not None and schema.description.get("_StreamId") == stream_id


def not_before() -> float:
    """The creation time of the oldest record still within retention."""
    return time.time() - stream_records.RETENTION_SECONDS


def shard(engine: StreamsEngine, stream_id: int, stream: dict[str, Any]) -> dict[str, Any]:
    storage = engine.storage
    first, last = storage.stream_bounds(stream_id, not_before())
    if first is None:
        first = storage.last_stream_seq() + 1
    numbers = {"StartingSequenceNumber": stream_records.sequence_number(first)}
    if not is_enabled(engine, stream_id, stream) and last is not None:
        numbers["EndingSequenceNumber"] = stream_records.sequence_number(last)
    return {"ShardId": stream["ShardId"], "SequenceNumberRange": numbers}


def describe(engine: StreamsEngine, stream_id: int, stream: dict[str, Any]) -> dict[str, Any]:
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
