"""Seed designs with their sample data, on the embedded engine (a SQLite file) and on DynamoDB Local, for the
MCP server's tests: ``seeded("wavyblog")`` is a DB holding the seed's sample, under a unique table name."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from mcp_seeds import SEEDS, design_table

from model_targets import drop_tables, make_target
from singletable.examples import DEMO_CLOCK
from singletable.model import DB, connect


@pytest.fixture(params=["engine", "reference"])
def mcp_target(request: pytest.FixtureRequest) -> Any:
    """The embedded engine on a file, then DynamoDB Local (skipped, saying why, when it is unavailable)."""
    return make_target(request.param, request)


@pytest.fixture
def seeded(mcp_target: Any, table_name: str) -> Iterator[Callable[[str], DB]]:
    opened: list[DB] = []

    def open_(seed: str) -> DB:
        name = f"{table_name}_{len(opened)}"
        db = connect(design_table(seed), mcp_target, name=name, clock=lambda: DEMO_CLOCK)
        opened.append(db)
        db.create_table()
        SEEDS[seed][1](db)
        return db

    yield open_
    drop_tables(opened)
