"""The write path: every change to an item goes through here, from request keys to stored rows.

Item writes happen in two steps: *prepare* a request (validate it, compile its expressions; see
:mod:`item_writes`), then *apply* it inside a storage transaction. PutItem, UpdateItem, DeleteItem,
BatchWriteItem and TransactWriteItems must answer identically for the same item, so there is one copy of each
step: a request becomes a :class:`PreparedWrite`, and everything that happens once the stored item is known
(the condition, the new item and the checks that need it, the write with its index entries) lives here. A
batch or a transaction is a list of prepared writes applied inside one SQLite transaction, so every change
keeps an item, its index entries and its stream record in one transaction, with one capacity rule. The TTL
sweeper and the index backfill use the same :func:`write_item` and :func:`index_entry`.

This module holds: finding a request's keys (:func:`key_from_request`, :func:`key_from_item`), index keys and
entries, :class:`PreparedWrite` (built by :func:`prepared_write`), :func:`write_item` with its row collector
:class:`WriteRows`, :func:`conflict_error`, :func:`run_single` (a single-item write, start to answer) and the
return values (ReturnValues, ItemCollectionMetrics, the condition failure).

What is checked when: everything that depends only on the request fails in ``prepare`` (so a transaction
rejects it with a plain ValidationException before touching anything); what depends on the stored item
(updating a key attribute, an update that makes the item too large or gives an index key a bad value, an
update expression whose path does not fit the item) fails in :meth:`PreparedWrite.evaluate`, after the
condition, which is where DynamoDB reports it -- inside a transaction, as a ``ValidationError``
cancellation reason.

Lock contention: SQLite has one writer at a time. A writer that cannot take the database's write lock
within ``Storage.busy_timeout`` (another process holding a long write) gets the error DynamoDB gives a
write that collides with an in-flight transaction: see :func:`conflict_error` and docs/compatibility.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from singletable.engine import _attribute_values as codec
from singletable.engine import _stream_records as stream_records
from singletable.engine._capacity import Capacity, same_entry, write_units
from singletable.engine._errors import DynamoDBError, validation
from singletable.engine._interfaces import OperationEngine
from singletable.engine._keys import checked_key_bytes, index_key_bytes
from singletable.engine._schema import IndexSchema, TableSchema
from singletable.engine._storage import EntryKey, EntryRow, ItemKey, ItemRow, Storage, new_row
from singletable.engine._vector_entries import billed_size, check_vector_values, write_vector_entries

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

INVALID_RETURN_VALUES = "Return values set to invalid value"
# How an SS, NS or BS value starts in a stored item's JSON (compact orjson; a string's own quotes are
# escaped, so no string or binary content can hold this): the cheap test for "this item holds a set".
_SET_IN_JSON = b'S":['

UPDATE_INDEX_KEY_EMPTY = (
    "One or more parameter values are not valid. The update expression attempted to update a secondary "
    "index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an "
    "empty {kind} value."
)


class EmptyIndexKeyUpdate(DynamoDBError):
    """An update that would set a secondary index key to an empty string or binary: AWS finds it up front,
    so in a transaction it fails the whole request rather than becoming a cancellation reason."""

    def __init__(self, key_type: str) -> None:
        kind = "string" if key_type == "S" else "binary"
        super().__init__("ValidationException", UPDATE_INDEX_KEY_EMPTY.format(kind=kind))


# Where a key value came from, for its error messages (module constants: an item write looks them up).
_ITEM, _KEY, _INDEX = codec.KeyContext.ITEM, codec.KeyContext.KEY, codec.KeyContext.INDEX


def key_from_request(schema: TableSchema, key: Any) -> tuple[bytes, bytes]:
    """Encode a request's ``Key`` (GetItem, UpdateItem, DeleteItem): exactly the table's key attributes."""
    if not isinstance(key, dict) or len(key) != len(schema.key_names):
        raise validation(codec.KEY_SCHEMA_MISMATCH)
    # The fused pass for its fast paths (a key is one or two plain values); the size it adds is not needed.
    key = codec.validate_item_sized(key, context=codec.ValueContext.KEY)[0]
    return _key_bytes(schema, key, _KEY, codec.KEY_SCHEMA_MISMATCH)


def key_from_item(schema: TableSchema, item: dict[str, Any]) -> tuple[bytes, bytes]:
    """Encode the key of a whole, already validated item (PutItem)."""
    return _key_bytes(schema, item, _ITEM, codec.MISSING_KEY)


def _key_bytes(
    schema: TableSchema, source: dict[str, Any], context: codec.KeyContext, missing: str
) -> tuple[bytes, bytes]:
    hash_attr = schema.hash
    hash_av = source.get(hash_attr.name)
    if hash_av is None:
        raise validation(missing)
    pk = checked_key_bytes(hash_attr.name, hash_av, hash_attr.type, True, context)
    range_attr = schema.range
    if range_attr is None:
        return pk, b""
    range_av = source.get(range_attr.name)
    if range_av is None:
        raise validation(missing)
    return pk, checked_key_bytes(range_attr.name, range_av, range_attr.type, False, context)


def check_index_keys(schema: TableSchema, item: dict[str, Any], *, from_update: bool = False) -> None:
    """An item's index key attributes, where present, must have the index's type, be non-empty and fit."""
    for check in schema.index_key_checks:
        av = item.get(check.name)
        if av is None:
            continue
        key_type = check.type
        if from_update and key_type != "N" and av.get(key_type) in ("", b""):
            raise EmptyIndexKeyUpdate(key_type)
        checked_key_bytes(check.name, av, key_type, check.is_hash, _INDEX, check.index_name)
    if schema.has_vector_indexes and not from_update:
        check_vector_values(schema, item)


# AWS's text when an update would store an attribute nested deeper than an item may be (a value accepted
# up front, one level deeper than an item allows, or a deep value SET through a path).
UPDATE_TOO_DEEP = "Nesting Levels have exceeded supported limits"


def _check_depth(names: Any, new: Item) -> None:
    for name in names:
        av = new.get(name)
        if av is None or len(av) != 1:
            continue
        inner = av.get("M", av.get("L"))
        if inner is not None and codec.value_depth(inner) > codec.MAX_CONTAINER_DEPTH:
            raise validation(UPDATE_TOO_DEEP)


def index_entry(schema: TableSchema, index: IndexSchema, item: dict[str, Any]) -> tuple[bytes, bytes] | None:
    """The (partition, sort) key bytes of the item in ``index``, or None if the item is not in it (sparse)."""
    if index.composite:
        return _composite_entry(index, item)
    hash_attr = index.hash
    hash_av = item.get(hash_attr.name)
    if hash_av is None:
        return None
    value = hash_av.get(hash_attr.type)
    if value is None:
        return None
    # A string key inline (the usual case; this runs for every index on every write).
    ipk = value.encode("utf-8") if hash_attr.type == "S" else codec.encode_key(hash_av, hash_attr.type)
    range_attr = index.range
    if range_attr is None:
        return ipk, b""
    range_av = item.get(range_attr.name)
    if range_av is None:
        return None
    value = range_av.get(range_attr.type)
    if value is None:
        return None
    if range_attr.type == "S":
        return ipk, value.encode("utf-8")
    return ipk, codec.encode_key(range_av, range_attr.type)


def _composite_entry(index: IndexSchema, item: dict[str, Any]) -> tuple[bytes, bytes] | None:
    """:func:`index_entry` for an index with multi-attribute keys: the item is in it only when every key
    attribute is there with its type."""
    keys: list[bytes] = []
    for attrs in (index.hash_keys, index.range_keys):
        parts = []
        for attr in attrs:
            av = item.get(attr.name)
            if av is None or av.get(attr.type) is None:
                return None
            parts.append(codec.encode_key(av, attr.type))
        keys.append(index_key_bytes(parts) if parts else b"")
    return keys[0], keys[1]


class WriteRows:
    """The item and index-entry rows of one or more item writes, for :meth:`Storage.write_rows`.

    A batch collects every write's rows and stores them with one ``executemany`` per statement; a single
    write stores its own at once. Writes sharing one collector must touch distinct items (BatchWriteItem
    rejects duplicates), so the order of their rows does not matter.
    """

    __slots__ = ("entries", "entry_deletes", "item_deletes", "items")

    def __init__(self) -> None:
        self.items: list[ItemRow] = []
        self.item_deletes: list[ItemKey] = []
        self.entries: list[EntryRow] = []
        self.entry_deletes: list[EntryKey] = []

    def flush(self, storage: Storage) -> None:
        storage.write_rows(self.items, self.item_deletes, self.entries, self.entry_deletes)
        self.items, self.item_deletes, self.entries, self.entry_deletes = [], [], [], []


def write_item(
    storage: Storage,
    schema: TableSchema,
    pk: bytes,
    sk: bytes,
    old: dict[str, Any] | None,
    old_size: int,
    new: dict[str, Any] | None,
    new_size: int,
    capacity: Capacity,
    *,
    ttl_delete: bool = False,
    rows: WriteRows | None = None,
) -> None:
    """Replace (or delete, when ``new`` is None) one item and every index entry; charge capacity.

    Must run inside ``storage.write()`` so the item, its index entries and its stream record commit
    together. ``ttl_delete`` marks a deletion by the TTL sweeper in the stream record. With ``rows`` the
    item's rows are only collected there, for the caller to flush before its transaction ends.
    """
    table_id = schema.table_id
    if schema.has_vector_indexes:
        # Vector entries first (they need the old and new items whole), then the item's own rows, billed
        # with each vector attribute at its name plus four bytes a dimension.
        write_vector_entries(storage, schema, pk, sk, old, new, capacity)
        capacity.table -= write_units(max(old_size, new_size))
        capacity.table += write_units(
            max(billed_size(schema, old, old_size), billed_size(schema, new, new_size))
        )
    if "_StreamId" in schema.description:
        written = new if new is not None else old
        assert written is not None, "a write has an old item, a new one or both"
        stream_records.append(
            storage,
            schema.description,
            schema.key_of(written),
            old,
            new,
            ttl_delete=ttl_delete,
        )
    if rows is None and old is None and new is not None:
        _put_new_item(storage, schema, pk, sk, new, new_size, capacity)
        return
    out = WriteRows() if rows is None else rows
    has_sets = False
    stored = b""
    if new is None:
        out.item_deletes.append(new_row(ItemKey, (table_id, pk, sk)))
    else:
        stored = codec.dumps_item(new)
        has_sets = old is not None and _SET_IN_JSON in stored
        out.items.append(new_row(ItemRow, (table_id, pk, sk, stored, new_size)))
    capacity.table += write_units(old_size if old_size > new_size else new_size)
    for index in schema.indexes.values():
        units = _index_rows(out, schema, index, pk, sk, old, old_size, new, new_size, stored, has_sets)
        if units:
            capacity.add_index(index.name, index.is_global, units)
    if rows is None:
        out.flush(storage)


def _put_new_item(
    storage: Storage,
    schema: TableSchema,
    pk: bytes,
    sk: bytes,
    new: dict[str, Any],
    new_size: int,
    capacity: Capacity,
) -> None:
    """``write_item`` of an item where there was none (most PutItems), stored at once: there is no old
    item to read index entries from or compare against, so each index gets the new entry or nothing."""
    stored = codec.dumps_item(new)
    units = write_units(new_size)
    capacity.table += units
    table_id = schema.table_id
    entries: list[EntryRow] = []
    for index in schema.indexes.values():
        entry = index_entry(schema, index, new)
        if entry is None:
            continue
        ipk, isk = entry
        if index.projected is None:  # ALL: the entry is the item, bytes, size and units
            entries.append(new_row(EntryRow, (table_id, index.index_id, ipk, isk, pk, sk, new_size, stored)))
            capacity.add_index(index.name, index.is_global, units)
        else:
            size, data = _projected(schema, index, new)
            entries.append(new_row(EntryRow, (table_id, index.index_id, ipk, isk, pk, sk, size, data)))
            capacity.add_index(index.name, index.is_global, write_units(size))
    storage.put_item_rows(table_id, pk, sk, stored, new_size, entries)


def _projected(schema: TableSchema, index: IndexSchema, item: dict[str, Any]) -> tuple[int, bytes]:
    """The size and stored bytes of an item as an INCLUDE or KEYS_ONLY index holds it."""
    projected = schema.project_for_index(index, item)
    return codec.item_size(projected), codec.dumps_item(projected)


def _index_rows(
    out: WriteRows,
    schema: TableSchema,
    index: IndexSchema,
    pk: bytes,
    sk: bytes,
    old: dict[str, Any] | None,
    old_size: int,
    new: dict[str, Any] | None,
    new_size: int,
    stored: bytes,
    has_sets: bool,
) -> float:
    """Collect one index's entry rows for an item write; returns the write units the index consumed.

    An entry carries the item as the index projects it, so it is rewritten whenever that projection
    changes, keys or not (an ALL index stores the new item's bytes, ``stored``, as they are). ``has_sets``:
    whether the new item holds a set anywhere -- without one, an entry that differs from the old one as a
    dict holds different values, and the value-by-value comparison is skipped.
    """
    old_entry = index_entry(schema, index, old) if old is not None else None
    new_entry = index_entry(schema, index, new) if new is not None else None
    if old_entry is None and new_entry is None:
        return 0.0
    table_id = schema.table_id
    units = 0.0
    # An ALL-projection index stores the whole item: its size is already known, and a projection is only
    # computed where a size or a comparison needs it.
    whole = index.projected is None
    if old is not None and old_entry is not None and old_entry != new_entry:
        ipk, isk = old_entry
        out.entry_deletes.append(new_row(EntryKey, (table_id, index.index_id, ipk, isk, pk, sk)))
        units += write_units(old_size if whole else codec.item_size(schema.project_for_index(index, old)))
    if new is None or new_entry is None:
        return units
    if old is None or old_entry != new_entry:  # no old item: old_entry is None here
        size, data = (new_size, stored) if whole else _projected(schema, index, new)
        ipk, isk = new_entry
        out.entries.append(new_row(EntryRow, (table_id, index.index_id, ipk, isk, pk, sk, size, data)))
        return units + write_units(size)
    old_projected = schema.project_for_index(index, old)
    new_projected = schema.project_for_index(index, new)
    if old_projected != new_projected:
        if whole:
            size, data = new_size, stored
        else:
            size, data = codec.item_size(new_projected), codec.dumps_item(new_projected)
        ipk, isk = new_entry
        out.entries.append(new_row(EntryRow, (table_id, index.index_id, ipk, isk, pk, sk, size, data)))
        # The entry is rewritten as given; DynamoDB charges nothing when it holds the same values.
        if not (has_sets and same_entry(old_projected, new_projected)):
            units += write_units(max(size, old_size if whole else codec.item_size(old_projected)))
    return units


def check_return_values(value: Any, allowed: tuple[str, ...]) -> str:
    if value is None:
        return "NONE"
    if value not in allowed:
        raise validation(INVALID_RETURN_VALUES)
    return value


def condition_failed(item: dict[str, Any] | None, return_on_failure: str | None) -> DynamoDBError:
    return DynamoDBError(
        "ConditionalCheckFailedException",
        "The conditional request failed",
        item=item if return_on_failure == "ALL_OLD" and item is not None else None,
    )


def check_item_size(size: int) -> None:
    if size > codec.MAX_ITEM_SIZE:
        raise validation(codec.ITEM_TOO_LARGE)


def item_collection_metrics(
    storage: Storage, schema: TableSchema, pk: bytes, key_item: dict[str, Any], mode: str | None
) -> dict[str, Any] | None:
    """ItemCollectionMetrics: only for tables with local secondary indexes, when asked for SIZE."""
    if mode != "SIZE" or not schema.has_lsi:
        return None
    lsi_ids = tuple(i.index_id for i in schema.indexes.values() if not i.is_global)
    gigabytes = storage.collection_size(schema.table_id, pk, lsi_ids) / (1024**3)
    low = float(int(gigabytes))
    return {
        "ItemCollectionKey": {schema.hash.name: key_item[schema.hash.name]},
        "SizeEstimateRangeGB": [low, low + 1.0],
    }


class PreparedWrite:
    """One validated write (or condition check) on one item, not yet applied; built by
    :func:`prepared_write`.

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
        "measure_written",
        "pk",
        "return_on_failure",
        "schema",
        "size",
        "sk",
        "update",
    )

    action: str
    schema: TableSchema
    pk: bytes
    sk: bytes
    key: Item
    item: Item | None
    size: int
    update: Any
    measure_written: bool
    condition: Callable[[Item | None], bool] | None
    return_on_failure: str | None

    @property
    def identity(self) -> tuple[int, bytes, bytes]:
        """Which stored item this write touches (two writes with one identity are the same item)."""
        return self.schema.table_id, self.pk, self.sk

    def load(self, storage: Storage) -> tuple[Item | None, int]:
        """The stored item and its size, or (None, 0)."""
        stored = storage.get_item(self.schema.table_id, self.pk, self.sk)
        if stored is None:
            return None, 0
        data, size = stored
        return codec.loads_item(data), size

    def passes(self, old: Item | None) -> bool:
        return self.condition is None or self.condition(old)

    def failure(self, old: Item | None) -> DynamoDBError:
        return condition_failed(old, self.return_on_failure)

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
        if old is None and update is not None and update.creates_nothing:
            return None, 0  # only REMOVE/DELETE on a missing item: nothing to change, no item created
        base = old if old is not None else dict(self.key)
        new = update.apply(base) if update is not None else base
        if update is not None:
            _check_depth(update.top_level_names, new)
        check_index_keys(self.schema, new, from_update=True)
        if self.schema.vector_indexes:
            check_vector_values(self.schema, new, old if old is not None else {})
        new_size = codec.item_size(new)
        if new_size > codec.MAX_ITEM_SIZE:
            raise validation(UPDATE_TOO_LARGE)
        if self.measure_written and update is not None:
            self._check_written(update, new)
        return new, new_size

    def _check_written(self, update: Any, new: Item) -> None:
        """Standalone UpdateItem also measures what its UpdateExpression writes, with a fixed cost per
        action (see ``CompiledUpdate.write_cost``): at a short key that refuses a finished item a little under
        the limit. Transactions, PartiQL and legacy AttributeUpdates measure the finished item only."""
        cost = getattr(update, "write_cost", None)
        if cost is None:
            return
        written = {name: new[name] for name in update.written_names if name in new}
        if codec.item_size(written) + cost > codec.MAX_ITEM_SIZE:
            raise validation(UPDATE_TOO_LARGE)

    def store(
        self,
        storage: Storage,
        old: Item | None,
        old_size: int,
        new: Item | None,
        new_size: int,
        capacity: Capacity,
        rows: WriteRows | None = None,
    ) -> None:
        """Write the evaluated item; a condition check writes nothing and a delete of nothing costs 1 unit.

        With ``rows``, the item's rows are collected there for the caller to flush (see ``write_item``).
        """
        if self.action == CHECK:
            return
        if new is None and old is None:
            capacity.table += 1.0
            return
        write_item(storage, self.schema, self.pk, self.sk, old, old_size, new, new_size, capacity, rows=rows)

    def apply(
        self, storage: Storage, capacity: Capacity, rows: WriteRows | None = None
    ) -> tuple[Item | None, Item | None]:
        """The whole single-item write (inside ``storage.write()``): returns (old item, new item)."""
        old, old_size = self.load(storage)
        if not self.passes(old):
            raise self.failure(old)
        new, new_size = self.evaluate(old, old_size)
        self.store(storage, old, old_size, new, new_size, capacity, rows)
        return old, new


