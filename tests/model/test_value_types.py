"""A value of the wrong type never reaches DynamoDB.

Before: ``db.update(Counter.key(name="a"), value="many")`` on an ``int`` field stored ``{"S": "many"}``,
raised ``KeyError: 'N'``, and every later read of the item failed. Now every value the model sends -- a
create or put of an entity changed behind pydantic's back, an update's SET/ADD/subtract/append/delete/
if_not_exists, a condition's operands, a key template's inputs -- is checked against the field's declared
type first; a wrong one raises :class:`FieldTypeError` naming entity, field, expected type and value, and no
request is sent. On every target.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import pytest

from singletable.model import DB, Entity, FieldTypeError, Keys, ModelError, Table
from singletable.model._expr import Action, Compiler, compile_update

pytestmark = pytest.mark.async_twin  # each test that opens a DB runs on AsyncDB too

types_table = Table(name="value-types")


class Counter(Entity, table=types_table, type="COUNTER", timestamps=False):
    name: str
    value: int = 0
    ratio: float = 0.0
    price: Decimal = Decimal("0")
    flag: bool = False
    day: date | None = None
    at: datetime | None = None
    tags: list[str] = []
    labels: set[str] = set()
    scores: dict[str, int] = {}

    keys = Keys(PK="COUNTER#{name}", SK="COUNTER")


class Project(Entity, table=types_table, type="PROJECT", timestamps=False):
    key_name: str
    next_issue_number: int = 1

    keys = Keys(PK="PROJECT#{key_name}", SK="PROJECT")


def _fill(database: DB) -> None:
    database.create(Counter(name="a", value=3, labels={"x"}))
    database.create(Project(key_name="P"))


@pytest.fixture
def db(open_db: Callable[..., DB]) -> DB:
    database = open_db(types_table)
    _fill(database)
    return database


@pytest.fixture
def shared(shared_db: Callable[..., DB]) -> DB:
    """The same items on a table the module's tests of refused updates share (each makes no request)."""
    return shared_db(types_table, _fill)


def sent(db: DB) -> list[str]:
    """Record the operations the model sends from now on."""
    calls: list[str] = []
    real = db.call

    def spy(operation: str, params: dict[str, Any]) -> dict[str, Any]:
        calls.append(operation)
        return real(operation, params)

    db.call = spy  # type: ignore[method-assign]
    return calls


def stored(db: DB) -> dict[str, Any]:
    return db.call("GetItem", {"TableName": db.table_name, "Key": Counter.key(name="a").item_key()})["Item"]


def test_the_issue_case_a_text_in_an_int_field_is_refused_and_nothing_is_written(db: DB) -> None:
    calls = sent(db)
    with pytest.raises(FieldTypeError) as caught:
        db.update(Counter.key(name="a"), value="many")
    error = caught.value
    assert (error.entity, error.field, error.expected, error.value) == ("COUNTER", "value", "int", "many")
    assert str(error) == "COUNTER.value is int; 'many' (str) does not fit"
    assert isinstance(error, ModelError) and isinstance(error, TypeError)
    assert calls == []
    assert stored(db)["value"] == {"N": "3"}
    assert db.get(Counter, name="a").value == 3  # the item still reads


@pytest.mark.parametrize(
    ("action", "expected", "value"),
    [
        (lambda: Counter.f.value.set(2.5), "int", 2.5),
        (lambda: Counter.f.value.set(True), "int", True),
        (lambda: Counter.f.value.add("1"), "int", "1"),
        (lambda: Counter.f.ratio.subtract("x"), "float", "x"),
        (lambda: Counter.f.price.set("cheap"), "Decimal", "cheap"),
        (lambda: Counter.f.flag.set("yes"), "bool", "yes"),
        (
            lambda: Counter.f.day.set(datetime(2024, 1, 1, tzinfo=UTC)),
            "date",
            datetime(2024, 1, 1, tzinfo=UTC),
        ),
        (lambda: Counter.f.at.set("2024-01-01"), "datetime", "2024-01-01"),
        (lambda: Counter.f.tags.set("abc"), "list[str]", "abc"),
        (lambda: Counter.f.tags.append([1]), "list[str]", [1]),
        (lambda: Counter.f.labels.add({1}), "set[str]", {1}),
        (lambda: Counter.f.labels.delete([2]), "set[str]", {2}),
        (lambda: Counter.f.scores.set({"a": "b"}), "dict[str, int]", {"a": "b"}),
        (lambda: Counter.f.scores["a"].set("b"), "int", "b"),
        (lambda: Counter.f.value.if_not_exists("zero"), "int", "zero"),
    ],
)
def test_every_update_action_checks_its_value(shared: DB, action: Any, expected: str, value: Any) -> None:
    calls = sent(shared)
    with pytest.raises(FieldTypeError) as caught:
        shared.update(Counter.key(name="a"), action())
    assert (caught.value.expected, caught.value.value) == (expected, value)
    assert caught.value.entity == "COUNTER"
    assert calls == []
    assert shared.get(Counter, name="a") == Counter(name="a", value=3, labels={"x"})


