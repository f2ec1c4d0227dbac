"""The pytest fixtures of point "faults and time": a :class:`FaultPlan` and a :class:`Clock` on the test's
engine. The plugin (``singletable.testing``'s ``pytest11`` entry point) makes them available by importing
them; they use its ``dynamodb_engine`` fixture, the engine the test's mock answers from."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from singletable.testing.clock import Clock
from singletable.testing.faults import FaultPlan


@pytest.fixture
def dynamodb_faults(dynamodb_engine: Any) -> Iterator[FaultPlan]:
    """A :class:`FaultPlan` attached to this test's engine: ``dynamodb_faults.throttle("PutItem")``...
    Detached when the test ends."""
    with FaultPlan().attach(dynamodb_engine) as plan:
        yield plan


@pytest.fixture
def dynamodb_clock(dynamodb_engine: Any) -> Iterator[Clock]:
    """A :class:`Clock` standing at the current time, made this test's engine's clock (TTL expiry, table
    dates): ``dynamodb_clock.advance(days=1); dynamodb_engine.expire_items()``. Give ``dynamodb_clock.now``
    to the model (``connect(..., clock=dynamodb_clock.now)``) for its ``created_at`` stamps."""
    with Clock().attach(dynamodb_engine) as clock:
        yield clock
