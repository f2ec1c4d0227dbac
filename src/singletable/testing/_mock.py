"""``mock_dynamodb()``: every botocore DynamoDB client in the process, answered by an embedded engine.

One :class:`MockDynamoDB` is a context manager, a decorator (functions, coroutine functions, classes) and an
object with ``start()`` / ``stop()``. While one is active, every ``dynamodb`` and ``dynamodbstreams``
request made by botocore -- boto3 clients and resources created before or after it started, in any thread,
aiobotocore / aioboto3, PynamoDB -- is answered in-process by its :class:`~singletable.engine.Engine`
(see :mod:`singletable.testing._patch` for where). Other services are untouched, so moto's ``mock_aws()``
active at the same time keeps S3, SQS and the rest. Mocks nest: the innermost active one answers.

While active, dummy credentials (and a region, unless one is set) are in ``os.environ``, as moto does, so
code that builds its own clients never reaches real credentials; ``stop()`` restores ``os.environ`` and
every patched attribute exactly as they were.

Tables live in a region, as on AWS (and in moto and DynamoDB Local): the mock's own engine holds the tables
of its region -- ``region=``, else the region of the first request it answers -- and a client of any other
region is answered by that region's own in-memory engine, made on its first request.
"""

from __future__ import annotations

import functools
import inspect
import os
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from singletable._extras import require
from singletable._protocol.dispatcher import Reply
from singletable.engine import Engine
from singletable.testing._calls import Call, CallLog, RecordingDispatcher
from singletable.testing._patch import Patches

_F = TypeVar("_F")

DUMMY_ENVIRONMENT = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SECURITY_TOKEN": "testing",
    "AWS_SESSION_TOKEN": "testing",
}
DEFAULT_REGION = "us-east-1"
_REGION_VARIABLES = ("AWS_DEFAULT_REGION", "AWS_REGION")

# The active mocks, innermost last, and the patches they share (installed by the first, removed by the last).
_active: list[MockDynamoDB] = []
_state_lock = threading.RLock()
_patches = Patches()

# A request hook: (MockRequest) -> Reply or None. Consulted in order before the engine; the first Reply
# answers the request (e.g. an injected fault), None lets the engine answer.
RequestHook = Callable[["MockRequest"], "Reply | None"]


class MockRequest:
    """One in-process request as the mock's handler sees it: ``service`` (``dynamodb`` or
    ``dynamodbstreams``), ``operation`` (``"PutItem"``; empty when the target is unknown), ``target`` (the
    X-Amz-Target header), ``body`` (the request's JSON bytes), ``region`` (the client's region; None when
    botocore did not say)."""

    __slots__ = ("body", "operation", "region", "service", "target")

    def __init__(self, service: str, target: str | None, body: bytes, region: str | None = None) -> None:
        self.service = service
        self.target = target
        self.body = body
        self.region = region
        self.operation = target.rpartition(".")[2] if target else ""


def innermost() -> MockDynamoDB | None:
    """The innermost active mock (the one answering now), or None."""
    try:
        return _active[-1]
    except IndexError:  # none active (also when the last one stops in another thread right now)
        return None


def _responder() -> Any:
    """The answering function of the innermost active mock, or None (patches then pass requests on)."""
    try:
        return _active[-1]._respond
    except IndexError:  # none active (also when the last one stops in another thread right now)
        return None


