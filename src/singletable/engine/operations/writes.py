"""Item writes in two steps: *prepare* a request (validate it, compile its expressions), then *apply* it
inside a storage transaction.

PutItem, UpdateItem, DeleteItem, BatchWriteItem and TransactWriteItems must answer identically for the same
item, so there is one copy of each step: the single-item modules' ``prepare(engine, params)`` functions turn
a request into a :class:`PreparedWrite`, and everything that happens once the stored item is known (the
condition, the new item and the checks that need it, the write with its index entries) lives here. A batch
or a transaction is a list of prepared writes applied inside one SQLite transaction.

What is checked when: everything that depends only on the request fails in ``prepare`` (so a transaction
rejects it with a plain ValidationException before touching anything); what depends on the stored item
(updating a key attribute, an update that makes the item too large or gives an index key a bad value, an
update expression whose path does not fit the item) fails in :meth:`PreparedWrite.evaluate`, after the
condition, which is where DynamoDB reports it -- inside a transaction, as a ``ValidationError``
cancellation reason.

Lock contention: SQLite has one writer at a time. A writer that cannot take the database's write lock
within ``Storage.busy_timeout`` (another process holding a long write) gets the error DynamoDB gives a
write that collides with an in-flight transaction: see :func:`locked_write` and docs/compatibility.md.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from singletable.engine import codec
from singletable.engine.capacity import Capacity
from singletable.engine.errors import DynamoDBError, validation
from singletable.engine.operations import common
from singletable.engine.schema import TableSchema
from singletable.engine.storage import is_busy

PUT = "Put"
UPDATE = "Update"
DELETE = "Delete"
CHECK = "ConditionCheck"

UPDATE_TOO_LARGE = "Item size to update has exceeded the maximum allowed size"
KEY_ATTRIBUTE_UPDATE = (
    "One or more parameter values were invalid: Cannot update attribute {name}. "
    "This attribute is part of the key"
)
CONFLICT = "Transaction is ongoing for the item"

Item = dict[str, Any]


class PreparedWrite:
    """One validated write (or condition check) on one item, not yet applied.

    ``key`` is the item's key attributes (for UpdateItem's new item and ItemCollectionMetrics); ``item`` and
    ``size`` are PutItem's whole item; ``update`` is anything with ``apply(item)`` and ``top_level_names``
    (a compiled UpdateExpression today, legacy AttributeUpdates tomorrow); ``condition`` any
    ``item -> bool`` (None: unconditional).
    """

    __slots__ = (
        "action",
        "condition",
        "item",
        "key",
        "pk",
        "return_on_failure",
        "schema",
        "size",
        "sk",
        "update",
    )

    def __init__(
        self,
        action: str,
        schema: TableSchema,
        pk: bytes,
        sk: bytes,
        key: Item,
        *,
        item: Item | None = None,
        size: int = 0,
        update: Any = None,
        condition: Callable[[Item | None], bool] | None = None,
        return_on_failure: str | None = None,
    ) -> None:
        self.action = action
        self.schema = schema
        self.pk = pk
        self.sk = sk
        self.key = key
        self.item = item
        self.size = size
        self.update = update
        self.condition = condition
        self.return_on_failure = return_on_failure

    @property
    def identity(self) -> tuple[int, bytes, bytes]:
        """Which stored item this write touches (two writes with one identity are the same item)."""
        return self.schema.table_id, self.pk, self.sk

    def load(self, storage: Any) -> tuple[Item | None, int]:
        found = common.load_item(storage, self.schema, self.pk, self.sk)
        return found if found is not None else (None, 0)

    def passes(self, old: Item | None) -> bool:
        return self.condition is None or self.condition(old)

    def failure(self, old: Item | None) -> DynamoDBError:
        return common.condition_failed(old, self.return_on_failure)

    def evaluate(self, old: Item | None, old_size: int) -> tuple[Item | None, int]:
        """The item after this write (None: absent), with the checks that need the stored item."""
        action = self.action
        if action == PUT:
            return self.item, self.size
        if action == DELETE:
            return None, 0
        if action == CHECK:
            return old, old_size
        update = self.update
        if update is not None:
            for name in self.schema.key_names:
                if name in update.top_level_names:
                    raise validation(KEY_ATTRIBUTE_UPDATE.format(name=name))
        base = old if old is not None else dict(self.key)
        new = update.apply(base) if update is not None else base
        common.check_index_keys(self.schema, new, from_update=True)
        new_size = codec.item_size(new)
        if new_size > codec.MAX_ITEM_SIZE:
            raise validation(UPDATE_TOO_LARGE)
        return new, new_size

    def store(
        self,
        storage: Any,
        old: Item | None,
        old_size: int,
        new: Item | None,
        new_size: int,
        capacity: Capacity,
        rows: common.WriteRows | None = None,
    ) -> None:
        """Write the evaluated item; a condition check writes nothing and a delete of nothing costs 1 unit.

        With ``rows``, the item's rows are collected there for the caller to flush (see ``write_item``).
        """
        if self.action == CHECK:
            return
        if new is None and old is None:
            capacity.table += 1.0
            return
        common.write_item(
            storage, self.schema, self.pk, self.sk, old, old_size, new, new_size, capacity, rows=rows
        )

    def apply(
        self, storage: Any, capacity: Capacity, rows: common.WriteRows | None = None
    ) -> tuple[Item | None, Item | None]:
        """The whole single-item write (inside ``storage.write()``): returns (old item, new item)."""
        old, old_size = self.load(storage)
        if not self.passes(old):
            raise self.failure(old)
        new, new_size = self.evaluate(old, old_size)
        self.store(storage, old, old_size, new, new_size, capacity, rows)
        return old, new


def conflict_error() -> DynamoDBError:
    return DynamoDBError("TransactionConflictException", CONFLICT)


class _LockedWrite:
    """The context manager :func:`locked_write` returns (a class: it runs on every write request)."""

    __slots__ = ("busy", "transaction")

    def __init__(self, transaction: Any, busy: Callable[[], DynamoDBError]) -> None:
        self.transaction = transaction
        self.busy = busy

    def __enter__(self) -> None:
        try:
            self.transaction.__enter__()
        except sqlite3.OperationalError as error:
            if is_busy(error):
                raise self.busy() from None
            raise

    def __exit__(self, exc_type: type[BaseException] | None, exc: object, traceback: object) -> None:
        self.transaction.__exit__(exc_type, exc, traceback)


def locked_write(storage: Any, busy: Callable[[], DynamoDBError] = conflict_error) -> _LockedWrite:
    """``storage.write()``, except that failing to get the write lock raises ``busy()``.

    Another connection (another process) holding the write lock past the busy timeout is the one way two
    clients of this engine can collide; DynamoDB's answer to a write colliding with an in-flight transaction
    is the closest match, and tells the caller the same thing: nothing was written, retry.
    """
    return _LockedWrite(storage.write(), busy)


def run_single(
    engine: Any,
    write: PreparedWrite,
    params: dict[str, Any],
    returned: Callable[[Item | None, Item | None], Item | None],
) -> dict[str, Any]:
    """PutItem/UpdateItem/DeleteItem: apply one prepared write in its own transaction and answer.

    ``returned(old, new)`` picks the request's ReturnValues; ConsumedCapacity and ItemCollectionMetrics
    follow, in DynamoDB's order.
    """
    capacity = Capacity(write.schema.name)
    storage = engine.storage
    with locked_write(storage):
        old, new = write.apply(storage, capacity)
        metrics = common.item_collection_metrics(
            storage, write.schema, write.pk, write.key, params.get("ReturnItemCollectionMetrics")
        )
    response: dict[str, Any] = {}
    attributes = returned(old, new)
    if attributes:
        response["Attributes"] = attributes
    consumed = capacity.render(params.get("ReturnConsumedCapacity"))
    if consumed is not None:
        response["ConsumedCapacity"] = consumed
    if metrics is not None:
        response["ItemCollectionMetrics"] = metrics
    return response


def old_if_all_old(params: dict[str, Any]) -> Callable[[Item | None, Item | None], Item | None]:
    """PutItem's and DeleteItem's ReturnValues: ALL_OLD or nothing."""
    wanted = params.get("ReturnValues") == "ALL_OLD"
    return lambda old, _new: old if wanted else None
