"""BatchWriteItem: up to 25 PutRequest/DeleteRequest across tables, in one SQLite transaction.

Each request is prepared by PutItem's or DeleteItem's own code (:mod:`item_writes`: same validation errors),
duplicates are rejected before anything is written, and the whole batch commits at once, so a crash never
leaves half a batch. Every write succeeds or the batch fails, so UnprocessedItems is always ``{}`` -- except
when another process holds the database's write lock past the busy timeout, when nothing is written and every
request comes back in UnprocessedItems for the caller to resend, as DynamoDB does under throttling.
"""

from __future__ import annotations

from typing import Any

from singletable.engine import _attribute_values as codec
from singletable.engine._capacity import Capacity
from singletable.engine._errors import DynamoDBError, validation
from singletable.engine._interfaces import OperationEngine
from singletable.engine._item_writes import prepare_delete, prepare_put
from singletable.engine._keys import KEY_SCHEMA_MISMATCH, KeyTypeMismatch
from singletable.engine._write_path import PreparedWrite, WriteRows, item_collection_metrics

MAX_REQUESTS = 25
TOO_MANY = "Too many items requested for the BatchWriteItem call"
DUPLICATES = "Provided list of item keys contains duplicates"
# DynamoDB's (odd) text for a WriteRequest with both or neither of PutRequest and DeleteRequest.
ONE_REQUEST = codec.MULTIPLE
NULL_REQUEST = "The batch write request list for a table cannot be null or empty"


class _Busy(Exception):
    pass


def prepare(engine: OperationEngine, request_items: dict[str, Any]) -> list[tuple[Capacity, PreparedWrite]]:
    if sum(len(requests or ()) for requests in request_items.values()) > MAX_REQUESTS:
        raise validation(TOO_MANY)
    writes: list[tuple[Capacity, PreparedWrite]] = []
    seen: set[tuple[int, bytes, bytes]] = set()
    for name, requests in request_items.items():
        capacity = Capacity(name)
        if requests is None:
            raise validation(f"{NULL_REQUEST}: {name}")
        if None in requests:
            raise validation(NULL_REQUEST)
        for request in requests:
            put = request.get("PutRequest")
            delete = request.get("DeleteRequest")
            if (put is None) == (delete is None):
                raise validation(ONE_REQUEST)
            if put is not None:
                try:
                    write = prepare_put(engine, {"TableName": name, "Item": put["Item"]})
                except KeyTypeMismatch as error:
                    if not error.table_key:
                        raise
                    # AWS words a put item's wrong-typed table key as a Key's here, not as PutItem does.
                    raise validation(KEY_SCHEMA_MISMATCH) from None
            else:
                write = prepare_delete(engine, {"TableName": name, "Key": delete["Key"]})
            if write.identity in seen:
                raise validation(DUPLICATES)
            seen.add(write.identity)
            writes.append((capacity, write))
    return writes


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    request_items = params["RequestItems"]
    writes = prepare(engine, request_items)
    storage = engine.storage
    want_metrics = params.get("ReturnItemCollectionMetrics") == "SIZE"
    metrics: dict[str, list[dict[str, Any]]] = {}
    try:
        with storage.write(_busy):
            # The writes are of distinct items, so each reads its old item unaffected by the others and
            # all their rows go to SQLite together: one executemany per statement instead of a statement
            # per row.
            rows = WriteRows()
            for capacity, write in writes:
                write.apply(storage, capacity, rows)
            rows.flush(storage)
            if want_metrics:
                for _, write in writes:
                    found = item_collection_metrics(storage, write.schema, write.pk, write.key, "SIZE")
                    if found is not None:
                        metrics.setdefault(write.schema.name, []).append(found)
    except _Busy:
        return {"UnprocessedItems": request_items}
    response: dict[str, Any] = {"UnprocessedItems": {}}
    mode = params.get("ReturnConsumedCapacity")
    if mode is not None and mode != "NONE":
        capacities = list({id(capacity): capacity for capacity, _ in writes}.values())
        response["ConsumedCapacity"] = [capacity.render(mode) for capacity in capacities]
    if metrics:
        response["ItemCollectionMetrics"] = metrics
    return response


def _busy() -> DynamoDBError:
    raise _Busy
