"""How a migration talks to its table: every request through the model's DB (so the same on the embedded
engine and any endpoint), with the table's name filled in, its consumed capacity charged to a rate limit,
throttling backed off, and -- for a plan -- writes refused outright."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from singletable.migrate._steps import MigrationError
from singletable.model import DB, RequestError

THROTTLED = frozenset(
    {"ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"}
)
CAPACITY_OPERATIONS = frozenset(
    {"GetItem", "PutItem", "UpdateItem", "DeleteItem", "Scan", "TransactWriteItems"}
)
WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "UpdateTable"})
READS = frozenset({"GetItem", "Scan"})
MAX_TRIES = 10


@dataclass(slots=True)
class Limiter:
    """Keeps the read and write units consumed per second at or under ``max_rcu`` / ``max_wcu`` (None: no
    limit), allowing a one-second burst: each request's units push the next free moment forward."""

    max_rcu: float | None = None
    max_wcu: float | None = None
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    _free: dict[str, float] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        for name, value in (("max_rcu", self.max_rcu), ("max_wcu", self.max_wcu)):
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be a positive number of units per second, not {value}")

    def charge(self, kind: str, units: float) -> None:
        rate = self.max_rcu if kind == "read" else self.max_wcu
        if rate is None or units <= 0:
            return
        with self._lock:  # parallel segments share one budget
            now = self.clock()
            free = max(self._free.get(kind, now - 1.0), now - 1.0) + units / rate
            self._free[kind] = free
        if free - now > 0:
            self.sleep(free - now)


@dataclass(slots=True)
class Usage:
    read_units: float = 0.0
    write_units: float = 0.0
    throttled: int = 0


class Caller:
    """``call(operation, params)`` on one table of ``db``; see the module docstring."""

    def __init__(self, db: DB, limiter: Limiter | None = None, *, read_only: bool = False) -> None:
        self.db = db
        self.table_name = db.table_name
        self.limiter = limiter or Limiter()
        self.read_only = read_only
        self.usage = Usage()
        self._lock = threading.Lock()  # parallel segments count into one usage
        self.sleep = self.limiter.sleep

    def __call__(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        if self.read_only and operation in WRITES:
            raise MigrationError(f"a plan never writes, yet {operation} was asked")  # a bug, said plainly
        request = dict(params)
        if operation == "TransactWriteItems":
            request["TransactItems"] = [
                {kind: {"TableName": self.table_name, **part} for kind, part in one.items()}
                for one in params["TransactItems"]
            ]
        else:
            request["TableName"] = self.table_name
        if operation in CAPACITY_OPERATIONS:
            request["ReturnConsumedCapacity"] = "TOTAL"
        delay = 0.05
        for attempt in range(MAX_TRIES):
            try:
                response = self.db.call(operation, request)
                break
            except RequestError as error:
                if error.code not in THROTTLED or attempt == MAX_TRIES - 1:
                    raise
                with self._lock:
                    self.usage.throttled += 1
                self.sleep(delay)
                delay = min(delay * 2, 5.0)
        self._charge(operation, response)
        return response

    def _charge(self, operation: str, response: dict[str, Any]) -> None:
        consumed = response.get("ConsumedCapacity")
        if consumed is None:
            return
        units = sum(
            c.get("CapacityUnits", 0.0) for c in (consumed if isinstance(consumed, list) else [consumed])
        )
        read = operation in READS
        with self._lock:
            if read:
                self.usage.read_units += units
            else:
                self.usage.write_units += units
        self.limiter.charge("read" if read else "write", units)

    def wait_active(self, index: str, *, present: bool, timeout: float = 3600.0, poll: float = 0.2) -> None:
        """Wait until the table is ACTIVE and ``index`` is ACTIVE (``present``) or gone."""
        deadline = time.monotonic() + timeout
        while True:
            table = self("DescribeTable", {})["Table"]
            indexes = {g["IndexName"]: g for g in table.get("GlobalSecondaryIndexes", [])}
            ready = table.get("TableStatus") == "ACTIVE" and (
                indexes.get(index, {}).get("IndexStatus") == "ACTIVE"
                and not indexes[index].get("Backfilling", False)
                if present
                else index not in indexes
            )
            if ready:
                return
            if time.monotonic() > deadline:
                raise MigrationError(
                    f"index {index} was not {'ACTIVE' if present else 'deleted'} after {timeout:g}s"
                )
            self.sleep(poll)
            poll = min(poll * 2, 10.0)
