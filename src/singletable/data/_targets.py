"""Where data lives: a database file for the embedded engine, or any DynamoDB endpoint URL.

The data tools (look, export, import, copy) take a TARGET the way the command line does -- ``app.db`` or
``http://127.0.0.1:8000`` or ``https://dynamodb.eu-west-1.amazonaws.com`` -- and speak to it through one
small interface, :class:`Target`: a DynamoDB API call by its wire name, answered with the response dict, or a
:class:`TargetError` carrying DynamoDB's error code and message. A file is opened with the engine called
natively (no HTTP, no botocore: the fastest path, and the one a bulk load can use); a URL gets a plain boto3
client (the ``client`` extra), with the usual AWS credentials and region, or local dummies where none are
configured (DynamoDB Local and ``singletable serve`` accept any).
"""

from __future__ import annotations

import os
import sqlite3
from typing import Any

from singletable.engine import DynamoDBError, Engine


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
            raise TargetError(
                details.get("Code", "ClientError"), details.get("Message", str(error))
            ) from None
        except BotoCoreError as error:
            raise TargetError(type(error).__name__, str(error)) from None
        response.pop("ResponseMetadata", None)
        return response

    def close(self) -> None:
        if self.engine is not None:
            self.engine.close()
            self.engine = None

    def __enter__(self) -> Target:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_target(target: str, *, durable: bool = False, **boto3_kwargs: Any) -> Target:
    """A database file (created if missing) or an endpoint URL, as a :class:`Target`. ``durable`` opens a
    file with every commit fsynced (``Engine(durable=True)``): what an import's checkpoints rely on. A file
    the engine cannot open raises :class:`DatabaseFileError` naming it and why."""
    if is_url(target):
        from singletable._client import client

        return Target(target, client=client(target, **boto3_kwargs))
    path = os.fspath(target)
    try:
        return Target(path, engine=Engine(path, durable=durable))
    except sqlite3.Error as error:
        raise DatabaseFileError(f"cannot open database {path}: {error}") from None
