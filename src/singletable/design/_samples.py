"""Sample items of a design, for the exports that show data (a NoSQL Workbench model's facet rows).

A design module says where its sample data is in one of two ways: a module-level ``SAMPLE_ITEMS`` list
of items in DynamoDB JSON (what ``import-workbench`` writes), or a sibling ``sample`` module with
``open_service(db)`` and ``load(service)`` -- the seed examples' convention, which writes the data through
the application's own service. The second is run on an in-memory engine with a fixed clock, and the table
is scanned back, so the rows are exactly what the application stores.
"""

from __future__ import annotations

import importlib
from datetime import UTC, datetime
from types import ModuleType
from typing import Any

from singletable.engine import Engine

SAMPLE_CLOCK = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)  # the examples' DEMO_CLOCK: same data every run


def sample_items(module: ModuleType, table: Any) -> list[dict[str, Any]]:
    """The design's sample items (DynamoDB JSON), or ``[]`` when it has none."""
    declared = getattr(module, "SAMPLE_ITEMS", None)
    if declared is not None:
        return list(declared)
    sample = _sibling_sample(module)
    if sample is None:
        return []
    return _load_and_scan(sample, table)


def _sibling_sample(module: ModuleType) -> ModuleType | None:
    package = module.__name__.rpartition(".")[0]
    if not package:
        return None
    try:
        sample = importlib.import_module(f"{package}.sample")
    except ModuleNotFoundError as error:
        if error.name != f"{package}.sample":
            raise
        return None
    if not (callable(getattr(sample, "open_service", None)) and callable(getattr(sample, "load", None))):
        return None
    return sample


def _load_and_scan(sample: ModuleType, table: Any) -> list[dict[str, Any]]:
    from singletable.model import connect

    engine = Engine(":memory:")
    try:
        db = connect(table, engine, clock=lambda: SAMPLE_CLOCK)
        db.ensure_table()
        sample.load(sample.open_service(db))
        items: list[dict[str, Any]] = []
        params: dict[str, Any] = {"TableName": db.table_name}
        while True:
            page = engine.execute("Scan", params)
            items += page.get("Items", [])
            if "LastEvaluatedKey" not in page:
                return items
            params["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    finally:
        engine.close()
