"""GetItem: read one item by its full key."""

from __future__ import annotations

from typing import Any

from singletable.engine._capacity import Capacity, read_units
from singletable.engine._interfaces import OperationEngine
from singletable.engine._item_reads import prepare_get


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    get = prepare_get(engine, params)
    item, size = get.read(engine.storage)
    response: dict[str, Any] = {}
    if item is not None:
        response["Item"] = item
    mode = params.get("ReturnConsumedCapacity")
    if mode is not None and mode != "NONE":
        capacity = Capacity(get.schema.name)
        capacity.table = read_units(size, bool(params.get("ConsistentRead")))
        response["ConsumedCapacity"] = capacity.render(mode)
    return response
