"""UpdateTable's ``VectorIndexUpdates``: adding a vector index to a table (filled from the items it already
holds) or deleting one, and keeping the table on-demand while it has any.

A new index is checked as CreateTable checks one (on-demand table, name unused by any index, at most five,
dimensions agreeing with other indexes on the same attribute, SearchSchema attributes defined) and filled in
the same SQLite transaction that records it: every item with a valid vector (and HASH value, when the
index has one) gets its entry, and items the index cannot hold are left out, as AWS's backfill leaves them.
The index is therefore searchable as soon as UpdateTable answers; the response shows it ``CREATING`` with
``Backfilling``, as AWS's does, and DescribeTable shows it ``ACTIVE`` from then on. A deleted index goes
at once with its entries; the response lists it ``DELETING``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from singletable.engine import _attribute_values as codec
from singletable.engine._errors import DynamoDBError, not_found, validation
from singletable.engine._interfaces import OperationEngine
from singletable.engine._schema import TableSchema
from singletable.engine._storage import TABLE_START
from singletable.engine._vector_definitions import (
    check_billing,
    check_count,
    check_dimensions_agree,
    require_numpy,
    stored_vector_index,
)
from singletable.engine._vector_entries import vector_entry

ONE_INDEX = (
    "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table"
)
_CHUNK = 1000


class VectorUpdates(NamedTuple):
    """What ``VectorIndexUpdates`` did: the created index's name, the deleted index's stored definition."""

    created: str | None
    deleted: dict[str, Any] | None


def apply_vector_updates(
    params: dict[str, Any], description: dict[str, Any], types: dict[str, str], engine: OperationEngine
) -> VectorUpdates:
    """Apply ``VectorIndexUpdates`` to ``description`` (inside UpdateTable's write transaction)."""
    updates = params.get("VectorIndexUpdates")
    pay_per_request = description.get("_BillingMode") == "PAY_PER_REQUEST"
    if not updates:
        if description.get("VectorIndexes"):
            check_billing(pay_per_request)
        return VectorUpdates(None, None)
    actions = [
        (kind, update[kind]) for update in updates for kind in ("Create", "Delete") if update.get(kind)
    ]
    if len(actions) != 1:
        if not actions:
            raise validation("VectorIndexUpdate must contain exactly one of Create or Delete")
        raise DynamoDBError("LimitExceededException", ONE_INDEX)
    kind, action = actions[0]
    vectors: list[dict[str, Any]] = description.setdefault("VectorIndexes", [])
    name = action["IndexName"]
    existing = next((index for index in vectors if index["IndexName"] == name), None)
    if kind == "Delete":
        if existing is None:
            raise not_found(f"Requested resource not found: Index: {name} not found")
        vectors.remove(existing)
        if not vectors:
            del description["VectorIndexes"]
        engine.storage.drop_vector_index(
            engine.table(description["TableName"]).table_id, existing["_IndexId"]
        )
        return VectorUpdates(None, existing)
    check_billing(pay_per_request)
    other_names = {
        index["IndexName"]
        for kind_name in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes")
        for index in description.get(kind_name, ())
    }
    if existing is not None or name in other_names:
        raise validation("Attempting to create an index which already exists")
    check_count(len(vectors) + 1)
    definitions = [{"AttributeName": n, "AttributeType": t} for n, t in types.items()]
    index_id = description.get("_NextIndexId", 1)
    stored = stored_vector_index(action, definitions, index_id)
    check_dimensions_agree([*vectors, stored])
    require_numpy()
    description["_NextIndexId"] = index_id + 1
    stored["_Backfilled"] = True  # added to a live table: DescribeTable shows its Backfilling (false)
    vectors.append(stored)
    return VectorUpdates(name, None)


def backfill(engine: OperationEngine, schema: TableSchema, index_name: str) -> None:
    """Give every item of the table its entry in the new index (inside the write transaction that made it)."""
    vindex = schema.vector_indexes[index_name]
    storage = engine.storage
    after = TABLE_START
    while True:
        chunk = storage.table_chunk(schema.table_id, after, _CHUNK)
        for scanned in chunk:
            entry = vector_entry(schema, vindex, codec.loads_item(scanned.data))
            if entry is not None:
                storage.put_vector_entry(schema.table_id, vindex.index_id, scanned.pk, scanned.sk, entry)
        if len(chunk) < _CHUNK:
            break
        after = chunk[-1].position


def used_by_vector_indexes(description: dict[str, Any]) -> list[str]:
    """The attribute names the table's SearchSchemas use (kept in AttributeDefinitions)."""
    return [
        element["AttributeName"]
        for index in description.get("VectorIndexes", ())
        for element in index.get("SearchSchema", ())
    ]
