"""What ``DB`` and ``AsyncDB`` share: one table's handle, every operation written once as steps.

Each public operation of a DB -- the control plane, reads, writes with their retries, batches, pages -- is a
generator of requests here (:mod:`singletable.model._steps`). :class:`~singletable.model.DB` drives them with
the adapter's synchronous ``call``; :class:`~singletable.model.AsyncDB` awaits an async adapter's. Nothing
between the requests differs: planning, validation, key templates, expressions, error mapping, paging and
cursors are the same code whichever drives them.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from singletable.model import cursor as cursors
from singletable.model._batches import batch_get, batch_write
from singletable.model._bounds import bound_refusal
from singletable.model._entity import Entity
from singletable.model._entity_meta import EntityMeta, KeyRef, refuse_unknown
from singletable.model._errors import ConditionFailed, NotFound, RequestError, RequestRefused, UnknownArgument
from singletable.model._expr import Action, Cond
from singletable.model._field_values import AV
from singletable.model._pager import Page, Pager, collect_steps, page_steps, start_of
from singletable.model._patterns import Grouped, Query
from singletable.model._read_items import BAD_ITEM, checked_on_bad_item, stored_item_error
from singletable.model._search import similar_steps
from singletable.model._similar import Scored
from singletable.model._steps import Request, Sleep, Steps
from singletable.model._table import Table
from singletable.model._trace import Trace
from singletable.model._upgrades import rewritten, write_back_params
from singletable.model._window import HandleSteps, checked_window
from singletable.model._window import install as install_window
from singletable.model._write_keys import guard_key
from singletable.model._write_plans import plan_create, plan_delete, plan_put, plan_update
from singletable.model._write_requests import changed_since_read, stored_after_failure
from singletable.model._write_runner import send
from singletable.model._write_target import WriteTarget
from singletable.model._write_values import utc_now

# An upsert whose createdAt guess was wrong retries with the stored value; more attempts only happen while
# other writers keep deleting and re-creating the item.
PUT_ATTEMPTS = 4
# A partial update planned from a read of the fields its keys need is tried again this often when a
# concurrent writer changes them in between (each attempt is conditioned on what it read).
UPDATE_ATTEMPTS = 8
# DynamoDB's table names: 3 to 255 characters of these.
TABLE_NAME = re.compile(r"[a-zA-Z0-9_.-]{3,255}")
DB_CLOSED = "this DB was closed (db.close()); connect() again to use the table"
# How long create_table waits for the table to become ACTIVE, and how often it asks.
ACTIVE_TIMEOUT = 60.0
ACTIVE_POLL = 0.2


class TableHandle:
    """One table's data as entities, as steps; subclasses say how a request is sent (``_drive``)."""

    # The call a closed handle gets (it raises DBClosed); set by the subclass.
    _closed_call: Any = None

    def __init__(
        self,
        table: Table,
        adapter: Any,
        *,
        name: str | None = None,
        cursor_secret: bytes | str | None = None,
        clock: Callable[[], datetime] | None = None,
        write_back_upgrades: bool = False,
        migrating: Mapping[Any, Any] | None = None,
    ) -> None:
        self.table = table
        self.adapter = adapter
        self.call = adapter.call
        self.table_name = checked_table_name(name or table.resolved_name())
        secret = cursor_secret or cursors.default_secret()
        self._secret = secret.encode() if isinstance(secret, str) else secret
        self.clock = clock or utc_now
        self._key_names = tuple(name for name in (table.pk_name, table.sk_name) if name)
        self._dest = WriteTarget(self.table_name, self.clock, self._key_names)
        if write_back_upgrades:
            self.call = self._writing_back(self.call)
        # The dual-write window of a re-keying (model/_window.py): installed only when one is open.
        self.window = checked_window(migrating)
        if self.window is not None:
            install_window(self, self.window, HandleSteps(self._drive, self._write_target, self._decoded))

    def _drive(self, steps: Steps[Any]) -> Any:
        """Run ``steps`` with this handle's call: the result (``DB``), or an awaitable of it (``AsyncDB``)."""
        raise NotImplementedError

    def _tracing(self, recording: Trace, call: Any) -> Any:
        """``call`` recording into ``recording``."""
        raise NotImplementedError

    def _writing_back(self, call: Any) -> Any:
        """``call``, storing upgraded the older items reads return (``write_back_upgrades=True``)."""
        raise NotImplementedError

    @contextmanager
    def trace(self, *, capacity: str = "TOTAL") -> Iterator[Trace]:
        """``with db.trace() as trace:`` records every request this DB sends in the block (from any thread
        or task), each with its ConsumedCapacity: ``trace.operations``, ``trace.capacity_units``,
        ``trace.requests``. Only traced requests ask for their capacity; outside a trace nothing is
        wrapped. ``capacity="INDEXES"`` asks for the table's and each index's share as well."""
        if capacity not in ("TOTAL", "INDEXES"):
            raise ValueError(f"db.trace(capacity=...) takes 'TOTAL' or 'INDEXES', not {capacity!r}")
        recording = Trace(capacity=capacity)
        untraced = self.call
        self.call = self._tracing(recording, untraced)
        try:
            yield recording
        finally:
            if self.call is not self._closed_call:
                self.call = untraced

    def _write_target(self) -> WriteTarget:
        """What planning a write needs of this table. Checked at each write, so a replaced ``clock`` (demos
        fix the time) is honoured."""
        dest = self._dest
        if dest.clock is not self.clock or dest.table_name != self.table_name:
            dest = self._dest = WriteTarget(self.table_name, self.clock, self._key_names)
        return dest

    # -- control plane ----------------------------------------------------------------------------------

    def _create_table(self) -> Steps[None]:
        yield Request("CreateTable", self.table.create_table_params(self.table_name))
        yield from self._wait_active()
        ttl_attribute = self.table.resolved_ttl_attribute()  # the table's, or its entities' ttl fields'
        if ttl_attribute and self.adapter.supports("UpdateTimeToLive"):
            specification = {"Enabled": True, "AttributeName": ttl_attribute}
            yield Request(
                "UpdateTimeToLive", {"TableName": self.table_name, "TimeToLiveSpecification": specification}
            )

    def _ensure_table(self) -> Steps[bool]:
        try:
            yield Request("DescribeTable", {"TableName": self.table_name})
            return False
        except RequestError as error:
            if error.code != "ResourceNotFoundException":
                raise
        try:
            yield from self._create_table()
        except RequestError as error:
            if error.code != "ResourceInUseException":
                raise
            return False
        return True

    def _delete_table(self) -> Steps[None]:
        yield Request("DeleteTable", {"TableName": self.table_name})

    def _wait_active(self) -> Steps[None]:
        deadline = time.monotonic() + ACTIVE_TIMEOUT
        while True:
            described = yield Request("DescribeTable", {"TableName": self.table_name})
            if described["Table"].get("TableStatus") == "ACTIVE" or time.monotonic() > deadline:
                return
            yield Sleep(ACTIVE_POLL)

    # -- single reads -----------------------------------------------------------------------------------

    def _get(self, target: Any, consistent: bool, key: dict[str, Any]) -> Steps[Any]:
        meta, params = self._get_request(target, consistent, key)
        return self._got(meta, (yield Request("GetItem", params)))

    # ``db.get`` is the hottest read and one request: its drivers call these two halves of :meth:`_get`
    # directly, sparing the step machinery (a generator and its StopIteration, ~4% of a get).

    def _get_request(self, target: Any, consistent: bool, key: dict[str, Any]) -> tuple[EntityMeta, Any]:
        """The entity type and the GetItem parameters of ``db.get``."""
        meta, item_key = _address(target, key)
        params: dict[str, Any] = {"TableName": self.table_name, "Key": item_key}
        if consistent:
            params["ConsistentRead"] = True
        return meta, params

    def _got(self, meta: EntityMeta, response: dict[str, Any]) -> Any:
        """The entity a GetItem response holds, or None."""
        item = response.get("Item")
        return None if item is None else self._decoded(meta, item)

    def _decoded(self, meta: EntityMeta, item: dict[str, AV]) -> Any:
        """The entity of an item a read or a write (ReturnValues) got back: one that does not fit its entity
        (written by another tool or older code) raises :class:`StoredItemError`, never a bare KeyError."""
        try:
            return meta.from_item(item)
        except BAD_ITEM as error:
            raise stored_item_error(meta, item, self.table_name, error) from None

    def _must_get(self, target: Any, consistent: bool, key: dict[str, Any]) -> Steps[Any]:
        found = yield from self._get(target, consistent, key)
        if found is None:
            meta, item_key = _address(target, key)
            raise NotFound(f"no {meta.type} at {item_key}")
        return found

    def _find(self, cls: type[Entity], unique: dict[str, Any]) -> Steps[Any]:
        meta = cls.model_entity()
        where = f"db.find({cls.__name__})"
        refuse_unknown(where, unique, {n: None for fields in meta.guard_fields.values() for n in fields})
        given = set(unique)
        names = [n for n, fields in meta.guard_fields.items() if set(fields) == given]
        if len(names) != 1:
            choices = [
                n if len(fields) == 1 else f"{n} with {', '.join(f for f in fields if f != n)}"
                for n, fields in meta.guard_fields.items()
            ]
            raise UnknownArgument(where, [], choices, "exactly one of")
        name = names[0]
        scope = {k: v for k, v in unique.items() if k != name}
        key = guard_key(meta, name, unique[name], **scope)
        params = {"TableName": self.table_name, "Key": key, "ConsistentRead": True}
        guard = (yield Request("GetItem", params)).get("Item")
        if guard is None:
            return None
        owner = guard["owner"]["M"]
        # The stored map's member order is the endpoint's (DynamoDB Local reorders it): rebuild the key in
        # schema order so the request is the same everywhere.
        key = {k: owner[k] for k in (self.table.pk_name, self.table.sk_name) if k and k in owner}
        item = (yield Request("GetItem", {"TableName": self.table_name, "Key": key})).get("Item")
        return None if item is None else self._decoded(meta, item)

    # -- writes -----------------------------------------------------------------------------------------

    def _create(self, entity: Entity) -> Steps[Any]:
        parts, result = plan_create(self._write_target(), entity)
        yield from send(parts)
        return result

    def _put(self, entity: Entity, condition: Cond | None) -> Steps[Any]:
        """An upsert; index keys built from createdAt follow the stored value. The put guesses it (one
        request for a new entity or one read from the table); a wrong guess returns the stored item and is
        retried with it."""
        dest = self._write_target()
        stored = None
        for attempt in range(PUT_ATTEMPTS):
            parts, result = yield from plan_put(dest, entity, condition, stored=stored)
            try:
                response = yield from send(parts, returning=True)
            except ConditionFailed as error:
                stored = stored_after_failure(parts[0], error.item)
                if stored is None or attempt == PUT_ATTEMPTS - 1:
                    raise
                continue
            # The UpdateItem that keeps a stored createdAt returns the item as stored; a PutItem wrote result.
            item = response.get("Attributes")
            return result if item is None else self._decoded(type(entity).model_entity(), item)
        raise AssertionError("unreachable")

    def _update(
        self, target: Any, actions: tuple[Action, ...], condition: Cond | None, upsert: bool, sets: Any
    ) -> Steps[Any]:
        """A partial update, planned again from the stored item a failure returns while a concurrent writer
        keeps changing the fields its keys were rebuilt from."""
        dest = self._write_target()
        stored = None
        for _attempt in range(UPDATE_ATTEMPTS):
            parts, meta, _ = yield from plan_update(dest, target, actions, condition, sets, upsert, stored)
            try:
                response = yield from send(parts, returning=True)
            except ConditionFailed as error:
                if meta.upgrades is not None and error.item is not None and meta.upgrades.stale(error.item):
                    # stored at an older schema version: store it upgraded (unless another writer got there
                    # first), then update the current item
                    yield from self._store_upgraded(meta, error.item)
                    stored = None
                    continue
                refusal = bound_refusal(parts[0].bounds, error.item, type(error) is ConditionFailed)
                if refusal is not None:
                    raise refusal from None
                if not changed_since_read(parts[0], error.item):
                    raise
                stored = error.item  # a concurrent writer changed what the keys were built from: again
                continue
            item = response.get("Attributes")  # a lone UpdateItem returns the item; a transaction does not
            if item is not None:
                return self._decoded(meta, item)
            return (yield from self._get(KeyRef(meta, _key_fields(meta, target)), True, {}))
        raise ConditionFailed(
            "ConditionalCheckFailedException",
            f"{meta.type}: another writer changed {', '.join(parts[0].relied or ())} under each of "
            f"{UPDATE_ATTEMPTS} attempts of this update, which rebuilds keys from them; nothing was written, "
            "try again",
            item=stored,
        )

    def _store_upgraded(self, meta: EntityMeta, item: dict[str, AV]) -> Steps[None]:
        """Put ``item`` brought to ``meta``'s schema version, only while it is stored exactly as read."""
        upgraded = rewritten(meta, item)
        try:
            yield Request("PutItem", write_back_params(self.table_name, item, upgraded))
        except ConditionFailed:
            pass  # another writer changed it first: the next attempt reads what it left

    def _delete(
        self, target: type[Entity] | KeyRef | Entity, condition: Cond | None, key: dict[str, Any]
    ) -> Steps[None]:
        if isinstance(target, type):
            refuse_unknown(f"db.delete({target.__name__})", key, target.model_entity().primary_fields)
            target = target.key(**key)
        elif key:
            refuse_unknown("db.delete(a key or an entity)", key, ())
        parts, _ = yield from plan_delete(self._write_target(), target, condition)
        if parts:
            yield from send(parts)

    def _batch_get(self, targets: list[Any], consistent: bool, raw: bool) -> Steps[list[Any]]:
        return batch_get(self.table_name, targets, consistent=consistent, raw=raw)

    def _batch_write(self, put: Any, delete: Any) -> Steps[None]:
        return batch_write(self._write_target(), list(put), list(delete))

    # -- queries ----------------------------------------------------------------------------------------

    def _pager(
        self, query: Query, limit: int | None, cursor: str | None, page_size: int | None, on_bad_item: str
    ) -> Pager:
        """The pages of ``db.query``: cursor and ``on_bad_item`` checked before the first request."""
        on_bad = checked_on_bad_item(on_bad_item)
        start = start_of(self._secret, query, cursor)
        return Pager(
            self.table, self.table_name, query, start, page_size=page_size, limit=limit, on_bad=on_bad
        )

    def _page(self, query: Query, size: int, cursor: str | None, on_bad_item: str) -> Steps[Page]:
        return page_steps(self.table, self.table_name, self._secret, query, size, cursor, on_bad_item)

    def _collect(self, query: Query, on_bad_item: str) -> Steps[Grouped]:
        return collect_steps(self.table, self.table_name, query, on_bad_item)

    def _similar(
        self, search: Any, vector: Any, top_k: int, where: Cond | None, with_vector: bool
    ) -> Steps[list[Scored[Any]]]:
        return similar_steps(self.table_name, search, vector, top_k, where, with_vector)


