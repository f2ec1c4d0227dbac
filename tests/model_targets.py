"""Where model-layer tests run: one name per way an application can reach a table.

``engine`` is the embedded engine called natively (no botocore), ``client`` a real boto3 client wired
in-process by ``singletable.client(path)``, ``http`` boto3 over HTTP to the session's ``singletable serve``
subprocess, and ``reference`` DynamoDB Local. The model layer's promise is that application code runs
unchanged on all of them, so its tests take the target as a parameter instead of choosing one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from singletable.model import DB, Table, connect

ALL_TARGETS = ["engine", "client", "http", "reference"]


def make_target(name: str, request: pytest.FixtureRequest, path: Path) -> Any:
    """What ``connect(table, target)`` receives for ``name``; anything opened here is closed by ``request``.

    ``path`` is the SQLite file for the in-process targets (the http server and DynamoDB Local are shared by
    the session, so tests keep apart by table name).
    """
    if name == "engine":
        from singletable.engine import Engine

        engine = Engine(str(path))
        request.addfinalizer(engine.close)
        return engine
    if name == "client":
        import singletable
        from singletable._client import close_engine

        client = singletable.client(str(path))
        request.addfinalizer(lambda: close_engine(str(path)))
        return client
    if name == "http":
        return request.getfixturevalue("http_client")
    if name == "reference":
        return request.getfixturevalue("reference_client")
    raise ValueError(f"unknown model target {name!r}; one of {ALL_TARGETS}")


@pytest.fixture(params=ALL_TARGETS)
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """Each test once per target (conftests import this fixture)."""
    return make_target(request.param, request, tmp_path / "model.sqlite3")


@pytest.fixture
def open_db(target: Any, table_name: str) -> Iterator[Callable[..., DB]]:
    """``open_db(table)``: the design connected to the current target under a unique table name, created,
    and dropped afterwards (the server and DynamoDB Local are shared by the whole session)."""
    opened: list[DB] = []

    def open_(table: Table, **options: Any) -> DB:
        db = connect(table, target, name=f"{table_name}_{len(opened)}", **options)
        db.create_table()
        opened.append(db)
        return db

    yield open_
    for db in opened:
        try:
            db.delete_table()
        except Exception:
            pass
