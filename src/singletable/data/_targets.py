"""Where data lives: a database file for the embedded engine, or any DynamoDB endpoint URL.

The data tools (look, export, import, copy) take a TARGET the way the command line does -- ``app.db`` or
``http://127.0.0.1:8000`` or ``https://dynamodb.eu-west-1.amazonaws.com`` -- and speak to it through one
small interface, :class:`Target`: a DynamoDB API call by its wire name, answered with the response dict, or a
:class:`TargetError` carrying DynamoDB's error code and message. A file is opened with the engine called
natively (no HTTP, no botocore: the fastest path, and the one a bulk load can use); a URL gets a plain boto3
client (the ``client`` extra), with the usual AWS credentials and region, or local dummies where none are
configured (DynamoDB Local and ``singletable serve`` accept any).

A command that only reads opens a file ``read_only``: the engine's read-only open, which changes nothing in
the file (no TTL sweep, no schema upgrade, no checkpoint) and reads a read-only or immutable one. No command
creates a database file it was not asked to create: a missing file is "no such database file" unless the
command is about to create a table in it (import with a schema, copy's destination).

An endpoint's refusal is one line: its code and the first line of its message (AWS's signature errors go on
with the canonical request over a dozen lines), and, for the refusals that are about reaching or signing in
to the endpoint rather than about the request (bad credentials, no credentials, no connection), the
endpoint's URL.
"""

from __future__ import annotations

import os
import sqlite3
from typing import Any

from singletable.engine import DynamoDBError, Engine

# Refusals that say the endpoint could not be reached or would not accept who is calling: their message names
# the endpoint, since the request itself was not the trouble (and copy talks to two targets).
ENDPOINT_TROUBLE = frozenset(
    (
        "UnrecognizedClientException",
        "InvalidSignatureException",
        "IncompleteSignatureException",
        "MissingAuthenticationTokenException",
        "ExpiredTokenException",
        "InvalidClientTokenId",
        "SignatureDoesNotMatch",
        "AccessDeniedException",
        "NoCredentialsError",
        "PartialCredentialsError",
        "EndpointConnectionError",
        "ConnectTimeoutError",
        "ReadTimeoutError",
        "ConnectionClosedError",
        "SSLError",
        "ProxyConnectionError",
    )
)


class TargetError(Exception):
    """A call the target refused, or could not be reached for: ``code`` is DynamoDB's error type (or
    ``EndpointConnectionError``, ``NoCredentialsError``...), ``message`` its text."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class DatabaseFileError(OSError):
    """A database file the engine cannot open: not a SQLite database, written by a newer singletable, or
    unreadable. An ``OSError``, as a file that cannot be used is to every command that takes one."""


def is_url(target: str) -> bool:
    return target.startswith(("http://", "https://"))


class Target:
    """One place tables live. Build it with :func:`open_target`; close it when done (or use ``with``)."""

    def __init__(self, name: str, engine: Engine | None = None, client: Any = None) -> None:
        self.name = name
        self.engine = engine  # set for a database file: the embedded engine, called natively
        self._client = client  # set for an endpoint URL: a boto3 DynamoDB client
        # Wire name -> the client's method name ("Query" -> "query"), from botocore's own mapping.
        self._methods = (
            {api: method for method, api in client.meta.method_to_api_mapping.items()} if client else {}
        )

    def call(self, operation: str, **params: Any) -> dict[str, Any]:
        """Run one DynamoDB API call by its wire name (``"Query"``); raise :class:`TargetError` on refusal."""
        if self.engine is not None:
            try:
                return self.engine.execute(operation, params)
            except DynamoDBError as error:
                raise TargetError(error.code, error.message) from None
        return self._call_client(operation, params)

    def _call_client(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        from botocore.exceptions import BotoCoreError, ClientError

        method = getattr(self._client, self._methods[operation])
        try:
            response = method(**params)
        except ClientError as error:
            details = error.response.get("Error", {})
            code = details.get("Code", "ClientError")
            raise TargetError(code, self._one_line(code, details.get("Message", str(error)))) from None
        except BotoCoreError as error:
            code = type(error).__name__
            raise TargetError(code, self._one_line(code, str(error))) from None
        response.pop("ResponseMetadata", None)
        return response

    def _one_line(self, code: str, message: str) -> str:
        """The message's first line, naming the endpoint when the trouble is reaching or signing in to it."""
        first = next((line.strip() for line in message.splitlines() if line.strip()), "")
        if code in ENDPOINT_TROUBLE and self.name not in first:
            first = f"{first} (endpoint {self.name})"
        return first

    def close(self) -> None:
        if self.engine is not None:
            self.engine.close()
            self.engine = None

    def __enter__(self) -> Target:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def missing_file(path: str) -> DatabaseFileError:
    return DatabaseFileError(f"no such database file: {path} (a TARGET is a file or an http(s):// URL)")


def open_target(
    target: str, *, durable: bool = False, read_only: bool = False, create: bool = True, **boto3_kwargs: Any
) -> Target:
    """A database file or an endpoint URL, as a :class:`Target`.

    ``read_only`` opens a file with the engine's read-only open (``Engine(path, read_only=True)``: nothing
    in the file changes, writes are refused); ``create=False`` refuses a missing file rather than creating
    an empty database (a read-only open never creates one). ``durable`` opens a file with every commit
    fsynced (``Engine(durable=True)``): what an import's checkpoints rely on. A file that is missing (and
    not to be created) or that the engine cannot open raises :class:`DatabaseFileError` naming it and why.
    For an endpoint, ``read_only`` is the caller's promise: it only reads."""
    if is_url(target):
        from singletable._client import client

        return Target(target, client=client(target, **boto3_kwargs))
    path = os.fspath(target)
    if (read_only or not create) and not os.path.exists(path):
        raise missing_file(path)
    try:
        return Target(path, engine=Engine(path, durable=durable, read_only=read_only))
    except FileNotFoundError:
        raise missing_file(path) from None
    except (sqlite3.Error, OSError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise DatabaseFileError(f"cannot open database {path}: {reason}") from None
