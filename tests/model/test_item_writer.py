"""The generated item writer and the careful one always agree: the same item, or the same error.

Every write turns an entity's values into its item through a function generated per entity class
(``singletable.model._item_writer``), which settles the usual case inline and leaves everything else to
``EntityMeta.checked_item``. Hypothesis draws values for entities of several shapes -- every field type,
keys of every kind (format specs, slices, filters, sparse ``when``, ``otherwise``, templates that may
render empty, a field kept only in its key), index keys declared by field, declared validation -- and
replaces some with hostile values: None in a required field, a value of another class, the key
delimiter, an empty string, NaN, an infinity, a float or int DynamoDB cannot store, an empty set. The
writer's item, and ``to_item``'s item or error (type and message), must be the careful way's.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field
from test_returned_is_stored import Everything, Level, Shade, Spot
from test_returned_is_stored import fields as everything_fields

from draws import examples
from singletable.model import GSI, Entity, Key, Keys, ModelError, Table
from singletable.model._item_writer import Careful, item_writer

writers = Table(
    name="writers",
    indexes=[
        GSI("GSI1", pk="GSI1PK", sk="GSI1SK"),
        GSI("GSI2", pk="GSI2PK", sk="GSI2SK"),
        GSI("byTenant", pk=["tenant"], sk=["rank"]),
    ],
)


class Line(BaseModel):
    sku: str
    qty: int


class Keyed(Entity, table=writers, type="KEYED", timestamps=False):
    org: str
    n: int
    name: str
    rank: int = 0
    tenant: str | None = None
    tags: set[str]
    score: float | None = None
    status: Literal["a", "b"] = "a"
    size: int = Field(default=0, ge=0)
    lines: list[Line] = []

    keys = Keys(
        PK="ORG#{org}",
        SK="{n:06d}",
        GSI1PK=Key("ACTIVE#{org}", when=lambda status: status == "a"),
        GSI1SK="{name|lower}#{name[:3]}",
        GSI2PK=Key("T#{tenant}", otherwise="NOT#{org}"),
        GSI2SK="{name}",
    )


class Imported(Entity, table=writers, type="IMPORTED", timestamps=False):
    """A Workbench-style entity: its fields ``PK`` and ``SK`` are kept only in the keys they render."""

    PK: str
    SK: str
    placed: datetime
    body: str = "x"

    keys = Keys(PK="{PK}", SK="{SK}", GSI1PK="AT#{placed}", GSI1SK="{body}")


lines = st.lists(st.builds(Line, sku=st.text(max_size=4), qty=st.integers(-5, 5)), max_size=2)
keyed_fields = st.fixed_dictionaries(
    {
        "org": st.text(min_size=1, max_size=6),
        "n": st.integers(-(10**6), 10**6),
        "name": st.text(max_size=6),
        "rank": st.integers(-100, 100),
        "tenant": st.none() | st.text(max_size=4),
        "tags": st.sets(st.text(min_size=1, max_size=3), min_size=1, max_size=2),
        "score": st.none() | st.floats(-1e6, 1e6),
        "status": st.sampled_from(["a", "b"]),
        "size": st.integers(0, 10),
        "lines": lines,
    }
)
imported_fields = st.fixed_dictionaries(
    {
        "PK": st.text(max_size=6),
        "SK": st.text(max_size=6),
        "placed": st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1)),
        "body": st.text(max_size=6),
    }
)
# The edges of each inline form, every one tried in every field.
EDGES = [
    None,
    "",
    "#",
    "a#b",
    " ",
    10**38 - 1,
    10**38,
    10**38 + 1,
    -(2**130),
    0,
    -7,
    True,
    False,
    0.0,
    -0.0,
    1e-130,
    1e-131,
    1e126,
    9.9e125,
    float("nan"),
    float("inf"),
    float("-inf"),
    2.0,
    Decimal("2"),
    Decimal("0.5"),
    set(),
    {"a"},
    [],
    b"",
    b"x",
    {"sku": "s", "qty": 1},
    Line(sku="s", qty=1),
    [Line(sku="s", qty=1)],
]
# Values of every kind, for any field: what a caller can put in an entity built without validation.
hostile_values = st.one_of(
    st.sampled_from(EDGES),
    st.text(max_size=4),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.decimals(allow_nan=False, allow_infinity=False, places=2, max_value=10**6, min_value=-(10**6)),
    st.binary(max_size=3),
    st.sets(st.text(max_size=2), max_size=2),
    st.lists(st.integers(-3, 3), max_size=2),
    lines,
    st.builds(dict, sku=st.text(max_size=2), qty=st.integers(0, 3)),
    st.just(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)),
    st.just(date(2026, 1, 2)),
    st.just(Line(sku="s", qty=1)),
)
SHAPES = {"everything": (Everything, everything_fields), "keyed": (Keyed, keyed_fields)}
SHAPES["imported"] = (Imported, imported_fields)
# A valid entity of each shape, whose fields the edges replace one at a time.
BASES: dict[str, dict[str, Any]] = {
    "everything": {
        "item_id": "i",
        "at": datetime(2026, 1, 2, tzinfo=UTC),
        "day": date(2026, 1, 2),
        "amount": Decimal("1.5"),
        "ratio": 0.25,
        "count": 3,
        "flag": True,
        "data": b"d",
        "shade": Shade.DARK,
        "level": Level.HIGH,
        "spot": Spot(street="s", zip=1),
        "history": [Spot(street="h", zip=2)],
        "scores": {"a": 1},
        "labels": {"x"},
        "numbers": {1},
        "blobs": {b"b"},
        "note": "n",
    },
    "keyed": {"org": "o", "n": 5, "name": "Ann", "tenant": "t", "tags": {"t"}, "score": 1.5, "lines": []},
    "imported": {"PK": "P", "SK": "S", "placed": datetime(2026, 1, 2, tzinfo=UTC)},
}


def _values(
    cls: type[Entity], valid: st.SearchStrategy[dict[str, Any]], *, hostile: bool
) -> st.SearchStrategy[dict]:
    """Valid values of ``cls``'s fields; with ``hostile``, some replaced by hostile ones (or dropped)."""
    names = list(cls.model_entity().fields)

    @st.composite
    def draw(draw: Any) -> dict[str, Any]:
        values = draw(valid)
        if cls is Everything:
            values["item_id"] = draw(st.text(min_size=1, max_size=4))
        replaced = draw(st.lists(st.sampled_from(names), max_size=3, unique=True)) if hostile else []
        for name in replaced:
            if draw(st.booleans()):
                values[name] = draw(hostile_values)
            else:
                values.pop(name, None)
        return values

    return draw()


