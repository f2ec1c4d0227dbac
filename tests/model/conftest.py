"""The model layer runs on every target: the native engine, an in-process boto3 client
(``singletable.client(path)``), boto3 over HTTP to a real ``singletable serve``, and DynamoDB Local.

``open_db(table)`` connects a design to the current target under a unique table name, creates the table and
drops it afterwards (the server and DynamoDB Local are shared by the whole session). A test (or module)
marked ``async_twin`` runs a second time on ``AsyncDB`` on every target (``tests/model_targets.py``).
"""

from __future__ import annotations

import pytest

from model_targets import (
    api,
    http_aio_client,
    module_designs,
    open_db,
    parametrize_async_twins,
    reference_aio_client,
    shared_db,
    sync_target,
    target,
)

__all__ = [
    "api",
    "http_aio_client",
    "module_designs",
    "open_db",
    "reference_aio_client",
    "shared_db",
    "sync_target",
    "target",
]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "async_twin: run the test on AsyncDB too (api=async), with the same body, on every target"
    )
    config.addinivalue_line(
        "markers", "sync_only(reason): leave this test of an async_twin module on DB only"
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    parametrize_async_twins(metafunc)
