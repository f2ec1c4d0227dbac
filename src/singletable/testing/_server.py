"""``singletable serve``'s app in a thread of the test's process, on a free loopback port, for code under test
that is not Python in-process: a CLI, a Lambda handler run as a subprocess, Node code.

It answers from the test's own engine: while a :func:`~singletable.testing.mock_dynamodb` is active (the
pytest plugin's ``dynamodb`` fixture), every request it receives is handed to that mock -- its engine, its
``FaultPlan`` and ``Clock``, its ``calls()`` -- exactly as an in-process client's would be; with none active,
to a mock of its own on the server's engine. Either way tables live in a region, as on AWS: the region is the
one the request is signed for (its SigV4 credential scope). While it runs, ``AWS_ENDPOINT_URL_DYNAMODB`` (and
dummy credentials and a region) are in ``os.environ``, so every subprocess started meanwhile reaches it with
no configuration; stopping restores ``os.environ`` exactly.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from typing import Any

from singletable._extras import require
from singletable._protocol.dispatcher import Dispatcher, Reply
from singletable.engine import Engine
from singletable.testing import _mock
from singletable.testing._mock import DUMMY_ENVIRONMENT, MockDynamoDB, MockRequest

START_TIMEOUT = 30.0
STREAMS_TARGET = "DynamoDBStreams_"


def free_port() -> int:
    """A TCP port nothing listens on at 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def signed_region(authorization: bytes | None) -> str | None:
    """The region of a SigV4 ``Authorization`` header's credential scope
    (``Credential=KEY/DATE/REGION/SERVICE/aws4_request``), or None when there is none."""
    if not authorization:
        return None
    _, found, rest = authorization.partition(b"Credential=")
    parts = rest.split(b",", 1)[0].strip().split(b"/")
    if not found or len(parts) != 5:
        return None
    return parts[2].decode("latin-1") or None


class FollowingDispatcher(Dispatcher):
    """Hands each request to the innermost active mock (as if an in-process client had sent it), else to a
    mock of its own on ``engine``; ``region`` is the region of the request being answered (set by
    :class:`FollowingApp` just before)."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        self.own = MockDynamoDB(engine)
        self.region: str | None = None

    def handle(self, target: str | None, body: bytes) -> Reply:
        service = "dynamodbstreams" if target and target.startswith(STREAMS_TARGET) else "dynamodb"
        request = MockRequest(service, target, body, self.region)
        mock = _mock.innermost()
        if mock is not None:
            return mock.handle(request)
        reply = self.own.handle(request)
        self.own.reset_calls()  # nobody reads its calls: a session of requests must not pile up
        return reply

    def close(self) -> None:
        """The other regions' engines of its own mock (``engine`` is the caller's)."""
        self.own.close_regions()


def following_app(engine: Engine) -> Any:
    """serve's ASGI app, answering through a :class:`FollowingDispatcher` that knows each request's region."""
    from singletable._server.app import DynamoDBApp

    class FollowingApp(DynamoDBApp):
        def handle_api(self, scope: Any, headers: dict[bytes, bytes], body: bytes) -> Any:
            # Synchronous from here to the dispatcher: no other request can run in between.
            dispatcher.region = signed_region(headers.get(b"authorization"))
            return super().handle_api(scope, headers, body)

    dispatcher = FollowingDispatcher(engine)
    return FollowingApp(dispatcher=dispatcher)


class Server:
    """serve's app on ``engine`` (and on the active mock's, see the module docstring), served by uvicorn in
    a daemon thread on 127.0.0.1; ``endpoint`` is its URL. Use it with ``with``."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self._saved_env: dict[str, str | None] = {}

    def environment(self) -> dict[str, str]:
        """What a subprocess needs to reach the server with any AWS SDK or the AWS CLI."""
        return {
            **DUMMY_ENVIRONMENT,
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_REGION": "us-east-1",
            "AWS_ENDPOINT_URL_DYNAMODB": self.endpoint,
            "AWS_ENDPOINT_URL_DYNAMODB_STREAMS": self.endpoint,
        }

    def client(self, **kwargs: Any) -> Any:
        """A boto3 DynamoDB client on the server."""
        import boto3

        options = {
            "region_name": "us-east-1",
            "aws_access_key_id": "testing",
            "aws_secret_access_key": "testing",
        }
        return boto3.client("dynamodb", endpoint_url=self.endpoint, **(options | kwargs))

    def start(self) -> Server:
        require("server", ("uvicorn",), "the dynamodb_server fixture")
        import uvicorn

        app = following_app(self.engine)
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="error", lifespan="on")
        self._server = server = uvicorn.Server(config)
        # uvicorn installs signal handlers only in the main thread: in this one it leaves them alone.
        self._thread = threading.Thread(target=server.run, name="singletable-server", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT
        while not server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"singletable's server did not start on {self.endpoint}")
            time.sleep(0.01)
        variables = self.environment()
        self._saved_env = {name: os.environ.get(name) for name in variables}
        os.environ.update(variables)
        return self

    def stop(self) -> None:
        for name, value in self._saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        self._saved_env = {}
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(START_TIMEOUT)
        self._server = self._thread = None

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
