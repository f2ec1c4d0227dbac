"""One calling convention over every backend, so a behaviour test proves them all.

A backend is called like a boto3 DynamoDB client (``ddb.put_item(TableName=..., Item=...)``) and returns the
response without ``ResponseMetadata``. Every failure surfaces as :class:`DynamoDBError` with DynamoDB's code
and message, whether it came from our engine or from botocore's ``ClientError`` (the ``client``, ``http``
and ``reference`` backends are all real boto3 clients).
"""

from __future__ import annotations

import functools
import itertools
import json
import os
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from every_item import Scanner, every_item
from singletable.engine import DynamoDBError

BOTO3_BACKENDS = frozenset({"client", "http", "reference"})
_names = itertools.count()


def unique_table_name() -> str:
    """A table name unique within the test session (the servers and DynamoDB Local serve every test)."""
    return f"t{os.getpid()}_{next(_names)}"


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

    def sibling(self) -> Backend:
        """A backend on the same target with its own list of tables to clean up."""
        return Backend(self.name, self._target)

    def cleanup(self) -> None:
        for name in self.created:
            try:
                self.call("delete_table", TableName=name)
            except DynamoDBError:
                pass


class SharedTables:
    """Tables a test module makes once per backend for its tests that leave them as they found them: requests
    a table refuses, conditions on its items, reads. A CreateTable, its items and a DeleteTable cost more than
    most such tests (on DynamoDB Local several times more), and thousands of tests repeat them.

    A test that writes keeps a table of its own. That the shared ones stay as made is checked, not assumed:
    :meth:`drop` (at the module's end) compares each table's items with those it held when made, and fails
    naming the table if any test changed them. A table is made through a handle (a :class:`Backend`, or a
    model DB for tests/model_targets.py): ``scanner(handle)`` reads it, ``release(handle)`` deletes it.
    """

    def __init__(
        self,
        scanner: Callable[[Any], Scanner] = lambda ddb: lambda params: ddb.scan(**params),
        release: Callable[[Any], None] = Backend.cleanup,
    ) -> None:
        self._scanner = scanner
        self._release = release
        self._tables: dict[Hashable, str] = {}
        self._made: list[tuple[Any, str, list[str]]] = []

    def get(self, ddb: Backend, shape: str, make: Callable[[Backend, str], Any]) -> str:
        """The name of the module's ``shape`` table on ``ddb``'s backend; the first call makes it with
        ``make(backend, name)`` (create it, write its items)."""

        def made_by(name: str) -> Backend:
            owner = ddb.sibling()
            try:
                make(owner, name)
            except BaseException:
                owner.cleanup()
                raise
            return owner

        return self.made((ddb.name, shape), made_by)

    def made(self, key: Hashable, make: Callable[[str], Any]) -> str:
        """The name of the module's table for ``key``; the first call makes it with ``make(name)``, which
        returns the handle that made it."""
        if key not in self._tables:
            name = unique_table_name()
            handle = make(name)
            try:
                items = items_snapshot(self._scanner(handle), name)
            except BaseException:
                self._release(handle)
                raise
            self._made.append((handle, name, items))
            self._tables[key] = name
        return self._tables[key]

    def drop(self) -> None:
        """Delete every table, after checking each still holds the items it was made with."""
        changed = []
        for handle, name, items in self._made:
            try:
                if items_snapshot(self._scanner(handle), name) != items:
                    changed.append(name)
            finally:
                self._release(handle)
        names = ", ".join(changed)
        assert not changed, f"a test changed a table its module shares ({names}); a writer needs its own"


def items_snapshot(scan: Scanner, table: str) -> list[str]:
    """Every item of ``table`` (read with ``scan(params)``), each as canonical JSON, sorted: a snapshot two
    moments can compare."""
    return sorted(json.dumps(item, sort_keys=True, default=repr) for item in every_item(scan, table))


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
