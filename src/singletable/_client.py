"""Real boto3 DynamoDB clients and resources, wired to an in-process engine or to any endpoint.

``singletable.client("app.db")`` is an ordinary botocore client -- parameter validation, serialisation,
response parsing, modeled exceptions, paginators, waiters -- with only the HTTP hop replaced: a
``before-send`` handler hands the prepared request to the same protocol code the HTTP server uses and
returns DynamoDB's response bytes. Everything above the socket is botocore's own, so behaviour that works
here works against the server and against AWS. Shared by the package's ``client()``, the data tools'
targets, the model's async adapter and the testing mock (:func:`request_parts`).

Why ``before-send`` and not ``before-call`` (which could skip serialisation): the response still goes
through botocore's parser, so modeled error fields (``Item`` on ConditionalCheckFailed,
``CancellationReasons``), CRC32 checks and ``ResponseMetadata`` are exactly what a network client sees.
The cost is one JSON round trip per call, measured in ``docs/performance.md``. Requests are not signed
in-process: nothing would check the signature, and SigV4 is the single largest per-call cost left.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from singletable._extras import require
from singletable.engine import Engine

if TYPE_CHECKING:
    import boto3

IN_PROCESS_ENDPOINT = "http://127.0.0.1:1"  # never contacted: before-send answers every request
DEFAULT_REGION = "us-east-1"
DUMMY_CREDENTIALS = {"aws_access_key_id": "singletable", "aws_secret_access_key": "singletable"}

_engines: dict[str, Engine] = {}
_engines_lock = threading.Lock()
_session_lock = threading.Lock()
_shared_session: Any = None


def shared_engine(path: str) -> Engine:
    """One Engine per database file per process: clients and resources on one path see one catalog."""
    if path == ":memory:":
        return Engine(path)
    key = os.path.realpath(path)
    with _engines_lock:
        engine = _engines.get(key)
        if engine is None:
            engine = _engines[key] = Engine(path)
        return engine


def close_engine(path: str) -> None:
    """Close and forget the shared engine for ``path`` (its clients stop working); for tests and shutdown."""
    with _engines_lock:
        engine = _engines.pop(os.path.realpath(path), None)
    if engine is not None:
        engine.close()


def _session() -> boto3.session.Session:
    """A process-wide boto3 session: its loader caches the service model, making clients cheap to create."""
    global _shared_session
    with _session_lock:
        if _shared_session is None:
            import boto3

            _shared_session = boto3.session.Session()
        return _shared_session


def _is_url(target: Any) -> bool:
    return isinstance(target, str) and target.startswith(("http://", "https://"))


def _has_configured_credentials(session: Any) -> bool:
    """Whether env/profile/config files give credentials for a boto3 session's profile."""
    return has_configured_credentials(getattr(session._session, "profile", None))


def has_configured_credentials(profile: str | None = None) -> bool:
    """Whether env/profile/config files give credentials -- without ever asking instance metadata
    (also asked by ``connect_async`` before it makes an aiobotocore client for a URL).

    A probe session is used so the caller's own session keeps its full provider chain.
    """
    import botocore.session

    probe = botocore.session.Session(profile=profile)
    resolver = probe.get_component("credential_provider")
    for provider in ("container-role", "iam-role"):
        try:
            resolver.remove(provider)
        except (ValueError, KeyError):
            pass
    try:
        return probe.get_credentials() is not None
    except Exception:
        return False


def _boto_kwargs(target: Any, kwargs: dict[str, Any], in_process: bool) -> tuple[Any, dict[str, Any]]:
    from botocore.config import Config

    kwargs = dict(kwargs)
    session = kwargs.pop("session", None)
    if session is None:
        # A fresh session when the caller names a profile; otherwise the shared, warmed-up one.
        if "profile_name" in kwargs:
            import boto3

            session = boto3.session.Session(profile_name=kwargs.pop("profile_name"))
        else:
            session = _session()
    if not kwargs.get("region_name") and not session.region_name:
        kwargs["region_name"] = DEFAULT_REGION
    if "aws_access_key_id" not in kwargs and (in_process or not _has_configured_credentials(session)):
        kwargs.update(DUMMY_CREDENTIALS)
    if in_process:
        kwargs["endpoint_url"] = IN_PROCESS_ENDPOINT
        defaults = Config(retries={"total_max_attempts": 1, "mode": "legacy"})
        user = kwargs.get("config")
        kwargs["config"] = defaults.merge(user) if user is not None else defaults
    else:
        kwargs["endpoint_url"] = target
    return session, kwargs


def _resolve_engine(target: Any) -> Engine:
    if isinstance(target, Engine):
        return target
    if target is None:
        target = os.environ.get("SINGLETABLE_TARGET", ":memory:")
    return shared_engine(os.fspath(target))


