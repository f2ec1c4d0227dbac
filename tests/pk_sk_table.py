"""The table most data, design and engine tests start from, as CreateTable's parameters: on demand, keyed
by a string ``PK`` and a ``SK`` of ``sk_type``, no index. One definition, so the tests of every package
create the same table."""

from __future__ import annotations

from typing import Any


def pk_sk_table(name: str, sk_type: str = "S") -> dict[str, Any]:
    return {
        "TableName": name,
        "KeySchema": [
            {"AttributeName": "PK", "KeyType": "HASH"},
            {"AttributeName": "SK", "KeyType": "RANGE"},
        ],
        "AttributeDefinitions": [
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": sk_type},
        ],
        "BillingMode": "PAY_PER_REQUEST",
    }
