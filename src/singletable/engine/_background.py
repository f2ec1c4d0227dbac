"""The engine's background threads: the TTL sweeper, index backfills and stream subscriptions.

Everything here is a daemon thread owned by one Engine (``Engine.background``) and stopped by
``Engine.close()``. Threads are started lazily, when the catalog first shows a reason for them (a table with
TTL enabled, an index in ``CREATING``) or when the user subscribes, so an engine that uses none of these
features runs no thread. Every thread does its work in short transactions under the storage lock, like any
other caller. (These are threads inside one process; ``singletable serve --workers`` means processes.)
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from singletable.engine import _backfill as backfill
from singletable.engine import _stream_records as stream_records
from singletable.engine import _ttl as ttl
from singletable.engine._errors import DynamoDBError, validation
from singletable.engine._schema import TableSchema
from singletable.engine._storage import Storage

log = logging.getLogger("singletable.engine")

Handler = Callable[[dict[str, Any]], Any]
RETRY_DELAY = 0.5


class BackgroundEngine(Protocol):
    """What the background threads (and the TTL sweep and index backfill they run) use of the engine."""

    @property
    def storage(self) -> Storage: ...

    @property
    def region(self) -> str: ...

    @property
    def clock(self) -> Callable[[], float]: ...

    def refresh_catalog(self) -> None: ...

    def find_table(self, name: str) -> TableSchema | None: ...

    def table(self, name: str) -> TableSchema: ...

    def table_names(self) -> list[str]: ...

    def catalog_changed(self) -> None: ...


class Subscription:
    """A running in-process stream subscription; ``close()`` (or ``unsubscribe()``) stops it.

    Delivery is at least once and in order: the position advances only after the handler returns, so a
    batch whose handler raises is delivered again (after a short pause) until it succeeds.
    """

    def __init__(
        self,
        engine: BackgroundEngine,
        table_name: str,
        handler: Handler,
        batch_size: int,
        position: int,
        poll: float,
    ) -> None:
        self.engine = engine
        self.table_name = table_name
        self.handler = handler
        self.batch_size = batch_size
        self.position = position  # the next sequence number to deliver
        self.poll = poll
        self.delivered = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name=f"singletable-subscription-{table_name}", daemon=True
        )
        self._thread.start()

    def _batch(self) -> list[dict[str, Any]]:
        engine = self.engine
        storage = engine.storage
        with storage.lock:
            found = storage.streams(self.table_name)
            if not found:
                return []
            arns = {stream_id: stream["StreamArn"] for stream_id, stream in found}
            rows = storage.stream_records(
                tuple(arns), self.position, self.batch_size, time.time() - stream_records.RETENTION_SECONDS
            )
        records = []
        for seq, stream_id, created, stored in rows:
            record = stream_records.render(seq, created, stored, engine.region)
            record["eventSourceARN"] = arns[stream_id]
            records.append(record)
        return records

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                records = self._batch()
            except Exception:  # the database closed under us, or a transient lock problem
                if self._stop.wait(RETRY_DELAY):
                    return
                continue
            if not records:
                self._stop.wait(self.poll)
                continue
            try:
                self.handler({"Records": records})
            except Exception:
                log.exception(
                    "stream subscription handler for %s failed; retrying the batch", self.table_name
                )
                self._stop.wait(RETRY_DELAY)
                continue
            self.position = int(records[-1]["dynamodb"]["SequenceNumber"]) + 1
            self.delivered += len(records)

    def close(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout)

    unsubscribe = close

    @property
    def active(self) -> bool:
        return self._thread.is_alive()


class BackgroundThreads:
    """The background threads of one engine: started as the catalog calls for them, stopped together."""

    def __init__(self, engine: BackgroundEngine, ttl_interval: float, *, enabled: bool = True) -> None:
        self.engine = engine
        self.ttl_interval = ttl_interval
        # False for a read-only engine: the TTL sweep and index backfills write, so none is ever started
        # (stream subscriptions only read, and still run).
        self.enabled = enabled
        self._stop = threading.Event()
        self._sweeper: threading.Thread | None = None
        self._backfills: dict[tuple[str, str, int], threading.Thread] = {}
        self._subscriptions: list[Subscription] = []
        self._lock = threading.Lock()

    def catalog_loaded(self, tables: dict[str, TableSchema]) -> None:
        """Start whatever background work the catalog now calls for."""
        if self._stop.is_set() or not self.enabled:
            return
        with self._lock:
            if self._sweeper is None and any(ttl.ttl_attribute(t.description) for t in tables.values()):
                self._sweeper = threading.Thread(target=self._sweep_loop, name="singletable-ttl", daemon=True)
                self._sweeper.start()
            if not backfill.AUTO_START:
                return
            for key in backfill.pending(tables.values()):
                running = self._backfills.get(key)
                if running is None or not running.is_alive():
                    thread = threading.Thread(
                        target=self._backfill, args=key, name=f"singletable-backfill-{key[1]}", daemon=True
                    )
                    self._backfills[key] = thread
                    thread.start()

    def _backfill(self, table: str, index: str, index_id: int) -> None:
        try:
            backfill.run(self.engine, table, index, index_id, self._stop)
        except Exception:
            if not self._stop.is_set():
                log.exception("backfill of index %s on %s failed", index, table)

    def _sweep_loop(self) -> None:
        while not self._stop.wait(self.ttl_interval):
            try:
                ttl.sweep(self.engine)
            except Exception:
                if self._stop.is_set():
                    return
                log.exception("TTL sweep failed")

    def run_backfills(self) -> None:
        """Finish every pending backfill in the calling thread (for tests and tools)."""
        engine = self.engine
        with engine.storage.lock:
            engine.refresh_catalog()
            keys = backfill.pending([engine.table(name) for name in engine.table_names()])
        for key in keys:
            backfill.run(self.engine, *key)

    def expire_items(self) -> int:
        return ttl.sweep(self.engine)

    def subscribe(
        self, table_name: str, handler: Handler, batch_size: int, starting_position: str, poll: float
    ) -> Subscription:
        if not 1 <= batch_size <= 10000:
            raise validation("batch_size must be between 1 and 10000")
        engine = self.engine
        with engine.storage.lock:
            engine.refresh_catalog()
            schema = engine.find_table(table_name)
            if schema is None:
                raise DynamoDBError(
                    "ResourceNotFoundException",
                    f"Requested resource not found: Table: {table_name} not found",
                )
            if "_StreamId" not in schema.description:
                raise validation(
                    f"Table {table_name} has no stream enabled; enable StreamSpecification first"
                )
            if starting_position == "LATEST":
                position = engine.storage.last_stream_seq() + 1
            elif starting_position == "TRIM_HORIZON":
                position = 0
            else:
                raise validation("starting_position must be LATEST or TRIM_HORIZON")
        subscription = Subscription(engine, table_name, handler, batch_size, position, poll)
        with self._lock:
            self._subscriptions = [s for s in self._subscriptions if s.active]
            self._subscriptions.append(subscription)
        return subscription

    def stop(self) -> None:
        self._stop.set()
        with self._lock:
            threads = [t for t in (self._sweeper, *self._backfills.values()) if t is not None]
            subscriptions = list(self._subscriptions)
        for subscription in subscriptions:
            subscription.close()
        current = threading.current_thread()
        for thread in threads:
            if thread is not current:
                thread.join(5.0)
