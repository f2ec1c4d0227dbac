"""Seed designs with their sample data, on the embedded engine (a SQLite file) and on DynamoDB Local, for the
MCP server's tests: ``seeded("wavyblog")`` is a DB holding the seed's sample, under a unique table name."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from model_targets import make_target
from singletable.examples import DEMO_CLOCK
from singletable.model import DB, connect


def load_wavyblog(db: DB) -> None:
    from singletable.examples.wavyblog.sample import load, open_service

    load(open_service(db))


def load_places(db: DB) -> None:
    from singletable.examples.places.sample import load
    from singletable.examples.places.service import Archive

    load(Archive(db))


def load_blog_api(db: DB) -> None:
    from singletable.examples.blog_api.sample import load, open_service

    load(open_service(db))


SEEDS: dict[str, tuple[str, Callable[[DB], None]]] = {
    "blog_api": ("singletable.examples.blog_api.design", load_blog_api),
    "wavyblog": ("singletable.examples.wavyblog.design", load_wavyblog),
    "places": ("singletable.examples.places.design", load_places),
}


def design_table(seed: str) -> Any:
    from singletable._designs import load_design

    return load_design(SEEDS[seed][0]).table


@pytest.fixture(params=["engine", "reference"])
def mcp_target(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """The embedded engine on a file, then DynamoDB Local (skipped, saying why, when it is unavailable)."""
    return make_target(request.param, request, tmp_path / "mcp.sqlite3")


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
    for db in opened:
        try:
            db.delete_table()
        except Exception:
            pass
