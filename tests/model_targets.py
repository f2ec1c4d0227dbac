"""Where model-layer tests run: one name per way an application can reach a table.

``engine`` is the embedded engine called natively (no botocore), ``client`` a real boto3 client wired
in-process by ``singletable.client(path)``, ``http`` boto3 over HTTP to the session's ``singletable serve``
subprocess, and ``reference`` DynamoDB Local. The model layer's promise is that application code runs
unchanged on all of them, so its tests take the target as a parameter instead of choosing one.

The same tests run on ``AsyncDB`` too (``api="async"``, for tests marked ``async_twin`` that use ``open_db``):
the engine and the in-process client in ``AsyncDB``'s worker thread, ``http`` and ``reference`` through an
aiobotocore client the test session made on each endpoint (making one costs more than most tests; that
``connect_async`` makes its own from a URL, and closes it, is tests/model/test_async.py's to prove). The test
body is the synchronous one: ``open_db`` hands it the AsyncDB behind :class:`Blocking`, which runs each
awaited call to its end on one event loop thread, so a test and its async twin cannot drift.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import threading
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

import pytest

from backends import SharedTables
from singletable.model import DB, Table, connect, connect_async

ALL_TARGETS = ["engine", "client", "http", "reference"]
APIS = ["sync", "async"]


class EventLoopThread:
    """One asyncio event loop running in a daemon thread for the whole session; ``run(coro)`` waits for it."""

    _shared: EventLoopThread | None = None
    _lock = threading.Lock()

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="async-twins", daemon=True)
        self.thread.start()

    @classmethod
    def shared(cls) -> EventLoopThread:
        with cls._lock:
            if cls._shared is None:
                cls._shared = cls()
            return cls._shared

    def run(self, coroutine: Coroutine[Any, Any, Any]) -> Any:
        if threading.current_thread() is self.thread:
            coroutine.close()
            raise RuntimeError("a blocking call from inside the event loop would wait for itself")
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()


class Blocking:
    """An awaitable API seen synchronously: a coroutine a method returns is run to its end on the loop
    thread, an async iterator becomes an iterator, an async context manager a ``with`` block."""

    def __init__(self, inner: Any, loop: EventLoopThread) -> None:
        object.__setattr__(self, "_inner", inner)
        object.__setattr__(self, "_loop", loop)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._inner, name)
        if not callable(value) or isinstance(value, type):
            return value

        def blocking(*args: Any, **kwargs: Any) -> Any:
            return self._result(value(*args, **kwargs))

        blocking.awaitable = value  # type: ignore[attr-defined]
        return blocking

    def __setattr__(self, name: str, value: Any) -> None:
        """A test that spies on ``db.call`` gives a synchronous function (which calls the ``db.call`` it read
        before): the AsyncDB awaits it in a worker thread; the original, given back, is restored as it was."""
        if callable(value) and not inspect.iscoroutinefunction(value):
            original = getattr(value, "awaitable", None)
            if original is not None:
                value = original
            elif name == "call":
                spy = value

                async def value(operation: str, params: dict[str, Any]) -> dict[str, Any]:
                    return await asyncio.get_running_loop().run_in_executor(None, spy, operation, params)

        setattr(self._inner, name, value)

    def _result(self, result: Any) -> Any:
        if inspect.iscoroutine(result):
            return self._result(self._loop.run(result))
        if inspect.isasyncgen(result):
            return self._iterate(result)
        if hasattr(result, "__aenter__"):
            return Blocking(result, self._loop)
        return result

    def _iterate(self, iterator: Any) -> Iterator[Any]:
        try:
            while True:
                try:
                    yield self._loop.run(iterator.__anext__())
                except StopAsyncIteration:
                    return
        finally:
            self._loop.run(iterator.aclose())

    def __enter__(self) -> Any:
        return self._result(self._inner.__aenter__())

    def __exit__(self, *exc: Any) -> None:
        self._loop.run(self._inner.__aexit__(*exc))


@pytest.fixture
def api() -> str:
    """``sync`` (DB), unless a test marked ``async_twin`` is parametrized over ``APIS`` (conftest)."""
    return "sync"


def parametrize_async_twins(metafunc: pytest.Metafunc) -> None:
    """A ``pytest_generate_tests`` hook: tests marked ``async_twin`` that open a DB (``open_db`` or
    ``shared_db``) run on both APIs, unless marked ``sync_only`` (with the reason: what the synchronous body
    does that an async caller cannot)."""
    definition = metafunc.definition
    twin = definition.get_closest_marker("async_twin") and not definition.get_closest_marker("sync_only")
    if twin and ("open_db" in metafunc.fixturenames or "shared_db" in metafunc.fixturenames):
        metafunc.parametrize("api", APIS, ids=["DB", "AsyncDB"])


def make_async_target(name: str, request: pytest.FixtureRequest) -> Any:
    """What ``connect_async(table, target)`` receives for ``name``."""
    if name == "http":
        return request.getfixturevalue("http_aio_client")
    if name == "reference":
        return request.getfixturevalue("reference_aio_client")
    return make_target(name, request)  # the engine and the in-process client, in a worker thread


def aio_client(endpoint: str) -> Iterator[Any]:
    """An aiobotocore client on a local endpoint, made (and closed) on the async twins' event loop."""
    from aiobotocore.config import AioConfig
    from aiobotocore.session import get_session

    loop = EventLoopThread.shared()
    context = get_session().create_client(
        "dynamodb",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
        config=AioConfig(retries={"max_attempts": 1}, parameter_validation=False),
    )
    client = loop.run(context.__aenter__())
    yield client
    loop.run(context.__aexit__(None, None, None))