def test_right_types_still_go_through(db: DB) -> None:
    updated = db.update(
        Counter.key(name="a"),
        Counter.f.value.add(2),
        Counter.f.labels.add({"y"}),
        ratio=1,  # an int is a fine float
        price=Decimal("9.5"),
        day=date(2024, 1, 2),
        scores={"a": 1},
    )
    assert (updated.value, updated.ratio, updated.labels) == (5, 1.0, {"x", "y"})
    assert updated.day == date(2024, 1, 2) and updated.scores == {"a": 1}


def test_a_condition_comparing_a_field_with_another_type_is_refused(db: DB) -> None:
    calls = sent(db)
    with pytest.raises(FieldTypeError) as caught:
        db.update(
            Project.key(key_name="P"), next_issue_number=2, condition=Project.f.next_issue_number == "two"
        )
    assert (caught.value.entity, caught.value.field, caught.value.value) == (
        "PROJECT",
        "next_issue_number",
        "two",
    )
    with pytest.raises(FieldTypeError):
        db.delete(Project, key_name="P", condition=Project.f.next_issue_number.between(1, "9"))
    with pytest.raises(FieldTypeError):
        db.delete(Project, key_name="P", condition=Project.f.next_issue_number.is_in(1, "2"))
    with pytest.raises(FieldTypeError):
        db.delete(Counter, name="a", condition=Counter.f.labels.contains(7))
    assert calls == []
    assert db.get(Project, key_name="P").next_issue_number == 1
    # the right type compiles and holds
    assert db.update(
        Project.key(key_name="P"), next_issue_number=2, condition=Project.f.next_issue_number == 1
    )


def test_an_entity_changed_behind_validation_is_refused_on_create_and_put(db: DB) -> None:
    calls = sent(db)
    bad = Counter.model_construct(name="b", value="many")
    with pytest.raises(FieldTypeError) as caught:
        db.create(bad)
    assert (caught.value.field, caught.value.value) == ("value", "many")
    changed = db.get(Counter, name="a")
    changed.value = 2.5  # assignment is not validated
    with pytest.raises(FieldTypeError):
        db.put(changed)
    assert calls == ["GetItem"]
    assert db.get(Counter, name="b") is None and db.get(Counter, name="a").value == 3


def test_a_key_template_input_of_the_wrong_type_is_refused(db: DB) -> None:
    calls = sent(db)
    with pytest.raises(FieldTypeError) as caught:
        db.get(Counter, name=5)
    assert (caught.value.entity, caught.value.field, caught.value.expected) == ("COUNTER", "name", "str")
    assert calls == []


@pytest.mark.parametrize(
    ("misuse", "message"),
    [
        (lambda: Counter.f.value.set(2.5), "COUNTER.value is int; 2.5 (float) does not fit"),
        (lambda: Counter.f.tags.append([1]), "COUNTER.tags is list[str]; [1] (list) does not fit"),
        (
            lambda: Project.f.next_issue_number == "two",
            "PROJECT.next_issue_number is int; 'two' (str) does not fit",
        ),
        (lambda: Counter.f.scores["a"].set("b"), "COUNTER.scores['a'] is int; 'b' (str) does not fit"),
        (lambda: Counter.f.tags.size() > "2", "COUNTER.tags.size() is int; '2' (str) does not fit"),
        (lambda: Counter.f.name.begins_with(5), "COUNTER.name is str (a prefix); 5 (int) does not fit"),
    ],
)
def test_the_documented_messages(misuse: Any, message: str) -> None:
    """docs/modeling-reference.md's table: each misuse refused when its request is compiled (no table)."""
    made = misuse()
    with pytest.raises(FieldTypeError) as caught:
        compile_update([made], Compiler()) if isinstance(made, Action) else made.compile(Compiler())
    assert str(caught.value) == message


def test_a_key_template_input_message() -> None:
    with pytest.raises(FieldTypeError, match=r"^COUNTER\.name is str; 5 \(int\) does not fit$"):
        Counter.key(name=5).item_key()
    with pytest.raises(FieldTypeError, match=r"^COUNTER\.value is int; 'many' \(str\) does not fit$"):
        Counter.model_entity().to_item({"name": "b", "value": "many"})
