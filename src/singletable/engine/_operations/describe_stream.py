"""DescribeStream: a stream's status, view type, key schema and its one shard's sequence range."""

from __future__ import annotations

from typing import Any

from singletable.engine._interfaces import OperationEngine
from singletable.engine._streams import describe, find_stream


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    stream_id, stream = find_stream(engine, params["StreamArn"])
    description = describe(engine, stream_id, stream)
    if params.get("ExclusiveStartShardId") is not None:
        # Shards after the given one: our streams have one shard, so none follows it -- and none follows
        # an id this stream never had either, as on AWS.
        description["Shards"] = []
    return {"StreamDescription": description}
