"""``connect(table, target)``: the application's handle on one table, on any DynamoDB.

The same code runs on the embedded engine (called natively, no botocore) and on any endpoint through boto3;
only the :mod:`adapter <singletable.model._adapter>` differs. Reads return typed entities; writes are planned
by :mod:`singletable.model._write_plans` and sent by :mod:`singletable.model._write_runner` as one request
or one transaction; what those stages need of the table travels in a ``WriteTarget`` made for each write.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar, overload

from singletable.model import cursor as cursors
from singletable.model._adapter import Adapter, adapt
from singletable.model._batches import batch_get, batch_write
from singletable.model._codecs import AV
from singletable.model._entity import Entity
from singletable.model._entity_meta import EntityMeta, KeyRef, refuse_unknown
from singletable.model._errors import (
    ConditionFailed,
    DBClosed,
    NotFound,
    RequestError,
    RequestRefused,
    UnknownArgument,
)
from singletable.model._expr import Action, Cond
from singletable.model._page_sizing import PageSizer
from singletable.model._patterns import Grouped, Query
from singletable.model._read_items import BAD_ITEM, Fallback, checked_on_bad_item, stored_item_error
from singletable.model._table import Table
from singletable.model._trace import Trace
from singletable.model._transaction import Transaction
from singletable.model._write_keys import guard_key
from singletable.model._write_plans import plan_create, plan_delete, plan_put, plan_update
from singletable.model._write_requests import WriteTarget, changed_since_read, stored_after_failure
from singletable.model._write_runner import send
from singletable.model._write_values import utc_now

E = TypeVar("E", bound=Entity)
# An upsert whose createdAt guess was wrong retries with the stored value; more attempts only happen while
# other writers keep deleting and re-creating the item.
PUT_ATTEMPTS = 4
# A partial update planned from a read of the fields its keys need is tried again this often when a
# concurrent writer changes them in between (each attempt is conditioned on what it read).
UPDATE_ATTEMPTS = 8
# DynamoDB's table names: 3 to 255 characters of these.
TABLE_NAME = re.compile(r"[a-zA-Z0-9_.-]{3,255}")
DB_CLOSED = "this DB was closed (db.close()); connect() again to use the table"


@dataclass
class Page:
    """Up to ``size`` entities and the cursor to resume after the last of them (None when done)."""

    items: list[Any]
    cursor: str | None

    @property
    def has_more(self) -> bool:
        return self.cursor is not None

    def __iter__(self) -> Iterator[Any]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)


class DB:
    """A table's data, as entities. Create with :func:`connect`."""

    def __init__(
        self,
        table: Table,
        adapter: Adapter,
        *,
        name: str | None = None,
        cursor_secret: bytes | str | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.table = table
        self.adapter = adapter
        self.call = adapter.call
        self.table_name = checked_table_name(name or table.resolved_name())
        secret = cursor_secret or cursors.default_secret()
        self._secret = secret.encode() if isinstance(secret, str) else secret
        self.clock = clock or utc_now
        self._get_params: dict[str, Any] = {"TableName": self.table_name}
        self._dest = WriteTarget(self.table_name, self.call, self.clock)

    def close(self) -> None:
        """Release the adapter (an engine ``connect`` opened from a path); every later call raises
        :class:`DBClosed`."""
        self.adapter.close()
        self.call = _closed

    @contextmanager
    def trace(self, *, capacity: str = "TOTAL") -> Iterator[Trace]:
        """``with db.trace() as trace:`` records every request this DB sends in the block (from any thread),
        each with its ConsumedCapacity: ``trace.operations``, ``trace.capacity_units``, ``trace.requests``.
        Only traced requests ask for their capacity; outside a trace nothing is wrapped.
        ``capacity="INDEXES"`` asks for the table's and each index's share as well."""
        if capacity not in ("TOTAL", "INDEXES"):
            raise ValueError(f"db.trace(capacity=...) takes 'TOTAL' or 'INDEXES', not {capacity!r}")
        recording = Trace(capacity=capacity)
        untraced = self.call
        self.call = recording.traced(untraced)
        try:
            yield recording
        finally:
            if self.call is not _closed:
                self.call = untraced

    def __enter__(self) -> DB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- control plane ----------------------------------------------------------------------------------

    def create_table(self) -> None:
        self.call("CreateTable", self.table.create_table_params(self.table_name))
        self._wait_active()
        ttl_attribute = self.table.resolved_ttl_attribute()  # the table's, or its entities' ttl fields'
        if ttl_attribute:
            self.call(
                "UpdateTimeToLive",
                {
                    "TableName": self.table_name,
                    "TimeToLiveSpecification": {"Enabled": True, "AttributeName": ttl_attribute},
                },
            ) if self.adapter.supports("UpdateTimeToLive") else None

    def ensure_table(self) -> bool:
        """Create the table if it is missing; True if it was created."""
        try:
            self.call("DescribeTable", {"TableName": self.table_name})
            return False
        except RequestError as error:
            if error.code != "ResourceNotFoundException":
                raise
        try:
            self.create_table()
        except RequestError as error:
            if error.code != "ResourceInUseException":
                raise
            return False
        return True

    def delete_table(self) -> None:
        self.call("DeleteTable", {"TableName": self.table_name})

    def _wait_active(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            status = self.call("DescribeTable", {"TableName": self.table_name})["Table"].get("TableStatus")
            if status == "ACTIVE" or time.monotonic() > deadline:
                return
            time.sleep(0.2)

    # -- single reads -----------------------------------------------------------------------------------

    @overload
    def get(self, target: type[E], /, *, consistent: bool = False, **key: Any) -> E | None: ...
    @overload
    def get(self, target: KeyRef, /, *, consistent: bool = False) -> Any: ...

    def get(self, target: Any, /, *, consistent: bool = False, **key: Any) -> Any:
        """The entity at a primary key, or None: ``db.get(User, username="john")``."""
        meta, item_key = _address(target, key)
        params = {"TableName": self.table_name, "Key": item_key}
        if consistent:
            params["ConsistentRead"] = True
        item = self.call("GetItem", params).get("Item")
        return None if item is None else self._decoded(meta, item)

    def must_get(self, target: Any, /, **key: Any) -> Any:
        found = self.get(target, **key)
        if found is None:
            meta, item_key = _address(target, key)
            raise NotFound(f"no {meta.type} at {item_key}")
        return found

    def find(self, cls: type[E], /, **unique: Any) -> E | None:
        """The entity holding a unique value, through its guard item: ``db.find(User, email="a@x")``."""
        meta = cls.model_entity()
        refuse_unknown(f"db.find({cls.__name__})", unique, meta.unique)
        if len(unique) != 1:
            raise UnknownArgument(f"db.find({cls.__name__})", [], list(meta.unique), "exactly one of")
        ((name, value),) = unique.items()
        guard = self.call(
            "GetItem",
            {"TableName": self.table_name, "Key": guard_key(meta, name, value), "ConsistentRead": True},
        ).get("Item")
        if guard is None:
            return None
        owner = guard["owner"]["M"]
        # The stored map's member order is the endpoint's (DynamoDB Local reorders it): rebuild the key in
        # schema order so the request is the same everywhere.
        key = {k: owner[k] for k in (self.table.pk_name, self.table.sk_name) if k and k in owner}
        item = self.call("GetItem", {"TableName": self.table_name, "Key": key}).get("Item")
        return None if item is None else self._decoded(meta, item)

    def _write_target(self) -> WriteTarget:
        """What planning and sending a write need of this table. Checked at each write, so a replaced
        ``call`` or ``clock`` (tests spy on requests, demos fix the time) is honoured."""
        dest = self._dest
        if dest.call is not self.call or dest.clock is not self.clock or dest.table_name != self.table_name:
            dest = self._dest = WriteTarget(self.table_name, self.call, self.clock)
        return dest

    # -- writes -----------------------------------------------------------------------------------------

    def create(self, entity: E) -> E:
        """Write a new entity; :class:`AlreadyExists` if its key is taken, :class:`UniqueViolation` if a
        unique value is. Returns the entity as stored (timestamps, version)."""
        dest = self._write_target()
        parts, result = plan_create(dest, entity)
        send(dest.call, parts)
        return result  # type: ignore[return-value]

    def put(self, entity: E, *, condition: Cond | None = None) -> E:
        """Create or replace; the stored createdAt is kept, the version checked and bumped.

        Index keys built from createdAt follow the stored value. Their put guesses it (one request for a new
        entity or one read from the table); a wrong guess returns the stored item and is retried with it.
        """
        dest = self._write_target()
        stored = None
        for attempt in range(PUT_ATTEMPTS):
            parts, result = plan_put(dest, entity, condition, stored=stored)
            try:
                send(dest.call, parts)
                return result  # type: ignore[return-value]
            except ConditionFailed as error:
                stored = stored_after_failure(parts[0], error.item)
                if stored is None or attempt == PUT_ATTEMPTS - 1:
                    raise
        raise AssertionError("unreachable")

    def update(
        self,
        target: KeyRef | E,
        /,
        *actions: Action,
        condition: Cond | None = None,
        upsert: bool = False,
        **sets: Any,
    ) -> Any:
        """Change some fields: ``db.update(Post.key(slug="x"), Post.f.views.add(1), title="New")``.

        Keys derived from changed fields are rebuilt in the same request. Passing an entity instead of a key
        checks its version. Returns the updated entity; :class:`NotFound` if there is none, unless
        ``upsert=True`` (counters: ``db.update(Sequence.key(), Sequence.f.value.add(1), upsert=True)``).
        """
        dest = self._write_target()
        stored = None
        for _attempt in range(UPDATE_ATTEMPTS):
            parts, meta, _ = plan_update(dest, target, actions, condition, sets, upsert, stored)
            try:
                if len(parts) == 1:
                    params = dict(
                        parts[0].params, ReturnValues="ALL_NEW", ReturnValuesOnConditionCheckFailure="ALL_OLD"
                    )
                    response = send(dest.call, parts, single_params=params)
                    return self._decoded(meta, response["Attributes"])
                send(dest.call, parts)
                return self.get(KeyRef(meta, _key_fields(meta, target)), consistent=True)
            except ConditionFailed as error:
                if not changed_since_read(parts[0], error.item):
                    raise
                stored = error.item  # a concurrent writer changed what the keys were built from: again
        raise ConditionFailed(
            "ConditionalCheckFailedException",
            f"{meta.type}: another writer changed {', '.join(parts[0].relied or ())} under each of "
            f"{UPDATE_ATTEMPTS} attempts of this update, which rebuilds keys from them; nothing was written, "
            "try again",
            item=stored,
        )

    def _decoded(self, meta: EntityMeta, item: dict[str, AV]) -> Any:
        """The entity of an item a read or a write (ReturnValues) got back: one that does not fit its entity
        (written by another tool or older code) raises :class:`StoredItemError`, never a bare KeyError."""
        try:
            return meta.from_item(item)
        except BAD_ITEM as error:
            raise stored_item_error(meta, item, self.table_name, error) from None

    def delete(self, target: Any, /, *, condition: Cond | None = None, **key: Any) -> None:
        """Delete an entity (its guards and derived items go with it): ``db.delete(User, username="x")``."""
        if isinstance(target, type):
            refuse_unknown(f"db.delete({target.__name__})", key, target.model_entity().primary_fields)
            target = target.key(**key)
        elif key:
            refuse_unknown("db.delete(a key or an entity)", key, ())
        dest = self._write_target()
        parts, _ = plan_delete(dest, target, condition)
        if parts:
            send(dest.call, parts)

    def transaction(self) -> Transaction:
        """``with db.transaction() as tx: tx.create(...); tx.check(...)`` -- all or nothing."""
        return Transaction(self._write_target())

    def batch_get(self, targets: list[Any], *, consistent: bool = False, raw: bool = False) -> list[Any]:
        """Entities for many keys (100 per request, unprocessed keys retried), in the order asked.

        ``raw=True`` takes plain primary keys (``{"PK": {"S": ...}, ...}``, such as :func:`guard_key` gives)
        and returns the stored items as AttributeValue dicts, for items that are not entities.
        """
        return batch_get(self.call, self.table_name, targets, consistent=consistent, raw=raw)

    def batch_write(self, put: list[Entity] = (), delete: list[Any] = ()) -> None:  # type: ignore[assignment]
        """Bulk put/delete (25 per request, unprocessed items retried with backoff); not atomic."""
        batch_write(self._write_target(), list(put), list(delete))

    # -- queries ----------------------------------------------------------------------------------------

    def query(
        self,
        query: Query,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        page_size: int | None = None,
        on_bad_item: str = "raise",
    ) -> Iterator[Any]:
        """Entities from a pattern, fetched page by page as you iterate; ``limit`` caps entities returned.

        A stored item that does not fit its entity raises :class:`StoredItemError`; ``on_bad_item="skip"``
        leaves such items out, ``"raw"`` yields them as stored (AttributeValue dicts)."""
        on_bad = checked_on_bad_item(on_bad_item)
        start = cursors.decode(self._secret, query.fingerprint(), cursor) if cursor else None
        wanted = limit
        for entities, _ in self._pages(query, start, page_size, limit, on_bad=on_bad):
            yield from entities  # a page is decoded at once: no per-entity generator hop on the hot path
            if wanted is not None:
                wanted -= len(entities)
                if wanted <= 0:
                    return

    def page(
        self, query: Query, *, size: int = 25, cursor: str | None = None, on_bad_item: str = "raise"
    ) -> Page:
        """One page of ``size`` entities and a signed cursor to the next (None when there is no more).

        Requests are sized by what they keep (``model/_page_sizing.py``); a page that still takes many
        round trips warns with :class:`CostlyPage`. ``on_bad_item`` as for :meth:`query`."""
        on_bad = checked_on_bad_item(on_bad_item)
        start = cursors.decode(self._secret, query.fingerprint(), cursor) if cursor else None
        out: list[tuple[Any, dict[str, AV]]] = []
        sizer = PageSizer(size)
        for entity, raw in self._stream(query, start, size + 1, sizer, on_bad):
            if len(out) == size:
                if sizer.costly:
                    sizer.warn(_named(query), size)
                last = out[-1][1]
                keys = self.table.key_attributes(query.index)
                token = cursors.encode(
                    self._secret, query.fingerprint(), {k: last[k] for k in keys if k in last}
                )
                return Page([e for e, _ in out], token)
            out.append((entity, raw))
        if sizer.costly:
            sizer.warn(_named(query), size)
        return Page([e for e, _ in out], None)

    def collect(self, query: Query, *, on_bad_item: str = "raise") -> Grouped:
        """Every entity of a collection (all pages), grouped by type; ``on_bad_item`` as for :meth:`query`
        (raw items are grouped under ``dict``)."""
        on_bad = checked_on_bad_item(on_bad_item)
        return Grouped(e for e, _ in self._stream(query, None, None, None, on_bad))

    def _stream(
        self,
        query: Query,
        start: dict[str, AV] | None,
        page_size: int | None,
        sizer: PageSizer | None = None,
        on_bad: str = "raise",
    ) -> Iterator[tuple[Any, dict[str, AV]]]:
        for entities, raws in self._pages(query, start, page_size, None, sizer, on_bad):
            yield from zip(entities, raws, strict=True)

    def _pages(
        self,
        query: Query,
        start: dict[str, AV] | None,
        page_size: int | None,
        limit: int | None,
        sizer: PageSizer | None = None,
        on_bad: str = "raise",
    ) -> Iterator[tuple[list[Any], list[dict[str, AV]]]]:
        """Each response's entities and the items they came from; stops decoding once ``limit`` are out."""
        op, base = query.request(self.table_name)
        metas = query.entities
        single = metas[0] if len(metas) == 1 else None
        partial = query.projection is not None
        hydrate = query.needs_hydration
        type_attr = self.table.type_attribute
        if single is not None:
            type_av, matches, from_item = single._type_av, single.matches, single.from_item
            build = single._build
        while True:
            params = dict(base)
            if start:
                params["ExclusiveStartKey"] = start
            if sizer is not None:
                params["Limit"] = sizer.limit
            elif page_size:
                params["Limit"] = page_size
            response = self.call(op, params)
            items = response.get("Items", [])
            if hydrate and items:
                items = self._hydrate(query, items)
            if single is not None and not partial and (limit is None or limit >= len(items)):
                # The hot path: comprehensions, no per-item branching, single.matches() inlined
                raws = [r for r in items if (t := r.get(type_attr)) == type_av or (t is None and matches(r))]
                try:
                    entities = [build(r) for r in raws] if build is not None else [from_item(r) for r in raws]
                except _SLOW:  # an item for validation, or one that does not fit (model/_read_items.py)
                    entities, raws = self._decode(raws, metas, partial, None, on_bad)
            else:
                entities, raws = self._decode(items, metas, partial, limit, on_bad)
            if sizer is not None:
                sizer.record(response.get("ScannedCount", len(items)), len(entities))
            yield entities, raws
            if limit is not None:
                limit -= len(entities)
                if limit <= 0:
                    return
            start = response.get("LastEvaluatedKey")
            if not start:
                return

    def _decode(
        self,
        items: list[dict[str, AV]],
        metas: list[EntityMeta],
        partial: bool,
        limit: int | None,
        on_bad: str,
    ) -> tuple[list[Any], list[dict[str, AV]]]:
        """A page of several types (or a projection, or past a limit, or holding an item that does not fit
        its entity): each item by its own type; an unfit one raised, skipped or kept raw (``on_bad``)."""
        entities: list[Any] = []
        raws: list[dict[str, AV]] = []
        for raw in items:
            meta = _which(metas, raw)
            if meta is not None:
                try:
                    entities.append(meta.from_item(raw, partial=partial))
                except BAD_ITEM as error:
                    bad = stored_item_error(meta, raw, self.table_name, error)
                    if on_bad == "raise":
                        raise bad from None
                    if on_bad == "skip":
                        continue
                    entities.append(raw)
                raws.append(raw)
                if limit is not None and len(entities) >= limit:
                    break
        return entities, raws

    def _hydrate(self, query: Query, items: list[dict[str, AV]]) -> list[dict[str, AV]]:
        """Index items -> full items by primary key, in index order (seed 001's KEYS_ONLY email lookup)."""
        keys = [self.table.pk_name] + ([self.table.sk_name] if self.table.sk_name else [])
        wanted = [{k: raw[k] for k in keys} for raw in items]
        found = batch_get(self.call, self.table_name, wanted, raw=True)
        by_key = {_frozen(item, keys): item for item in found}
        out = []
        for raw in items:
            full = by_key.get(_frozen(raw, keys))
            if full is not None:
                out.append({**full, **{k: v for k, v in raw.items() if k not in full}})
        return out


_SLOW = (Fallback, *BAD_ITEM)


def _named(query: Query) -> str:
    """``NOTE.of_user``: a query by its entity types and pattern, for messages."""
    return "/".join(meta.type for meta in query.entities) + (f".{query.name}" if query.name else "")


def _closed(operation: str, params: dict[str, Any]) -> dict[str, Any]:
    raise DBClosed(DB_CLOSED)


def checked_table_name(name: str) -> str:
    """``name`` if DynamoDB accepts it as a table name; else :class:`RequestRefused` saying why."""
    if not isinstance(name, str) or not TABLE_NAME.fullmatch(name):
        raise RequestRefused(
            f"table name {name!r} is not one DynamoDB accepts: it must be 3 to 255 characters, "
            "each a letter, a digit, '_', '-' or '.'"
        )
    return name


def _frozen(item: dict[str, AV], keys: list[str]) -> tuple[Any, ...]:
    return tuple(next(iter(item[k].values())) for k in keys)


def _which(metas: list[EntityMeta], raw: dict[str, AV]) -> EntityMeta | None:
    for meta in metas:
        if meta.matches(raw):
            return meta
    return None


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


def connect(
    table: Table,
    target: Any = ":memory:",
    *,
    name: str | None = None,
    cursor_secret: bytes | str | None = None,
    clock: Callable[[], datetime] | None = None,
) -> DB:
    """A :class:`DB` for ``table`` on an Engine, a boto3 client, a SQLite path / ":memory:", or a URL.

    ``name`` overrides the declared table name (tests, per-tenant tables); ``cursor_secret`` signs cursors
    (default: ``SINGLETABLE_CURSOR_SECRET``, else a per-process key).
    """
    return DB(table, adapt(target), name=name, cursor_secret=cursor_secret, clock=clock)
