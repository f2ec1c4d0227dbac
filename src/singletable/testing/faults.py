"""Fault injection: make the embedded engine answer as DynamoDB does when things go wrong.

A :class:`FaultPlan` attached to an engine (``plan.attach(engine)``) sees every API request that reaches
the engine through a transport -- ``singletable.client()`` / ``resource()`` in-process, the mock of
:mod:`singletable.testing`, ``singletable serve`` run on that engine in the test's process -- and answers
the ones its rules name with DynamoDB's own fault, byte for byte: the status code, the
``com.amazonaws.dynamodb.v20120810#`` error type, AWS's message text and modeled members. botocore's
parser, retry handlers and ``batch_writer`` then run exactly as against AWS::

    faults = FaultPlan().attach(engine)
    faults.throttle("PutItem", table="orders", times=2)     # the next 2 PutItems to orders are throttled
    faults.unprocessed("BatchWriteItem", share=0.5)         # the next batch writes half its items
    faults.transaction_conflict(table="orders")             # the next transaction on orders is cancelled
    faults.internal_error("Query")                          # the next Query gets an HTTP 500
    faults.lagging_index("orders", "by_customer", writes=3) # that GSI misses the table's last 3 writes

Rules act on the next ``times`` requests they match (``times=None``: every one until ``rule.cancel()``);
when several match a request, the one declared first acts. Every request the plan sees is recorded
(:meth:`FaultPlan.attempts`), so a test can count a client's retries. With no plan attached, the
dispatcher pays one attribute test per request (see ``singletable._protocol.RequestHook``).
"""

from __future__ import annotations

import difflib
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from singletable._protocol import Dispatcher
from singletable._protocol import wire_json as wire
from singletable.engine import Engine
from singletable.testing._lagging import LaggingIndexes
from singletable.testing._requests import Request, tables_of
from singletable.testing._rules import (
    BATCHES,
    INTERNAL_SERVER_ERROR,
    THROTTLING_ERRORS,
    TRANSACTIONS,
    Answer,
    ErrorRule,
    Rule,
    ThrottleRule,
    TransactionConflictRule,
    UnprocessedRule,
)

__all__ = ["Attempt", "FaultPlan", "Rule", "engine_of"]


@dataclass(frozen=True, slots=True)
class Attempt:
    """One request a plan saw: its ``operation``, the ``tables`` it names, the ``fault`` injected (the
    error code, ``"UnprocessedItems"`` / ``"UnprocessedKeys"``, ``"LaggingIndex"``; None: answered as
    usual) and when (epoch seconds)."""

    operation: str
    tables: tuple[str, ...]
    fault: str | None
    time: float = field(compare=False)


def engine_of(target: Any) -> Engine:
    """The Engine behind ``target``: an Engine, a client or resource of ``singletable.client()`` /
    ``resource()``, or anything with an ``engine`` (the mock, a fixture's object)."""
    if isinstance(target, Engine):
        return target
    for candidate in (
        getattr(target, "singletable_engine", None),
        getattr(getattr(getattr(target, "meta", None), "client", None), "singletable_engine", None),
        getattr(target, "engine", None),
    ):
        if isinstance(candidate, Engine):
            return candidate
    raise TypeError(
        f"cannot find an engine in {type(target).__name__}: give an Engine, a client or resource of "
        "singletable.client() / singletable.resource(), or an object with an .engine"
    )


