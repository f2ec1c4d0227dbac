"""Table descriptions: rendering a stored table description as DynamoDB's TableDescription, and the
table-name rules every control-plane operation shares (a name or an ARN; the not-found error naming the
table; the table a change applies to).

The stored description (written by CreateTable) is the static part of DynamoDB's TableDescription with
timestamps as epoch seconds (the catalog is JSON) and a private ``_IndexId`` on every index. Rendering adds
what is live or derived -- counts and sizes, ARNs, statuses -- converts timestamps to the timezone-aware
``datetime`` boto3 returns, and strips every private ``_`` key.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from singletable.engine._errors import in_use, not_found, validation
from singletable.engine._import_state import BEING_CREATED
from singletable.engine._interfaces import OperationEngine
from singletable.engine._schema import TableSchema
from singletable.engine._vector_definitions import describe_vector_index

_ARN_PREFIX = "arn:"
_VALID_NAME = re.compile(r"[a-zA-Z0-9_.-]{3,255}")
INVALID_NAME = (
    "Invalid table/index name.  Table/index names must be between 3 and 255 characters long, and may "
    "contain only the characters a-z, A-Z, 0-9, '_', '-', and '.'"
)


def table_name_of(value: str) -> str:
    """Operations accept a table ARN wherever they take a table name; the name is its last segment."""
    if value.startswith(_ARN_PREFIX) and ":table/" in value:
        return value.split(":table/", 1)[1].split("/", 1)[0]
    return value


def check_table_name(name: str) -> None:
    """A table name that breaks the naming rules is a ValidationException, before any not-found.

    Operations that also take an ARN accept names of any length at the shape check; called where a table
    is not found, so a valid name costs nothing. ARNs keep their own rules."""
    if not name.startswith(_ARN_PREFIX) and _VALID_NAME.fullmatch(name) is None:
        raise validation(INVALID_NAME)


def missing_table(name: str) -> Exception:
    """The control plane names the table in its not-found message (the data plane does not)."""
    check_table_name(name)
    return not_found(f"Requested resource not found: Table: {name} not found")


def table_to_change(engine: OperationEngine, name: str) -> TableSchema:
    """The table a control-plane change (UpdateTable, UpdateTimeToLive) applies to: one an import is still
    creating is in use, as DynamoDB answers for a table not ACTIVE yet; none at all is not found."""
    schema = engine.find_table(name)
    if schema is None:
        if engine.creating_table(name) is not None:
            raise in_use(BEING_CREATED.format(name=name))
        raise missing_table(name)
    return schema


def _public(value: Any) -> Any:
    """Copy without private keys, epoch-second ``*DateTime`` fields turned into aware datetimes."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key.startswith("_"):
                continue
            if key.endswith("DateTime") and isinstance(item, int | float):
                out[key] = datetime.fromtimestamp(item, tz=UTC)
            else:
                out[key] = _public(item)
        return out
    if isinstance(value, list):
        return [_public(item) for item in value]
    return value


def render(engine: OperationEngine, table_id: int, stored: dict[str, Any], status: str) -> dict[str, Any]:
    """The TableDescription DynamoDB would return now, with ``status`` as TableStatus and IndexStatus.

    Key order follows DynamoDB's JSON so that responses compare (and print) alike.
    """
    name = stored["TableName"]
    item_count, size = engine.storage.table_stats(table_id)
    public = _public(stored)
    out: dict[str, Any] = {
        "AttributeDefinitions": public["AttributeDefinitions"],
        "TableName": name,
        "KeySchema": public["KeySchema"],
        "TableStatus": status,
        "CreationDateTime": public["CreationDateTime"],
        "ProvisionedThroughput": public["ProvisionedThroughput"],
        "TableSizeBytes": size,
        "ItemCount": item_count,
        "TableArn": engine.arn(name),
        "TableId": public["TableId"],
    }
    if "BillingModeSummary" in public:
        out["BillingModeSummary"] = public["BillingModeSummary"]
    on_demand = public.get("BillingModeSummary", {}).get("BillingMode") == "PAY_PER_REQUEST"
    for kind in ("LocalSecondaryIndexes", "GlobalSecondaryIndexes"):
        if kind not in stored:
            continue
        rendered = []
        for index, index_public in zip(stored[kind], public[kind], strict=True):
            index_count, index_size = engine.storage.index_stats(table_id, index["_IndexId"])
            entry: dict[str, Any] = {
                "IndexName": index_public["IndexName"],
                "KeySchema": index_public["KeySchema"],
                "Projection": index_public["Projection"],
            }
            if kind == "GlobalSecondaryIndexes":
                # A new table's indexes share its status; later, each index has its own (UpdateTable).
                entry["IndexStatus"] = status if status == "CREATING" else index.get("IndexStatus", "ACTIVE")
                if "Backfilling" in index:
                    entry["Backfilling"] = index["Backfilling"]
                entry["ProvisionedThroughput"] = index_public["ProvisionedThroughput"]
                entry["WarmThroughput"] = warm_throughput(
                    index_public["ProvisionedThroughput"], on_demand, entry["IndexStatus"]
                )
            entry["IndexSizeBytes"] = index_size
            entry["ItemCount"] = index_count
            entry["IndexArn"] = engine.arn(name, index_public["IndexName"])
            rendered.append(entry)
        out[kind] = rendered
    if "VectorIndexes" in stored:
        out["VectorIndexes"] = [
            describe_vector_index(
                index,
                engine.arn(name, index["IndexName"]),
                status if status == "CREATING" else index.get("IndexStatus", "ACTIVE"),
                *engine.storage.vector_stats(table_id, index["_IndexId"]),
            )
            for index in stored["VectorIndexes"]
        ]
    for key in ("StreamSpecification", "LatestStreamLabel", "LatestStreamArn"):
        if key in public:
            out[key] = public[key]
    if "LatestStreamLabel" in public:
        out["LatestStreamArn"] = f"{engine.arn(name)}/stream/{public['LatestStreamLabel']}"
    for key in ("SSEDescription", "TableClassSummary", "OnDemandThroughput"):
        if key in public:
            out[key] = public[key]
    out["WarmThroughput"] = warm_throughput(public["ProvisionedThroughput"], on_demand, status)
    out["DeletionProtectionEnabled"] = public.get("DeletionProtectionEnabled", False)
    return out


# A table or GSI whose warm throughput was never raised: AWS documents that a new on-demand table (and a new
# on-demand GSI) starts at 12,000 read and 4,000 write units per second; a provisioned one is reported at its
# provisioned capacity, which it can serve at once.
ON_DEMAND_WARM = {"ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 4000}


def warm_throughput(provisioned: dict[str, Any], on_demand: bool, status: str) -> dict[str, Any]:
    """DescribeTable's ``WarmThroughput`` of a table or GSI: read and write units per second it can serve
    at once, and its status (CREATING with a new table, else ACTIVE)."""
    if on_demand:
        units = dict(ON_DEMAND_WARM)
    else:
        units = {
            "ReadUnitsPerSecond": max(1, int(provisioned.get("ReadCapacityUnits", 0))),
            "WriteUnitsPerSecond": max(1, int(provisioned.get("WriteCapacityUnits", 0))),
        }
    return {**units, "Status": "CREATING" if status == "CREATING" else "ACTIVE"}
