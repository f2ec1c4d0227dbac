"""Partial updates keep every index key right, on every target.

A key whose condition an update makes false is removed with no other field given; an update that changes
one field of a multi-field template reads the fields it does not give, rebuilds the key from them and is
conditioned on them being stored as read (retried when a concurrent writer changed them). The concurrency
tests update the template fields of one item from many threads and processes, then check that every key
attribute equals what the templates compute from the stored item.
"""

from __future__ import annotations

import multiprocessing
import random
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from draws import examples
from singletable.model import (
    GSI,
    ConditionFailed,
    Entity,
    Key,
    Keys,
    MissingKeyFields,
    NotFound,
    Table,
    connect,
)

tracker = Table(
    name="sparse-updates",
    indexes=[
        GSI("GSI1", pk="GSI1PK", sk="GSI1SK"),
        GSI("GSI2", pk="GSI2PK", sk="GSI2SK"),
    ],
)

pytestmark = pytest.mark.async_twin  # each test that opens a DB runs on AsyncDB too


class Task(Entity, table=tracker, type="TASK", timestamps=False):
    id: str
    owner: str | None = None
    status: str = "open"
    project: str = "p0"
    due: str = "2026-01-01"
    points: int = 0

    keys = Keys(
        PK="TASK#{id}",
        SK="TASK",
        GSI1PK=Key("OWNER#{owner}", when=lambda status: status == "open"),  # my open tasks
        GSI1SK=Key("DUE#{due}#{project}", when=lambda status: status == "open"),
        GSI2PK="PROJECT#{project}#{owner}",
        GSI2SK=Key("POINTS#{points:04d}", otherwise="NONE"),
    )


KEY_ATTRIBUTES = ("GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK")


def stored(db: Any, task_id: str) -> dict[str, Any]:
    key = Task.key(id=task_id).item_key()
    return db.call("GetItem", {"TableName": db.table_name, "Key": key, "ConsistentRead": True})["Item"]


def assert_keys_follow_the_item(db: Any, task_id: str) -> None:
    """Every key attribute stored on the item is what the templates compute from its stored fields."""
    item = stored(db, task_id)
    meta = Task.model_entity()
    expected = meta.to_item(meta.decode(item))
    assert {a: item.get(a) for a in KEY_ATTRIBUTES} == {a: expected.get(a) for a in KEY_ATTRIBUTES}


def index_keys(db: Any, index: str) -> list[dict[str, Any]]:
    """The entries an index holds, as (partition, sort) key values."""
    items = db.call("Scan", {"TableName": db.table_name, "IndexName": index})["Items"]
    pk, sk = f"{index}PK", f"{index}SK"
    return sorted((i[pk]["S"], i[sk]["S"]) for i in items)


# -- a condition made false removes the key, no other field needed -----------------------------------------


def test_closing_a_task_removes_its_sparse_keys_without_the_template_fields(open_db) -> None:
    db = open_db(tracker)
    db.create(Task(id="1", owner="ann", due="2026-03-01"))
    assert index_keys(db, "GSI1") == [("OWNER#ann", "DUE#2026-03-01#p0")]
    calls: list[str] = []
    inner = db.call
    db.call = lambda op, params: calls.append(op) or inner(op, params)
    db.update(Task.key(id="1"), status="closed")
    assert calls == ["UpdateItem"]  # no read: removing a key needs no field
    assert index_keys(db, "GSI1") == []
    item = stored(db, "1")
    assert "GSI1PK" not in item and "GSI1SK" not in item and item["status"] == {"S": "closed"}
    assert_keys_follow_the_item(db, "1")


def test_reopening_reads_the_fields_the_key_needs(open_db) -> None:
    db = open_db(tracker)
    db.create(Task(id="1", owner="ann", status="closed"))
    assert index_keys(db, "GSI1") == []
    db.update(Task.key(id="1"), status="open")
    assert index_keys(db, "GSI1") == [("OWNER#ann", "DUE#2026-01-01#p0")]
    assert_keys_follow_the_item(db, "1")


