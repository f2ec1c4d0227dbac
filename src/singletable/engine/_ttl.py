"""Time to Live: deleting items whose TTL attribute holds an epoch-seconds time in the past.

As on AWS, expiry is a background deletion, not a read filter: an expired item is still returned until a
sweep removes it. Each sweep walks the TTL-enabled tables a chunk per transaction and deletes through the
normal write path (``common.write_item``), so index entries go with the item and the table's stream gets a
REMOVE record marked with the TTL service identity. Deletions consume no capacity (AWS does not charge them).

AWS's rules for an item to be eligible: the attribute is a top-level Number, read as epoch seconds, less
than now -- and no more than five years in the past (older values are ignored, not expired).
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from singletable.engine import _attribute_values as codec
from singletable.engine._capacity import Capacity
from singletable.engine._storage import TABLE_START
from singletable.engine._write_path import write_item

if TYPE_CHECKING:
    from singletable.engine._background import BackgroundEngine

CHUNK = 500
FIVE_YEARS = Decimal(5 * 365 * 86400 + 86400)  # five years, including one leap day


def ttl_attribute(description: dict[str, Any]) -> str | None:
    spec = description.get("_TimeToLive")
    if spec is None or spec.get("TimeToLiveStatus") != "ENABLED":
        return None
    return spec["AttributeName"]


def is_expired(item: dict[str, Any], attribute: str, now: Decimal) -> bool:
    value = item.get(attribute)
    if not isinstance(value, dict) or "N" not in value:
        return False
    try:
        when = Decimal(value["N"])
    except InvalidOperation:
        return False
    return now - FIVE_YEARS <= when < now


def sweep(engine: BackgroundEngine) -> int:
    """Delete every expired item of every TTL-enabled table; returns how many were deleted."""
    now = Decimal(repr(float(engine.clock())))
    with engine.storage.lock:
        engine.refresh_catalog()
        names = [name for name in engine.table_names() if ttl_attribute(engine.table(name).description)]
    return sum(_sweep_table(engine, name, now) for name in names)


def _sweep_table(engine: BackgroundEngine, name: str, now: Decimal) -> int:
    """Delete one table's expired items, a chunk of the table per transaction, while TTL stays enabled."""
    storage = engine.storage
    deleted = 0
    after = TABLE_START
    while True:
        with storage.lock:
            engine.refresh_catalog()
            schema = engine.find_table(name)
            attribute = ttl_attribute(schema.description) if schema is not None else None
            if schema is None or attribute is None:
                return deleted
            with storage.write():
                rows = storage.table_chunk(schema.table_id, after, CHUNK)
                capacity = Capacity(name)
                for row in rows:
                    item = codec.loads_item(row.data)
                    if is_expired(item, attribute, now):
                        pk, sk, size = row.pk, row.sk, row.size
                        write_item(storage, schema, pk, sk, item, size, None, 0, capacity, ttl_delete=True)
                        deleted += 1
        if len(rows) < CHUNK:
            return deleted
        after = rows[-1].position
