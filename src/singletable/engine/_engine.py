"""The Engine: DynamoDB's API over one SQLite database.

Each API operation lives in its own module under ``operations/`` as ``run(engine, params) -> response``,
listed in :mod:`registry`; this class only opens storage, keeps the table catalog warm and routes calls.
Methods are named like the boto3 client's (``put_item``, ``query``...) and take the same keyword arguments, so
code written against a boto3 client runs on an Engine unchanged; :meth:`execute` takes the wire name
(``"PutItem"``) for transports.
"""

from __future__ import annotations

import functools
import importlib
import re
import sqlite3
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from singletable.engine._background import BackgroundThreads, Subscription
from singletable.engine._errors import DynamoDBError, ValueProblem, unencodable
from singletable.engine._import_state import IMPORT_OWNER
from singletable.engine._registry import (
    BY_NAME,
    CACHED_CATALOG_READS,
    CATALOG_CHECKED_IN_WRITE,
    READ_OPERATIONS,
    REGISTRY,
    STREAMS_OPERATIONS,
    UNSUPPORTED_OPERATIONS,
    VALUE_WORDINGS,
    module_path,
)
from singletable.engine._schema import TableSchema
from singletable.engine._storage import BusyTimeout, ReadOnlyDatabase, Storage, is_busy, retry_while_busy
from singletable.engine._table_descriptions import check_table_name
from singletable.engine._validation import SHAPES, check_input
from singletable.engine._vector_search import VectorMatrices

# An operation module's ``run(engine, params, **options) -> response``.
Handler = Callable[..., dict[str, Any]]

# Reads trust the cached catalog for this long before asking SQLite whether another process changed it;
# every other operation asks first (its write transaction dwarfs the check), and so does any lookup of a
# table the cache does not know. Which operations are which is the registry's data (``cached_catalog``,
# ``writes``).
READ_CATALOG_TTL = 0.05
# The item operations are imported when an Engine is built rather than inside the first such call: their
# imports (the expression compiler above all) took ~25 ms, which the first PutItem of a process used to pay.
PRELOADED_OPERATIONS = tuple(op.name for op in REGISTRY if op.writes or op.cached_catalog)


if TYPE_CHECKING:  # the operation methods made below, declared with their types
    from singletable.engine._operation_methods import OperationMethods
else:
    OperationMethods = object


class _CatalogChanged(Exception):
    """Raised inside a write transaction whose request was prepared against a catalog now out of date."""


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def read_only_refusal(operation: str, path: str) -> DynamoDBError:
    """What a read-only engine answers to an operation that would change its database."""
    return DynamoDBError(
        "AccessDeniedException",
        f"{operation} refused: the database {path} is opened read-only, so nothing can be written to it",
    )