def test_one_field_of_a_multi_field_template(open_db) -> None:
    db = open_db(tracker)
    db.create(Task(id="1", owner="ann", project="alpha", points=3))
    db.update(Task.key(id="1"), project="beta")  # GSI1SK and GSI2PK need due, status, owner: read
    assert index_keys(db, "GSI1") == [("OWNER#ann", "DUE#2026-01-01#beta")]
    assert index_keys(db, "GSI2") == [("PROJECT#beta#ann", "POINTS#0003")]
    db.update(Task.key(id="1"), owner=None)  # a template field removed: GSI1PK and GSI2PK go
    assert index_keys(db, "GSI1") == [] and index_keys(db, "GSI2") == []
    assert "GSI1PK" not in stored(db, "1") and "GSI2PK" not in stored(db, "1")
    db.update(Task.key(id="1"), owner="bob", points=None)  # GSI2SK falls back to its alternative
    assert index_keys(db, "GSI2") == [("PROJECT#beta#bob", "NONE")]
    assert_keys_follow_the_item(db, "1")


def test_an_update_of_a_missing_item_is_not_found_and_writes_nothing(open_db) -> None:
    db = open_db(tracker)
    with pytest.raises(NotFound):
        db.update(Task.key(id="none"), project="beta")
    assert db.get(Task, id="none") is None
    made = db.update(Task.key(id="new"), project="beta", upsert=True)  # nothing stored: created whole
    assert made.project == "beta" and made.status == "open" and index_keys(db, "GSI2") == []
    item = stored(db, "new")  # the defaults stored, and the keys built from them: no owner, so no GSI1PK
    assert item == Task.model_entity().to_item(Task.model_entity().values(made))
    assert item["GSI1SK"] == {"S": "DUE#2026-01-01#beta"} and "GSI1PK" not in item and "GSI2PK" not in item


def test_arithmetic_on_a_template_field_is_refused_naming_it(open_db) -> None:
    db = open_db(tracker)
    db.create(Task(id="1", owner="ann", points=3))
    with pytest.raises(MissingKeyFields) as caught:
        db.update(Task.key(id="1"), Task.f.points.add(1))
    assert caught.value.attribute == "GSI2SK" and caught.value.missing == ["points"]
    assert str(caught.value) == (
        "TASK: key attribute GSI2SK = 'POINTS#{points:04d}' needs points (the update computes points "
        "from the stored value (add, subtract, append...), so the new value is not known to rebuild the "
        "key; set it to its new value instead)"
    )
    assert db.get(Task, id="1").points == 3


def change_owner(db: Any, key: dict[str, Any], owner: str) -> dict[str, Any]:
    """Another writer's UpdateItem: a task of project p0, open, handed to ``owner`` (keys included)."""
    return {
        "TableName": db.table_name,
        "Key": key,
        "UpdateExpression": "SET #o = :o, GSI1PK = :k, GSI2PK = :p",
        "ExpressionAttributeNames": {"#o": "owner"},
        "ExpressionAttributeValues": {
            ":o": {"S": owner},
            ":k": {"S": f"OWNER#{owner}"},
            ":p": {"S": f"PROJECT#p0#{owner}"},
        },
    }


def test_a_concurrent_change_between_read_and_write_is_retried(open_db) -> None:
    db = open_db(tracker)
    db.create(Task(id="1", owner="ann"))
    inner, raced = db.call, []

    def racing(op: str, params: dict[str, Any]) -> dict[str, Any]:
        if op == "UpdateItem" and not raced:  # another writer changes owner after our read
            raced.append(op)
            inner("UpdateItem", change_owner(db, params["Key"], "eve"))
        return inner(op, params)

    db.call = racing
    updated = db.update(Task.key(id="1"), project="beta")
    assert updated.owner == "eve" and updated.project == "beta" and raced == ["UpdateItem"]
    assert index_keys(db, "GSI2") == [("PROJECT#beta#eve", "POINTS#0000")]
    assert_keys_follow_the_item(db, "1")


def test_an_update_raced_on_every_attempt_gives_up_with_a_clear_error(open_db) -> None:
    db = open_db(tracker)
    db.create(Task(id="1", owner="o0"))
    inner, raced = db.call, []

    def always_racing(op: str, params: dict[str, Any]) -> dict[str, Any]:
        if op == "UpdateItem":  # before each attempt, another writer changes owner (and its keys)
            raced.append(op)
            inner("UpdateItem", change_owner(db, params["Key"], f"o{len(raced)}"))
        return inner(op, params)

    db.call = always_racing
    with pytest.raises(ConditionFailed) as caught:
        db.update(Task.key(id="1"), project="beta")
    assert str(caught.value) == (
        "ConditionalCheckFailedException: TASK: another writer changed due, status, owner under each of 8 "
        "attempts of this update, which rebuilds keys from them; nothing was written, try again"
    )
    db.call = inner
    assert len(raced) == 8
    assert db.get(Task, id="1").project == "p0" and db.get(Task, id="1").owner == "o8"
    assert_keys_follow_the_item(db, "1")


