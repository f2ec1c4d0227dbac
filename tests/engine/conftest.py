"""Fixtures the engine's behaviour tests share (``ddb`` and ``table_name`` come from tests/conftest.py)."""

from __future__ import annotations

import pytest
from tables import create_keyed

from backends import Backend, SharedTables


@pytest.fixture
def table(ddb: Backend, table_name: str) -> str:
    """A fresh on-demand table keyed by a string ``pk`` alone, on the backend under test; a test module
    that needs another shape declares its own ``table``."""
    create_keyed(ddb, table_name)
    return table_name


@pytest.fixture
def shared(ddb: Backend, module_tables: SharedTables) -> str:
    """The same empty table, shared by the module's tests that leave it as they found it (requests it refuses,
    reads); a module whose shared table holds items declares its own ``shared``."""
    return module_tables.get(ddb, "keyed", create_keyed)
