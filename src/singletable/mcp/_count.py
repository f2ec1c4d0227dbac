"""Counting, for ``count``: an access pattern's or collection's Query (or Scan) with ``Select=COUNT``, read
page by page through ``LastEvaluatedKey`` until it is done or the call's read budget is spent.

DynamoDB then returns counts, not items, so a count moves no item data; it still reads (and is charged for)
every item in the key range. The model tells a pattern's entities apart by the type attribute after
reading; a count cannot, so it adds the entities' types to the request's filter (with placeholders of its
own). That needs the type attribute in what the request reads: on an index that does not project it
(``KEYS_ONLY``), or where it is a key attribute other than the partition key (a filter cannot name one),
the count is of every item in the key range, and the result says so.

The rows counted and their reads are raw DynamoDB responses and keys; the cursor of an incomplete count is
the last evaluated key, signed and bound to the counting request itself (:func:`request_scope`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from singletable.mcp._door import BudgetSpent, Door
from singletable.mcp._raw import Placeholders, request_scope
from singletable.model import Query, cursor


@dataclass(frozen=True, slots=True)
class CountRequest:
    """The counting request of one query: ``typed`` is False when it cannot filter by entity type."""

    operation: str
    params: dict[str, Any]
    typed: bool


def count_request(query: Query, table_name: str) -> CountRequest:
    """``query``'s request, asking for a count of its entities' items."""
    operation, params = query.request(table_name)
    params = {**params, "Select": "COUNT"}
    params.pop("ProjectionExpression", None)
    table, index = query.table, query.index
    type_attribute = table.type_attribute
    if index is not None and type_attribute in index.pk_attributes:
        return CountRequest(operation, params, True)  # one partition holds one type
    if type_attribute in table.key_attributes(index):
        return CountRequest(operation, params, False)  # a filter cannot name a key attribute
    typed = index is None or index.projects([type_attribute], table)
    if typed and operation == "Query":  # a Scan pattern's request filters by type already
        marks = Placeholders(prefix="st")
        types = [marks.value({"S": meta.type}) for meta in query.entities]
        by_type = f"{marks.name(type_attribute)} IN ({', '.join(types)})"
        existing = params.get("FilterExpression")
        params["FilterExpression"] = f"({existing}) AND ({by_type})" if existing else by_type
        params = marks.into(
            {
                **params,
                "ExpressionAttributeNames": dict(params.get("ExpressionAttributeNames", {})),
                "ExpressionAttributeValues": dict(params.get("ExpressionAttributeValues", {})),
            }
        )
    return CountRequest(operation, params, typed)


async def count_items(door: Door, query: Query, secret: bytes, start_cursor: str | None) -> dict[str, Any]:
    """The count of ``query``'s entities from ``start_cursor`` on, as the ``count`` tool answers it."""
    request = count_request(query, door.table_name)
    scope = request_scope("count", request.operation, request.params)
    start = cursor.decode(secret, scope, start_cursor) if start_cursor else None
    total = scanned = 0
    stopped = False
    while True:
        params = dict(request.params)
        if start:
            params["ExclusiveStartKey"] = start
        try:
            response = await door.request(request.operation, params)
        except BudgetSpent:
            stopped = True
            break
        total += int(response.get("Count", 0))
        scanned += int(response.get("ScannedCount", 0))
        start = response.get("LastEvaluatedKey")
        if not start:
            break
    spent, _ = door.ledger.spent()
    answer: dict[str, Any] = {
        "count": total,
        "complete": not stopped,
        "cursor": cursor.encode(secret, scope, start) if stopped and start else None,
        "scanned_count": scanned,
        "capacity_units": spent,
        "note": None,
    }
    if stopped:
        answer["note"] = (
            f"stopped when this call's read budget ({door.ledger.budget:g} RCU) was spent: `count` is "
            "partial; call count again with `cursor` to count on"
        )
    elif not request.typed:
        answer["note"] = (
            "the type attribute cannot be filtered on here (not projected, or a key attribute): counted "
            "every item in the key range, whatever its entity"
        )
    return answer
