"""Reading an item that does not fit its entity raises one clear error.

Before: an item another tool (or older code) wrote -- ``{"S": "many"}`` in an ``int`` field, a missing
required field, a list where a nested model is declared -- made every read of it raise a bare ``KeyError``
(or pydantic's ``ValidationError``) and failed every query over its partition. Now get, find, query, page,
collect and batch_get raise :class:`StoredItemError` naming the table, the item's key, the attribute, the
expected and the stored type, on the fast read path and the validation path alike; queries, pages and
collections can skip such items or hand them back raw (``on_bad_item=``). The foreign items are written with
raw PutItem requests, on every target.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel, field_validator

from singletable.model import DB, Collection, Entity, Keys, ModelError, Pattern, StoredItemError, Table

pytestmark = pytest.mark.async_twin  # each test that opens a DB runs on AsyncDB too

foreign_table = Table(name="foreign-items")


class Address(BaseModel):
    city: str
    zip: str = ""


class Counter(Entity, table=foreign_table, type="COUNTER", timestamps=False):
    group: str
    name: str
    value: int
    note: str = ""
    home: Address | None = None

    keys = Keys(PK="GROUP#{group}", SK="COUNTER#{name}")
    in_group = Pattern()


class Checked(Entity, table=foreign_table, type="CHECKED", timestamps=False):
    """Validators: items of this entity always take the validation path."""

    group: str
    name: str
    value: int

    keys = Keys(PK="GROUP#{group}", SK="CHECKED#{name}")
    in_group = Pattern()

    @field_validator("name")
    @classmethod
    def _named(cls, value: str) -> str:
        return value


TYPE = foreign_table.type_attribute
everything = Collection(foreign_table, "everything", pk="GROUP#{group}", entities=(Counter, Checked))


def _fill(database: DB) -> None:
    for name, value in (("a", 1), ("c", 3)):
        database.create(Counter(group="g", name=name, value=value))
    database.create(Checked(group="g", name="a", value=1))


@pytest.fixture
def db(open_db: Callable[..., DB]) -> DB:
    database = open_db(foreign_table)
    _fill(database)
    return database


@pytest.fixture
def shared(shared_db: Callable[..., DB]) -> DB:
    """The same items on a table shared by the module's tests that only read them (no foreign item)."""
    return shared_db(foreign_table, _fill)


def put_raw(db: DB, item: dict[str, Any]) -> dict[str, Any]:
    """Store ``item`` with a plain PutItem, as another tool would: the model checks nothing."""
    db.call("PutItem", {"TableName": db.table_name, "Item": item})
    return item


def foreign_counter(db: DB, name: str = "b", **attributes: Any) -> dict[str, Any]:
    item = {
        "PK": {"S": "GROUP#g"},
        "SK": {"S": f"COUNTER#{name}"},
        TYPE: {"S": "COUNTER"},
        "group": {"S": "g"},
        "name": {"S": name},
        "value": {"N": "2"},
    }
    item.update(attributes)
    return put_raw(db, {k: v for k, v in item.items() if v is not None})


# What each kind of foreign item gets: (attributes, attribute named, expected, stored)
MISFITS = {
    "string in an int field": ({"value": {"S": "many"}}, "value", "int (N)", "S 'many'"),
    "missing required field": ({"value": None}, "value", "int (N)", "nothing (the attribute is absent)"),
    "list where a map is declared": ({"home": {"L": [{"S": "x"}]}}, "home", "(M)", "L [{'S': 'x'}]"),
    "number where a string is declared": ({"note": {"N": "5"}}, "note", "str (S)", "N '5'"),
}


def check(error: StoredItemError, db: DB, attribute: str, expected: str, stored: str, entity: str) -> None:
    assert isinstance(error, ModelError) and not isinstance(error, KeyError)
    assert error.table == db.table_name and error.entity == entity
    assert error.key == {"PK": "GROUP#g", "SK": f"{entity}#b"}
    assert error.attribute == attribute
    assert expected in error.expected and error.stored.startswith(stored)
    message = str(error)
    for part in (db.table_name, "GROUP#g", f"{entity}#b", repr(attribute), expected, stored):
        assert part in message


@pytest.mark.parametrize("misfit", list(MISFITS))
def test_get_names_what_does_not_fit(db: DB, misfit: str) -> None:
    attributes, attribute, expected, stored = MISFITS[misfit]
    foreign_counter(db, **attributes)
    with pytest.raises(StoredItemError) as caught:
        db.get(Counter, group="g", name="b")
    check(caught.value, db, attribute, expected, stored, "COUNTER")
    with pytest.raises(StoredItemError):
        db.batch_get([Counter.key(group="g", name="a"), Counter.key(group="g", name="b")])


