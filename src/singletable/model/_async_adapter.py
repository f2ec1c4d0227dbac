"""The async door to DynamoDB: aiobotocore for endpoints, a worker thread for the engine and boto3 clients.

``AsyncDB`` awaits ``adapter.call(operation, params)`` and gets the same AttributeValue dicts and the same
:class:`~singletable.model.RequestError` family as ``DB`` does from :mod:`singletable.model._adapter`:

- an ``http(s)://`` URL, or an aiobotocore client the application made, is called natively async
  (:class:`AioBotocoreAdapter`; the ``async`` extra);
- the embedded engine is synchronous (SQLite), so each call runs in a worker thread and the event loop keeps
  running meanwhile (:class:`ThreadedAdapter`). The Engine is made for that: its one SQLite connection is
  opened with ``check_same_thread=False`` and every request runs under the storage's lock, which is how the
  HTTP server's threads already share it. One worker thread per adapter: the engine runs one request at a
  time anyway, so more threads would only queue on its lock;
- a synchronous boto3 client (the in-process ``singletable.client(path)``) runs in worker threads likewise.
"""

from __future__ import annotations

import asyncio
import queue
import sys
import threading
from typing import Any

from singletable._client import DEFAULT_REGION, DUMMY_CREDENTIALS, has_configured_credentials
from singletable._extras import require
from singletable.engine import Engine
from singletable.model._adapter import Adapter, Boto3Adapter, EngineAdapter, client_request_error, snake

# Worker threads for a synchronous boto3 client (its requests may wait on a network; the engine's do not).
CLIENT_WORKERS = 4
_session_lock = threading.Lock()
_shared_session: Any = None


class AsyncAdapter:
    """``await call("PutItem", params) -> response``; ``native``: whether an Engine answers in-process."""

    native = False

    async def call(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def supports(self, operation: str) -> bool:
        return True

    async def close(self) -> None:
        """Release what the adapter opened itself (an engine, an aiobotocore client, worker threads)."""


class ThreadedAdapter(AsyncAdapter):
    """A synchronous :class:`~singletable.model.Adapter` (the engine, a boto3 client) called in worker
    threads of its own, so a request never blocks the event loop.

    Each call puts (loop, future, operation, params) on a queue; a worker runs it and settles the future
    through ``loop.call_soon_threadsafe``. That is ``run_in_executor`` without its two layers of futures: a
    third of the Python calls an awaited engine request costs on the loop (106 instead of 180 per get). With
    one worker (the engine's case) requests run in the order they were sent; one whose task was cancelled
    before it started is not run.
    """

    def __init__(self, inner: Adapter, workers: int = 1) -> None:
        self.inner = inner
        self.native = inner.native
        self._call = inner.call
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._workers = [
            threading.Thread(target=self._work, name="singletable-async", daemon=True) for _ in range(workers)
        ]
        for worker in self._workers:
            worker.start()
        self._closed = False

    async def call(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        future = asyncio.get_running_loop().create_future()
        self._jobs.put((future, operation, params))
        return await future

    def supports(self, operation: str) -> bool:
        return self.inner.supports(operation)

    async def close(self) -> None:
        """Close the inner adapter after the requests sent before, then let the workers end."""
        if self._closed:
            return
        self._closed = True
        await self.call(_CLOSE, {})
        for _ in self._workers:
            self._jobs.put(None)

    def _work(self) -> None:
        while (job := self._jobs.get()) is not None:
            future, operation, params = job
            if future.cancelled():
                continue
            try:
                # a close job's result is None, what close() returns
                result = self.inner.close() if operation is _CLOSE else self._call(operation, params)  # type: ignore[func-returns-value]
            except Exception as error:
                _answer(future, None, error)
            else:
                _answer(future, result, None)


# The job that closes a ThreadedAdapter's inner adapter in its worker, after the requests queued before it.
_CLOSE: Any = object()


def _answer(future: asyncio.Future[Any], result: Any, error: Exception | None) -> None:
    """Settle ``future`` from a worker thread, on its loop (dropped if the loop has closed meanwhile)."""
    try:
        future.get_loop().call_soon_threadsafe(_settle, future, result, error)
    except RuntimeError:  # the event loop is closed: nobody is waiting any more
        pass


def _settle(future: asyncio.Future[Any], result: Any, error: Exception | None) -> None:
    if future.cancelled():
        return
    if error is None:
        future.set_result(result)
    else:
        future.set_exception(error)


class AioBotocoreAdapter(AsyncAdapter):
    """An aiobotocore DynamoDB client; ``context`` is the client's context when the adapter made it (closed
    with the adapter), None for a client the application made and closes itself."""

    def __init__(self, client: Any, context: Any = None) -> None:
        from botocore.exceptions import ClientError  # the async extra: loaded only for an endpoint

        self.client = client
        self._context = context
        self._methods: dict[str, Any] = {}
        self._client_error = ClientError

    async def call(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        method = self._methods.get(operation)
        if method is None:
            method = self._methods[operation] = getattr(self.client, snake(operation))
        try:
            return await method(**params)
        except self._client_error as error:
            raise client_request_error(error) from None

    async def close(self) -> None:
        if self._context is not None:
            context, self._context = self._context, None
            await context.__aexit__(None, None, None)


def _session() -> Any:
    """One aiobotocore session per process: its loader keeps the parsed service model, so each client after
    the first is cheap to make (a session of its own per client parsed DynamoDB's model every time)."""
    global _shared_session
    with _session_lock:
        if _shared_session is None:
            from aiobotocore.session import get_session

            _shared_session = get_session()
        return _shared_session


async def endpoint_adapter(url: str) -> AioBotocoreAdapter:
    """An aiobotocore client for ``url`` (region and credentials from the environment or profile, else
    placeholders as for ``singletable.client(url)``), closed with the adapter."""
    require("async", ("aiobotocore",), "connect_async() to an endpoint")
    session = _session()
    options: dict[str, Any] = {"endpoint_url": url}
    if not session.get_config_variable("region"):
        options["region_name"] = DEFAULT_REGION
    if not has_configured_credentials():
        options.update(DUMMY_CREDENTIALS)
    context = session.create_client("dynamodb", **options)
    client = await context.__aenter__()
    return AioBotocoreAdapter(client, context)


def _is_aiobotocore_client(target: Any) -> bool:
    """Whether ``target`` is an aiobotocore client (whose module is loaded if the application made one)."""
    module = sys.modules.get("aiobotocore.client")
    return module is not None and isinstance(target, module.AioBaseClient)


async def adapt_async(target: Any) -> AsyncAdapter:
    """An async adapter for an Engine, a SQLite path / ":memory:", an http(s) URL, an aiobotocore client,
    a boto3 client or a synchronous :class:`~singletable.model.Adapter`."""
    if isinstance(target, AsyncAdapter):
        return target
    if isinstance(target, Adapter):
        return ThreadedAdapter(target)
    if isinstance(target, str):
        if target.startswith(("http://", "https://")):
            return await endpoint_adapter(target)
        return ThreadedAdapter(EngineAdapter(Engine(target), owned=True))
    if isinstance(target, Engine):
        return ThreadedAdapter(EngineAdapter(target))
    if _is_aiobotocore_client(target):
        return AioBotocoreAdapter(target)
    if hasattr(target, "meta") and hasattr(target, "get_item"):
        return ThreadedAdapter(Boto3Adapter(target), workers=CLIENT_WORKERS)
    raise TypeError(
        "connect_async() needs an Engine, an aiobotocore or boto3 DynamoDB client, a path or a URL, "
        f"not {target!r}"
    )
