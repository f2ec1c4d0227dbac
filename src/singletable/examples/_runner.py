"""How ``singletable demo`` runs an :class:`~singletable.examples.Example`: record every request, print it.

The runner connects the example's table through a :class:`_RecordingAdapter`, which wraps the real adapter
(the embedded engine or a boto3 client), asks DynamoDB for the consumed capacity of every call that can
report it, and keeps each call with its response or error. The table is created (or, with ``reset``,
recreated), the sample data loaded, and each step run; what a step sent is then printed under its name
with its result and the capacity it consumed (``_render``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from singletable.engine.shared import REPORTS_CAPACITY  # the operations that take ReturnConsumedCapacity
from singletable.examples._demo import DEMO_CLOCK, DEMO_CURSOR_SECRET, DemoError, Example, Step
from singletable.examples._render import capacity, describe, render_result
from singletable.model import DB, Adapter, RequestError, adapt, connect


@dataclass
class _Call:
    """One request the example sent: its operation and parameters, then its response or its error."""

    operation: str
    params: dict[str, Any]
    response: dict[str, Any] | None = None
    error: str | None = None


@dataclass
class _RecordingAdapter(Adapter):
    """Wraps the real adapter: records every call and asks DynamoDB for its consumed capacity."""

    inner: Adapter
    calls: list[_Call] = field(default_factory=list)

    @property
    def native(self) -> bool:  # type: ignore[override]  # Adapter's is a class attribute; this one asks inner
        return self.inner.native

    def supports(self, operation: str) -> bool:
        return self.inner.supports(operation)

    def close(self) -> None:
        self.inner.close()

    def call(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        if operation in REPORTS_CAPACITY and "ReturnConsumedCapacity" not in params:
            params = {**params, "ReturnConsumedCapacity": "TOTAL"}
        record = _Call(operation, params)
        self.calls.append(record)
        try:
            record.response = self.inner.call(operation, params)
        except RequestError as error:
            record.error = f"{error.code}: {error.message}"
            raise
        return record.response

    def take(self) -> list[_Call]:
        """The calls recorded since the last ``take``."""
        calls, self.calls = self.calls, []
        return calls


def _consumed(calls: list[_Call]) -> float:
    return capacity([call.response for call in calls])


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


def _create_table(db: DB, recorder: _RecordingAdapter, reset: bool) -> None:
    """Create the example's table; one already there is refused, or with ``reset`` deleted first."""
    table_name = db.table_name
    if _table_exists(recorder, table_name):
        if not reset:
            raise DemoError(
                f"table {table_name} already exists at this endpoint; "
                "run again with --reset to delete and recreate it"
            )
        db.delete_table()
        _wait_deleted(recorder, table_name)
    try:
        db.create_table()
    except RequestError as error:  # an endpoint without a feature the design needs (a vector index...)
        raise DemoError(
            f"the endpoint refused to create table {table_name}: {error.code}: {error.message}"
        ) from None


def _load_sample(
    example: Example, service: Any, db: DB, recorder: _RecordingAdapter, echo: Callable[[str], None]
) -> None:
    """Write the sample data, then print the heading: the title and what loading took."""
    recorder.take()
    example.load(service)
    loaded = recorder.take()
    echo(f"# {example.title}")
    echo(
        f"table {db.table_name}: {len(loaded)} requests loaded the sample data "
        f"({_consumed(loaded):g} capacity units)"
    )


def _run_step(step: Step, recorder: _RecordingAdapter, echo: Callable[[str], None]) -> None:
    """Run one step and print its name, note, requests (with any error), result and capacity."""
    echo("")
    echo(f"== {step.name}")
    if step.note:
        echo(f"   ({step.note})")
    try:
        outcome = render_result(step.run())
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
    echo(f"   capacity: {_consumed(calls):g}")


def run_example(example: Example, *, target: Any, reset: bool, echo: Callable[[str], None]) -> None:
    """Create the example's table on ``target``, load its sample data, run and print every step."""
    recorder = _RecordingAdapter(adapt(target))
    db = connect(example.table, recorder, clock=lambda: DEMO_CLOCK, cursor_secret=DEMO_CURSOR_SECRET)
    try:
        _create_table(db, recorder, reset)
        service = example.open(db)
        _load_sample(example, service, db, recorder, echo)
        for step in example.steps(service):
            _run_step(step, recorder, echo)
    finally:
        db.close()
