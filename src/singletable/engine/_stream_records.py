"""DynamoDB Streams' records: what a stream and a change record hold, and how GetRecords shows a record.

The write path (``write_item``) calls :func:`append` for every item change, inside the change's own write
transaction; storage (:mod:`singletable.engine._storage.streams`) keeps the records and numbers them in
commit order. Records are stored compactly, under one-letter names, and rendered in AWS's shape on the
way out.

A stream outlives its enablement: disabling the stream or deleting the table only closes it, and its records
stay readable for the 24-hour retention period, as on AWS. Whether a stream is still ENABLED is not stored:
it is whether its table still exists and still names it as its ``_StreamId`` -- so DeleteTable needs no hook.
Each stream has exactly one shard (a local table never splits).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from singletable.engine import _attribute_values as codec
from singletable.engine._storage import Storage

RETENTION_SECONDS = 24 * 3600
SEQUENCE_DIGITS = 21
TTL_IDENTITY = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}


def sequence_number(seq: int) -> str:
    return str(seq).zfill(SEQUENCE_DIGITS)


def stream_label(now: float) -> str:
    """AWS's label: the enablement's UTC timestamp to the millisecond."""
    return datetime.fromtimestamp(now, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3]


def create_stream(
    storage: Storage, table_arn: str, description: dict[str, Any], label: str, now: float
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
    return storage.insert_stream(description["TableName"], stream)


def append(
    storage: Storage,
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
    storage.append_stream_record(stream_id, created, record)


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
