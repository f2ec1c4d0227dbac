"""The quick start's table: customers and their orders in one table, with a GSI for orders by status.

A customer's profile and orders share the partition ``CUSTOMER#<id>`` (sort keys ``PROFILE`` and
``ORDER#<date>``), so one Query reads a customer's orders in date order; ``GSI1`` is keyed on
``STATUS#<status>`` and the order's date, so one Query on it lists the orders in a status.
"""

from __future__ import annotations

from typing import Any

TABLE = "quickstart"

# The CreateTable request, as the engine (or boto3) takes it.
CREATE_TABLE: dict[str, Any] = {
    "TableName": TABLE,
    "KeySchema": [
        {"AttributeName": "PK", "KeyType": "HASH"},
        {"AttributeName": "SK", "KeyType": "RANGE"},
    ],
    "AttributeDefinitions": [
        {"AttributeName": "PK", "AttributeType": "S"},
        {"AttributeName": "SK", "AttributeType": "S"},
        {"AttributeName": "GSI1PK", "AttributeType": "S"},
        {"AttributeName": "GSI1SK", "AttributeType": "S"},
    ],
    "GlobalSecondaryIndexes": [
        {
            "IndexName": "GSI1",
            "KeySchema": [
                {"AttributeName": "GSI1PK", "KeyType": "HASH"},
                {"AttributeName": "GSI1SK", "KeyType": "RANGE"},
            ],
            "Projection": {"ProjectionType": "ALL"},
        }
    ],
    "BillingMode": "PAY_PER_REQUEST",
}
