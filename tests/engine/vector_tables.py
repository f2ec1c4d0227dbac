"""What the vector search tests share: vectors as AttributeValues, index definitions, a table with vector
indexes, and the backend fixture that skips DynamoDB Local (it has no vector search)."""

from __future__ import annotations

from typing import Any

import pytest

from backends import Backend

NO_REFERENCE = "DynamoDB Local has no vector indexes or SearchVectors (docs/compatibility.md)"


def vec(*numbers: float) -> list[dict[str, str]]:
    return [{"N": str(n)} for n in numbers]


def vector_index(name: str = "vix", **over: Any) -> dict[str, Any]:
    index: dict[str, Any] = {
        "IndexName": name,
        "VectorAttribute": {"AttributeName": "embedding"},
        "Dimensions": 3,
        "DistanceFunction": "COSINE",
        "Projection": {"ProjectionType": "ALL"},
    }
    index.update(over)
    return index


def create(ddb: Backend, name: str, indexes: list[dict[str, Any]], extra_defs: tuple[str, ...] = ()) -> Any:
    definitions = [{"AttributeName": "pk", "AttributeType": "S"}]
    definitions += [{"AttributeName": n, "AttributeType": "S"} for n in extra_defs]
    return ddb.create_table(
        TableName=name,
        AttributeDefinitions=definitions,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
        VectorIndexes=indexes,
    )


@pytest.fixture
def vddb(ddb: Backend) -> Backend:
    if ddb.is_reference:
        pytest.skip(NO_REFERENCE)
    return ddb
