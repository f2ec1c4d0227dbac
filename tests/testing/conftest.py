"""Fixtures the fault-injection tests share: an engine on a real file holding the orders table
(fault_support.create_orders), and a FaultPlan attached to it for the test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fault_support import create_orders

from singletable.engine import Engine
from singletable.testing import FaultPlan


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    with Engine(str(tmp_path / "faults.sqlite3")) as engine:
        create_orders(engine)
        yield engine


@pytest.fixture
def faults(engine: Engine) -> Iterator[FaultPlan]:
    with FaultPlan().attach(engine) as plan:
        yield plan
