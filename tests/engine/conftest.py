"""Fixtures the engine's behaviour tests share (``ddb`` and ``table_name`` come from tests/conftest.py)."""

from __future__ import annotations

import pytest

from backends import Backend


@pytest.fixture
def table(ddb: Backend, table_name: str) -> str:
    """A fresh on-demand table keyed by a string ``pk`` alone, on the backend under test; a test module
    that needs another shape declares its own ``table``."""
    ddb.create_table(
        TableName=table_name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    return table_name
