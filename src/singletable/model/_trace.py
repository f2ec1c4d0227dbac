"""``with db.trace() as trace:``: every request the model sends while the block runs, with its capacity.

A test can then say what a page costs -- ``trace.operations == ["Query"]``, ``trace.capacity_units == 0.5``
-- on any target. While tracing, each request that can report its capacity asks for it
(``ReturnConsumedCapacity="TOTAL"``); outside a trace the DB's call is the adapter's own, untouched, so
untraced requests cost nothing extra (no wrapper, no capacity in the response).

``trace.save("traffic.jsonl")`` writes the requests as JSON Lines, one per request, in the format
``singletable serve --record`` writes (docs/design-tools.md, "Recorded traffic"), so
``singletable check MODULE --traffic traffic.jsonl`` can check what an application really sent.
"""

from __future__ import annotations

import base64
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from singletable._traffic_record import traffic_record
from singletable.engine.shared import REPORTS_CAPACITY  # the operations that take ReturnConsumedCapacity
from singletable.model._errors import ModelError
from singletable.model._steps import AsyncCall, Call


@dataclass(frozen=True)
class TracedRequest:
    """One request: its operation, the parameters the model built (without the ``ReturnConsumedCapacity``
    the trace adds), the ConsumedCapacity DynamoDB answered (a dict, or a list of them for batches and
    transactions; None when the operation reports none or the request failed), the items a read returned
    (``Count``, for Query and Scan) and the error, if it failed (as the request reported it: a create's
    taken key is the request's :class:`ConditionFailed`, which the write then raises as ``AlreadyExists``);
    ``scanned_count`` the items a Query or Scan read before its filter, ``time`` when it was answered
    (seconds since the epoch)."""

    operation: str
    params: dict[str, Any]
    capacity: Any = None
    count: int | None = None
    error: ModelError | None = None
    scanned_count: int | None = None
    time: float | None = None

    def record(self) -> dict[str, Any]:
        """The request as one line of recorded traffic (JSON-ready; binary values as base64 text)."""
        error = None
        if self.error is not None:
            code = getattr(self.error, "code", type(self.error).__name__)
            error = (code, getattr(self.error, "message", str(self.error)))
        record = traffic_record(
            self.operation,
            self.time,
            capacity=self.capacity,
            count=self.count,
            scanned_count=self.scanned_count,
            error=error,
        )
        record["params"] = self.params
        return record

    @property
    def capacity_units(self) -> float:
        """The request's total CapacityUnits (0 when none was reported)."""
        reported = self.capacity if isinstance(self.capacity, list) else [self.capacity]
        return sum(float(c.get("CapacityUnits", 0)) for c in reported if c)


@dataclass
class Trace:
    """The requests one ``db.trace()`` block sent, in order. ``capacity`` is the ``ReturnConsumedCapacity``
    asked for: ``"TOTAL"``, or ``"INDEXES"`` for the table's and each index's share (what ``cost`` prices)."""

    requests: list[TracedRequest] = field(default_factory=list)
    capacity: str = "TOTAL"

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

    def save(self, path: str | Path) -> None:
        """Write the requests to ``path`` as JSON Lines (replacing it), the format ``singletable serve
        --record`` writes and ``singletable check --traffic`` reads."""
        with open(path, "w", encoding="utf-8") as out:
            for request in self.requests:
                out.write(json.dumps(request.record(), default=_json_value, separators=(",", ":")) + "\n")

    def traced(self, call: Call) -> Call:
        """``call``, recording each request into this trace and asking for its capacity."""
        mode = self.capacity

        def traced_call(operation: str, params: dict[str, Any]) -> dict[str, Any]:
            try:
                response = call(operation, _asking_capacity(operation, params, mode))
            except ModelError as error:
                self.requests.append(_failed(operation, params, error))
                raise
            self.requests.append(_answered(operation, params, response))
            return response

        return traced_call

    def traced_async(self, call: AsyncCall) -> AsyncCall:
        """An ``AsyncDB``'s ``call``, recorded the same way as by :meth:`traced`."""
        mode = self.capacity

        async def traced_call(operation: str, params: dict[str, Any]) -> dict[str, Any]:
            try:
                response = await call(operation, _asking_capacity(operation, params, mode))
            except ModelError as error:
                self.requests.append(_failed(operation, params, error))
                raise
            self.requests.append(_answered(operation, params, response))
            return response

        return traced_call


def _asking_capacity(operation: str, params: dict[str, Any], mode: str) -> dict[str, Any]:
    """The request as a traced call sends it: asking for its ConsumedCapacity (``mode``: TOTAL or INDEXES)
    when it can report one."""
    if operation in REPORTS_CAPACITY and "ReturnConsumedCapacity" not in params:
        return dict(params, ReturnConsumedCapacity=mode)
    return params


def _answered(operation: str, params: dict[str, Any], response: dict[str, Any]) -> TracedRequest:
    return TracedRequest(
        operation,
        dict(params),
        response.get("ConsumedCapacity"),
        response.get("Count"),
        scanned_count=response.get("ScannedCount"),
        time=time.time(),
    )


def _failed(operation: str, params: dict[str, Any], error: ModelError) -> TracedRequest:
    return TracedRequest(operation, dict(params), error=error, time=time.time())


def _json_value(value: Any) -> Any:
    """What JSON lacks in request parameters: binary values (base64, as DynamoDB's wire format writes them)
    and sets (as lists)."""
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    raise TypeError(f"cannot record a {type(value).__name__} in a request")
