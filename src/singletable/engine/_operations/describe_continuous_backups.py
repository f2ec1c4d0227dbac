"""DescribeContinuousBackups: answered as AWS answers for a table without point-in-time recovery.

The engine keeps no backups, so every table is described as AWS describes one whose point-in-time recovery
was never turned on: continuous backups ENABLED (AWS's status for every table) and point-in-time recovery
DISABLED. Turning it on (UpdateContinuousBackups) stays an AWS-only operation. A missing table is AWS's
TableNotFoundException, the error this operation documents.
"""

from __future__ import annotations

from typing import Any

from singletable.engine._errors import DynamoDBError
from singletable.engine._interfaces import OperationEngine
from singletable.engine._table_descriptions import check_table_name, table_name_of


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    name = table_name_of(params["TableName"])
    if engine.find_table(name) is None:
        check_table_name(name)
        raise DynamoDBError("TableNotFoundException", f"Table not found: {name}")
    return {
        "ContinuousBackupsDescription": {
            "ContinuousBackupsStatus": "ENABLED",
            "PointInTimeRecoveryDescription": {"PointInTimeRecoveryStatus": "DISABLED"},
        }
    }
