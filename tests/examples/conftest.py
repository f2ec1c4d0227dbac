"""Seed examples run on every target (``model_targets``): the embedded engine on a SQLite file, an in-process
boto3 client, boto3 over HTTP to ``singletable serve``, and DynamoDB Local.

The examples are imported from the installed package (``singletable.examples.<package>``), as a user would.
``open_db(table)`` connects a design to the current target under a unique table name and creates the table;
``load_sample(db, load)`` fills it with a seed's sample data (``sample_tables``: through the service the first
time on each target, as a copy of that after).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import pytest
from sample_tables import SampleTables

from model_targets import api, open_db, target

__all__ = ["api", "load_sample", "open_db", "target"]

_SAMPLES = SampleTables()


@pytest.fixture
def load_sample(request: pytest.FixtureRequest) -> Callable[..., None]:
    """``load_sample(db, load, variant=(), state=..., restore=...)``: ``db``'s table holds the sample data
    that ``load()`` writes through the service, kept apart by test module, target, API and ``variant``."""
    params = request.node.callspec.params
    where = (request.module.__name__, params["target"], params.get("api", "sync"))

    def load_(db: Any, load: Callable[[], object], *, variant: Hashable = (), **saved: Any) -> None:
        _SAMPLES.load((*where, variant), db, load, **saved)

    return load_