class Engine(OperationMethods):
    """DynamoDB on SQLite. ``Engine(":memory:")`` or ``Engine("app.db")`` (created if missing).

    ``Engine("app.db", read_only=True)`` reads an existing file and never changes it: not one byte, not its
    modification time. It runs no background work (no TTL sweep -- expired items stay readable, as DynamoDB
    returns them until its TTL process deletes them --, no index backfill, no checkpoint), never creates or
    upgrades the storage schema, and answers every operation that would write with AccessDeniedException. A
    missing file is ``FileNotFoundError``; a file of an older layout ``UpgradeNeeded``, of a newer one
    ``UnsupportedSchemaVersion``, a SQLite file singletable did not write ``NotASingletableDatabase`` (all
    three ``sqlite3.DatabaseError``). A read-only or immutable file, or one in a read-only directory, can be
    read.
    """

    region = "us-east-1"
    # AWS's documentation example account. Not 000000000000, which DynamoDB Local's ARNs carry and the
    # Parity Suite (validated on AWS) uses as another account's: a foreign ARN is AccessDeniedException.
    account = "123456789012"
    # A test's fault plan (``singletable.testing.FaultPlan``; the protocol's ``RequestHook``): while set, the
    # transports' dispatcher hands every API request to it instead of answering it. Never set outside tests.
    faults: Any = None

    def __init__(
        self,
        path: str = ":memory:",
        *,
        durable: bool = False,
        clock: Callable[[], float] | None = None,
        ttl_sweep_interval: float = 1.0,
        read_only: bool = False,
        _copy_of: Engine | None = None,
    ) -> None:
        self.path = path
        self.read_only = read_only
        # Epoch seconds as TTL sees them: inject a clock to fast-forward expiry in tests.
        self.clock: Callable[[], float] = clock or time.time
        self.background = BackgroundThreads(self, ttl_sweep_interval, enabled=not read_only)
        self.storage: Storage = Storage(
            path, durable=durable, read_only=read_only, copy_of=None if _copy_of is None else _copy_of.storage
        )
        # In-memory copies of the vector indexes searched, patched by each committed write (numpy only
        # when an index is searched).
        self.vectors = VectorMatrices(self.storage)
        self.storage.on_vector_commit = self.vectors.committed
        self._tables: dict[str, TableSchema] = {}
        # Tables an import is filling (CREATING): described and listed, never read or written (see
        # ``_imports``).
        self._creating: dict[str, TableSchema] = {}
        self._catalog_version = -1
        self._data_version = -1
        self._routes: dict[str, tuple[Handler, str]] = {}
        # The same routes for answers the wire codec encodes (see execute's ``for_wire``).
        self._wire_routes: dict[str, tuple[Handler, str]] = {}
        self._catalog_checked = 0.0
        self._write_verified = False
        # Bound once: Storage.on_begin during every item write (see execute_write).
        self._on_write_begin = self._check_catalog_in_write
        # ":memory:" is this connection's own database: no other connection can change its catalog (and
        # PRAGMA data_version never moves for our own commits), so its requests skip the catalog checks.
        # (A read-only engine is never private: execute tests this first, then read_only.)
        self._private = path == ":memory:" and not read_only
        with self.storage.lock:
            self.refresh_catalog()
        for operation in PRELOADED_OPERATIONS:
            self._route(operation)

    # -- lifecycle ----------------------------------------------------------------------------------------

    def close(self) -> None:
        self.background.stop()
        self.storage.close()

    # -- background work: TTL, index backfill, stream subscriptions ---------------------------------------

    def expire_items(self) -> int:
        """Run one TTL sweep now (as the background sweeper does); returns how many items it deleted."""
        if self.read_only:
            raise read_only_refusal("A TTL sweep", self.path)
        return self.background.expire_items()

    def subscribe(
        self,
        table_name: str,
        handler: Callable[[dict[str, Any]], Any],
        *,
        batch_size: int = 100,
        starting_position: str = "LATEST",
        poll_interval: float = 0.05,
    ) -> Subscription:
        """Call ``handler({"Records": [...]})`` from a background thread for the table's stream records,
        like a Lambda trigger: in order, at least once (a batch whose handler raises is retried).
        ``starting_position`` is ``"LATEST"`` or ``"TRIM_HORIZON"``. Returns a handle with ``close()``."""
        return self.background.subscribe(table_name, handler, batch_size, starting_position, poll_interval)

    def copy(self, path: str = ":memory:") -> Engine:
        """A new Engine on a copy of this one's database -- tables, indexes, items, streams -- made with
        SQLite's backup API (a page copy: ~1 ms for a few thousand items), so a test suite can build its
        schema and seed once and give every test its own copy. ``path``: ``":memory:"`` or a new file. The
        copy keeps this engine's clock."""
        return Engine(path, clock=self.clock, _copy_of=self)

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- catalog ------------------------------------------------------------------------------------------

    def refresh_catalog(self) -> None:
        """Re-read table definitions when another connection (another process) changed them."""
        self._catalog_checked = time.monotonic()
        data_version = self.storage.data_version()
        if data_version == self._data_version:
            return
        self._data_version = data_version
        version = self.storage.catalog_version()
        if version != self._catalog_version:
            self._load_catalog(version)

    def _load_catalog(self, version: int) -> None:
        self._catalog_version = version
        tables = {
            name: TableSchema.from_description(table_id, description)
            for name, (table_id, description) in self.storage.load_tables().items()
        }
        self._creating = {name: table for name, table in tables.items() if IMPORT_OWNER in table.description}
        self._tables = {name: schema for name, schema in tables.items() if name not in self._creating}
        self.background.catalog_loaded(self._tables)
        # Matrices of vector indexes the catalog no longer has (dropped indexes and tables) are let go.
        self.vectors.retain(
            {
                (schema.table_id, index.index_id)
                for schema in self._tables.values()
                for index in schema.vector_indexes.values()
            }
        )

    def _check_catalog_in_write(self) -> None:
        """``Storage.on_begin`` during an item write: right after BEGIN IMMEDIATE, is our catalog current?

        Inside the transaction ``PRAGMA data_version`` costs no lock calls (outside one it opens a read
        transaction of its own, which was a tenth of a PutItem), and the answer holds until COMMIT.
        """
        storage = self.storage
        data_version = storage.data_version()
        if data_version != self._data_version:
            self._data_version = data_version
            version = storage.catalog_version()
            if version != self._catalog_version:
                self._load_catalog(version)
                raise _CatalogChanged
        self._write_verified = True

    def catalog_changed(self) -> None:
        """Called by DDL operations inside their write transaction, after changing the catalog."""
        self._load_catalog(self.storage.catalog_version())

    def find_table(self, name: str) -> TableSchema | None:
        return self._tables.get(name)

    def creating_table(self, name: str) -> TableSchema | None:
        """A table an import is still filling (CREATING), or None."""
        return self._creating.get(name)

    def creating_names(self) -> list[str]:
        return sorted(self._creating)

    def table(self, name: str) -> TableSchema:
        """The table, or DynamoDB's ResourceNotFoundException."""
        schema = self._tables.get(name)
        if schema is None:
            self.refresh_catalog()
            schema = self._tables.get(name)
        if schema is None:
            check_table_name(name)
            raise DynamoDBError("ResourceNotFoundException", "Requested resource not found")
        return schema

    def table_names(self) -> list[str]:
        return sorted(self._tables)

    def arn(self, table: str, index: str | None = None) -> str:
        base = f"arn:aws:dynamodb:{self.region}:{self.account}:table/{table}"
        return base if index is None else f"{base}/index/{index}"

    # -- dispatch -----------------------------------------------------------------------------------------

    def _route(self, operation: str, for_wire: bool = False) -> tuple[Handler, str]:
        """The operation's registered handler and input shape (its module is imported on first use).

        Each operation has two routes: the plain one (the Python API, :meth:`invoke`) and the wire's, which
        for the registry's ``wire_items`` reads is their ``run`` with ``for_wire=True`` bound.
        """
        route = (self._wire_routes if for_wire else self._routes).get(operation)
        if route is None:
            entry = BY_NAME.get(operation)
            if operation in UNSUPPORTED_OPERATIONS:
                raise DynamoDBError(
                    "UnknownOperationException",
                    f"{operation} is an AWS-only operation that singletable does not support locally",
                )
            if entry is None:
                raise DynamoDBError(
                    "UnknownOperationException", f"The operation {operation} is not supported by singletable"
                )
            module = importlib.import_module(module_path(entry))
            self._routes[operation] = (module.run, entry.shape)
            wire_run = functools.partial(module.run, for_wire=True) if entry.wire_items else module.run
            self._wire_routes[operation] = (wire_run, entry.shape)
            route = (self._wire_routes if for_wire else self._routes)[operation]
        return route

    def execute(self, operation: str, params: dict[str, Any], *, for_wire: bool = False) -> dict[str, Any]:
        """Run one API call by its wire name (``"PutItem"``) with the request's parameters.

        The request's shape is checked here, once, before the operation runs: DynamoDB rejects a malformed
        request before it looks at any table, so these errors win over every other.

        ``for_wire=True`` (the protocol's dispatcher, whose answer ``orjson.dumps`` encodes at once): a
        GetItem, Query or Scan answers the items it returns whole (no filter, projection or COUNT) as
        ``orjson.Fragment`` of their stored JSON, not dicts -- the stored text already is their wire JSON,
        so decoding it only to encode it again is skipped (for a 10-item Query, most of the codec's work).
        The choice is the route taken, not state on the engine: operations run from inside this one
        (:meth:`invoke`, PartiQL's) always get dicts.
        """
        routes = self._wire_routes if for_wire else self._routes
        handler, shape = routes.get(operation) or self._route(operation, for_wire)
        try:
            check_input(SHAPES, shape, params)
            if self._private:  # see __init__; and with no other connection, the database is never busy
                with self.storage.lock:
                    return handler(self, params)
            if self.read_only:
                return self._execute_read_only(operation, handler, params)
            storage = self.storage
            commits = storage.commits
            try:
                if operation in CATALOG_CHECKED_IN_WRITE:  # an item write: _execute's first branch
                    with storage.lock:
                        return self.execute_write(handler, params)
                return self._execute(operation, handler, params)
            except sqlite3.OperationalError as error:
                if not self._may_retry(error, commits):
                    raise
                return self._retry(operation, handler, params, commits)
        except UnicodeEncodeError as error:  # a lone surrogate: nothing written (or rolled back)
            raise unencodable(error) from None
        except ValueProblem as problem:  # a malformed value, in the wording of the operation's layer
            raise problem.worded(VALUE_WORDINGS[operation]) from None

    def _retry(
        self, operation: str, handler: Handler, params: dict[str, Any], commits: int
    ) -> dict[str, Any]:
        """:meth:`execute`'s request again, for as long as the database stays busy (see :meth:`_may_retry`).

        Its own method so that :meth:`execute`, which every request runs, holds no closure (a closure's
        variables are cells, built on every call)."""
        return retry_while_busy(
            lambda: self._execute(operation, handler, params),
            lambda again: self._may_retry(again, commits),
            self.storage.busy_timeout,
        )

    def invoke(self, operation: str, params: dict[str, Any], **options: Any) -> dict[str, Any]:
        """Run one operation from inside another (PartiQL runs its statements through the item operations):
        the shape check and the registered handler, without :meth:`execute`'s lock and catalog handling,
        which the outer call already holds. ``options`` go to the handler (Query's ``key_filter``). Always the
        plain route: the caller reads the answer's items as dicts, even inside a call made ``for_wire``."""
        handler, shape = self._routes.get(operation) or self._route(operation)
        check_input(SHAPES, shape, params)
        if self.read_only and operation not in READ_OPERATIONS:
            raise read_only_refusal(operation, self.path)
        return handler(self, params, **options)

    def _execute_read_only(self, operation: str, handler: Handler, params: dict[str, Any]) -> dict[str, Any]:
        """:meth:`execute` on a read-only engine: reads as usual, anything else refused before it runs (and,
        should a write be attempted all the same, the storage's refusal is answered alike)."""
        if operation not in READ_OPERATIONS:
            raise read_only_refusal(operation, self.path)
        try:
            try:
                return self._execute(operation, handler, params)
            except sqlite3.OperationalError as error:
                if not is_busy(error) or isinstance(error, BusyTimeout):
                    raise
                return retry_while_busy(
                    lambda: self._execute(operation, handler, params),
                    lambda again: is_busy(again) and not isinstance(again, BusyTimeout),
                    self.storage.busy_timeout,
                )
        except ReadOnlyDatabase:
            raise read_only_refusal(operation, self.path) from None
        except sqlite3.OperationalError as error:  # SQLite's own refusal (mode=ro): the same answer
            if not getattr(error, "sqlite_errorname", "").startswith("SQLITE_READONLY"):
                raise
            raise read_only_refusal(operation, self.path) from None

    def _may_retry(self, error: sqlite3.OperationalError, commits: int) -> bool:
        """SQLite found the database busy outside a write's BEGIN (another process was recovering the WAL
        index) and this request has committed nothing: running it again is safe."""
        return not isinstance(error, BusyTimeout) and is_busy(error) and self.storage.commits == commits

    def _execute(self, operation: str, handler: Handler, params: dict[str, Any]) -> dict[str, Any]:
        with self.storage.lock:
            if operation in CATALOG_CHECKED_IN_WRITE:
                return self.execute_write(handler, params)
            if (
                operation not in CACHED_CATALOG_READS
                or time.monotonic() - self._catalog_checked > READ_CATALOG_TTL
            ):
                self.refresh_catalog()
            return handler(self, params)

    def execute_write(self, handler: Handler, params: dict[str, Any]) -> dict[str, Any]:
        """Run an item write that checks the catalog inside its transaction, not before it.

        The request is prepared against the cached catalog; :meth:`_check_catalog_in_write` confirms it
        after BEGIN IMMEDIATE. If another process changed the catalog, the transaction rolls back and the
        request runs again on the new catalog. An error raised before
        that confirmation (a validation error, a busy database) is only answered once the catalog is known
        to be current, so the answers are the same as checking first.
        """
        storage = self.storage
        storage.on_begin = self._on_write_begin
        self._write_verified = False
        try:
            return handler(self, params)
        except _CatalogChanged:
            pass
        except DynamoDBError:
            if self._write_verified:
                raise
            previous = self._catalog_version
            self.refresh_catalog()
            if self._catalog_version == previous:
                raise
        finally:
            storage.on_begin = None
        self.refresh_catalog()
        return handler(self, params)

    def execute_streams(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        """Run one DynamoDB Streams API call by its wire name (``"GetRecords"``); for transports."""
        if operation not in STREAMS_OPERATIONS:
            raise DynamoDBError("UnknownOperationException", f"The operation {operation} is not supported")
        return self.execute(operation, params)


def _method(operation: str) -> Callable[..., dict[str, Any]]:
    def call(self: Engine, **params: Any) -> dict[str, Any]:
        return self.execute(operation, params)

    call.__name__ = _snake(operation)
    call.__qualname__ = f"Engine.{call.__name__}"
    call.__doc__ = f"DynamoDB {operation}, with the boto3 client's keyword arguments and response."
    return call


for _operation in (*(op.name for op in REGISTRY), *sorted(UNSUPPORTED_OPERATIONS)):
    setattr(Engine, _snake(_operation), _method(_operation))
