"""DescribeTimeToLive: the table's TTL status (ENABLED with its attribute, or DISABLED)."""

from __future__ import annotations

from typing import Any

from singletable.engine._interfaces import OperationEngine
from singletable.engine._table_descriptions import missing_table, table_name_of


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    name = table_name_of(params["TableName"])
    schema = engine.find_table(name)
    if schema is None:
        raise missing_table(name)
    spec = schema.description.get("_TimeToLive")
    if spec is None:
        return {"TimeToLiveDescription": {"TimeToLiveStatus": "DISABLED"}}
    return {"TimeToLiveDescription": dict(spec)}
