"""ListStreams: every stream (enabled or closed, within retention), optionally of one table, paged."""

from __future__ import annotations

from typing import Any

from singletable.engine._interfaces import OperationEngine

DEFAULT_LIMIT = 100


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    found = engine.storage.streams(params.get("TableName"))
    start = params.get("ExclusiveStartStreamArn")
    if start is not None:
        arns = [stream["StreamArn"] for _, stream in found]
        found = found[arns.index(start) + 1 :] if start in arns else []
    limit = params.get("Limit") or DEFAULT_LIMIT
    page = found[:limit]
    response: dict[str, Any] = {
        "Streams": [
            {"StreamArn": s["StreamArn"], "TableName": s["TableName"], "StreamLabel": s["StreamLabel"]}
            for _, s in page
        ]
    }
    if len(found) > limit:
        response["LastEvaluatedStreamArn"] = page[-1][1]["StreamArn"]
    return response
