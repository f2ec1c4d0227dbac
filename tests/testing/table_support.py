"""The table the testing module's tests create: a string key ``pk`` and an ALL-projection GSI ``byG`` on
``g``, as CreateTable's parameters (for an Engine or a boto3 client alike)."""

from __future__ import annotations

from typing import Any


def g_indexed_table(name: str, **extra: Any) -> dict[str, Any]:
    """CreateTable's parameters for table ``name``; ``extra`` adds more (a StreamSpecification...)."""
    return {
        "TableName": name,
        "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "g", "AttributeType": "S"},
        ],
        "GlobalSecondaryIndexes": [
            {
                "IndexName": "byG",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        **extra,
    }