def checked_table_name(name: str) -> str:
    """``name`` if DynamoDB accepts it as a table name; else :class:`RequestRefused` saying why."""
    if not isinstance(name, str) or not TABLE_NAME.fullmatch(name):
        raise RequestRefused(
            f"table name {name!r} is not one DynamoDB accepts: it must be 3 to 255 characters, "
            "each a letter, a digit, '_', '-' or '.'"
        )
    return name


def _address(target: Any, key: dict[str, Any]) -> tuple[EntityMeta, dict[str, AV]]:
    if key and isinstance(target, (KeyRef, Entity)):
        refuse_unknown("db.get(a key or an entity)", key, ())
    if isinstance(target, KeyRef):
        return target.meta, target.item_key()
    if isinstance(target, Entity):
        meta = type(target).model_entity()
        return meta, meta.primary_key(target.__dict__)
    meta = target.model_entity()
    for name in key:
        if name not in meta.primary_names:
            refuse_unknown(f"db.get({target.__name__})", key, meta.primary_names)
    return meta, meta.primary_key(key)


def _key_fields(meta: EntityMeta, target: Any) -> dict[str, Any]:
    values = target.values if isinstance(target, KeyRef) else target.__dict__
    return {n: values[n] for n in meta.primary_fields}


# -- what other model modules drive a handle with ------------------------------------------------------


def drive(handle: TableHandle, steps: Steps[Any]) -> Any:
    """Run ``steps`` with ``handle``'s call: the result (``DB``), or an awaitable of it (``AsyncDB``). For
    model code below the handles (a :class:`~singletable.model.Sequence`) that plans its own steps."""
    return handle._drive(steps)


def write_target(handle: TableHandle) -> WriteTarget:
    """What planning a write on ``handle``'s table needs (its name, clock and key names)."""
    return handle._write_target()
