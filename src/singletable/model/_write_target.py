"""The first stage of a write: the table it goes to, and the read of the item stored there.

A :class:`WriteTarget` is everything the later stages need of the table -- its name, the clock that stamps
timestamps, its key attribute names -- so none of them reaches into :class:`~singletable.model.DB`. A plan
that depends on the stored item (a guard or derived item to swap, a key built from a field the write does
not give, a createdAt to keep) reads it here, strongly consistent, and builds its keys and request from
what it read; the read is a step (:mod:`singletable.model._steps`): the GetItem is yielded and the DB's
driver -- synchronous or async -- sends it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, NamedTuple

from singletable.model._entity_meta import EntityMeta
from singletable.model._field_values import AV
from singletable.model._steps import Request, Steps


class WriteTarget(NamedTuple):
    """The table a write goes to: its name, the clock that stamps items, and the names of its key
    attributes (to tell which item a hand-written Put writes)."""

    table_name: str
    clock: Callable[[], datetime]
    key_names: tuple[str, ...] = ()

    def read_item(
        self, key: dict[str, AV], attributes: list[str] | None = None
    ) -> Steps[dict[str, AV] | None]:
        """The stored item (strongly consistent), as planning a write needs it; ``attributes`` projects."""
        params: dict[str, Any] = {"TableName": self.table_name, "Key": key, "ConsistentRead": True}
        if attributes:
            names = {f"#a{i}": name for i, name in enumerate(attributes)}
            params["ProjectionExpression"] = ", ".join(names)
            params["ExpressionAttributeNames"] = names
        return (yield Request("GetItem", params)).get("Item")

    def read_values(self, meta: EntityMeta, key: dict[str, AV]) -> Steps[dict[str, Any] | None]:
        """The stored entity's field values, or None when there is no item."""
        item = yield from self.read_item(key)
        return None if item is None else meta.decode(item)
