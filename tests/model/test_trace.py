"""``db.trace()``: every request the model sends, with its capacity, on every target.

A test can assert what a page or a write costs; only traced requests ask for their capacity, so the untraced
path sends exactly what it sent before.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from singletable.model import (
    GSI,
    Adapter,
    AlreadyExists,
    ConditionFailed,
    Entity,
    Keys,
    Pattern,
    Table,
    Trace,
    TracedRequest,
    adapt,
    connect,
)

pytestmark = pytest.mark.async_twin  # each test that opens a DB runs on AsyncDB too

trace_table = Table(name="traced")


class Note(Entity, table=trace_table, type="NOTE", timestamps=False):
    user: str
    note_id: str
    text: str = ""

    keys = Keys(PK="USER#{user}", SK="NOTE#{note_id}")
    of_user = Pattern()


class Member(Entity, table=trace_table, type="MEMBER", unique=["email"], timestamps=False):
    name: str
    email: str

    keys = Keys(PK="MEMBER#{name}", SK="MEMBER")


class Recording(Adapter):
    """The adapter connect would build, keeping the parameters of each request it is given."""

    def __init__(self, inner: Adapter) -> None:
        self.inner = inner
        self.native = inner.native
        self.seen: list[tuple[str, dict[str, Any]]] = []

    def call(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        self.seen.append((operation, params))
        return self.inner.call(operation, params)

    def supports(self, operation: str) -> bool:
        return self.inner.supports(operation)

    def close(self) -> None:
        self.inner.close()


def test_a_page_costs_one_query_of_half_a_unit(open_db: Any) -> None:
    db = open_db(trace_table)
    for number in range(3):
        db.create(Note(user="u", note_id=str(number), text="hello"))
    with db.trace() as trace:
        page = db.page(Note.of_user(user="u"), size=3)
    assert len(page) == 3
    assert trace.operations == ["Query"]
    assert trace.capacity_units == 0.5  # 3 small items, eventually consistent: half a read unit
    (query,) = trace.requests
    assert query.count == 3
    assert query.params["Limit"] == 4 and "ReturnConsumedCapacity" not in query.params
    assert query.capacity["CapacityUnits"] == 0.5


def test_writes_are_traced_with_their_capacity(open_db: Any) -> None:
    db = open_db(trace_table)
    with db.trace() as trace:
        db.create(Note(user="u", note_id="1"))
        db.create(Member(name="ann", email="a@x.com"))  # the entity and its guard: one transaction
    assert trace.operations == ["PutItem", "TransactWriteItems"]
    assert [r.capacity_units for r in trace.requests] == [1.0, 4.0]
    assert trace.capacity_units == 5.0
    assert len(trace) == 2


def test_a_failed_request_is_traced_with_its_error(open_db: Any) -> None:
    db = open_db(trace_table)
    db.create(Note(user="u", note_id="1"))
    with db.trace() as trace, pytest.raises(AlreadyExists):
        db.create(Note(user="u", note_id="1"))
    (failed,) = trace.requests
    # the request's own error; the write then raised what it meant (AlreadyExists)
    assert failed.operation == "PutItem" and isinstance(failed.error, ConditionFailed)
    assert failed.error.code == "ConditionalCheckFailedException"
    assert failed.capacity is None and failed.capacity_units == 0


def test_only_traced_requests_ask_for_capacity(target: Any, table_name: str) -> None:
    adapter = Recording(adapt(target))
    db = connect(trace_table, adapter, name=table_name)
    db.create_table()
    try:
        db.create(Note(user="u", note_id="1"))
        with db.trace() as trace:
            db.get(Note, user="u", note_id="1")
        db.get(Note, user="u", note_id="1")
        sent = [(op, p.get("ReturnConsumedCapacity")) for op, p in adapter.seen if op != "DescribeTable"]
        assert sent == [("CreateTable", None), ("PutItem", None), ("GetItem", "TOTAL"), ("GetItem", None)]
        assert trace.operations == ["GetItem"]
        assert db.call == adapter.call  # outside a trace, nothing wraps the adapter
    finally:
        db.delete_table()


def test_traces_nest_and_the_outer_one_sees_everything(open_db: Any) -> None:
    db = open_db(trace_table)
    with db.trace() as outer:
        db.create(Note(user="u", note_id="1"))
        with db.trace() as inner:
            db.get(Note, user="u", note_id="1")
    assert outer.operations == ["PutItem", "GetItem"]
    assert inner.operations == ["GetItem"]
    assert isinstance(outer, Trace) and all(isinstance(r, TracedRequest) for r in outer.requests)


def test_a_trace_can_ask_for_each_index_share(open_db: Any) -> None:
    """``db.trace(capacity="INDEXES")``: the table's and each index's units (what ``cost`` prices)."""
    db = open_db(indexed_table)
    with db.trace(capacity="INDEXES") as trace:
        db.create(Tagged(tag_id="1", tag="red"))
    (put,) = trace.requests
    assert put.capacity["Table"] == {"CapacityUnits": 1.0}
    assert put.capacity["GlobalSecondaryIndexes"] == {"byTag": {"CapacityUnits": 1.0}}
    assert put.capacity_units == 2.0
    with pytest.raises(ValueError) as raised, db.trace(capacity="ALL"):
        pass
    assert str(raised.value) == "db.trace(capacity=...) takes 'TOTAL' or 'INDEXES', not 'ALL'"


def test_a_saved_trace_is_recorded_traffic(open_db: Any, tmp_path: Path) -> None:
    """``trace.save(path)``: one JSON line per request -- when it was answered, its parameters, capacity,
    count and scanned count, or its error -- as ``serve --record`` writes and ``check --traffic`` reads."""
    db = open_db(trace_table)
    for number in range(2):
        db.create(Note(user="u", note_id=str(number), text="hello"))
    before = time.time()
    with db.trace(capacity="INDEXES") as trace, pytest.raises(AlreadyExists):
        assert len(db.page(Note.of_user(user="u"), size=5)) == 2
        db.create(Note(user="u", note_id="1"))
    path = tmp_path / "traffic.jsonl"
    trace.save(path)
    query, put = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())
    assert (query["operation"], put["operation"]) == ("Query", "PutItem")
    assert before <= query["time"] <= put["time"] <= time.time()
    assert (query["count"], query["scanned_count"], query["error"]) == (2, 2, None)
    assert query["params"] == trace.requests[0].params and "ReturnConsumedCapacity" not in query["params"]
    assert query["capacity"]["Table"] == {
        "CapacityUnits": 0.5
    }  # the INDEXES mode asked for the table's share
    assert put["capacity"] is None and put["count"] is None and put["scanned_count"] is None
    assert put["error"]["code"] == "ConditionalCheckFailedException"


indexed_table = Table(name="traced-indexes", indexes=[GSI("byTag", pk="tag")])


class Tagged(Entity, table=indexed_table, type="TAGGED", timestamps=False):
    tag_id: str
    tag: str

    keys = Keys(PK="TAG#{tag_id}", SK="TAG")