def test_the_validation_path_names_it_too(db: DB) -> None:
    item = foreign_counter(db, value={"S": "many"})
    item.update({"SK": {"S": "CHECKED#b"}, TYPE: {"S": "CHECKED"}})
    put_raw(db, item)
    assert Checked.model_entity().builder is None  # validators: never the fast builder
    with pytest.raises(StoredItemError) as caught:
        db.get(Checked, group="g", name="b")
    check(caught.value, db, "value", "int (N)", "S 'many'", "CHECKED")
    with pytest.raises(StoredItemError):
        list(db.query(Checked.in_group(group="g")))


@pytest.mark.parametrize("misfit", list(MISFITS))
def test_a_query_raises_skips_or_returns_raw(db: DB, misfit: str) -> None:
    attributes, attribute, expected, stored = MISFITS[misfit]
    item = foreign_counter(db, **attributes)
    query = Counter.in_group(group="g")
    with pytest.raises(StoredItemError) as caught:
        list(db.query(query))
    check(caught.value, db, attribute, expected, stored, "COUNTER")
    with pytest.raises(StoredItemError):
        db.page(query, size=10)
    with pytest.raises(StoredItemError):
        db.collect(everything(group="g"))

    assert [c.name for c in db.query(query, on_bad_item="skip")] == ["a", "c"]
    assert [c.name for c in db.page(query, size=10, on_bad_item="skip").items] == ["a", "c"]
    raw = list(db.query(query, on_bad_item="raw"))
    assert [type(e).__name__ for e in raw] == ["Counter", "dict", "Counter"]
    assert raw[1] == item
    page = db.page(query, size=2, on_bad_item="raw")
    assert page.items[1] == item and page.cursor is not None
    assert [c.name for c in db.page(query, size=2, cursor=page.cursor, on_bad_item="raw").items] == ["c"]
    grouped = db.collect(everything(group="g"), on_bad_item="raw")
    assert grouped.of(dict) == [item] and [c.name for c in grouped[Counter]] == ["a", "c"]
    assert len(db.collect(everything(group="g"), on_bad_item="skip")) == 3


def test_a_limited_query_and_a_projection_meet_it_too(db: DB) -> None:
    foreign_counter(db, value={"S": "many"})
    query = Counter.in_group(group="g")
    with pytest.raises(StoredItemError):
        list(db.query(query, limit=2))
    assert [c.name for c in db.query(query, limit=2, on_bad_item="skip")] == ["a", "c"]
    with pytest.raises(StoredItemError) as caught:
        list(db.query(query.select(Counter.f.value)))
    assert caught.value.attribute == "value"


def test_good_items_still_decode_on_the_fast_path(shared: DB) -> None:
    assert Counter.model_entity().builder is not None
    assert [(c.name, c.value) for c in shared.query(Counter.in_group(group="g"))] == [("a", 1), ("c", 3)]
    assert shared.get(Counter, group="g", name="a").value == 1


@pytest.mark.parametrize("value", ["skip ", "RAW", None, 1])
def test_an_unknown_on_bad_item_is_refused(shared: DB, value: Any) -> None:
    query = Counter.in_group(group="g")
    expected = "on_bad_item must be one of 'raise', 'skip', 'raw', not " + repr(value)
    for read in (
        lambda: list(shared.query(query, on_bad_item=value)),
        lambda: shared.page(query, on_bad_item=value),
        lambda: shared.collect(everything(group="g"), on_bad_item=value),
    ):
        with pytest.raises(ModelError) as caught:
            read()
        assert str(caught.value) == expected


@pytest.mark.parametrize("misfit", list(MISFITS))
def test_an_update_returning_an_item_that_does_not_fit_names_it(db: DB, misfit: str) -> None:
    """``db.update`` decodes the item it returns (ReturnValues=ALL_NEW) like a read does: an item that does
    not fit raised a bare KeyError or ValueError; it raises StoredItemError. The update itself is written
    (DynamoDB applied it before returning the item)."""
    attributes, attribute, expected, stored = MISFITS[misfit]
    foreign_counter(db, **attributes)
    changed, value, av = ("value", 7, {"N": "7"}) if attribute == "note" else ("note", "x", {"S": "x"})
    change = {changed: value}
    with pytest.raises(StoredItemError) as caught:
        db.update(Counter.key(group="g", name="b"), **change)
    check(caught.value, db, attribute, expected, stored, "COUNTER")
    key = {"PK": {"S": "GROUP#g"}, "SK": {"S": "COUNTER#b"}}
    item = db.call("GetItem", {"TableName": db.table_name, "Key": key, "ConsistentRead": True})["Item"]
    assert item[changed] == av
