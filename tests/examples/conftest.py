"""Seed examples run on every target (``model_targets``): the embedded engine on a SQLite file, an in-process
boto3 client, boto3 over HTTP to ``singletable serve``, and DynamoDB Local.

The repository root goes on ``sys.path`` so ``import examples.<package>`` works from a checkout.
``open_db(table)`` connects a design to the current target under a unique table name and creates the table.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from model_targets import ALL_TARGETS, make_target  # noqa: E402
from singletable.model import DB, Table, connect  # noqa: E402

TARGETS = ALL_TARGETS


@pytest.fixture(params=TARGETS)
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    return make_target(request.param, request, tmp_path / "example.sqlite3")


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
