"""Seed designs with their sample data, on the embedded engine (a SQLite file) and on DynamoDB Local, for the
MCP server's tests: ``seeded("wavyblog")`` is a DB holding the seed's sample, under a unique table name, for
the test alone; ``read_only_seeded("wavyblog")`` the same sample loaded once per module, shared by the tests
that only read it."""

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


@pytest.fixture(scope="module")
def loaded_once() -> Iterator[dict[tuple[int, str], DB]]:
    """The module's shared seeded tables, by target and seed; dropped when the module is done."""
    loaded: dict[tuple[int, str], DB] = {}
    yield loaded
    drop_tables(list(loaded.values()))


@pytest.fixture
def read_only_seeded(
    mcp_target: Any, table_name: str, loaded_once: dict[tuple[int, str], DB]
) -> Callable[[str], DB]:
    """As ``seeded``, for tests that write nothing (reads, refusals): each seed is loaded once per module and
    target (the targets are the session's), so a parametrized refusal costs its call, not a table."""

    def open_(seed: str) -> DB:
        key = (id(mcp_target), seed)
        if key not in loaded_once:
            name = f"{table_name}_{seed}"
            db = connect(design_table(seed), mcp_target, name=name, clock=lambda: DEMO_CLOCK)
            db.create_table()
            SEEDS[seed][1](db)
            loaded_once[key] = db
        return loaded_once[key]

    return open_
