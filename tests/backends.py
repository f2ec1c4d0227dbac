"""One calling convention over every backend, so a behaviour test proves them all.

A backend is called like a boto3 DynamoDB client (``ddb.put_item(TableName=..., Item=...)``) and returns the
response without ``ResponseMetadata``. Every failure surfaces as :class:`DynamoDBError` with DynamoDB's code
and message, whether it came from our engine or from botocore's ``ClientError`` (the ``client``, ``http``
and ``reference`` backends are all real boto3 clients).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from singletable.engine import DynamoDBError

BOTO3_BACKENDS = frozenset({"client", "http", "reference"})


class Backend:
    def __init__(self, name: str, target: Any) -> None:
        self.name = name
        self._target = target
        self.created: list[str] = []

    @property
    def is_reference(self) -> bool:
        return self.name == "reference"

    @property
    def is_boto3(self) -> bool:
        """Whether calls go through a real boto3 client (and so fail with ``ClientError``)."""
        return self.name in BOTO3_BACKENDS

    def call(self, operation: str, **params: Any) -> dict[str, Any]:
        method = getattr(self._target, operation)
        if not self.is_boto3:
            response = method(**params)
        else:
            from botocore.exceptions import ClientError

            try:
                response = method(**params)
            except ClientError as error:
                info = error.response.get("Error", {})
                raise DynamoDBError(
                    info.get("Code", "Unknown"),
                    info.get("Message", ""),
                    item=error.response.get("Item"),
                    extra={k: v for k, v in error.response.items() if k not in ("Error", "ResponseMetadata")},
                ) from None
        response = dict(response)
        response.pop("ResponseMetadata", None)
        if operation == "create_table":
            self.created.append(params["TableName"])
        return response

    def __getattr__(self, operation: str) -> Callable[..., dict[str, Any]]:
        if operation.startswith("_"):
            raise AttributeError(operation)
        return functools.partial(self.call, operation)

    def streams(self) -> Backend:
        """The DynamoDB Streams API of this backend: the engine itself, or a boto3 'dynamodbstreams' client
        on the same engine (``singletable.streams_client``) or endpoint."""
        if not self.is_boto3:
            return self
        engine = getattr(self._target, "singletable_engine", None)
        if engine is not None:
            from botocore.config import Config

            import singletable

            config = Config(parameter_validation=False)
            return Backend(self.name, singletable.streams_client(engine, config=config))
        import boto3
        from botocore.config import Config

        meta = self._target.meta
        client = boto3.client(
            "dynamodbstreams",
            endpoint_url=meta.endpoint_url,
            region_name=meta.region_name,
            aws_access_key_id="local",
            aws_secret_access_key="local",
            config=Config(retries={"max_attempts": 1}, parameter_validation=False),
        )
        return Backend(self.name, client)

    def error(self, code: str, message: str | None = None, *, local: str | None = None) -> Any:
        """Like :func:`expect_error`, with ``local`` as the text DynamoDB Local gives where it departs
        from AWS's (recorded in docs/compatibility.md)."""
        if self.is_reference and local is not None:
            message = local
        return expect_error(code, message)

    def cleanup(self) -> None:
        for name in self.created:
            try:
                self.call("delete_table", TableName=name)
            except DynamoDBError:
                pass


@contextmanager
def expect_error(code: str, message: str | None = None, *, startswith: str | None = None) -> Iterator[Any]:
    """Assert the block raises DynamoDB's error ``code`` with exactly ``message`` (or a prefix)."""
    with pytest.raises(DynamoDBError) as info:
        yield info
    assert info.value.code == code, f"expected {code}, got {info.value.code}: {info.value.message}"
    if message is not None:
        assert info.value.message == message
    if startswith is not None:
        assert info.value.message.startswith(startswith), info.value.message
