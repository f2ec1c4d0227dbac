"""DeleteTable: drops the table with its items and index entries in one transaction.

DynamoDB answers with the table's description in status DELETING (the deletion itself is asynchronous
there); ours is immediate, so the next DescribeTable already reports ResourceNotFoundException. The
response carries the short description AWS returns for a deleted table, with counts taken just before the
drop.
"""

from __future__ import annotations

from typing import Any

from singletable.engine._errors import in_use, validation
from singletable.engine._import_state import BEING_CREATED, creating_owner, owner_alive
from singletable.engine._interfaces import OperationEngine
from singletable.engine._schema import TableSchema
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
        schema = engine.find_table(name) or _abandoned_import(engine, name)
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


def _abandoned_import(engine: OperationEngine, name: str) -> TableSchema | None:
    """A CREATING table whose import stopped (its process is gone) can be deleted; one still being
    imported is in use, as DynamoDB answers for a table being created."""
    schema = engine.creating_table(name)
    if schema is None:
        return None
    owner = creating_owner(schema.description)
    if owner is not None and owner_alive(owner):
        raise in_use(BEING_CREATED.format(name=name))
    return schema
