"""Fixtures the engine's behaviour tests share (``ddb`` and ``table_name`` come from tests/conftest.py)."""

from __future__ import annotations

import pytest
from tables import create_keyed

from backends import Backend


@pytest.fixture
def table(ddb: Backend, table_name: str) -> str:
    """A fresh on-demand table keyed by a string ``pk`` alone, on the backend under test; a test module
    that needs another shape declares its own ``table``."""
    create_keyed(ddb, table_name)
    return table_name
