"""``singletable demo NAME``: run a seed design end to end and show what each access pattern costs.

A demo creates the design's table on the target (the embedded engine by default, or any endpoint), loads the
example's deterministic sample data, then runs every access pattern. For each it prints the pattern's name,
the DynamoDB requests it became (operation, index, key condition and filter with the values written in), the
results and the consumed capacity. Fixed clocks and ids make the output identical on every backend, so
``singletable demo NAME --endpoint URL`` against DynamoDB Local (or AWS) prints exactly what the embedded
engine prints.

An example is a module under ``examples/`` exposing ``EXAMPLE``, an :class:`Example`.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from singletable.model import Adapter, RequestError, adapt

# Demo name -> module under examples/.
DEMOS: dict[str, str] = {
    "fus-main": "examples.fus_main",
    "hustlehub": "examples.hustlehub",
    "places": "examples.places",
    "wavyblog": "examples.wavyblog",
    "blog-api": "examples.blog_api",
}

DEMO_CLOCK = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)
DEMO_CURSOR_SECRET = "singletable-demo"
# Operations whose requests accept ReturnConsumedCapacity.
_CAPACITY_OPERATIONS = frozenset(
    {
        "GetItem",
        "PutItem",
        "UpdateItem",
        "DeleteItem",
        "Query",
        "Scan",
        "BatchGetItem",
        "BatchWriteItem",
        "TransactGetItems",
        "TransactWriteItems",
    }
)


@dataclass
class Step:
    """One access pattern: ``run()`` performs it through the example's service API and returns its result."""

    name: str
    run: Callable[[], Any]
    note: str = ""


@dataclass
class Example:
    """What a seed example gives the demo runner.

    ``open(db)`` builds the example's service on a connected DB; ``load(service)`` writes the sample data;
    ``steps(service)`` lists the access patterns in the order the demo runs them.
    """

    name: str
    title: str
    table: Any  # singletable.model.Table
    open: Callable[[Any], Any]
    load: Callable[[Any], None]
    steps: Callable[[Any], Iterable[Step]]


@dataclass
class Call:
    operation: str
    params: dict[str, Any]
    response: dict[str, Any] | None = None
    error: str | None = None


