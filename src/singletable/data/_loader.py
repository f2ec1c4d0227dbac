"""Writing chunks of items into a target: the bulk path for a database file, BatchWriteItem for a URL.

:class:`ItemLoader` takes a chunk (a list of items in input order) and reports which were committed and
which the target refused, by position, so the caller can name the file, line and key of each refusal.

- A database file goes through the engine's bulk load (``engine/_bulk_load.py``): the whole chunk in one
  transaction, on PutItem's own validation and write path. When the call returns, the chunk is committed.
- An endpoint gets BatchWriteItem in 25s. ``UnprocessedItems`` (DynamoDB's answer under throttling) and
  throttling or transient errors are retried with exponential backoff and jitter, up to ``attempts``
  tries; a ValidationException (an item over 400 KB, a missing key, two items with one key in a batch)
  makes the batch go again one item per request, so only the bad items are refused, each with its own
  message. Anything else (unknown table, wrong credentials, no connection) raises :class:`LoadRefused`:
  nothing after the last committed item is lost, the import can resume.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from singletable.data._targets import Target, TargetError

Item = dict[str, Any]
BATCH = 25
RETRYABLE = frozenset(
    (
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "RequestLimitExceeded",
        "InternalServerError",
        "ServiceUnavailable",
        "TransactionConflictException",
        "LimitExceededException",
    )
)


class LoadRefused(Exception):
    """The target refused a write for a reason that retrying will not fix (or retries ran out)."""

    def __init__(self, code: str, message: str, written: int) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.written = written  # items of the chunk committed before the refusal


@dataclass
class LoadResult:
    written: int = 0
    errors: list[tuple[int, str, str]] = field(default_factory=list)  # (position, code, message)
    replaced: int | None = None  # of ``written``, items that replaced one with the same key (None: unknown)


class ItemLoader:
    """Puts chunks of items into ``table`` of ``target``; see the module docstring."""

    def __init__(
        self,
        target: Target,
        table: str,
        *,
        attempts: int = 8,
        base_delay: float = 0.05,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.target = target
        self.table = table
        self.attempts = attempts
        self.base_delay = base_delay
        self.sleep = sleep
        self.retries = 0  # how many times a write was retried (throttling, UnprocessedItems, busy file)

    @property
    def chunk_size(self) -> int:
        return 10_000 if self.target.engine is not None else 500

    def write(self, items: list[Item], *, stop_at_error: bool) -> LoadResult:
        if self.target.engine is not None:
            return self._write_engine(items, stop_at_error)
        result = LoadResult()
        for start in range(0, len(items), BATCH):
            batch = items[start : start + BATCH]
            if self._batch(batch, result.written) is not None:
                self._one_by_one(batch, start, result, stop_at_error)
                if stop_at_error and result.errors:
                    return result
            else:
                result.written += len(batch)
        return result

    def _write_engine(self, items: list[Item], stop_at_error: bool) -> LoadResult:
        from singletable.engine import DynamoDBError
        from singletable.engine.shared import bulk_put

        for attempt in range(self.attempts):
            try:
                done = bulk_put(self.target.engine, self.table, items, stop_at_error=stop_at_error)
            except DynamoDBError as error:
                if error.code not in RETRYABLE or attempt == self.attempts - 1:
                    raise LoadRefused(error.code, error.message, 0) from None
                self._backoff(attempt)
                continue
            errors = [(pos, e.code, e.message) for pos, e in done.errors]
            return LoadResult(done.written, errors, done.replaced)
        raise AssertionError("unreachable")

    def _batch(self, batch: list[Item], written: int) -> TargetError | None:
        """One BatchWriteItem with its retries; the ValidationException when DynamoDB refused its content."""
        requests = [{"PutRequest": {"Item": item}} for item in batch]
        for attempt in range(self.attempts):
            try:
                response = self.target.call("BatchWriteItem", RequestItems={self.table: requests})
            except TargetError as error:
                if error.code == "ValidationException":
                    return error
                if error.code not in RETRYABLE or attempt == self.attempts - 1:
                    raise LoadRefused(error.code, error.message, written) from None
                self._backoff(attempt)
                continue
            requests = response.get("UnprocessedItems", {}).get(self.table, [])
            if not requests:
                return None
            if attempt < self.attempts - 1:
                self._backoff(attempt)
        raise LoadRefused(
            "UnprocessedItems",
            f"{len(requests)} items still unprocessed after {self.attempts} attempts (throttled)",
            written,
        )

    def _one_by_one(self, batch: list[Item], start: int, result: LoadResult, stop_at_error: bool) -> None:
        for offset, item in enumerate(batch):
            refused = self._batch([item], result.written)
            if refused is None:
                result.written += 1
                continue
            result.errors.append((start + offset, refused.code, refused.message))
            if stop_at_error:
                return

    def _backoff(self, attempt: int) -> None:
        self.retries += 1
        delay = self.base_delay * (2**attempt)
        self.sleep(delay / 2 + random.uniform(0, delay / 2))
