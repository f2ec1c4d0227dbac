"""One narrow door to DynamoDB: the native engine, or any boto3 DynamoDB client.

Both speak the same low-level AttributeValue dicts, so the model layer builds one request shape. The engine
is called through ``Engine.execute`` (no botocore anywhere in the path); a boto3 client through its method
(AWS, ``singletable serve``, DynamoDB Local). Errors from either -- ``DynamoDBError`` or botocore's
``ClientError`` -- come out as one :class:`RequestError` family, so application code handles one type.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

import singletable
from singletable.engine import DynamoDBError, Engine
from singletable.engine.shared import OPERATIONS
from singletable.model._errors import ConditionFailed, DBClosed, RequestError

ENGINE_CLOSED = "the Engine this DB uses was closed (engine.close()); connect() to an open Engine"


def snake(name: str) -> str:
    """``PutItem`` -> ``put_item``: an operation's method name on a botocore client."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def to_request_error(code: str, message: str, item: Any = None, extra: Any = None) -> RequestError:
    kind = ConditionFailed if code == "ConditionalCheckFailedException" else RequestError
    return kind(code, message, item=item, extra=extra)


class Adapter:
    """``call("PutItem", params) -> response``; ``native`` tells whether an Engine answers in-process."""

    native = False

    def call(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def supports(self, operation: str) -> bool:
        return True

    def close(self) -> None:
        """Release what the adapter opened itself (an engine it created from a path)."""


class EngineAdapter(Adapter):
    native = True

    def __init__(self, engine: Any, owned: bool = False) -> None:
        self.engine = engine
        self._execute = engine.execute
        self._owned = owned

    def call(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        try:
            return self._execute(operation, params)
        except DynamoDBError as error:
            raise to_request_error(error.code, error.message, error.item, error.extra) from None
        except sqlite3.ProgrammingError as error:
            if "closed" not in str(error):
                raise
            raise DBClosed(ENGINE_CLOSED) from None

    def supports(self, operation: str) -> bool:
        return operation in OPERATIONS

    def close(self) -> None:
        if self._owned:
            self.engine.close()


class Boto3Adapter(Adapter):
    def __init__(self, client: Any) -> None:
        self.client = client
        self._methods: dict[str, Any] = {}
        from botocore.exceptions import ClientError  # the client extra: loaded only for a boto3 client

        self._client_error = ClientError

    def call(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        method = self._methods.get(operation)
        if method is None:
            method = self._methods[operation] = getattr(self.client, snake(operation))
        try:
            return method(**params)
        except self._client_error as error:
            raise client_request_error(error) from None


def client_request_error(error: Any) -> RequestError:
    """A botocore ``ClientError`` (from boto3 or aiobotocore) as the model's :class:`RequestError`."""
    response = error.response
    info = response.get("Error", {})
    extra = {k: v for k, v in response.items() if k not in ("Error", "ResponseMetadata", "Item")}
    return to_request_error(info.get("Code", "Unknown"), info.get("Message", ""), response.get("Item"), extra)


def adapt(target: Any) -> Adapter:
    """An adapter for an Engine, a boto3 client, a SQLite path / ":memory:", or an http(s) URL."""
    if isinstance(target, Adapter):
        return target
    if isinstance(target, str):
        if target.startswith(("http://", "https://")):
            return Boto3Adapter(singletable.client(target))
        return EngineAdapter(Engine(target), owned=True)
    if hasattr(target, "execute") and hasattr(target, "storage"):
        return EngineAdapter(target)
    if hasattr(target, "meta") and hasattr(target, "get_item"):
        return Boto3Adapter(target)
    raise TypeError(f"connect() needs an Engine, a boto3 DynamoDB client, a path or a URL, not {target!r}")