def _outcome(write: Any, values: dict[str, Any]) -> tuple[Any, ...]:
    try:
        item = write(values)
    except (ModelError, TypeError, ValueError) as error:
        return type(error), str(error)
    return "item", list(item.items())


def _agreeing(meta: Any, writer: Any, values: dict[str, Any]) -> tuple[bool, tuple[Any, ...]]:
    """Whether the writer settled ``values`` itself, and the careful way's outcome; ``to_item`` gives that
    outcome either way, and what the writer settles, it settles alike."""
    careful = _outcome(meta.checked_item, values)
    assert _outcome(meta.to_item, values) == careful
    try:
        item = writer(values)
    except Exception:
        return False, careful
    assert ("item", list(item.items())) == careful
    return True, careful


@pytest.mark.parametrize("drawn", ["valid", "hostile"])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_writer_and_the_careful_way_give_one_item_or_one_error(shape: str, drawn: str) -> None:
    cls, valid = SHAPES[shape]
    meta = cls.model_entity()
    writer = item_writer(meta)
    hostile = drawn == "hostile"

    @settings(max_examples=examples(300 if hostile else 100), deadline=None)
    @given(values=_values(cls, valid, hostile=hostile))
    def agree(values: dict[str, Any]) -> None:
        settled, careful = _agreeing(meta, writer, values)
        # Valid values are left to the careful way only when it refuses them (a key holding the delimiter or
        # rendering empty, a float DynamoDB cannot store): the usual entity is written inline.
        assert settled or careful[0] != "item" or hostile

    agree()


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_edge_in_every_field_gets_the_careful_ways_item_or_error(shape: str) -> None:
    cls, _ = SHAPES[shape]
    meta = cls.model_entity()
    base = BASES[shape]
    for name in meta.fields:
        for edge in EDGES:
            values = {**base, name: edge}
            assert _outcome(meta.to_item, values) == _outcome(meta.checked_item, values), (name, edge)


def test_an_error_the_writer_left_to_the_careful_way_carries_no_trace_of_it() -> None:
    meta = Keyed.model_entity()
    values = {"org": "o", "n": 1, "name": "a#b", "tags": {"t"}}
    with pytest.raises(ModelError, match="contains the key delimiter") as raised:
        meta.to_item(values)
    assert raised.value.__context__ is None
    values = {"org": "o", "n": 1, "name": "ab", "tags": set()}
    with pytest.raises(ModelError, match="DynamoDB stores no empty set") as raised:
        meta.to_item(values)
    assert not isinstance(raised.value.__context__, Careful)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (float("nan"), "KEYED.score = nan is refused: DynamoDB cannot store the number nan"),
        (
            1e-200,
            "KEYED.score = 1e-200 is refused: DynamoDB cannot store the number 1e-200: "
            "not within 1e-130..1e126",
        ),
        (Decimal("0.5"), None),  # a Decimal for a float field: the codec converts it
    ],
)
def test_floats_the_writer_does_not_settle_inline_go_the_careful_way(value: Any, message: str | None) -> None:
    meta = Keyed.model_entity()
    values = {"org": "o", "n": 1, "name": "ab", "tags": {"t"}, "score": value}
    if message is None:
        assert meta.to_item(values)["score"] == {"N": "0.5"}
        return
    with pytest.raises(ModelError) as raised:
        meta.to_item(values)
    assert str(raised.value) == message
