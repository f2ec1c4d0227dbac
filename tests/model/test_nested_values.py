"""Nested models changed after they were built: a write stores only what a read gives back.

An entity's nested models (``lines: list[Line]``) are checked by their codecs when stored: a member set to
None where its type refuses None, a value of another type, or another object in place of the model is
refused with the entity, the field and the value -- and nothing is written -- exactly as pydantic's
validation of the whole entity would refuse it. Whatever is written reads back equal.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from draws import examples
from singletable.model import Entity, FieldTypeError, FieldValueError, Keys, Table, connect

table = Table(name="nested")


class Line(BaseModel):
    sku: str
    qty: int
    note: str | None = None


class Basket(Entity, table=table, type="BASKET"):
    basket_id: str
    lines: list[Line]
    by_name: dict[str, Line] = {}
    keys = Keys(PK="BASKET#{basket_id}", SK="BASKET")


class LookAlike:
    """Not a Line, though it has a Line's attribute names."""

    def __init__(self) -> None:
        self.sku, self.qty, self.note = "x", 1, None


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with connect(table, str(tmp_path_factory.mktemp("nested") / "nested.db")) as db:
        db.create_table()
        yield db


def test_a_required_member_set_to_none_is_refused_naming_the_field(db: Any) -> None:
    basket = Basket(basket_id="b1", lines=[Line(sku="a", qty=1)])
    basket.lines[0].qty = None  # type: ignore[assignment]
    with pytest.raises(FieldTypeError) as raised:
        db.put(basket)
    assert str(raised.value).startswith("BASKET.lines is list[")
    assert db.get(Basket, basket_id="b1") is None


def test_another_object_in_place_of_the_model_is_refused(db: Any) -> None:
    basket = Basket(basket_id="b2", lines=[Line(sku="a", qty=1)])
    basket.lines.append(LookAlike())  # type: ignore[arg-type]
    with pytest.raises(FieldTypeError):
        db.put(basket)
    assert db.get(Basket, basket_id="b2") is None


def test_an_optional_member_set_to_none_is_stored_and_reads_back(db: Any) -> None:
    basket = Basket(basket_id="b3", lines=[Line(sku="a", qty=1, note="n")])
    basket.lines[0].note = None
    db.put(basket)
    assert db.get(Basket, basket_id="b3") == basket


hostile = st.one_of(
    st.none(),
    st.integers(),
    st.text(max_size=5),
    st.booleans(),
    st.floats(allow_nan=True),
    st.binary(max_size=3),
    st.lists(st.integers(), max_size=2),
    st.just(LookAlike()),
)


@settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(member=st.sampled_from(["sku", "qty", "note"]), value=hostile, where=st.sampled_from(["list", "dict"]))
def test_whatever_a_nested_member_is_set_to_either_reads_back_or_is_refused(
    db: Any, member: str, value: Any, where: str
) -> None:
    line = Line(sku="s", qty=2)
    basket = Basket(basket_id="h", lines=[Line(sku="t", qty=3)], by_name={"k": line})
    db.delete(Basket, basket_id="h")
    setattr(basket.lines[0] if where == "list" else line, member, value)
    try:
        db.put(basket)
    except (FieldTypeError, FieldValueError):
        assert db.get(Basket, basket_id="h") is None  # refused before any request
        return
    assert db.get(Basket, basket_id="h") == basket