def test_the_callers_condition_is_not_retried(open_db) -> None:
    db = open_db(tracker)
    db.create(Task(id="1", owner="ann"))
    calls: list[str] = []
    inner = db.call
    db.call = lambda op, params: calls.append(op) or inner(op, params)
    with pytest.raises(ConditionFailed):
        db.update(Task.key(id="1"), project="beta", condition=Task.f.points > 5)
    assert calls == ["GetItem", "UpdateItem"]


def test_in_a_transaction_a_concurrent_change_fails_the_transaction(open_db) -> None:
    db = open_db(tracker)
    db.create(Task(id="1", owner="ann"))
    with pytest.raises(ConditionFailed), db.transaction() as tx:
        tx.update(Task.key(id="1"), project="beta")  # planned from owner=ann
        db.update(Task.key(id="1"), owner="bob")
    assert index_keys(db, "GSI2") == [("PROJECT#p0#bob", "POINTS#0000")]
    assert_keys_follow_the_item(db, "1")


# -- concurrency: template fields of one item changed from many writers ------------------------------------

CHANGES: list[tuple[str, Any]] = [
    ("owner", "ann"),
    ("owner", "bob"),
    ("owner", None),
    ("status", "open"),
    ("status", "closed"),
    ("project", "alpha"),
    ("project", "beta"),
    ("due", "2026-02-01"),
    ("due", "2026-03-01"),
    ("points", 1),
    ("points", None),
]


def churn(db: Any, seed: int, updates: int) -> int:
    """``updates`` single-field updates of task 1's template fields; returns how many gave up under
    contention (ConditionFailed after the bounded retries)."""
    rng, gave_up = random.Random(seed), 0
    for _ in range(updates):
        name, value = rng.choice(CHANGES)
        try:
            db.update(Task.key(id="1"), **{name: value})
        except ConditionFailed:
            gave_up += 1
    return gave_up


def test_threads_changing_template_fields_leave_every_index_right(open_db) -> None:
    db = open_db(tracker)
    db.create(Task(id="1", owner="ann"))
    results: list[int] = []
    threads = [threading.Thread(target=lambda s=s: results.append(churn(db, s, 25))) for s in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 6 and sum(results) < 6 * 25  # most updates got through
    assert_keys_follow_the_item(db, "1")
    entries = index_keys(db, "GSI1") + index_keys(db, "GSI2")
    item = stored(db, "1")
    expected = [(item[f"{i}PK"]["S"], item[f"{i}SK"]["S"]) for i in ("GSI1", "GSI2") if f"{i}PK" in item]
    assert sorted(entries) == sorted(expected)


def _process_churn(path: str, name: str, seed: int) -> None:
    db = connect(tracker, path, name=name)
    churn(db, seed, 20)
    db.close()


def test_processes_changing_template_fields_leave_every_index_right(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.sqlite3")
    db = connect(tracker, path, name="tasks")
    db.create_table()
    db.create(Task(id="1", owner="ann"))
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_process_churn, args=(path, "tasks", s)) for s in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
    assert [w.exitcode for w in workers] == [0, 0, 0]
    assert_keys_follow_the_item(db, "1")
    item = stored(db, "1")
    expected = [(item[f"{i}PK"]["S"], item[f"{i}SK"]["S"]) for i in ("GSI1", "GSI2") if f"{i}PK" in item]
    assert sorted(index_keys(db, "GSI1") + index_keys(db, "GSI2")) == sorted(expected)
    db.close()


# -- any sequence of partial updates keeps the keys right ---------------------------------------------------


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.lists(st.sampled_from(CHANGES), min_size=1, max_size=3), min_size=1, max_size=8))
def test_any_sequence_of_partial_updates_keeps_the_keys_right(updates: list[list[tuple[str, Any]]]) -> None:
    with connect(tracker, ":memory:", name="tasks") as db:
        db.create_table()
        db.create(Task(id="1", owner="ann"))
        for changes in updates:
            db.update(Task.key(id="1"), **dict(changes))
            assert_keys_follow_the_item(db, "1")
