"""The model layer runs on every target: the native engine, an in-process boto3 client
(``singletable.client(path)``), boto3 over HTTP to a real ``singletable serve``, and DynamoDB Local.

``open_db(table)`` connects a design to the current target under a unique table name, creates the table and
drops it afterwards (the server and DynamoDB Local are shared by the whole session).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from model_targets import ALL_TARGETS, make_target
from singletable.model import DB, Table, connect

TARGETS = ALL_TARGETS


@pytest.fixture(params=TARGETS)
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    return make_target(request.param, request, tmp_path / "model.sqlite3")


@pytest.fixture
def open_db(target: Any, table_name: str) -> Iterator[Callable[..., DB]]:
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
