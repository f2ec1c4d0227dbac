"""Fixtures the data tools' tests share (``http_server`` and ``reference_server``: tests/conftest.py)."""

from __future__ import annotations

import pytest


@pytest.fixture(params=["file", "http", "reference"])
def endpoint(request: pytest.FixtureRequest, tmp_path) -> str:
    """A TARGET string of each kind: a database file, ``singletable serve``, or DynamoDB Local; a test module
    whose tool some of them lack declares its own ``endpoint``."""
    if request.param == "file":
        return str(tmp_path / "target.db")
    if request.param == "http":
        return request.getfixturevalue("http_server").endpoint
    return request.getfixturevalue("reference_server").endpoint
