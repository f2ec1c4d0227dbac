"""What create and put return is exactly what a read of the item they wrote gives, never the caller's objects.

Writes build that entity from the values they validated, taking ``str``/``int``/``float``/``bool`` values of
exactly the declared class as they are and decoding every other field from the item
(``singletable.model._write_echo``). Hypothesis draws entities of several shapes (the bench's order with a
list of nested models, every field type, defaults and aliases, a validated entity, values of another class
assigned after construction) and checks the result against ``EntityMeta.from_item`` of the same item:
same dump, same Python type at every depth, same ``model_fields_set``, and no mutable value shared with the
entity given. Through ``db.create``/``db.put`` (sync and async), the result equals the next read.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Callable
from decimal import Decimal
from typing import Any, Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field, field_validator
from test_returned_is_stored import Everything, fields, floats, kinds, texts

from draws import examples
from singletable.model import DB, Entity, Keys, Table
from singletable.model._write_echo import _echo, written_entity

pytestmark = pytest.mark.async_twin

shapes = Table(name="written", datetime_precision="milliseconds")
_ids = itertools.count()


class Line(BaseModel):
    sku: str
    qty: int


class Role(enum.StrEnum):
    READER = "reader"
    ADMIN = "admin"


class Order(Entity, table=shapes, type="ORDER", timestamps=False):
    user: int
    order: int
    status: str
    total: float
    note: str
    lines: list[Line]

    keys = Keys(PK="USER#{user}", SK="ORDER#{order:08d}")


class Defaults(Entity, table=shapes, type="DEF"):
    item_id: str
    size: int | None = 5
    label: str = "plain"
    ratio: float | None = None
    kind: Literal["a", "b"] = "a"
    tags: list[str] = []
    display: str | None = Field(default=None, alias="displayName")
    active: bool = True

    keys = Keys(PK="DEF#{item_id}", SK="DEF")


class Checked(Entity, table=shapes, type="CHK"):
    item_id: str
    name: str
    size: int = 0

    keys = Keys(PK="CHK#{item_id}", SK="CHK")

    @field_validator("name")
    @classmethod
    def trimmed(cls, value: str) -> str:
        return value.strip()


ids = st.text("abcdefgh0123456789", min_size=1, max_size=8)
lines = st.builds(Line, sku=texts, qty=st.integers(-(10**9), 10**9))

orders = st.builds(
    Order,
    user=st.integers(0, 10**6),
    order=st.integers(0, 10**7),
    status=texts,
    total=floats,
    note=texts,
    lines=st.lists(lines, max_size=3),
)
everything = st.builds(lambda item_id, values: Everything(item_id=item_id, **values), ids, fields)
defaults = st.builds(
    Defaults,
    item_id=ids,
    size=st.none() | st.integers(-100, 100),
    label=texts,
    ratio=st.none() | floats,
    kind=st.sampled_from(["a", "b"]),
    tags=st.lists(texts, max_size=3),
    displayName=st.none() | texts,
    active=st.booleans(),
)
checked = st.builds(Checked, item_id=ids, name=texts, size=st.integers(-5, 5))
# A value of another class, assigned after construction (no validation then): it is written as the field's
# type, and the entity returned holds what is read back, not the value given.
reassigned = st.one_of(
    st.builds(lambda e, v: _assigned(e, "total", v), orders, st.integers(-(10**6), 10**6)),
    st.builds(lambda e, v: _assigned(e, "user", v), orders, st.integers(0, 10**6).map(float)),
    st.builds(lambda e, v: _assigned(e, "status", v), orders, st.sampled_from(Role)),
    st.builds(lambda e, v: _assigned(e, "count", v), everything, st.integers(-(10**6), 10**6).map(Decimal)),
    st.builds(lambda e, v: _assigned(e, "ratio", v), everything, st.integers(-(10**6), 10**6)),
    st.builds(lambda e, v: _assigned(e, "label", v), defaults, st.sampled_from(Role)),
    st.builds(lambda e, v: _assigned(e, "size", v), defaults, st.none()),
)
entities = st.one_of(orders, everything, defaults, checked, reassigned)


def _assigned(entity: Any, name: str, value: Any) -> Any:
    entity.__dict__[name] = value  # as an assignment without validation leaves it
    return entity


def _shape(value: Any) -> Any:
    """``value``'s Python types at every depth, with the values (type and content must both agree)."""
    if isinstance(value, BaseModel):
        return (type(value), {k: _shape(v) for k, v in value.__dict__.items()}, value.model_fields_set)
    if isinstance(value, list):
        return (list, [_shape(v) for v in value])
    if isinstance(value, dict):
        return (dict, {k: _shape(v) for k, v in value.items()})
    if isinstance(value, set):
        return (type(value), sorted(map(repr, value)), list(value))
    return (type(value), value, repr(value))


