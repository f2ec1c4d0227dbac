"""A write returns what was stored: ``db.create(x) == db.get(key)``, for every field type.

The codecs store some values at a precision of their own (timestamps at the table's
``datetime_precision``, any time zone as UTC, sets in canonical order, a dict becoming its nested model),
so an entity handed back as it was given would differ from the next read of it (a microsecond createdAt
returned, milliseconds stored). Writes return the entity decoded from the item they wrote instead.
Hypothesis draws entities over every field type; create, put and update must each return exactly what a
strongly consistent read returns next, on the engine and on DynamoDB Local.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from draws import examples
from singletable.model import DB, Entity, Keys, Table

kinds = Table(name="returned", datetime_precision="milliseconds")
_ids = itertools.count()


class Shade(enum.Enum):
    LIGHT = "light"
    DARK = "dark"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Spot(BaseModel):
    street: str
    zip: int
    at: datetime | None = None


class Everything(Entity, table=kinds, type="ALL", version="version"):
    item_id: str
    at: datetime
    day: date
    amount: Decimal
    ratio: float
    count: int
    flag: bool
    data: bytes
    shade: Shade
    level: Level
    spot: Spot
    history: list[Spot] = []
    scores: dict[str, int] = {}
    labels: set[str] = set()
    numbers: set[int] = set()
    blobs: set[bytes] = set()
    note: str | None = None
    version: int | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(PK="ALL#{item_id}", SK="ALL")


zones = st.sampled_from([UTC, timezone(timedelta(hours=5, minutes=30)), timezone(-timedelta(hours=8))])
moments = st.datetimes(min_value=datetime(1970, 1, 1), max_value=datetime(2200, 1, 1), timezones=zones)
# Numbers DynamoDB stores: up to 38 significant digits, magnitudes within 1E-130 .. 1E+126.
decimals = st.decimals(min_value=-(10**20), max_value=10**20, places=6, allow_nan=False, allow_infinity=False)
floats = st.floats(min_value=-1e100, max_value=1e100, allow_nan=False, allow_infinity=False).filter(
    lambda f: f == 0 or abs(f) > 1e-100
)
texts = st.text(max_size=12)
spots = st.builds(Spot, street=texts, zip=st.integers(0, 10**6), at=st.none() | moments)
fields = st.fixed_dictionaries(
    {
        "at": moments,
        "day": st.dates(),
        "amount": decimals,
        "ratio": floats,
        "count": st.integers(-(10**18), 10**18),
        "flag": st.booleans(),
        "data": st.binary(max_size=16),
        "shade": st.sampled_from(Shade),
        "level": st.sampled_from(Level),
        "spot": spots,
        "history": st.lists(spots, max_size=2),
        "scores": st.dictionaries(st.text(min_size=1, max_size=5), st.integers(-1000, 1000), max_size=3),
        "labels": st.sets(st.text(min_size=1, max_size=5), max_size=3),
        "numbers": st.sets(st.integers(-1000, 1000), max_size=3),
        "blobs": st.sets(st.binary(min_size=1, max_size=4), max_size=3),
        "note": st.none() | texts,
    }
)
EXAMPLES = {"engine": 80, "reference": 15}


def check_round_trips(db: DB, values: dict, changed: dict) -> None:
    item_id = f"i{next(_ids)}"
    made = db.create(Everything(item_id=item_id, **values))
    assert made == db.get(Everything, item_id=item_id, consistent=True)
    # a fresh object (no createdAt: the stored one is kept) holding the version it replaces
    put = db.put(Everything(item_id=item_id, **changed, version=made.version))
    assert put == db.get(Everything, item_id=item_id, consistent=True)
    assert put.created_at == made.created_at
    updated = db.update(Everything.key(item_id=item_id), at=values["at"], amount=values["amount"])
    assert updated == db.get(Everything, item_id=item_id, consistent=True)
    with db.transaction() as tx:
        in_tx = tx.create(Everything(item_id=item_id + "t", **values))
    assert in_tx == db.get(Everything, item_id=item_id + "t", consistent=True)


@pytest.mark.parametrize("target", ["engine", "reference"], indirect=True)
def test_every_write_returns_what_a_read_returns_next(
    open_db: Callable[..., DB], request: pytest.FixtureRequest
) -> None:
    db = open_db(kinds)
    target = request.node.callspec.params["target"]

    @settings(
        max_examples=examples(EXAMPLES[target]),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(values=fields, changed=fields)
    def round_trips(values: dict, changed: dict) -> None:
        check_round_trips(db, values, changed)

    round_trips()


def test_the_issue_case_microseconds_returned_milliseconds_stored(open_db: Callable[..., DB]) -> None:
    db = open_db(kinds, clock=lambda: datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC))
    values = {
        "at": datetime(2026, 1, 1, 10, 30, 0, 123456, tzinfo=timezone(timedelta(hours=2))),
        "day": date(2026, 1, 1),
        "amount": Decimal("1.50"),
        "ratio": 0.1,
        "count": 1,
        "flag": True,
        "data": b"\x00",
        "shade": "dark",
        "level": 2,
        "spot": {"street": "s", "zip": 1},
    }
    made = db.create(Everything(item_id="x", **values))
    assert made.created_at == datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)
    assert made.at == datetime(2026, 1, 1, 8, 30, 0, 123000, tzinfo=UTC)
    assert made.shade is Shade.DARK and made.spot == Spot(street="s", zip=1)
    assert made == db.get(Everything, item_id="x")
