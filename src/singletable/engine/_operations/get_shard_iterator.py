"""GetShardIterator: a position in a stream's shard (TRIM_HORIZON, LATEST, AT_/AFTER_SEQUENCE_NUMBER)."""

from __future__ import annotations

from typing import Any

from singletable.engine._errors import not_found, validation
from singletable.engine._interfaces import OperationEngine
from singletable.engine._streams import encode_iterator, find_stream, not_before

_INVALID = "One or more parameter values were invalid: "


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    kind = params["ShardIteratorType"]
    sequence = params.get("SequenceNumber")
    stream_id, stream = find_stream(engine, params["StreamArn"])
    if params["ShardId"] != stream["ShardId"]:
        raise not_found("Shard does not exist")
    storage = engine.storage
    # Trimming expired records is housekeeping a read-only engine skips (it changes nothing that is read:
    # GetRecords never returns a record past retention).
    with storage.read() if storage.read_only else storage.write():
        if not storage.read_only:
            storage.trim_stream_records(not_before())
        if kind in ("TRIM_HORIZON", "LATEST"):
            if sequence is not None:
                raise validation(_INVALID + "SequenceNumber should not be passed for this iterator type")
            position = 0 if kind == "TRIM_HORIZON" else storage.last_stream_seq() + 1
        else:
            if sequence is None or not sequence.isdigit():
                raise validation(_INVALID + "Invalid SequenceNumber")
            position = int(sequence) + (1 if kind == "AFTER_SEQUENCE_NUMBER" else 0)
    return {"ShardIterator": encode_iterator(stream_id, stream["StreamArn"], position)}
