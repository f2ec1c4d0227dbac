"""The requests a test made, with their capacity: ``dynamodb.calls("Scan") == []``.

Every request the mock answers -- from a boto3 client or resource, aiobotocore, PynamoDB, the model -- is
recorded as a :class:`Call`. Each one that can report its ConsumedCapacity is asked for it (``INDEXES``,
the table's and each index's share) whether or not the caller asked; the answer the caller gets has
ConsumedCapacity only when it asked, exactly as DynamoDB would answer it.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from singletable._protocol import Dispatcher
from singletable._protocol import wire_json as wire
from singletable._protocol.dispatcher import STREAMS_TARGET_PREFIX
from singletable.engine import DynamoDBError
from singletable.engine.shared import REPORTS_CAPACITY


@dataclass(frozen=True, slots=True)
class Call:
    """One request answered under the mock.

    ``operation`` the API name (``"Query"``); ``table`` the table it names (None for batches and
    transactions over several, and for ListTables); ``index`` the index a Query or Scan read; ``params`` the
    request as the client sent it (decoded: ``{"S": "x"}`` attribute values, ``bytes`` for binaries);
    ``capacity`` the ConsumedCapacity DynamoDB answered (a dict, or a list for batches and transactions; None
    when the operation reports none or it failed); ``count`` / ``scanned_count`` a Query's or Scan's items
    after and before its filter; ``error`` the error code (``"ConditionalCheckFailedException"``) when it
    failed; ``time`` when it was answered (seconds since the epoch)."""

    operation: str
    table: str | None
    index: str | None
    params: dict[str, Any]
    capacity: Any = None
    count: int | None = None
    scanned_count: int | None = None
    error: str | None = None
    time: float = field(default=0.0, compare=False)

    @property
    def capacity_units(self) -> float:
        """The call's total CapacityUnits (0 when none was reported)."""
        reported = self.capacity if isinstance(self.capacity, list) else [self.capacity]
        return sum(float(c.get("CapacityUnits", 0)) for c in reported if c)


def _table_of(params: dict[str, Any]) -> str | None:
    name = params.get("TableName")
    if isinstance(name, str):
        return name
    items = params.get("RequestItems")
    if isinstance(items, dict) and len(items) == 1:
        return next(iter(items))
    return None


class CallLog:
    """The calls recorded so far, safe to append to from any thread."""

    def __init__(self) -> None:
        self._calls: list[Call] = []
        self._lock = threading.Lock()

    def add(self, call: Call) -> None:
        with self._lock:
            self._calls.append(call)

    def select(self, operation: str | None = None, table: str | None = None) -> list[Call]:
        with self._lock:
            calls = list(self._calls)
        return [
            c
            for c in calls
            if (operation is None or c.operation == operation) and (table is None or c.table == table)
        ]

    def clear(self) -> None:
        with self._lock:
            self._calls.clear()


class RecordingDispatcher(Dispatcher):
    """The shared protocol dispatcher, recording each call into ``log`` (and asking for its capacity)."""

    def __init__(self, engine: Any, log: CallLog) -> None:
        super().__init__(engine)
        self.log = log

    def call(self, operation: str, body: bytes) -> dict[str, Any]:
        params = wire.decode_request(operation, body)
        sent = dict(params)
        asked = params.get("ReturnConsumedCapacity")
        if operation in REPORTS_CAPACITY and asked is None:
            params["ReturnConsumedCapacity"] = "INDEXES"
        table, index = _table_of(sent), sent.get("IndexName")
        try:
            response = self.engine.execute(operation, params, for_wire=True)
        except DynamoDBError as error:
            self.log.add(Call(operation, table, index, sent, error=error.code, time=time.time()))
            raise
        capacity = response.get("ConsumedCapacity")
        if asked is None and capacity is not None:
            response = {k: v for k, v in response.items() if k != "ConsumedCapacity"}
        self.log.add(
            Call(
                operation,
                table,
                index,
                sent,
                capacity,
                response.get("Count"),
                response.get("ScannedCount"),
                time=time.time(),
            )
        )
        return response

    def call_streams(self, target: str, body: bytes) -> dict[str, Any]:
        operation = target[len(STREAMS_TARGET_PREFIX) :]
        try:
            response = super().call_streams(target, body)
        except DynamoDBError as error:
            self.log.add(Call(operation, None, None, _plain(body), error=error.code, time=time.time()))
            raise
        self.log.add(Call(operation, None, None, _plain(body), time=time.time()))
        return response


def _plain(body: bytes) -> dict[str, Any]:
    try:
        decoded = wire.decode_request("", body)
    except DynamoDBError:
        return {}
    return decoded if isinstance(decoded, dict) else {}
