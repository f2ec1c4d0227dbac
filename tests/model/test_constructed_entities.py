"""An entity built without some fields (``model_construct``) is not a partial read: its errors say what
happened -- it was built without them -- and never that it was "read with a projection" it never was. A
projection that leaves out a required field reads back as a partial entity (never a bare KeyError)."""

from __future__ import annotations

import pytest

from singletable.model import Entity, FieldNotLoaded, Keys, PartialEntity, Pattern, Table, connect

things = Table(name="constructed")


class Thing(Entity, table=things, type="THING"):
    thing_id: str
    name: str
    size: int
    colour: str = "red"
    keys = Keys(PK="THING#{thing_id}", SK="THING")
    all_things = Pattern(scan=True)


@pytest.fixture
def db(tmp_path):  # type: ignore[no-untyped-def]
    with connect(things, str(tmp_path / "things.db")) as db:
        db.create_table()
        yield db


def test_a_constructed_entity_says_it_was_built_without_its_fields(db) -> None:  # type: ignore[no-untyped-def]
    built = Thing.model_construct(thing_id="t1")
    with pytest.raises(PartialEntity) as raised:
        db.create(built)
    assert raised.value.projected is False and raised.value.missing == ["name", "size"]
    assert str(raised.value).startswith(
        "THING lacks name, size: it was built without them (model_construct skips validation and leaves out "
        "required fields it is not given), not read from the table"
    )
    assert "projection" not in str(raised.value)
    with pytest.raises(FieldNotLoaded) as missing:
        built.name  # noqa: B018
    assert missing.value.projected is False and "was built without it" in str(missing.value)
    assert "projection" not in str(missing.value)
    assert db.get(Thing, thing_id="t1") is None  # nothing was written


def test_a_projection_still_says_so_even_leaving_out_a_required_field(db) -> None:  # type: ignore[no-untyped-def]
    db.create(Thing(thing_id="t1", name="box", size=3))
    (partial,) = db.query(Thing.all_things().select(Thing.f.colour))
    assert partial.colour == "red"
    with pytest.raises(FieldNotLoaded) as missing:
        partial.size  # noqa: B018
    assert missing.value.projected is True and "read with a projection (.select)" in str(missing.value)
    with pytest.raises(PartialEntity) as raised:
        db.put(partial)
    assert raised.value.projected is True and str(raised.value).startswith(
        "THING was read with a projection (.select) and lacks name, size"
    )