@pytest.fixture(scope="session")
def reference_aio_client(reference_server: Any) -> Iterator[Any]:
    """An aiobotocore client on DynamoDB Local, shared by the session's async twins."""
    yield from aio_client(reference_server.endpoint)


@pytest.fixture(scope="session")
def http_aio_client(http_server: Any) -> Iterator[Any]:
    """An aiobotocore client on the session's ``singletable serve``, shared by the session's async twins."""
    yield from aio_client(http_server.endpoint)


def make_target(name: str, request: pytest.FixtureRequest) -> Any:
    """What ``connect(table, target)`` receives for ``name``.

    The engine and the in-process client are each one per session on a real SQLite file (``engine_file``,
    ``model_client_file`` in tests/conftest.py), as the http server and DynamoDB Local are: tests keep apart
    by table name.
    """
    if name == "engine":
        return request.getfixturevalue("engine_file")
    if name == "client":
        return request.getfixturevalue("model_client_file")
    if name == "http":
        return request.getfixturevalue("http_client")
    if name == "reference":
        return request.getfixturevalue("reference_client")
    raise ValueError(f"unknown model target {name!r}; one of {ALL_TARGETS}")


@pytest.fixture(params=ALL_TARGETS)
def target(request: pytest.FixtureRequest, api: str) -> Any:
    """Each test once per target (conftests import this fixture); for ``api="async"``, what
    ``connect_async`` takes."""
    make = make_async_target if api == "async" else make_target
    return make(request.param, request)


@pytest.fixture
def sync_target(request: pytest.FixtureRequest, target: Any, api: str) -> Any:
    """What ``connect(table, target)`` takes to reach the current target's tables, on either API: another
    (synchronous) writer racing the test's DB. An async twin's engine and in-process client are the same
    objects; for ``http`` and ``reference`` it is the session's boto3 client on the endpoint."""
    if api == "sync":
        return target
    return make_target(request.node.callspec.params["target"], request)


def connected(table: Table, target: Any, api: str, name: str, **options: Any) -> Any:
    """``table`` connected to ``target`` under ``name``: a DB, or for ``api="async"`` an AsyncDB behind
    :class:`Blocking`."""
    if api == "async":
        loop = EventLoopThread.shared()
        return Blocking(loop.run(connect_async(table, target, name=name, **options)), loop)
    return connect(table, target, name=name, **options)


def release(db: Any) -> None:
    """A shared table's end: dropped, and its AsyncDB closed."""
    drop_tables([db])
    if isinstance(db, Blocking):
        db.close()


@pytest.fixture(scope="module")
def module_designs() -> Iterator[SharedTables]:
    """The module's tables ``shared_db`` makes (``backends.SharedTables`` through model DBs)."""
    shared = SharedTables(scanner=lambda db: functools.partial(db.call, "Scan"), release=release)
    yield shared
    shared.drop()


@pytest.fixture
def shared_db(
    request: pytest.FixtureRequest, target: Any, api: str, module_designs: SharedTables
) -> Iterator[Callable[..., Any]]:
    """``shared_db(table, fill)``: a DB on the module's shared table of ``table`` on the current target and
    API, made once (created, then ``fill(db)``) for the module's tests that leave it as they found it."""
    opened: list[Any] = []

    def open_(table: Table, fill: Callable[[Any], Any]) -> Any:
        def make(name: str) -> Any:
            maker = connected(table, target, api, name)
            try:
                maker.create_table()
                fill(maker)
            except BaseException:
                release(maker)
                raise
            return maker

        key = (request.node.callspec.params["target"], api, table.name)
        db = connected(table, target, api, module_designs.made(key, make))
        opened.append(db)
        return db

    yield open_
    if api == "async":
        for db in opened:
            db.close()


@pytest.fixture
def open_db(target: Any, table_name: str, api: str) -> Iterator[Callable[..., DB]]:
    """``open_db(table)``: the design connected to the current target under a unique table name, created,
    and dropped afterwards (the server and DynamoDB Local are shared by the whole session). With
    ``api="async"`` the DB is an ``AsyncDB`` behind :class:`Blocking`, closed afterwards."""
    opened: list[Any] = []

    def open_(
        table: Table,
        *,
        table_params: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
        **options: Any,
    ) -> Any:
        """``table_params`` reshapes the CreateTable request (a target without a feature the design uses)."""
        name = f"{table_name}_{len(opened)}"
        db = connected(table, target, api, name, **options)
        opened.append(db)
        if table_params is None:
            db.create_table()
        else:
            db.call("CreateTable", table_params(table.create_table_params(name)))
        return db

    yield open_
    drop_tables(opened)
    if api == "async":
        for db in opened:
            db.close()


def drop_tables(dbs: list[Any]) -> None:
    """A test's teardown: each DB's table deleted (on the shared targets it would stay), one the test already
    dropped, or could not make, passed over."""
    for db in dbs:
        with contextlib.suppress(Exception):
            db.delete_table()
