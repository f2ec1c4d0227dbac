"""Entities read from items are built without a second pydantic pass when that changes nothing (a query's
overhead): the result must be exactly what ``model_validate`` gives -- same values, same types, same
``model_fields_set`` and repr -- and anything the fast builder is unsure of must still be validated."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from enum import Enum
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError, field_validator
from test_features import Doc, Meta

from singletable.model import Entity, Keys, Table

shop = Table(name="fast-decode")


class Colour(Enum):
    RED = "red"
    BLUE = "blue"


class Line(BaseModel):
    sku: str
    qty: int = 1
    at: datetime | None = None


class Order(Entity, table=shop, type="ORDER", ttl="expires"):
    order_id: str
    total: float
    count: int = 0
    colour: Colour = Colour.RED
    lines: list[Line] = []
    by_sku: dict[str, Line] = {}
    first: Line | None = None
    notes: list[str] | None = None
    anything: Any = None
    expires: datetime | None = None
    created_at: datetime | None = None

    keys = Keys(PK="ORDER#{order_id}", SK="ORDER")


class Checked(Entity, table=shop, type="CHECKED"):
    name: str

    keys = Keys(PK="C#{name}", SK="C")

    @field_validator("name")
    @classmethod
    def lower(cls, value: str) -> str:
        return value.lower()


def both(entity: Entity) -> tuple[Any, Any, dict[str, Any]]:
    meta = type(entity).model_entity()
    item = meta.to_item(meta.values(entity))
    assert meta.builder is not None
    # What from_item's validation path gives: pydantic's result, its sets in canonical order (CanonicalSet).
    return meta.builder(item), meta._canonical_sets(meta.cls.model_validate(meta.decode(item))), item


def same(fast: Any, slow: Any) -> None:
    assert fast == slow and repr(fast) == repr(slow)
    assert fast.model_fields_set == slow.model_fields_set
    assert fast.model_dump() == slow.model_dump()
    for name in type(slow).model_fields:
        a, b = getattr(fast, name), getattr(slow, name)
        assert type(a) is type(b), name
        if isinstance(b, BaseModel):
            same(a, b)
        elif isinstance(b, list) and b and isinstance(b[0], BaseModel):
            for x, y in zip(a, b, strict=True):
                same(x, y)


def test_the_fast_builder_gives_what_validation_gives() -> None:
    at = datetime(2024, 1, 15, 10, 30, tzinfo=UTC)
    line = Line(sku="a", qty=2, at=at)
    order = Order(order_id="o1", total=3.5, count=2, colour=Colour.BLUE, lines=[line, Line(sku="b")],
                  by_sku={"a": line}, first=line, notes=["x"], anything={"n": 1, "s": ["t"]},
                  expires=at, created_at=at)  # fmt: skip
    fast, slow, _ = both(order)
    same(fast, slow)
    assert fast.expires == at and fast.created_at.tzinfo is not None and isinstance(fast.lines[0], Line)
    same(*both(Order(order_id="o2", total=1.0))[:2])  # defaults, and fields_set without them
    doc = Doc(org="a", doc_id="d", team="t", seq=3, price=Decimal("1.10"), ratio=0.5, tags=["x"],
              labels={"l"}, meta=Meta(color="green", counts={"a": 1}), extra={"k": [1, "v"]})  # fmt: skip
    same(*both(doc)[:2])


def test_defaults_are_fresh_and_odd_items_fall_back_to_validation() -> None:
    meta = Order.model_entity()
    one, two = (
        meta.from_item(meta.to_item({"order_id": "a", "total": 1.0})),
        meta.from_item(meta.to_item({"order_id": "b", "total": 1.0})),
    )
    assert one.lines == [] and one.lines is not two.lines
    item = meta.to_item({"order_id": "a", "total": 1.0})
    item["count"] = {"N": "1E+2"}  # int() refuses the text; the codec does not
    item["notes"] = {"NULL": True}  # NULL is missing: the default
    built = meta.from_item(item)
    assert (built.count, built.notes) == (100, None) and "notes" not in built.model_fields_set
    del item["total"]
    with pytest.raises(ValidationError):  # a required attribute missing: validation says so
        meta.from_item(item)


def test_entities_with_validators_are_always_validated() -> None:
    meta = Checked.model_entity()
    assert meta.builder is None
    assert meta.from_item({"PK": {"S": "C#ann"}, "SK": {"S": "C"}, "name": {"S": "ANN"}}).name == "ann"
