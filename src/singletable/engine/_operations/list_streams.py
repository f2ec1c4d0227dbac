"""ListStreams: every stream (enabled or closed, within retention), optionally of one table, paged."""

from __future__ import annotations

from typing import Any

from singletable.engine._errors import validation
from singletable.engine._interfaces import OperationEngine
from singletable.engine._streams import check_stream_arn

DEFAULT_LIMIT = 100
MAX_LIMIT = 100


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    limit = params.get("Limit") or DEFAULT_LIMIT
    if limit > MAX_LIMIT:
        raise validation(
            f"One or more parameter values were invalid: Limit cannot be greater than the maximum allowed "
            f"size: {MAX_LIMIT}"
        )
    start = params.get("ExclusiveStartStreamArn")
    if start is not None:  # a malformed ARN is refused; a well-formed one of no stream starts past the end
        check_stream_arn(start)
    found = engine.storage.streams(params.get("TableName"))
    if start is not None:
        arns = [stream["StreamArn"] for _, stream in found]
        found = found[arns.index(start) + 1 :] if start in arns else []
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
