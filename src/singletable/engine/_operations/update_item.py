"""UpdateItem: edit one item's attributes in place (creating it if absent, unless the update only removes),
optionally under a condition."""

from __future__ import annotations

from typing import Any

from singletable.engine._interfaces import OperationEngine
from singletable.engine._item_writes import prepare_update
from singletable.engine._write_path import run_single


def run(engine: OperationEngine, params: dict[str, Any], *, statement: bool = False) -> dict[str, Any]:
    """``statement``: run for a PartiQL UPDATE, which measures only the finished item against the size
    limit, where UpdateItem itself also measures what its expression writes (AWS's split)."""
    write = prepare_update(engine, params)
    write.measure_written = not statement
    mode = params.get("ReturnValues") or "NONE"
    return run_single(engine, write, params, lambda old, new: _returned(mode, old, new, write.update))


def _returned(
    mode: str, old: dict[str, Any] | None, new: dict[str, Any] | None, update: Any
) -> dict[str, Any] | None:
    if mode == "NONE":
        return None
    if mode == "ALL_OLD":
        return old
    if mode == "ALL_NEW":
        return new
    if update is None:
        return None
    source = old if mode == "UPDATED_OLD" else new
    if source is None:
        return None
    return update.project_updated(source)
