"""DeleteTable: drops the table with its items and index entries in one transaction.

DynamoDB answers with the table's description in status DELETING (the deletion itself is asynchronous
there); ours is immediate, so the next DescribeTable already reports ResourceNotFoundException. The
response carries the short description AWS returns for a deleted table, with counts taken just before the
drop.
"""

from __future__ import annotations

from typing import Any

from singletable.engine._errors import validation
from singletable.engine._interfaces import OperationEngine
from singletable.engine._table_descriptions import missing_table, render, table_name_of

# The members of the description AWS's DeleteTable response carries (in its order).
_RESPONSE_KEYS = (
    "TableName",
    "TableStatus",
    "ProvisionedThroughput",
    "TableSizeBytes",
    "ItemCount",
    "TableArn",
    "TableId",
    "BillingModeSummary",
    "SSEDescription",
    "TableClassSummary",
    "DeletionProtectionEnabled",
)


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    name = table_name_of(params["TableName"])
    with engine.storage.write():
        schema = engine.find_table(name)
        if schema is None:
            raise missing_table(name)
        if schema.description.get("DeletionProtectionEnabled"):
            raise validation(
                "Resource cannot be deleted as it is currently protected against deletion. "
                "Disable deletion protection first."
            )
        full = render(engine, schema.table_id, schema.description, "DELETING")
        engine.storage.drop_table(schema.table_id)
        engine.catalog_changed()
    description = {key: full[key] for key in _RESPONSE_KEYS if key in full}
    return {"TableDescription": description}