def _operations(operation: str | list[str] | tuple[str, ...] | None, allowed: Any = None) -> frozenset | None:
    """The operations a rule names (None: every one), each checked against DynamoDB's API (or ``allowed``)."""
    if operation is None:
        return None
    if isinstance(operation, str):
        names: tuple[Any, ...] = (operation,)
    elif isinstance(operation, list | tuple | set | frozenset):
        names = tuple(operation)
    else:
        raise TypeError(
            f"operation must be an API name such as 'PutItem', a list of them, or None; got {operation!r}"
        )
    known = frozenset(allowed) if allowed is not None else wire.operation_names()
    for name in names:
        if name not in known:
            near = difflib.get_close_matches(str(name), sorted(known), n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            choices = f" (one of {', '.join(sorted(known))})" if allowed is not None else ""
            raise ValueError(f"{name!r} is not an operation this fault applies to{choices}{hint}")
    return frozenset(names)


def _times(times: int | None) -> int | None:
    if times is not None and (isinstance(times, bool) or not isinstance(times, int) or times < 1):
        raise ValueError(f"times must be a positive integer or None (every matching call), got {times!r}")
    return times


class FaultPlan:
    """The faults declared for one engine, and the requests it saw. See the module's documentation."""

    def __init__(self) -> None:
        self.rules: list[Rule] = []
        self.engine: Engine | None = None
        self._attempts: list[Attempt] = []
        self._lags = LaggingIndexes()
        self._lock = threading.Lock()

    # -- attaching ------------------------------------------------------------------------------------------

    def attach(self, target: Any) -> FaultPlan:
        """Answer ``target``'s requests from now on (an Engine, a client or resource of
        ``singletable.client()``, the mock); returns the plan, which is also a context manager that
        detaches on exit. An engine has one plan at a time."""
        engine = engine_of(target)
        if engine.faults is not None and engine.faults is not self:
            raise RuntimeError("this engine already has a FaultPlan attached: detach() it first")
        if self.engine is not None and self.engine is not engine:
            raise RuntimeError("this FaultPlan is attached to another engine: detach() it first")
        self.engine = engine
        engine.faults = self
        return self

    def detach(self) -> None:
        """Stop answering: the engine serves every request as usual again. Rules and attempts stay."""
        engine, self.engine = self.engine, None
        if engine is not None and engine.faults is self:
            engine.faults = None

    def __enter__(self) -> FaultPlan:
        return self

    def __exit__(self, *exc: object) -> None:
        self.detach()

    # -- declaring faults ---------------------------------------------------------------------------------

    def _add(self, rule: Rule) -> Rule:
        with self._lock:
            self.rules.append(rule)
        return rule

    def throttle(
        self,
        operation: str | list[str] | tuple[str, ...] | None,
        *,
        table: str | None = None,
        times: int | None = 1,
        error: str = "ProvisionedThroughputExceededException",
    ) -> Rule:
        """Throttle the next ``times`` calls of ``operation`` (a name, several, or None: any) on ``table``
        (None: any). ``error``: ``"ProvisionedThroughputExceededException"`` (a provisioned table over its
        capacity) or ``"ThrottlingException"`` (an on-demand table still scaling). CreateTable, UpdateTable
        and DeleteTable are throttled with the control plane's ThrottlingException whatever ``error`` says."""
        if error not in THROTTLING_ERRORS:
            raise ValueError(f"error must be one of {THROTTLING_ERRORS}, got {error!r}")
        return self._add(ThrottleRule(_operations(operation), table, _times(times), code=error))

    def unprocessed(
        self,
        operation: str = "BatchWriteItem",
        *,
        table: str | None = None,
        share: float | None = None,
        items: int | None = None,
        times: int | None = 1,
    ) -> Rule:
        """The next ``times`` BatchWriteItem (or BatchGetItem) calls leave part of their requests
        unprocessed: the last ``items`` of them, or ``share`` (0 < share <= 1, rounded up; 0.5 when neither
        is given), counting only ``table``'s when given. That part is neither written nor read; it comes
        back as ``UnprocessedItems`` / ``UnprocessedKeys``, to be sent again."""
        _operations(operation, BATCHES)
        if share is not None and items is not None:
            raise ValueError("give share= or items=, not both")
        if items is not None and (isinstance(items, bool) or not isinstance(items, int) or items < 1):
            raise ValueError(f"items must be a positive integer, got {items!r}")
        if items is None:
            share = 0.5 if share is None else share
            if isinstance(share, bool) or not isinstance(share, int | float) or not 0 < share <= 1:
                raise ValueError(f"share must be a number with 0 < share <= 1, got {share!r}")
        return self._add(
            UnprocessedRule(frozenset({operation}), table, _times(times), share=share, items=items)
        )

    def transaction_conflict(
        self,
        *,
        table: str | None = None,
        times: int | None = 1,
        operation: str | list[str] | tuple[str, ...] = "TransactWriteItems",
    ) -> Rule:
        """The next ``times`` transactions (TransactWriteItems; or TransactGetItems, ExecuteTransaction)
        involving ``table`` (None: any) are cancelled: TransactionCanceledException whose
        CancellationReasons give ``TransactionConflict`` for the first action on ``table`` and ``None`` for
        the others. Nothing is written; sending the transaction again commits it."""
        return self._add(TransactionConflictRule(_operations(operation, TRANSACTIONS), table, _times(times)))

    def internal_error(
        self,
        operation: str | list[str] | tuple[str, ...] | None = None,
        *,
        table: str | None = None,
        times: int | None = 1,
    ) -> Rule:
        """The next ``times`` calls of ``operation`` (None: any) on ``table`` fail with DynamoDB's HTTP 500
        InternalServerError (nothing is done)."""
        return self._add(
            ErrorRule(
                _operations(operation),
                table,
                _times(times),
                code="InternalServerError",
                message=INTERNAL_SERVER_ERROR,
                status=500,
            )
        )

    def error(
        self,
        operation: str | list[str] | tuple[str, ...] | None,
        code: str,
        message: str = "",
        *,
        table: str | None = None,
        times: int | None = 1,
        status: int = 400,
        **members: Any,
    ) -> Rule:
        """Any other DynamoDB error: the next ``times`` calls of ``operation`` on ``table`` are answered
        ``{"__type": "com.amazonaws.dynamodb.v20120810#<code>", "message": message, **members}`` with HTTP
        ``status`` (e.g. ``"RequestLimitExceeded"``, ``"TransactionConflictException"``)."""
        if not isinstance(code, str) or not code.isidentifier():
            raise ValueError(f"code must be an error name such as 'RequestLimitExceeded', got {code!r}")
        if not isinstance(status, int) or not 400 <= status <= 599:
            raise ValueError(f"status must be an HTTP error status (400-599), got {status!r}")
        return self._add(
            ErrorRule(
                _operations(operation),
                table,
                _times(times),
                code=code,
                message=message,
                status=status,
                members=members,
            )
        )

    def lagging_index(self, table: str, index: str, *, writes: int) -> None:
        """Make Query and Scan of the global secondary index ``index`` of ``table`` miss the table's last
        ``writes`` item writes (the exact rule: docs/testing.md, "A lagging global secondary index").
        Reads of the table itself stay strongly consistent. Until :meth:`catch_up`."""
        if isinstance(writes, bool) or not isinstance(writes, int) or writes < 1:
            raise ValueError(f"writes must be a positive integer, got {writes!r}")
        if not isinstance(table, str) or not isinstance(index, str):
            raise TypeError("lagging_index() takes a table name and an index name")
        self._lags.add(table, index, writes)

    def catch_up(self, table: str, index: str) -> None:
        """The index sees every write again (its lag, declared by :meth:`lagging_index`, ends)."""
        self._lags.remove(table, index)

    # -- what happened --------------------------------------------------------------------------------------

    def attempts(self, operation: str | None = None, *, table: str | None = None) -> list[Attempt]:
        """Every request seen while attached (those of ``operation`` and/or naming ``table``), in order --
        each of a client's retries is one."""
        with self._lock:
            seen = list(self._attempts)
        return [
            a
            for a in seen
            if (operation is None or a.operation == operation) and (table is None or table in a.tables)
        ]

    def clear(self) -> None:
        """Forget every rule, lagging index and recorded attempt (the plan stays attached)."""
        with self._lock:
            self.rules.clear()
            self._attempts.clear()
        self._lags = LaggingIndexes()

    # -- answering: the dispatcher's RequestHook ----------------------------------------------------------

    def call(self, dispatcher: Dispatcher, operation: str, body: bytes) -> dict[str, Any]:
        """Answer one API request (``singletable._protocol.RequestHook``)."""
        params = wire.decode_request(operation, body)
        request = Request(operation, params, body, tables_of(params))
        with self._lock:
            rule = next((r for r in self.rules if r.matches(request)), None)
            if rule is not None:
                rule.fired += 1
                if rule.remaining is not None:
                    rule.remaining -= 1
        fault = None
        try:
            error = rule.error(self, request) if rule is not None else None
            if error is not None:
                fault = error.code
                raise error
            if rule is None:
                answer = self.answer(dispatcher, request)
            else:
                answer = rule.answer(self, dispatcher, request)
            fault = answer.fault
            return answer.response
        finally:
            self._record(request, fault)

    def answer(self, dispatcher: Dispatcher, request: Request) -> Answer:
        """``request`` answered by the engine through ``dispatcher``, with its lagging indexes applied."""
        lags = self._lags
        if self.engine is None or not lags.watches(request):
            return Answer(dispatcher.call(request.operation, request.body), None)
        response, lagged = lags.call(self.engine, lambda r: dispatcher.call(r.operation, r.body), request)
        return Answer(response, "LaggingIndex" if lagged else None)

    def _record(self, request: Request, fault: str | None) -> None:
        with self._lock:
            self._attempts.append(Attempt(request.operation, request.tables, fault, time.time()))
