"""GetItem: read one item by its full key."""

from __future__ import annotations

from typing import Any

from singletable.engine._capacity import Capacity, read_units
from singletable.engine._interfaces import OperationEngine
from singletable.engine._item_reads import prepare_get


def run(engine: OperationEngine, params: dict[str, Any], *, for_wire: bool = False) -> dict[str, Any]:
    """``for_wire``: answering for the wire codec (see ``Engine.execute``), an item without a projection is
    returned as its stored JSON, undecoded."""
    get = prepare_get(engine, params)
    item, size = get.read(engine.storage, for_wire)
    response: dict[str, Any] = {}
    if item is not None:
        response["Item"] = item
    mode = params.get("ReturnConsumedCapacity")
    if mode is not None and mode != "NONE":
        capacity = Capacity(get.schema.name)
        capacity.table = read_units(size, bool(params.get("ConsistentRead")))
        response["ConsumedCapacity"] = capacity.render(mode)
    return response