class MockDynamoDB:
    """An embedded engine answering botocore's DynamoDB requests while active.

    ``target``: ``":memory:"`` (the default, a fresh database per start), a SQLite file path, or an
    :class:`~singletable.engine.Engine` (kept open on stop: it is the caller's). ``region``: the region whose
    tables ``target`` holds; None (the default) makes it the region of the first request answered. Requests
    of clients in other regions are answered by engines of their own (:meth:`engine_for`).
    """

    def __init__(
        self, target: str | os.PathLike[str] | Engine = ":memory:", *, region: str | None = None
    ) -> None:
        self._target = target
        self.region = region
        self._engine: Engine | None = None
        self._dispatcher: RecordingDispatcher | None = None
        # Other regions' engines and dispatchers, made on their first request; closed on stop.
        self._regions: dict[str, tuple[Engine, RecordingDispatcher]] = {}
        self._log = CallLog()
        self._saved_env: dict[str, str | None] = {}
        self._owns_engine = False
        self.request_hooks: list[RequestHook] = []

    # -- the engine ---------------------------------------------------------------------------------------

    @property
    def engine(self) -> Engine:
        """The engine answering requests (made on first use, so it can be seeded before ``start()``)."""
        if self._engine is None:
            target = self._target
            if isinstance(target, Engine):
                self._engine = target
            else:
                self._engine = Engine(os.fspath(target))
                self._owns_engine = True
        return self._engine

    def use_engine(self, engine: Engine) -> None:
        """Answer from ``engine`` from now on (the caller keeps it: it is not closed on stop). The pytest
        plugin gives each test its own copy of a session's seeded engine this way."""
        self._close_owned()
        self._engine = engine
        self._owns_engine = False
        self._dispatcher = None

    def engine_for(self, region: str) -> Engine:
        """The engine holding ``region``'s tables: :attr:`engine` for the mock's own region (which becomes
        ``region`` if none is set yet), else that region's own in-memory engine, made now if needed."""
        return self._answering(region)[0]

    def _answering(self, region: str | None) -> tuple[Engine, RecordingDispatcher]:
        """The engine and dispatcher for a request from ``region`` (None: the mock's own region)."""
        if region is not None and region != self.region:
            with _state_lock:
                if self.region is None:
                    self.region = region
                    if self._owns_engine:  # its ARNs name its region
                        self.engine.region = region
                else:
                    pair = self._regions.get(region)
                    if pair is None:
                        engine = Engine(":memory:")
                        engine.region = region
                        pair = self._regions[region] = (engine, RecordingDispatcher(engine, self._log))
                    return pair
        dispatcher = self._dispatcher
        if dispatcher is None:
            dispatcher = self._dispatcher = RecordingDispatcher(self.engine, self._log)
        return dispatcher.engine, dispatcher

    def _close_owned(self) -> None:
        if self._engine is not None and self._owns_engine:
            self._engine.close()
        self._engine = None
        self._owns_engine = False
        self._dispatcher = None
        self.close_regions()

    def close_regions(self) -> None:
        """Close the engines of the other regions (:meth:`stop` does; a mock that answers through
        :meth:`handle` without being started, as the testing server's own does, is closed this way)."""
        for engine, _ in self._regions.values():
            engine.close()
        self._regions.clear()

    # -- recorded calls -----------------------------------------------------------------------------------

    def calls(self, operation: str | None = None, *, table: str | None = None) -> list[Call]:
        """The requests answered so far, in order: all of them, or those of one ``operation``
        (``"Scan"``) and/or ``table``. ``mock.calls("Scan") == []`` says no test code scanned."""
        return self._log.select(operation, table)

    def reset_calls(self) -> None:
        """Forget the calls recorded so far."""
        self._log.clear()

    # -- the one handler every in-process request passes ----------------------------------------------------

    def handle(self, request: MockRequest) -> Reply:
        """Answer one request: the first of ``request_hooks`` that returns a reply answers it, else the
        engine does (recorded in :meth:`calls`). Never raises: errors are DynamoDB's error replies."""
        for hook in self.request_hooks:
            reply = hook(request)
            if reply is not None:
                return reply
        return self._answering(request.region)[1].handle(request.target, request.body)

    def _respond(
        self, service: str, target: str | None, body: bytes, region: str | None, url: str, response_type: type
    ) -> Any:
        status, headers, payload = self.handle(MockRequest(service, target, body, region))
        response = response_type(url, status, dict(headers), _Raw(payload))
        response._content = payload
        return response

    # -- lifecycle ----------------------------------------------------------------------------------------

    @property
    def active(self) -> bool:
        return self in _active

    def start(self) -> MockDynamoDB:
        """Start answering (patches botocore and sets the dummy environment); returns the mock."""
        require("client", ("boto3", "botocore"), "singletable.testing.mock_dynamodb()")
        with _state_lock:
            if self in _active:
                raise RuntimeError("this mock_dynamodb() is already active")
            self.engine  # noqa: B018 -- open it now, so the first request pays nothing for it
            if not _active:
                _patches.install(_responder)
            self._saved_env = {
                name: os.environ.get(name) for name in (*DUMMY_ENVIRONMENT, *_REGION_VARIABLES)
            }
            os.environ.update(DUMMY_ENVIRONMENT)
            if not any(os.environ.get(name) for name in _REGION_VARIABLES):
                os.environ["AWS_DEFAULT_REGION"] = DEFAULT_REGION
            _active.append(self)
        return self

    def stop(self) -> None:
        """Stop answering; restore ``os.environ`` and botocore exactly; close the engine if it made it.
        Calls stay readable after stop."""
        with _state_lock:
            if self not in _active:
                raise RuntimeError("this mock_dynamodb() is not active")
            _active.remove(self)
            for name, value in self._saved_env.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
            if not _active:
                _patches.remove()
            if not isinstance(self._target, Engine):
                self._close_owned()
            self.close_regions()

    def __enter__(self) -> MockDynamoDB:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- decorator ------------------------------------------------------------------------------------------

    def __call__(self, func: _F) -> _F:
        """Decorate a function, a coroutine function or a class (each of its ``test*`` methods, and
        ``setUp``/``tearDown`` with them): a fresh mock like this one is active while each runs."""
        if isinstance(func, type):
            return self._decorate_class(func)  # type: ignore[return-value]  # a class decorated is returned as the class
        target, region = self._target, self.region
        if inspect.iscoroutinefunction(func):

            @functools.wraps(func)
            async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
                with MockDynamoDB(target, region=region):
                    return await func(*args, **kwargs)

            return async_wrapper  # type: ignore[return-value]  # the wrapper stands for func

        @functools.wraps(func)  # type: ignore[arg-type]  # func is a plain callable here (not a class)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with MockDynamoDB(target, region=region):
                return func(*args, **kwargs)  # type: ignore[operator]  # func is a plain callable here (not a class)

        return wrapper  # type: ignore[return-value]  # the wrapper stands for func

    def _decorate_class(self, cls: type) -> type:
        """Each test method runs under its own mock; a unittest class gets it from setUp to tearDown."""
        import unittest

        if issubclass(cls, unittest.TestCase):
            mock_target, mock_region = self._target, self.region
            original_setup = cls.__dict__.get("setUp")

            def set_up(test: Any) -> None:
                mock = MockDynamoDB(mock_target, region=mock_region).start()
                test.addCleanup(mock.stop)  # cleanups run after tearDown
                if original_setup is not None:
                    original_setup(test)
                else:
                    super(cls, test).setUp()  # type: ignore[misc]  # test is an instance of cls: mypy sees Any

            setattr(cls, "setUp", set_up)  # noqa: B010 -- a method assigned on the class, not an attribute read
            return cls
        for name, value in list(vars(cls).items()):
            if name.startswith("test") and callable(value):
                setattr(cls, name, self(value))
        return cls


