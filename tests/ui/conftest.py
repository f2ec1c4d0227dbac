"""Fixtures of the console's tests: one seeded table and one console per TARGET kind, shared by a module.

The table's name is unique to this test process (``UI_TABLE``, read by console_design.py), so the session's
``singletable serve`` and DynamoDB Local, which other tests share, keep it apart; it is dropped at the end.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

os.environ.setdefault("UI_TABLE", f"ui{os.getpid()}")

import console_design
from ui_support import TARGETS, ConsoleServer, seed

from singletable.data import Target, open_target
from singletable.model import connect
from singletable.ui import console_app


@dataclass
class Site:
    """A seeded table on a target, and a console serving it."""

    kind: str
    target: Target
    endpoint: str  # the TARGET text: a file path or a URL
    table: str
    url: str  # the console's base URL


def endpoint_for(kind: str, request: pytest.FixtureRequest, folder: Path) -> str:
    if kind == "file":
        return str(folder / "console.sqlite3")
    if kind == "serve":
        return request.getfixturevalue("http_server").endpoint
    return request.getfixturevalue("reference_server").endpoint


@pytest.fixture(scope="module", params=TARGETS)
def site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    endpoint = endpoint_for(request.param, request, tmp_path_factory.mktemp("ui"))
    table = console_design.shop.resolved_name()
    with open_target(endpoint) as target:
        db = connect(console_design.shop, target.engine or endpoint, name=table)
        db.create_table()
        try:
            seed(db, target, table)
            server = ConsoleServer(console_app(target, design="console_design"))
            yield Site(request.param, target, endpoint, table, server.url)
            server.stop()
        finally:
            db.delete_table()
            db.close()
