"""DescribeTable: the table's current TableDescription (rendered by :mod:`table_descriptions`)."""

from __future__ import annotations

from typing import Any

from singletable.engine._interfaces import OperationEngine
from singletable.engine._table_descriptions import missing_table, render, table_name_of


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    name = table_name_of(params["TableName"])
    schema = engine.find_table(name)
    if schema is not None:
        return {"Table": render(engine, schema.table_id, schema.description, "ACTIVE")}
    creating = engine.creating_table(name)  # an import is filling it: CREATING until it is done
    if creating is None:
        raise missing_table(name)
    return {"Table": render(engine, creating.table_id, creating.description, "CREATING")}