def prepared_write(
    *,
    action: str,
    schema: TableSchema,
    pk: bytes,
    sk: bytes,
    key: Item,
    item: Item | None = None,
    size: int = 0,
    update: Any = None,
    condition: Callable[[Item | None], bool] | None = None,
    return_on_failure: str | None = None,
) -> PreparedWrite:
    """A :class:`PreparedWrite`, every part named. A function rather than the class's ``__init__``: a class
    called by keyword gathers its arguments into a dict first (~3,400 instructions on every item write),
    a function called by keyword does not. (PutItem's prepare step sets the fields itself: see there.)"""
    write = PreparedWrite()  # no __init__: object's, the cheapest way to an empty instance
    write.action = action
    write.schema = schema
    write.pk = pk
    write.sk = sk
    write.key = key
    write.item = item
    write.size = size
    write.update = update
    write.condition = condition
    write.return_on_failure = return_on_failure
    write.measure_written = False
    return write


def conflict_error() -> DynamoDBError:
    """What an item write raises when it cannot get the write lock: ``storage.write(conflict_error)``.

    Another connection (another process) holding the write lock past the busy timeout is the one way two
    clients of this engine can collide; DynamoDB's answer to a write colliding with an in-flight transaction
    is the closest match, and tells the caller the same thing: nothing was written, retry.
    """
    return DynamoDBError("TransactionConflictException", CONFLICT)


