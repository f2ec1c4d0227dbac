"""PutItem: create or replace one item, optionally only if a condition holds."""

from __future__ import annotations

from typing import Any

from singletable.engine._interfaces import OperationEngine
from singletable.engine._item_writes import prepare_put
from singletable.engine._write_path import old_if_all_old, run_single


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    return run_single(engine, prepare_put(engine, params), params, old_if_all_old(params))
