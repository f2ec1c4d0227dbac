"""DescribeStream: a stream's status, view type, key schema and its one shard's sequence range."""

from __future__ import annotations

from typing import Any

from singletable.engine._interfaces import OperationEngine
from singletable.engine._streams import describe, find_stream


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    stream_id, stream = find_stream(engine, params["StreamArn"])
    description = describe(engine, stream_id, stream)
    start = params.get("ExclusiveStartShardId")
    if start is not None and start == stream["ShardId"]:
        description["Shards"] = []
    return {"StreamDescription": description}