def run_single(
    engine: OperationEngine,
    write: PreparedWrite,
    params: dict[str, Any],
    returned: Callable[[Item | None, Item | None], Item | None] | None,
) -> dict[str, Any]:
    """PutItem/UpdateItem/DeleteItem: apply one prepared write in its own transaction and answer.

    ``returned(old, new)`` picks the request's ReturnValues (None: the request returns no attributes);
    ConsumedCapacity and ItemCollectionMetrics follow, in DynamoDB's order.
    """
    capacity = Capacity(write.schema.name)
    storage = engine.storage
    get = params.get
    metrics_mode = get("ReturnItemCollectionMetrics")
    metrics = None
    with storage.write(conflict_error):
        old, new = write.apply(storage, capacity)
        if metrics_mode is not None:
            metrics = item_collection_metrics(storage, write.schema, write.pk, write.key, metrics_mode)
    response: dict[str, Any] = {}
    if returned is not None:
        attributes = returned(old, new)
        if attributes:
            response["Attributes"] = attributes
    capacity_mode = get("ReturnConsumedCapacity")
    if capacity_mode is not None:
        consumed = capacity.render(capacity_mode)
        if consumed is not None:
            response["ConsumedCapacity"] = consumed
    if metrics is not None:
        response["ItemCollectionMetrics"] = metrics
    return response


def old_if_all_old(params: dict[str, Any]) -> Callable[[Item | None, Item | None], Item | None] | None:
    """PutItem's and DeleteItem's ReturnValues: ALL_OLD, or nothing (None)."""
    return _the_old_item if params.get("ReturnValues") == "ALL_OLD" else None


def _the_old_item(old: Item | None, _new: Item | None) -> Item | None:
    return old
