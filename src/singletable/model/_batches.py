"""Batch reads and writes: BatchGetItem and BatchWriteItem, chunked to DynamoDB's limits and retried.

``db.batch_get`` asks for 100 keys per request and ``db.batch_write`` sends 25 puts or deletes per request;
whatever DynamoDB leaves unprocessed is sent again with exponential backoff, up to :data:`MAX_ATTEMPTS`.
Batch writes are not atomic, so entities with uniqueness guards or derived items (which must change together
with their owner) are refused and pointed to ``db.put``/``db.create`` or a transaction. Both are steps
(:mod:`singletable.model._steps`): requests and backoff sleeps are yielded to the DB's driver.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from singletable.model._entity import Entity
from singletable.model._entity_meta import KeyRef
from singletable.model._errors import ModelError, RequestError
from singletable.model._field_values import AV
from singletable.model._read_items import BAD_ITEM, stored_item_error
from singletable.model._steps import Request, Sleep, Steps
from singletable.model._write_keys import frozen_key
from singletable.model._write_target import WriteTarget
from singletable.model._write_values import stamp

MAX_ATTEMPTS = 8


def _chunks(items: list[Any], size: int) -> Iterable[list[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _backoff(attempt: int) -> Sleep:
    """How long to wait before sending what is unprocessed again, or the error once it is hopeless."""
    if attempt >= MAX_ATTEMPTS:
        raise RequestError(
            "ProvisionedThroughputExceededException", f"items still unprocessed after {MAX_ATTEMPTS} attempts"
        )
    return Sleep(min(0.025 * 2**attempt, 1.0))


def batch_get(
    table_name: str, targets: list[Any], *, consistent: bool = False, raw: bool = False
) -> Steps[list[Any]]:
    """The entities (or, with ``raw``, the stored items) at these keys, in the order asked; missing ones
    are left out."""
    wanted: list[tuple[Any, dict[str, Any]]] = []
    for target in targets:
        if raw:
            wanted.append((None, target))
        elif isinstance(target, KeyRef):
            wanted.append((target.meta, target.item_key()))
        else:
            meta = type(target).model_entity()
            wanted.append((meta, meta.primary_key(target.__dict__)))
    unique = list({frozen_key(k): k for _, k in wanted}.values())
    found: dict[tuple[Any, ...], dict[str, Any]] = {}
    for chunk in _chunks(unique, 100):
        request: dict[str, Any] = {table_name: {"Keys": chunk}}
        if consistent:
            request[table_name]["ConsistentRead"] = True
        attempt = 0
        while request:
            response = yield Request("BatchGetItem", {"RequestItems": request})
            for item in response.get("Responses", {}).get(table_name, []):
                found[frozen_key({k: item[k] for k in chunk[0]})] = item
            request = response.get("UnprocessedKeys") or {}
            if request:
                yield _backoff(attempt)
                attempt += 1
    out = []
    for meta, key in wanted:
        item = found.get(frozen_key(key))
        if item is not None:
            out.append(item if meta is None else _entity(meta, item, table_name))
    return out


def batch_write(dest: WriteTarget, puts: list[Entity], deletes: list[Any]) -> Steps[None]:
    """Put and delete entities, 25 per request, retrying what DynamoDB leaves unprocessed."""
    requests: list[dict[str, Any]] = []
    for entity in puts:
        meta = type(entity).model_entity()
        if meta.unique or meta.derived:
            raise ModelError(
                f"{meta.type} has unique fields or derived items, which need transactions: "
                "use db.put/db.create (or db.transaction()) instead of batch_write"
            )
        values = meta.values(entity)
        stamp(
            meta, values, dest.clock(), creating=values.get(meta.created) is None if meta.created else False
        )
        if meta.version and values.get(meta.version) is None:
            values[meta.version] = 1
        requests.append({"PutRequest": {"Item": meta.to_item(values)}})
    for target in deletes:
        if isinstance(target, Entity):
            target = target.key()
        if target.meta.unique or target.meta.derived:
            raise ModelError(f"{target.meta.type} has unique fields or derived items: use db.delete instead")
        requests.append({"DeleteRequest": {"Key": target.item_key()}})
    for chunk in _chunks(requests, 25):
        pending: dict[str, Any] = {dest.table_name: chunk}
        attempt = 0
        while pending:
            response = yield Request("BatchWriteItem", {"RequestItems": pending})
            pending = response.get("UnprocessedItems") or {}
            if pending:
                yield _backoff(attempt)
                attempt += 1


def _entity(meta: Any, item: dict[str, AV], table_name: str) -> Any:
    """The entity of one found item; :class:`StoredItemError` if the item does not fit it."""
    try:
        return meta.from_item(item)
    except BAD_ITEM as error:
        raise stored_item_error(meta, item, table_name, error) from None
