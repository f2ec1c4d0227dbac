"""``await connect_async(table, target)``: :class:`AsyncDB`, the same handle on a table for asyncio code.

Every method of :class:`~singletable.model.DB` is here, awaited, with the same arguments, results and errors:
both classes drive the same steps (:mod:`singletable.model._handle`, :mod:`singletable.model._steps`) --
``DB`` with :func:`~singletable.model._steps.run`, ``AsyncDB`` with :func:`run_async` below -- so planning,
validation, key templates, expressions, error mapping, paging and cursors are one code. What differs is the
door (:mod:`singletable.model._async_adapter`): aiobotocore for endpoints, a worker thread for the engine.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from datetime import datetime
from typing import Any, TypeVar

from singletable.model._async_adapter import AsyncAdapter, adapt_async
from singletable.model._entity import Entity
from singletable.model._entity_meta import KeyRef
from singletable.model._errors import DBClosed, SequenceContended
from singletable.model._expr import Action, Cond
from singletable.model._handle import DB_CLOSED, TableHandle
from singletable.model._pager import Page
from singletable.model._patterns import Grouped, Query
from singletable.model._sequence import Retries
from singletable.model._similar import Scored
from singletable.model._steps import AsyncCall, Request, Steps, T
from singletable.model._table import Table
from singletable.model._trace import Trace
from singletable.model._transaction import TransactionParts
from singletable.model._upgrades import writing_back_async
from singletable.model._write_target import WriteTarget

E = TypeVar("E", bound=Entity)


async def run_async(steps: Steps[T], call: AsyncCall) -> T:
    """Drive ``steps`` to the end with an awaited ``call``: the twin of
    :func:`~singletable.model._steps.run`, sleeping without blocking the event loop."""
    send, throw = steps.send, steps.throw
    try:
        step = send(None)
        while True:
            if type(step) is Request:
                try:
                    response = await call(step.operation, step.params)
                except Exception as error:
                    step = throw(error)
                    continue
                step = send(response)
            else:
                await asyncio.sleep(step.seconds)
                step = send(None)
    except StopIteration as done:
        return done.value


async def _closed(operation: str, params: dict[str, Any]) -> dict[str, Any]:
    raise DBClosed(DB_CLOSED)


class AsyncDB(TableHandle):
    """A table's data, as entities, for asyncio code. Create with :func:`connect_async`; every method of
    :class:`~singletable.model.DB` is a coroutine here (``query`` an async iterator), except ``trace()``,
    which is the same ``with`` block."""

    _closed_call = staticmethod(_closed)
    adapter: AsyncAdapter

    def _drive(self, steps: Steps[Any]) -> Any:
        return run_async(steps, self.call)

    def _tracing(self, recording: Trace, call: Any) -> Any:
        return recording.traced_async(call)

    def _writing_back(self, call: Any) -> Any:
        return writing_back_async(self.table, self.table_name, call)

    async def close(self) -> None:
        """Release the adapter (an engine or aiobotocore client ``connect_async`` opened, its worker thread);
        every later call raises :class:`DBClosed`."""
        self.call = _closed
        await self.adapter.close()

    async def __aenter__(self) -> AsyncDB:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- control plane ----------------------------------------------------------------------------------

    async def create_table(self) -> None:
        await run_async(self._create_table(), self.call)

    async def ensure_table(self) -> bool:
        """Create the table if it is missing; True if it was created."""
        return await run_async(self._ensure_table(), self.call)

    async def delete_table(self) -> None:
        await run_async(self._delete_table(), self.call)

    # -- single reads -----------------------------------------------------------------------------------

    async def get(self, target: Any, /, *, consistent: bool = False, **key: Any) -> Any:
        """The entity at a primary key, or None: ``await db.get(User, username="john")``."""
        meta, params = self._get_request(target, consistent, key)
        return self._got(meta, await self.call("GetItem", params))

    async def must_get(self, target: Any, /, *, consistent: bool = False, **key: Any) -> Any:
        """The entity at a primary key; :class:`NotFound` if there is none."""
        return await run_async(self._must_get(target, consistent, key), self.call)

    async def find(self, cls: type[E], /, **unique: Any) -> E | None:
        """The entity holding a unique value, through its guard item."""
        return await run_async(self._find(cls, unique), self.call)

    # -- writes -----------------------------------------------------------------------------------------

    async def create(self, entity: E) -> E:
        """Write a new entity (see :meth:`DB.create <singletable.model.DB.create>`)."""
        return await run_async(self._create(entity), self.call)

    async def put(self, entity: E, *, condition: Cond | None = None) -> E:
        """Create or replace (see :meth:`DB.put <singletable.model.DB.put>`)."""
        return await run_async(self._put(entity, condition), self.call)

    async def update(
        self,
        target: KeyRef | E,
        /,
        *actions: Action,
        condition: Cond | None = None,
        upsert: bool = False,
        **sets: Any,
    ) -> Any:
        """Change some fields (see :meth:`DB.update <singletable.model.DB.update>`)."""
        return await run_async(self._update(target, actions, condition, upsert, sets), self.call)

    async def delete(self, target: Any, /, *, condition: Cond | None = None, **key: Any) -> None:
        """Delete an entity with its guards and derived items."""
        await run_async(self._delete(target, condition, key), self.call)

    def transaction(self) -> AsyncTransaction:
        """``async with db.transaction() as tx: await tx.create(...)`` -- all or nothing."""
        return AsyncTransaction(self._write_target(), self.call)

    async def run_transaction(self, block: Callable[[AsyncTransaction], Awaitable[T] | T]) -> T:
        """``await db.run_transaction(place_order)`` with ``async def place_order(tx)``: ``block(tx)``
        committed as one transaction, run again with the next number when one it drew was taken first
        (see :meth:`DB.run_transaction <singletable.model.DB.run_transaction>`)."""
        retries = Retries()
        while True:
            tx = self.transaction()
            result = block(tx)
            if inspect.isawaitable(result):
                result = await result
            try:
                await tx.commit()
            except SequenceContended as lost:
                await asyncio.sleep(retries.after(lost).seconds)
                continue
            return result

    async def batch_get(
        self, targets: list[Any], *, consistent: bool = False, raw: bool = False
    ) -> list[Any]:
        """Entities for many keys, in the order asked (see :meth:`singletable.model.DB.batch_get`)."""
        return await run_async(self._batch_get(targets, consistent, raw), self.call)

    async def batch_write(self, put: Iterable[Entity] = (), delete: Iterable[Any] = ()) -> None:
        """Bulk put/delete, retried with backoff; not atomic."""
        await run_async(self._batch_write(put, delete), self.call)

    # -- queries ----------------------------------------------------------------------------------------

    async def query(
        self,
        query: Query,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        page_size: int | None = None,
        on_bad_item: str = "raise",
    ) -> AsyncIterator[Any]:
        """``async for entity in db.query(...)``: entities fetched page by page as you iterate."""
        pager = self._pager(query, limit, cursor, page_size, on_bad_item)
        while (got := await run_async(pager.next(), self.call)) is not None:
            for entity in got[0]:
                yield entity

    async def page(
        self, query: Query, *, size: int = 25, cursor: str | None = None, on_bad_item: str = "raise"
    ) -> Page:
        """One page of ``size`` entities and a signed cursor to the next (None when there is no more)."""
        return await run_async(self._page(query, size, cursor, on_bad_item), self.call)

    async def collect(self, query: Query, *, on_bad_item: str = "raise") -> Grouped:
        """Every entity of a collection (all pages), grouped by type."""
        return await run_async(self._collect(query, on_bad_item), self.call)

    async def similar(
        self,
        search: Any,
        vector: Any,
        /,
        *,
        top_k: int = 10,
        where: Cond | None = None,
        with_vector: bool = False,
    ) -> list[Scored[Any]]:
        """The ``top_k`` entities nearest ``vector``, nearest first, with their scores (see
        :meth:`DB.similar <singletable.model.DB.similar>`)."""
        return await run_async(self._similar(search, vector, top_k, where, with_vector), self.call)


class AsyncTransaction(TransactionParts):
    """``async with db.transaction() as tx:``: the methods of ``Transaction``, awaited; one
    TransactWriteItems on exit."""

    def __init__(self, dest: WriteTarget, call: AsyncCall) -> None:
        super().__init__(dest)
        self.call = call

    async def create(self, entity: E) -> E:
        return self._create(entity)

    async def put(self, entity: E, *, condition: Cond | None = None) -> E:
        return await run_async(self._put(entity, condition), self.call)

    async def update(
        self,
        target: Any,
        /,
        *actions: Action,
        condition: Cond | None = None,
        upsert: bool = False,
        **sets: Any,
    ) -> None:
        await run_async(self._update(target, actions, condition, upsert, sets), self.call)

    async def delete(self, target: Any, /, *, condition: Cond | None = None, **key: Any) -> None:
        await run_async(self._delete(target, condition, key), self.call)

    async def check(self, target: KeyRef | Entity, condition: Cond) -> None:
        """Fail the whole transaction unless ``condition`` holds on that item."""
        self._check(target, condition)

    async def raw(self, request: dict[str, Any]) -> None:
        """A TransactWriteItems element written by hand (TableName optional)."""
        self._raw(request)

    async def commit(self) -> None:
        await run_async(self.commit_steps(), self.call)

    def _drive(self, steps: Steps[Any]) -> Any:
        """Run ``steps`` (a sequence's draw) with this transaction's call: an awaitable."""
        return run_async(steps, self.call)

    async def __aenter__(self) -> AsyncTransaction:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        if kind is None:
            await self.commit()


async def connect_async(
    table: Table,
    target: Any = ":memory:",
    *,
    name: str | None = None,
    cursor_secret: bytes | str | None = None,
    clock: Callable[[], datetime] | None = None,
    write_back_upgrades: bool = False,
    migrating: Mapping[Any, Any] | None = None,
) -> AsyncDB:
    """An :class:`AsyncDB` for ``table`` on an Engine, a SQLite path / ":memory:" (the engine, in a worker
    thread), an http(s) URL or an aiobotocore client (the ``async`` extra), or a boto3 client (in worker
    threads). Arguments as for :func:`~singletable.model.connect`."""
    adapter = await adapt_async(target)
    try:
        return AsyncDB(
            table,
            adapter,
            name=name,
            cursor_secret=cursor_secret,
            clock=clock,
            write_back_upgrades=write_back_upgrades,
            migrating=migrating,
        )
    except BaseException:
        await adapter.close()
        raise
