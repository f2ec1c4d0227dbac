"""GetRecords: the stream records at a shard iterator, in sequence order, and the iterator after them.

A closed shard (stream disabled or table deleted) answers without NextShardIterator once it is read to the
end, which is how a reader knows to stop.
"""

from __future__ import annotations

import time
from typing import Any

from singletable.engine import _stream_records as stream_records
from singletable.engine._errors import validation
from singletable.engine._interfaces import OperationEngine
from singletable.engine._streams import (
    ITERATOR_LIFETIME,
    decode_iterator,
    encode_iterator,
    expired_iterator,
    find_stream,
    is_enabled,
    not_before,
)

MAX_LIMIT = 1000


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    limit = params.get("Limit") or MAX_LIMIT
    if limit > MAX_LIMIT:
        raise validation(
            f"One or more parameter values were invalid: Limit should be less than or equal to {MAX_LIMIT}"
        )
    stream_id, position, issued, arn = decode_iterator(params["ShardIterator"])
    if time.time() - issued > ITERATOR_LIFETIME:
        raise expired_iterator()
    found_id, stream = find_stream(engine, arn)
    if found_id != stream_id:
        raise validation("Invalid ShardIterator")
    storage = engine.storage
    rows = storage.stream_records((stream_id,), position, limit, not_before())
    records = [stream_records.render(seq, created, stored, engine.region) for seq, _, created, stored in rows]
    if rows:
        position = rows[-1][0] + 1
    response: dict[str, Any] = {"Records": records}
    if not is_enabled(engine, stream_id, stream):
        _, last = storage.stream_bounds(stream_id, not_before())
        if last is None or position > last:
            return response
    response["NextShardIterator"] = encode_iterator(stream_id, arn, position)
    return response
