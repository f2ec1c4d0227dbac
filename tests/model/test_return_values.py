"""What each write asks DynamoDB to return, on every target: one decision for every kind of write.

``ReturnValues="ALL_NEW"`` is asked only by an UpdateItem sent alone for a caller that returns the entity as
stored (``db.update``, and ``db.put`` as the UpdateItem that keeps a stored createdAt); a transaction's
update reads the item back instead. ``ReturnValuesOnConditionCheckFailure="ALL_OLD"`` is asked by every part
whose failure is told apart by the stored item -- an update, a versioned write, a put guessing the stored
createdAt -- alone or inside a TransactWriteItems; guard items, derived items, a sequence's counter and a
plain put or create ask nothing. The requests are read from ``db.trace()``, as the model built them.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from singletable.model import GSI, Entity, Keys, Sequence, Table

design = Table(name="returns", indexes=[GSI("GSI1", pk="GSI1PK", sk="GSI1SK")])

ALL_NEW = {"ReturnValues": "ALL_NEW"}
ON_FAILURE = {"ReturnValuesOnConditionCheckFailure": "ALL_OLD"}
BOTH = {**ALL_NEW, **ON_FAILURE}


class Plain(Entity, table=design, type="PLAIN", timestamps=False):
    name: str
    note: str = ""
    count: int = 0

    keys = Keys(PK="PLAIN#{name}", SK="PLAIN")


class Versioned(Entity, table=design, type="VER", timestamps=False, version="version"):
    name: str
    note: str = ""
    version: int | None = None

    keys = Keys(PK="VER#{name}", SK="VER")


class Kept(Entity, table=design, type="KEPT"):
    """createdAt outside the keys: a put is an UpdateItem that keeps the stored one."""

    name: str
    note: str = ""
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(PK="KEPT#{name}", SK="KEPT")


class Dated(Entity, table=design, type="DATED"):
    """createdAt inside an index key: a put is a PutItem guessing the stored createdAt."""

    name: str
    note: str = ""
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(PK="DATED#{name}", SK="DATED", GSI1PK="DATED", GSI1SK="{created_at}#{name}")


class Handle(Entity, table=design, type="HANDLE", timestamps=False, unique={"email": "EMAIL#{email}"}):
    name: str
    email: str

    keys = Keys(PK="HANDLE#{name}", SK="HANDLE")


class Ticking:
    """A clock one second later at each call: a fresh object's createdAt never equals the stored one."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def asked(db: Any, write: Any) -> list[tuple[str, dict[str, str]]]:
    """The (operation, what it asks back) of each request ``write()`` sends; a TransactWriteItems' actions
    each as ``(operation.Kind, ...)``."""
    with db.trace() as trace:
        write()
    out: list[tuple[str, dict[str, str]]] = []
    for request in trace.requests:
        if request.operation == "TransactWriteItems":
            for action in request.params["TransactItems"]:
                ((kind, params),) = action.items()
                out.append((f"TransactWriteItems.{kind}", _returns(params)))
        else:
            out.append((request.operation, _returns(request.params)))
    return out


def _returns(params: dict[str, Any]) -> dict[str, str]:
    return {name: value for name, value in params.items() if name.startswith("ReturnValues")}


def test_plain_writes_ask_back_only_what_an_update_returns(open_db: Any) -> None:
    db = open_db(design)
    assert asked(db, lambda: db.create(Plain(name="a"))) == [("PutItem", {})]
    assert asked(db, lambda: db.put(Plain(name="a", note="n"))) == [("PutItem", {})]
    assert asked(db, lambda: db.update(Plain.key(name="a"), note="m")) == [("UpdateItem", BOTH)]
    upsert = asked(db, lambda: db.update(Plain.key(name="b"), Plain.f.count.add(1), upsert=True))
    assert upsert == [("UpdateItem", BOTH)]
    assert asked(db, lambda: db.delete(Plain.key(name="a"))) == [("DeleteItem", {})]


def test_versioned_writes_ask_for_the_stored_item_on_failure(open_db: Any) -> None:
    db = open_db(design)
    created = db.create(Versioned(name="a"))
    assert asked(db, lambda: db.put(created)) == [("PutItem", ON_FAILURE)]
    assert asked(db, lambda: db.update(Versioned.key(name="a"), note="n")) == [("UpdateItem", BOTH)]
    current = db.get(Versioned, name="a")
    assert asked(db, lambda: db.delete(current)) == [("DeleteItem", ON_FAILURE)]


def test_puts_keeping_createdat_ask_back_by_how_they_keep_it(open_db: Any) -> None:
    db = open_db(design, clock=Ticking())
    assert asked(db, lambda: db.put(Kept(name="a"))) == [("UpdateItem", ALL_NEW)]
    assert asked(db, lambda: db.put(Dated(name="a"))) == [("PutItem", ON_FAILURE)]
    # A fresh object guesses no createdAt: the failure returns the stored item and the put is retried.
    assert asked(db, lambda: db.put(Dated(name="a", note="n"))) == [
        ("PutItem", ON_FAILURE),
        ("PutItem", ON_FAILURE),
    ]


def test_a_transaction_asks_only_for_the_stored_item_on_failure(open_db: Any) -> None:
    db = open_db(design)
    db.create(Plain(name="a"))
    db.create(Plain(name="b"))

    def one_update() -> None:
        with db.transaction() as tx:
            tx.update(Plain.key(name="a"), note="t")

    assert asked(db, one_update) == [("UpdateItem", ON_FAILURE)]

    def one_put() -> None:  # read first, so nothing to retry
        with db.transaction() as tx:
            tx.put(Dated(name="t"))

    assert asked(db, one_put) == [("GetItem", {}), ("PutItem", {})]

    def several() -> None:
        with db.transaction() as tx:
            tx.update(Plain.key(name="a"), note="u")
            tx.create(Plain(name="c"))
            tx.check(Plain.key(name="b"), Plain.f.note == "")

    assert asked(db, several) == [
        ("TransactWriteItems.Update", ON_FAILURE),
        ("TransactWriteItems.Put", {}),
        ("TransactWriteItems.ConditionCheck", {}),
    ]


def test_guards_and_sequences_ask_nothing(open_db: Any) -> None:
    db = open_db(design)
    assert asked(db, lambda: db.create(Handle(name="a", email="a@x"))) == [
        ("TransactWriteItems.Put", {}),
        ("TransactWriteItems.Put", {}),
    ]
    assert asked(db, lambda: db.update(Handle.key(name="a"), email="b@x")) == [
        ("GetItem", {}),
        ("TransactWriteItems.Update", ON_FAILURE),
        ("TransactWriteItems.Delete", {}),
        ("TransactWriteItems.Put", {}),
        ("GetItem", {}),
    ]
    sequence = Sequence(Plain.key(name="counter"), Plain.f.count)
    assert asked(db, lambda: sequence.create(db, lambda n: Plain(name=f"n{n}"))) == [
        ("GetItem", {}),
        ("TransactWriteItems.Update", {}),
        ("TransactWriteItems.Put", {}),
    ]