class _Raw:
    """The response body as botocore reads it: ``stream()`` (urllib3's) and an awaitable ``read()``
    (aiobotocore's); the content is also set on the response, so neither is usually called."""

    __slots__ = ("body",)

    def __init__(self, body: bytes) -> None:
        self.body = body

    def stream(self, *_: Any, **__: Any) -> Any:
        yield self.body

    async def read(self) -> bytes:
        return self.body


def mock_dynamodb(
    target: str | os.PathLike[str] | Engine = ":memory:", *, region: str | None = None
) -> MockDynamoDB:
    """A :class:`MockDynamoDB` on ``target`` (``":memory:"`` by default) for ``region``'s tables (None: the
    first request's region): use it as ``with mock_dynamodb():``, ``@mock_dynamodb()`` or ``m =
    mock_dynamodb(); m.start(); ...; m.stop()``."""
    return MockDynamoDB(target, region=region)


def mock_aws(func: Any = None, **kwargs: Any) -> Any:
    """moto's spelling, for DynamoDB-only suites: ``@mock_aws``, ``@mock_aws()``, ``with mock_aws():``.
    Mocks DynamoDB and DynamoDB Streams only -- any other AWS service is not mocked (its requests go where
    its client points). ``config=`` (moto's) is accepted and ignored."""
    kwargs.pop("config", None)
    mock = MockDynamoDB(**kwargs)
    if func is not None:
        return mock(func)
    return mock
