"""Errors a person can act on, on every target.

A cancelled transaction names the action that failed (its entity, role and key as plain values), never
AttributeValues; a transaction of more than 100 actions and a table name DynamoDB rejects are refused before
anything is sent; a closed DB, or a DB whose Engine was closed, raises ``DBClosed``, not a sqlite3 error.
"""

from __future__ import annotations

from typing import Any

import pytest

from singletable.engine import Engine
from singletable.model import (
    DBClosed,
    Entity,
    Keys,
    NotFound,
    RequestRefused,
    Table,
    TransactionFailed,
    connect,
)
from singletable.model._errors import ConditionFailed

pytestmark = pytest.mark.async_twin  # each test that opens a DB runs on AsyncDB too

errors_table = Table(name="errors")


class Doc(Entity, table=errors_table, type="DOC", timestamps=False):
    org: str
    doc_id: str
    title: str = ""
    count: int = 0
    notes: str = ""

    keys = Keys(PK="ORG#{org}", SK="DOC#{doc_id}")


def test_a_failed_check_in_a_transaction_names_the_action_and_its_key(open_db: Any) -> None:
    db = open_db(errors_table)
    db.create(Doc(org="a", doc_id="1", count=1))
    with pytest.raises(ConditionFailed) as caught, db.transaction() as tx:
        tx.create(Doc(org="a", doc_id="2"))
        tx.check(Doc.key(org="a", doc_id="1"), Doc.f.count == 5)
    assert str(caught.value) == (
        "TransactionCanceledException: transaction cancelled, action 2 of 2 "
        "(DOC check PK='ORG#a' SK='DOC#1'): its condition did not hold"
    )
    assert "{'S'" not in str(caught.value)
    assert db.get(Doc, org="a", doc_id="2") is None


def test_an_update_of_a_missing_entity_in_a_transaction_names_its_key_in_plain_values(open_db: Any) -> None:
    db = open_db(errors_table)
    db.create(Doc(org="a", doc_id="1"))
    with pytest.raises(NotFound) as caught, db.transaction() as tx:
        tx.update(Doc.key(org="a", doc_id="1"), title="x")
        tx.update(Doc.key(org="a", doc_id="2"), title="y")
    assert str(caught.value) == "DOC PK='ORG#a' SK='DOC#2' does not exist"


def test_a_cancellation_that_is_no_condition_names_the_action_and_dynamodbs_reason(open_db: Any) -> None:
    db = open_db(errors_table)
    db.create(Doc(org="a", doc_id="1", notes="x" * 3000))
    with pytest.raises(TransactionFailed) as caught, db.transaction() as tx:
        tx.create(Doc(org="a", doc_id="2"))
        # with its 3,000 characters of notes, the item would pass 400 KB
        tx.update(Doc.key(org="a", doc_id="1"), title="x" * 408_000)
    error = caught.value
    assert str(error) == (
        "TransactionCanceledException: transaction cancelled, action 2 of 2 (DOC update PK='ORG#a' "
        "SK='DOC#1') failed: ValidationError (Item size to update has exceeded the maximum allowed size)"
    )
    assert error.labels == ["DOC create", "DOC update"]
    assert [r.get("Code") for r in error.reasons] == ["None", "ValidationError"]
    assert [(c.index, c.action, c.key, c.code, c.message) for c in error.cancellations] == [
        (0, "DOC create", {"PK": "ORG#a", "SK": "DOC#2"}, "None", ""),
        (
            1,
            "DOC update",
            {"PK": "ORG#a", "SK": "DOC#1"},
            "ValidationError",
            "Item size to update has exceeded the maximum allowed size",
        ),
    ]
    assert db.get(Doc, org="a", doc_id="2") is None


def test_a_transaction_of_101_actions_is_refused_before_anything_is_sent(open_db: Any) -> None:
    db = open_db(errors_table)
    sent: list[str] = []
    call = db.call
    db.call = lambda operation, params: sent.append(operation) or call(operation, params)
    with pytest.raises(RequestRefused) as caught, db.transaction() as tx:
        for number in range(101):
            tx.create(Doc(org="a", doc_id=str(number)))
    assert str(caught.value) == (
        "a transaction holds at most 100 actions (DynamoDB's limit) and this one has 101 (guard and derived "
        "items count too); nothing was sent -- split it, or use db.batch_write where all-or-nothing is not "
        "needed"
    )
    assert sent == []
    with db.transaction() as tx:  # 100 is DynamoDB's limit, and goes through
        for number in range(100):
            tx.create(Doc(org="a", doc_id=str(number)))
    assert db.get(Doc, org="a", doc_id="99") is not None


@pytest.mark.parametrize("name", ["ab", "has space", "x" * 256, "ünï", "a/b"])
def test_a_table_name_dynamodb_rejects_is_refused_when_connecting(target: Any, name: str) -> None:
    with pytest.raises(RequestRefused) as caught:
        connect(errors_table, target, name=name)
    assert str(caught.value) == (
        f"table name {name!r} is not one DynamoDB accepts: it must be 3 to 255 characters, each a letter, "
        "a digit, '_', '-' or '.'"
    )


def test_a_declared_table_name_dynamodb_rejects_is_refused_when_connecting(target: Any) -> None:
    with pytest.raises(RequestRefused, match=r"^table name 'no' is not one DynamoDB accepts"):
        connect(Table(name="no"), target)


def test_the_longest_and_shortest_valid_names_are_accepted(target: Any) -> None:
    assert connect(errors_table, target, name="a.-").table_name == "a.-"
    assert connect(errors_table, target, name="A" * 255).table_name == "A" * 255


def test_a_closed_db_raises_dbclosed_for_reads_writes_and_queries(open_db: Any) -> None:
    db = open_db(errors_table)
    db.create(Doc(org="a", doc_id="1"))
    db.close()
    message = "this DB was closed (db.close()); connect() again to use the table"
    for use in (
        lambda: db.get(Doc, org="a", doc_id="1"),
        lambda: db.create(Doc(org="a", doc_id="2")),
        lambda: db.update(Doc.key(org="a", doc_id="1"), title="x"),
        lambda: db.delete(Doc, org="a", doc_id="1"),
        lambda: db.batch_get([Doc.key(org="a", doc_id="1")]),
    ):
        with pytest.raises(DBClosed) as caught:
            use()
        assert str(caught.value) == message


def test_a_db_whose_engine_was_closed_raises_dbclosed(tmp_path: Any) -> None:
    engine = Engine(str(tmp_path / "closed.sqlite3"))
    db = connect(errors_table, engine, name="closed_engine")
    db.create_table()
    db.create(Doc(org="a", doc_id="1"))
    engine.close()
    for use in (
        lambda: db.get(Doc, org="a", doc_id="1"),
        lambda: db.create(Doc(org="a", doc_id="2")),
    ):
        with pytest.raises(DBClosed) as caught:
            use()
        assert str(caught.value) == (
            "the Engine this DB uses was closed (engine.close()); connect() to an open Engine"
        )


def test_a_db_connect_opened_from_a_path_is_closed_with_it(tmp_path: Any) -> None:
    with connect(errors_table, str(tmp_path / "own.sqlite3"), name="owned") as db:
        db.create_table()
        db.create(Doc(org="a", doc_id="1"))
    with pytest.raises(DBClosed, match=r"^this DB was closed"):
        db.get(Doc, org="a", doc_id="1")
