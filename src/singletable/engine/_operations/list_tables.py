"""ListTables: table names in ascending order, paged by ExclusiveStartTableName."""

from __future__ import annotations

from typing import Any

from singletable.engine._interfaces import OperationEngine

DEFAULT_LIMIT = 100


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    limit = params.get("Limit") or DEFAULT_LIMIT
    start = params.get("ExclusiveStartTableName")
    # Names compare by code point, as DynamoDB orders them (Python str ordering is exactly that).
    every = sorted(engine.table_names() + engine.creating_names())  # CREATING tables are listed too
    names = [name for name in every if start is None or name > start]
    page = names[:limit]
    response: dict[str, Any] = {"TableNames": page}
    # Only a truncated page carries a resume point: its absence tells the caller the listing is complete.
    if len(names) > limit:
        response["LastEvaluatedTableName"] = page[-1]
    return response
