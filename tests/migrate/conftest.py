"""Migration tests run on the native engine, boto3 over HTTP to a real ``singletable serve``, and DynamoDB
Local (the in-process client is the engine again, behind boto3: the three are enough)."""

from __future__ import annotations

from typing import Any

import pytest

from model_targets import make_target


@pytest.fixture(params=["engine", "http", "reference"])
def target(request: pytest.FixtureRequest) -> Any:
    return make_target(request.param, request)