def request_parts(request: Any) -> tuple[str | None, bytes]:
    """A prepared botocore request's ``X-Amz-Target`` and body bytes: what the protocol layer answers from.
    The body may be bytes, text or a stream (botocore's streaming bodies); also read by the testing mock."""
    body = request.body
    if body is None:
        body = b""
    elif not isinstance(body, bytes):
        body = body.encode("utf-8") if isinstance(body, str) else body.read()
    target = request.headers.get("X-Amz-Target")
    if isinstance(target, bytes):
        target = target.decode("latin-1")
    return target, body


class _Raw:
    """The one method botocore reads from a urllib3 response (it only streams after errors)."""

    __slots__ = ("body",)

    def __init__(self, body: bytes) -> None:
        self.body = body

    def stream(self, *_: Any, **__: Any) -> Any:
        yield self.body


class _InProcessTransport:
    """A ``before-send`` handler: prepared HTTP request in, DynamoDB's HTTP response out."""

    def __init__(self, engine: Engine) -> None:
        from singletable._protocol import Dispatcher

        self.dispatcher = Dispatcher(engine)

    def send(self, request: Any, **_: Any) -> Any:
        from botocore.awsrequest import AWSResponse

        target, body = request_parts(request)
        status, headers, payload = self.dispatcher.handle(target, body)
        # botocore wraps any mapping of headers in its HeadersDict; its stubs ask for an HTTPHeaders.
        response = AWSResponse(request.url, status, dict(headers), _Raw(payload))  # type: ignore[arg-type]
        # The body is in hand: set what ``response.content`` would otherwise read from ``raw``.
        response._content = payload  # type: ignore[attr-defined]
        return response


def _attach(boto_client: Any, engine: Engine) -> None:
    """Route this client's HTTP sends into the engine (events are per client, so no service suffix)."""
    from botocore import UNSIGNED

    transport = _InProcessTransport(engine)
    events = boto_client.meta.events
    events.register_first("choose-signer", lambda **_: UNSIGNED, unique_id="singletable-unsigned")
    events.register_last("before-send", transport.send, unique_id="singletable-in-process")
    _freeze_user_agent(boto_client)
    boto_client.singletable_engine = engine


def _freeze_user_agent(boto_client: Any) -> None:
    """Build the User-Agent once per client instead of twice per call.

    botocore re-assembles and sanitises the header on every request (a fifth of an in-process PutItem's
    time); no engine ever reads it, so the first string is reused. Private attribute, hence the guard.
    """
    creator = getattr(boto_client, "_user_agent_creator", None)
    if creator is None or not callable(getattr(creator, "to_string", None)):
        return
    frozen = creator.to_string()
    creator.to_string = lambda: frozen


def client(target: Any = None, **boto3_kwargs: Any) -> Any:
    """A boto3 DynamoDB client on ``target``.

    ``target``: a SQLite path or ``":memory:"`` (in-process engine, no socket), an ``Engine``, or an
    ``http(s)://`` URL (a plain boto3 client for that endpoint). ``None`` reads ``SINGLETABLE_TARGET``,
    else ``":memory:"``. Keyword arguments go to ``boto3.client`` (``config``, ``region_name``,
    credentials, ``session``).
    """
    return _wired(
        "singletable.client()",
        target,
        boto3_kwargs,
        lambda session, kwargs: session.client("dynamodb", **kwargs),
    )


def streams_client(target: Any = None, **boto3_kwargs: Any) -> Any:
    """A boto3 DynamoDB Streams client (``dynamodbstreams``) on ``target``, wired like :func:`client`."""
    return _wired(
        "singletable.streams_client()",
        target,
        boto3_kwargs,
        lambda session, kwargs: session.client("dynamodbstreams", **kwargs),
    )


def resource(target: Any = None, **boto3_kwargs: Any) -> Any:
    """The boto3 DynamoDB service resource on ``target`` (same targets and arguments as :func:`client`)."""
    return _wired(
        "singletable.resource()",
        target,
        boto3_kwargs,
        lambda session, kwargs: session.resource("dynamodb", **kwargs),
        client_of=lambda boto_resource: boto_resource.meta.client,
    )


def _wired(
    feature: str,
    target: Any,
    boto3_kwargs: dict[str, Any],
    make: Callable[[Any, dict[str, Any]], Any],
    client_of: Callable[[Any], Any] = lambda boto_client: boto_client,
) -> Any:
    """``make(session, kwargs)`` a boto3 client or resource for ``target``; wire its client to the engine
    unless ``target`` is a URL. Without boto3, ``feature`` fails with the one line naming the extra."""
    require("client", ("boto3",), feature)
    in_process = not _is_url(target)
    session, kwargs = _boto_kwargs(target, boto3_kwargs, in_process)
    made = make(session, kwargs)
    if in_process:
        _attach(client_of(made), _resolve_engine(target))
    return made
