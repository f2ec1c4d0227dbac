"""UpdateTimeToLive: turn TTL on or off for a table (the sweeper, :mod:`singletable.engine._ttl`, acts on it).

AWS moves through ENABLING/DISABLING for up to an hour; ours takes effect at once, so DescribeTimeToLive
reports ENABLED/DISABLED immediately. The settings live in the table description as private ``_TimeToLive``.
"""

from __future__ import annotations

import copy
from typing import Any

from singletable.engine._errors import validation
from singletable.engine._interfaces import OperationEngine
from singletable.engine._table_descriptions import table_name_of, table_to_change


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    name = table_name_of(params["TableName"])
    spec = params["TimeToLiveSpecification"]
    enable = bool(spec["Enabled"])
    attribute = spec["AttributeName"]
    with engine.storage.write():
        schema = table_to_change(engine, name)
        current = schema.description.get("_TimeToLive") or {}
        enabled = current.get("TimeToLiveStatus") == "ENABLED"
        if enabled and current["AttributeName"] != attribute:
            raise validation("TimeToLive is active on a different AttributeName")
        if enable and enabled:
            raise validation("TimeToLive is already enabled")
        if not enable and not enabled:
            raise validation("TimeToLive is already disabled")
        description = copy.deepcopy(schema.description)
        if enable:
            description["_TimeToLive"] = {"TimeToLiveStatus": "ENABLED", "AttributeName": attribute}
        else:
            description.pop("_TimeToLive", None)
        engine.storage.update_table(schema.table_id, description)
        engine.catalog_changed()
    return {"TimeToLiveSpecification": {"Enabled": enable, "AttributeName": attribute}}
