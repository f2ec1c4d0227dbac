"""One tool call's way to the data: the model's DB or AsyncDB behind a guard that keeps the call's budget.

Each call gets a :class:`Door` of its own: a shallow copy of the server's handle whose ``call`` is wrapped,
so two calls in flight never share a trace, a budget or a list of planned writes, and the server's handle
is never changed. The guard, in order, keeps every write request instead of sending it (confirm mode),
stops the call before a read once its reads consumed the budget (:class:`BudgetSpent`), and records each
request it lets through in the call's :class:`~singletable.model.Trace`.

An :class:`~singletable.model.AsyncDB`'s methods are awaited on the event loop; a synchronous
:class:`~singletable.model.DB`'s run on a worker thread (``threaded``), so a slow request never blocks the
server's other calls -- or inline, for :meth:`DesignTools.call <singletable.mcp.DesignTools.call>` outside
any server.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio.to_thread

from singletable.model import DB, Trace

WRITE_OPERATIONS = frozenset({"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"})
READ_OPERATIONS = frozenset({"GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems"})


class BudgetSpent(Exception):
    """The call's read capacity reached its limit before its next request."""

    def __init__(self, spent: float, requests: int) -> None:
        super().__init__(spent, requests)
        self.spent, self.requests = spent, requests


@dataclass(slots=True)
class CallLedger:
    """What one call sent (``trace``) and, in confirm mode, the writes it kept back (``planned``)."""

    budget: float
    trace: Trace = field(default_factory=Trace)
    planned: list[dict[str, Any]] | None = None

    def spent(self) -> tuple[float, int]:
        """The read capacity units consumed so far and how many read requests consumed them."""
        reads = [r for r in self.trace.requests if r.operation in READ_OPERATIONS]
        return sum(r.capacity_units for r in reads), len(reads)

    def admit(self, operation: str, params: dict[str, Any]) -> bool:
        """False for a write kept back (confirm mode); raises BudgetSpent for a read over the budget."""
        if self.planned is not None and operation in WRITE_OPERATIONS:
            self.planned.append({"operation": operation, "params": params})
            return False
        if operation in READ_OPERATIONS:
            spent, reads = self.spent()
            if spent >= self.budget:
                raise BudgetSpent(spent, reads)
        return True


def is_async(db: Any) -> bool:
    """Whether ``db`` is an AsyncDB rather than a DB."""
    return not isinstance(db, DB)


class Door:
    """``db`` for one call, within ``ledger``. ``threaded``: run a synchronous DB on a worker thread."""

    def __init__(self, db: Any, ledger: CallLedger, *, threaded: bool) -> None:
        self.ledger = ledger
        self.asynchronous = is_async(db)
        self.threaded = threaded and not self.asynchronous
        self.handle = copy.copy(db)
        self.handle.call = self._guarded(db.call)
        self.table_name: str = db.table_name

    def _guarded(self, send: Any) -> Any:
        ledger = self.ledger
        if self.asynchronous:
            traced_async = ledger.trace.traced_async(send)

            async def guarded_async(operation: str, params: dict[str, Any]) -> Any:
                return await traced_async(operation, params) if ledger.admit(operation, params) else {}

            return guarded_async
        traced = ledger.trace.traced(send)

        def guarded(operation: str, params: dict[str, Any]) -> Any:
            return traced(operation, params) if ledger.admit(operation, params) else {}

        return guarded

    async def run(self, method: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``method(*args, **kwargs)`` of this door's handle (``door.handle.page`` ...), awaited when the
        handle is an AsyncDB, on a worker thread when threaded."""
        if self.asynchronous:
            return await method(*args, **kwargs)
        if self.threaded:
            return await anyio.to_thread.run_sync(functools.partial(method, *args, **kwargs))
        return method(*args, **kwargs)

    async def request(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        """One DynamoDB request through the guard (the raw and counting tools' requests)."""
        response: dict[str, Any] = await self.run(self.handle.call, operation, params)
        return response