def _shared(given: Any, returned: Any) -> list[str]:
    """The mutable objects ``returned`` shares with ``given`` (paths), at every depth."""
    found = []

    def walk(a: Any, b: Any, path: str) -> None:
        if isinstance(b, list | dict | set | BaseModel) and a is b:
            found.append(path)
            return
        if isinstance(a, BaseModel) and isinstance(b, BaseModel):
            for k, v in b.__dict__.items():
                walk(a.__dict__.get(k), v, f"{path}.{k}")
        elif isinstance(a, list) and isinstance(b, list):
            for i, (x, y) in enumerate(zip(a, b, strict=False)):
                walk(x, y, f"{path}[{i}]")
        elif isinstance(a, dict) and isinstance(b, dict):
            for k, v in b.items():
                walk(a.get(k), v, f"{path}[{k!r}]")

    walk(given, returned, "entity")
    return found


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entity=entities)
def test_the_entity_written_is_the_item_read_back_and_shares_nothing(entity: Any) -> None:
    meta = type(entity).model_entity()
    values = meta.values(entity)
    item = meta.to_item(values)
    returned = written_entity(meta, values, item)
    read = meta.from_item(item)
    assert returned == read
    assert returned.model_dump() == read.model_dump()
    assert _shape(returned) == _shape(read)
    assert returned is not entity
    assert _shared(entity, returned) == []
    echo = _echo(meta)  # the fast path itself, not the read it falls back to
    assert (echo is None) == (type(entity) is Checked)
    if echo is not None:
        assert _shape(echo(values, item)) == _shape(read)


def test_a_value_of_another_class_comes_back_as_read() -> None:
    order = Order(user=1, order=2, status="s", total=1.5, note="n", lines=[Line(sku="a", qty=1)])
    order.__dict__["total"] = 3  # an int in a float field
    order.__dict__["user"] = 4.0  # a whole float in an int field
    order.__dict__["status"] = Role.ADMIN  # a str subclass in a str field
    meta = Order.model_entity()
    values = meta.values(order)
    returned = written_entity(meta, values, meta.to_item(values))
    assert (type(returned.total), returned.total) == (float, 3.0)
    assert (type(returned.user), returned.user) == (int, 4)
    assert returned.status == "admin"
    assert _shape(returned) == _shape(Order.model_entity().from_item(meta.to_item(values)))


def test_absent_defaults_and_a_validated_entity_come_back_as_read() -> None:
    item_defaults = Defaults(item_id="d")
    item_defaults.__dict__["size"] = None  # stored as no attribute: a read gives the default back
    meta = Defaults.model_entity()
    values = meta.values(item_defaults)
    returned = written_entity(meta, values, meta.to_item(values))
    assert returned.size == 5 and "size" not in returned.model_fields_set
    assert returned.model_fields_set == meta.from_item(meta.to_item(values)).model_fields_set
    checked_entity = Checked(item_id="c", name="x")
    checked_entity.__dict__["name"] = "  padded  "  # the read's validation trims it
    meta = Checked.model_entity()
    values = meta.values(checked_entity)
    assert written_entity(meta, values, meta.to_item(values)).name == "padded"


@pytest.mark.parametrize("target", ["engine"], indirect=True)
def test_create_and_put_return_the_next_read_and_not_the_callers_objects(open_db: Callable[..., DB]) -> None:
    db = open_db(shapes)
    n = next(_ids)
    given_order = Order(user=n, order=1, status="new", total=2.5, note="", lines=[Line(sku="a", qty=1)])
    made = db.create(given_order)
    assert made == db.get(Order, user=n, order=1, consistent=True)
    assert made is not given_order and made.lines is not given_order.lines
    made.lines[0].qty = 99
    assert given_order.lines[0].qty == 1
    put = db.put(Order(user=n, order=1, status="paid", total=3, note="x", lines=given_order.lines))
    assert put == db.get(Order, user=n, order=1, consistent=True)
    assert type(put.total) is float and put.lines[0] is not given_order.lines[0]
    db = open_db(kinds)

    @settings(
        max_examples=examples(10),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(values=fields)
    def stamped_by_the_write(values: dict[str, Any]) -> None:
        item_id = f"e{next(_ids)}"
        given_entity = Everything(item_id=item_id, **values)
        put = db.put(given_entity)
        assert put == db.get(Everything, item_id=item_id, consistent=True)
        assert put.version == 1 and put.created_at is not None and put.updated_at is not None
        assert _shared(given_entity, put) == []

    stamped_by_the_write()
