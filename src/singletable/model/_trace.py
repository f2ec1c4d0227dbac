"""``with db.trace() as trace:``: every request the model sends while the block runs, with its capacity.

A test can then say what a page costs -- ``trace.operations == ["Query"]``, ``trace.capacity_units == 0.5``
-- on any target. While tracing, each request that can report its capacity asks for it
(``ReturnConsumedCapacity="TOTAL"``); outside a trace the DB's call is the adapter's own, untouched, so
untraced requests cost nothing extra (no wrapper, no capacity in the response).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from singletable.model._errors import ModelError
from singletable.model._steps import AsyncCall, Call

# The operations that take ReturnConsumedCapacity (the model sends no others that do).
REPORTS_CAPACITY = frozenset(
    {
        "GetItem",
        "PutItem",
        "UpdateItem",
        "DeleteItem",
        "Query",
        "Scan",
        "BatchGetItem",
        "BatchWriteItem",
        "TransactGetItems",
        "TransactWriteItems",
    }
)


@dataclass(frozen=True)
class TracedRequest:
    """One request: its operation, the parameters the model built (without the ``ReturnConsumedCapacity``
    the trace adds), the ConsumedCapacity DynamoDB answered (a dict, or a list of them for batches and
    transactions; None when the operation reports none or the request failed), the items a read returned
    (``Count``, for Query and Scan) and the error, if it failed (as the request reported it: a create's
    taken key is the request's :class:`ConditionFailed`, which the write then raises as ``AlreadyExists``)."""

    operation: str
    params: dict[str, Any]
    capacity: Any = None
    count: int | None = None
    error: ModelError | None = None

    @property
    def capacity_units(self) -> float:
        """The request's total CapacityUnits (0 when none was reported)."""
        reported = self.capacity if isinstance(self.capacity, list) else [self.capacity]
        return sum(float(c.get("CapacityUnits", 0)) for c in reported if c)


@dataclass
class Trace:
    """The requests one ``db.trace()`` block sent, in order."""

    requests: list[TracedRequest] = field(default_factory=list)

    @property
    def operations(self) -> list[str]:
        """The operations sent, in order: ``["Query", "BatchGetItem"]``."""
        return [r.operation for r in self.requests]

    @property
    def capacity_units(self) -> float:
        """The CapacityUnits of every request together."""
        return sum(r.capacity_units for r in self.requests)

    def __len__(self) -> int:
        return len(self.requests)

    def traced(self, call: Call) -> Call:
        """``call``, recording each request into this trace and asking for its capacity."""

        def traced_call(operation: str, params: dict[str, Any]) -> dict[str, Any]:
            try:
                response = call(operation, _asking_capacity(operation, params))
            except ModelError as error:
                self.requests.append(TracedRequest(operation, dict(params), error=error))
                raise
            self.requests.append(_answered(operation, params, response))
            return response

        return traced_call

    def traced_async(self, call: AsyncCall) -> AsyncCall:
        """An ``AsyncDB``'s ``call``, recorded the same way as by :meth:`traced`."""

        async def traced_call(operation: str, params: dict[str, Any]) -> dict[str, Any]:
            try:
                response = await call(operation, _asking_capacity(operation, params))
            except ModelError as error:
                self.requests.append(TracedRequest(operation, dict(params), error=error))
                raise
            self.requests.append(_answered(operation, params, response))
            return response

        return traced_call


def _asking_capacity(operation: str, params: dict[str, Any]) -> dict[str, Any]:
    """The request as a traced call sends it: asking for its ConsumedCapacity when it can report one."""
    if operation in REPORTS_CAPACITY and "ReturnConsumedCapacity" not in params:
        return dict(params, ReturnConsumedCapacity="TOTAL")
    return params


def _answered(operation: str, params: dict[str, Any], response: dict[str, Any]) -> TracedRequest:
    return TracedRequest(operation, dict(params), response.get("ConsumedCapacity"), response.get("Count"))
