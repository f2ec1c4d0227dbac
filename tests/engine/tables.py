"""Table definitions the behaviour tests share, and the two AttributeValues they write most: ``s("x")``
is ``{"S": "x"}``, ``n("1")`` is ``{"N": "1"}``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


def s(value: str) -> dict[str, str]:
    return {"S": value}


def n(value: str) -> dict[str, str]:
    return {"N": value}


def key_schema(hash_name: str, range_name: str | None = None) -> list[dict[str, str]]:
    schema = [{"AttributeName": hash_name, "KeyType": "HASH"}]
    if range_name:
        schema.append({"AttributeName": range_name, "KeyType": "RANGE"})
    return schema


def create(ddb: Any, name: str, *, sk_type: str | None = "S", gsi: bool = False, lsi: bool = False) -> str:
    """A PK/SK table; optionally a GSI (G1PK/G1SK, ALL), a KEYS_ONLY GSI on G2PK, and an LSI on L1SK."""
    definitions = [{"AttributeName": "PK", "AttributeType": "S"}]
    if sk_type:
        definitions.append({"AttributeName": "SK", "AttributeType": sk_type})
    params: dict[str, Any] = {
        "TableName": name,
        "KeySchema": key_schema("PK", "SK" if sk_type else None),
        "BillingMode": "PAY_PER_REQUEST",
    }
    if gsi:
        definitions += [
            {"AttributeName": "G1PK", "AttributeType": "S"},
            {"AttributeName": "G1SK", "AttributeType": "N"},
            {"AttributeName": "G2PK", "AttributeType": "S"},
        ]
        params["GlobalSecondaryIndexes"] = [
            {
                "IndexName": "GSI1",
                "KeySchema": key_schema("G1PK", "G1SK"),
                "Projection": {"ProjectionType": "ALL"},
            },
            {
                "IndexName": "GSI2",
                "KeySchema": key_schema("G2PK"),
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            },
        ]
    if lsi:
        definitions.append({"AttributeName": "L1SK", "AttributeType": "S"})
        params["LocalSecondaryIndexes"] = [
            {
                "IndexName": "LSI1",
                "KeySchema": key_schema("PK", "L1SK"),
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["extra"]},
            }
        ]
    params["AttributeDefinitions"] = definitions
    ddb.create_table(**params)
    return name


def key(i: int | str) -> dict[str, Any]:
    """The key of item ``i`` in a :func:`create` table whose sort key is a string: ``SK`` is always "x"."""
    return {"PK": s(str(i)), "SK": s("x")}


def create_keyed(ddb: Any, name: str, attribute_type: str = "S") -> str:
    """An on-demand table keyed by ``pk`` (of ``attribute_type``) alone: the shape most engine tests need."""
    ddb.create_table(
        TableName=name,
        KeySchema=key_schema("pk"),
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": attribute_type}],
        BillingMode="PAY_PER_REQUEST",
    )
    return name


def table_fixtures(make: Callable[[Any, str], Any]) -> tuple[Any, Any]:
    """A module's two fixtures for the tables ``make(ddb, name)`` makes: ``table``, the test's own (for a test
    that writes), and ``shared``, one per backend that the module's tests which leave it as they found it
    share (``backends.SharedTables``). Use: ``table, shared = table_fixtures(make)``."""

    @pytest.fixture
    def table(ddb: Any, table_name: str) -> str:
        make(ddb, table_name)
        return table_name

    @pytest.fixture
    def shared(ddb: Any, module_tables: Any) -> str:
        return module_tables.get(ddb, make.__name__, make)

    return table, shared