@dataclass
class RecordingAdapter(Adapter):
    """Wraps the real adapter: records every call and asks DynamoDB for its consumed capacity."""

    inner: Adapter
    calls: list[Call] = field(default_factory=list)

    @property
    def native(self) -> bool:  # type: ignore[override]
        return self.inner.native

    def supports(self, operation: str) -> bool:
        return self.inner.supports(operation)

    def close(self) -> None:
        self.inner.close()

    def call(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        if operation in _CAPACITY_OPERATIONS and "ReturnConsumedCapacity" not in params:
            params = {**params, "ReturnConsumedCapacity": "TOTAL"}
        record = Call(operation, params)
        self.calls.append(record)
        try:
            record.response = self.inner.call(operation, params)
        except RequestError as error:
            record.error = f"{error.code}: {error.message}"
            raise
        return record.response

    def take(self) -> list[Call]:
        calls, self.calls = self.calls, []
        return calls


# -- rendering ----------------------------------------------------------------------------------------------


def plain(av: dict[str, Any]) -> Any:
    """An AttributeValue as a plain, printable Python value."""
    ((kind, value),) = av.items()
    if kind == "M":
        return {k: plain(v) for k, v in sorted(value.items())}
    if kind == "L":
        return [plain(v) for v in value]
    if kind in ("SS", "NS", "BS"):
        return sorted(value)
    if kind == "B":
        return value.hex()
    return value


def _literal(av: dict[str, Any]) -> str:
    value = plain(av)
    if "N" in av:
        return str(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


_PLACEHOLDER = re.compile(r"[#:][A-Za-z0-9_]+")


def inline(expression: str, params: dict[str, Any]) -> str:
    """An expression with its #names and :values written in, as a reader would want to see it."""
    names = params.get("ExpressionAttributeNames") or {}
    values = params.get("ExpressionAttributeValues") or {}

    def substitute(match: re.Match[str]) -> str:
        token = match.group(0)
        if token in names:
            return names[token]
        if token in values:
            return _literal(values[token])
        return token

    return _PLACEHOLDER.sub(substitute, expression)


def _key(key: dict[str, Any]) -> str:
    return ", ".join(f"{name}={_literal(av)}" for name, av in key.items())


def describe(operation: str, params: dict[str, Any]) -> list[str]:
    """The request in one or a few lines: what a DynamoDB user needs to recognise it."""
    parts = [operation]
    if "IndexName" in params:
        parts.append(f"index={params['IndexName']}")
    if "Key" in params:
        parts.append(f"key({_key(params['Key'])})")
    if "Item" in params:
        parts.append(f"item({_key({k: v for k, v in params['Item'].items() if k in ('PK', 'SK')})})")
    for member, label in (
        ("KeyConditionExpression", "key"),
        ("UpdateExpression", "update"),
        ("ConditionExpression", "if"),
        ("FilterExpression", "filter"),
        ("ProjectionExpression", "project"),
    ):
        if member in params:
            parts.append(f"{label}: {inline(params[member], params)}")
    if params.get("ScanIndexForward") is False:
        parts.append("newest first")
    if "Limit" in params:
        parts.append(f"limit={params['Limit']}")
    if "ExclusiveStartKey" in params:
        # A LastEvaluatedKey's member order differs between DynamoDB implementations: print it sorted.
        parts.append(f"after({_key(dict(sorted(params['ExclusiveStartKey'].items())))})")
    lines = ["  ".join(parts)]
    for action in params.get("TransactItems") or ():
        ((verb, body),) = action.items()
        lines += ["    " + line for line in describe(verb, body)]
    for table, request in (params.get("RequestItems") or {}).items():
        if isinstance(request, dict):
            lines.append(f"    {table}: {len(request.get('Keys', []))} keys")
        else:
            lines.append(f"    {table}: {len(request)} writes")
    return lines


def capacity(calls: list[Call]) -> float:
    total = 0.0
    for call in calls:
        consumed = (call.response or {}).get("ConsumedCapacity")
        for entry in consumed if isinstance(consumed, list) else [consumed] if consumed else []:
            total += float(entry.get("CapacityUnits", 0.0))
    return total


def render_result(result: Any) -> list[str]:
    """Entities as ``TYPE {fields}`` lines; pages, lists and scalars as they come."""
    from singletable.model import Entity

    if result is None:
        return ["(none)"]
    if isinstance(result, Entity):
        data = result.model_dump(mode="json", exclude_none=True)
        return [
            f"{type(result).__name__} {json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)}"
        ]
    if hasattr(result, "items") and hasattr(result, "cursor") and not isinstance(result, dict):
        lines = [line for item in result.items for line in render_result(item)]
        lines.append(f"cursor: {'(more)' if result.cursor else '(end)'}")
        return lines
    if isinstance(result, (list, tuple)):
        lines = [line for item in result for line in render_result(item)]
        return lines or ["(empty)"]
    if isinstance(result, dict):
        return [json.dumps(result, sort_keys=True, ensure_ascii=False, default=_json_default)]
    return [str(result)]


def _json_default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    return str(value)


# -- running ------------------------------------------------------------------------------------------------


class DemoError(Exception):
    """A demo that cannot run (unknown name, table already there without --reset)."""


def load_example(name: str) -> Example:
    module_name = DEMOS.get(name)
    if module_name is None:
        raise DemoError(f"unknown demo {name!r}; choose one of: {', '.join(['quickstart', *DEMOS])}")
    root = Path(__file__).resolve().parents[2]
    if (root / "examples").is_dir() and str(root) not in sys.path:
        sys.path.insert(0, str(root))
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        raise DemoError(f"demo {name!r} needs a source checkout with examples/ ({error})") from None
    return module.EXAMPLE


def _table_exists(adapter: Adapter, table_name: str) -> bool:
    try:
        adapter.call("DescribeTable", {"TableName": table_name})
    except RequestError as error:
        if error.code == "ResourceNotFoundException":
            return False
        raise
    return True


def _wait_deleted(adapter: Adapter, table_name: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while _table_exists(adapter, table_name):
        if time.monotonic() > deadline:
            raise DemoError(f"table {table_name} was not deleted within {timeout:.0f} s")
        time.sleep(0.5)


def run_demo(
    name: str,
    *,
    target: Any = ":memory:",
    reset: bool = False,
    echo: Callable[[str], None] = print,
) -> None:
    """Create the example's table on ``target``, load its sample data, run and print every access pattern."""
    from singletable.model import connect

    example = load_example(name)
    recorder = RecordingAdapter(adapt(target))
    db = connect(example.table, recorder, clock=lambda: DEMO_CLOCK, cursor_secret=DEMO_CURSOR_SECRET)
    try:
        table_name = db.table_name
        if _table_exists(recorder, table_name):
            if not reset:
                raise DemoError(
                    f"table {table_name} already exists at this endpoint; "
                    "run again with --reset to delete and recreate it"
                )
            db.delete_table()
            _wait_deleted(recorder, table_name)
        db.create_table()
        service = example.open(db)
        recorder.take()
        example.load(service)
        loaded = recorder.take()
        echo(f"# {example.title}")
        echo(
            f"table {table_name}: {len(loaded)} requests loaded the sample data "
            f"({capacity(loaded):g} capacity units)"
        )
        for step in example.steps(service):
            echo("")
            echo(f"== {step.name}")
            if step.note:
                echo(f"   ({step.note})")
            try:
                result = step.run()
                outcome = render_result(result)
            except RequestError as error:
                outcome = [f"error {error.code}: {error.message}"]
            except Exception as error:  # an application-level error the pattern demonstrates
                outcome = [f"error {type(error).__name__}: {error}"]
            calls = recorder.take()
            for call in calls:
                for line in describe(call.operation, call.params):
                    echo(f"   request: {line}")
                if call.error:
                    echo(f"   -> {call.error}")
            for line in outcome:
                echo(f"   {line}")
            echo(f"   capacity: {capacity(calls):g}")
    finally:
        db.close()
