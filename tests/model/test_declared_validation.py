"""The model never writes what it cannot read back: every value a write stores passes the field's declared
validation -- constraints, ``Literal`` choices, enums, ``Annotated`` and ``@field_validator`` validators,
model validators -- before any request, with an error naming entity, field and value.

Hypothesis draws a value breaking each kind of rule and a way to write it (create, put, update set and
if_not_exists, upsert, batch_write, and their transaction twins); the write must raise before anything is
sent (``db.trace()`` records nothing) and leave the table as it was. Numbers an update computes on the
server (``add``, ``subtract``) are kept inside their bounds by a condition: DynamoDB refuses the result and
nothing is written, on every target. An entity with a model validator has its partial updates validated
whole.
"""

from __future__ import annotations

import enum
import itertools
import re
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Annotated, Any, Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import AfterValidator, BaseModel, Field, ValidationInfo, field_validator, model_validator

from draws import examples
from singletable.model import (
    DB,
    ConditionFailed,
    Entity,
    FieldTypeError,
    FieldValueError,
    Keys,
    ModelError,
    OutOfBounds,
    Table,
    connect,
)

shop = Table(name="validation")


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Address(BaseModel):
    street: str
    zip: int = Field(ge=0)


def _upper(value: str) -> str:
    if value != value.upper():
        raise ValueError("must be upper case")
    return value


class Product(Entity, table=shop, type="PRODUCT"):
    sku: str
    stock: int = Field(default=0, ge=0)
    price: Decimal = Field(default=Decimal("1"), gt=0)
    ratio: float = Field(default=0.5, ge=0, le=1)
    plan: Literal["free", "pro"] = "free"
    color: Color = Color.RED
    code: Annotated[str, AfterValidator(_upper)] = "A"
    name: str = Field(default="n", min_length=1, max_length=20)
    ref: str = Field(default="ABC-1", pattern=r"^[A-Z]{3}-[0-9]+$")
    tags: list[str] = Field(default_factory=list, max_length=3)
    email: str = "a@x"
    address: Address | None = None
    title: str  # required
    labels: set[str]  # required, so never empty

    keys = Keys(PK="PRODUCT#{sku}", SK="PRODUCT")

    @field_validator("email")
    @classmethod
    def _has_at(cls, value: str) -> str:
        if "@" not in value:
            raise ValueError("an email has an @")
        return value


class Range(Entity, table=shop, type="RANGE", version="version"):
    """A rule over two fields: a model validator, which only the whole entity can satisfy."""

    range_id: str
    low: int = 0
    high: int = 10
    version: int | None = None

    keys = Keys(PK="RANGE#{range_id}", SK="RANGE")

    @model_validator(mode="after")
    def _ordered(self) -> Range:
        if self.low > self.high:
            raise ValueError("low must not exceed high")
        return self


class Bin(Entity, table=shop, type="BIN", timestamps=False):
    """A level kept between two bounds by ``add``/``subtract`` computed on the server."""

    bin_id: str
    level: int = Field(default=0, ge=0, le=100)

    keys = Keys(PK="BIN#{bin_id}", SK="BIN")


class Window(Entity, table=shop, type="WINDOW"):
    """A field validator reading another field through ``info.data``, as pydantic documents it."""

    window_id: str
    opens: int = 0
    closes: int = 10

    keys = Keys(PK="WINDOW#{window_id}", SK="WINDOW")

    @field_validator("closes")
    @classmethod
    def _after_opening(cls, value: int, info: ValidationInfo) -> int:
        if value < info.data["opens"]:  # no None check: info.data always holds the fields above
            raise ValueError(f"closes before it opens ({info.data['opens']})")
        return value


VALID: dict[str, Any] = {"sku": "s1", "title": "t", "labels": {"x"}}

# One strategy per kind of rule: (field, a value that breaks it).
ref_pattern = re.compile(r"^[A-Z]{3}-[0-9]+$")
violations = st.one_of(
    st.tuples(st.just("stock"), st.integers(max_value=-1)),  # ge
    st.tuples(
        st.just("price"), st.decimals(max_value=0, allow_nan=False, allow_infinity=False, places=2)
    ),  # gt
    st.tuples(
        st.just("ratio"),
        st.floats(min_value=1, max_value=1e6, exclude_min=True)
        | st.floats(min_value=-1e6, max_value=0, exclude_max=True),
    ),  # ge and le
    st.tuples(st.just("plan"), st.text(max_size=8).filter(lambda s: s not in ("free", "pro"))),  # Literal
    st.tuples(st.just("color"), st.text(max_size=8).filter(lambda s: s not in ("red", "blue"))),  # enum
    st.tuples(st.just("code"), st.text(min_size=1, max_size=8).filter(lambda s: s != s.upper())),  # Annotated
    st.tuples(st.just("name"), st.just("") | st.text(min_size=21, max_size=30)),  # min/max length
    st.tuples(st.just("ref"), st.text(max_size=8).filter(lambda s: not ref_pattern.match(s))),  # pattern
    st.tuples(st.just("tags"), st.lists(st.text(max_size=3), min_size=4, max_size=6)),  # list max_length
    st.tuples(st.just("email"), st.text(max_size=8).filter(lambda s: "@" not in s)),  # @field_validator
    st.tuples(  # a nested model's own constraint
        st.just("address"), st.builds(dict, street=st.text(max_size=5), zip=st.integers(max_value=-1))
    ),
    st.tuples(st.just("title"), st.none()),  # a required field written absent
    st.tuples(st.just("labels"), st.just(set())),  # a required set written empty (not stored)
)
WRITES = [
    "create",
    "put",
    "update",
    "update_if_not_exists",
    "upsert",
    "batch_write",
    "tx_create",
    "tx_put",
    "tx_update",
]


def scan(db: DB) -> list[dict[str, Any]]:
    return sorted(db.call("Scan", {"TableName": db.table_name}).get("Items", []), key=repr)


def write(db: DB, how: str, field: str, value: Any) -> None:
    """Write ``value`` to ``field`` of product s1 the way ``how`` says."""
    key = Product.key(sku="s1")
    whole = Product.model_construct(**{**VALID, field: value})  # past pydantic, as assignment would be
    if how == "create":
        db.create(Product.model_construct(**{**VALID, "sku": "s2", field: value}))
    elif how == "put":
        db.put(whole)
    elif how == "update":
        db.update(key, **{field: value})
    elif how == "update_if_not_exists":
        db.update(key, getattr(Product.f, field).if_not_exists(value))
    elif how == "upsert":
        sets = {name: v for name, v in {**VALID, field: value}.items() if name != "sku"}
        db.update(Product.key(sku="s3"), upsert=True, **sets)
    elif how == "batch_write":
        db.batch_write(put=[whole])
    elif how == "tx_create":
        with db.transaction() as tx:
            tx.create(Product.model_construct(**{**VALID, "sku": "s2", field: value}))
    elif how == "tx_put":
        with db.transaction() as tx:
            tx.put(whole)
    else:
        with db.transaction() as tx:
            tx.update(key, **{field: value})


@pytest.fixture(scope="module")
def engine_db() -> Iterator[DB]:
    db = connect(shop, ":memory:", name="validation")
    db.create_table()
    db.create(Product(**VALID))
    yield db
    db.close()


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(violation=violations, how=st.sampled_from(WRITES))
def test_a_value_breaking_a_declared_rule_is_refused_before_any_request(
    engine_db: DB, violation: tuple[str, Any], how: str
) -> None:
    field, value = violation
    before = scan(engine_db)
    with engine_db.trace() as trace, pytest.raises(FieldTypeError) as caught:
        write(engine_db, how, field, value)
    error = caught.value
    assert (error.entity, error.field) == ("PRODUCT", field), error
    assert error.value == value or error.value is value
    assert f"PRODUCT.{field}" in str(error) and repr(value)[:40] in str(error)
    assert isinstance(error, ModelError)
    assert trace.requests == [], [r.operation for r in trace.requests]  # nothing was sent
    assert scan(engine_db) == before


unstorable = (
    st.floats(min_value=-1e-131, max_value=1e-131).filter(lambda f: f != 0.0)
    | st.floats(min_value=1e126, allow_infinity=False)
    | st.floats(max_value=-1e126, allow_infinity=False)
    | st.sampled_from([float("nan"), float("inf"), float("-inf")])
)


@settings(
    max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(value=unstorable, how=st.sampled_from(WRITES))
def test_a_float_dynamodb_cannot_store_names_its_field(engine_db: DB, value: float, how: str) -> None:
    """A float of the declared type that no item may hold (beyond 1e-130..1e126, NaN, an infinity) is refused
    with the entity, the field and the value, before any request -- on every write, not only on keys."""
    with engine_db.trace() as trace, pytest.raises(FieldValueError) as caught:
        write(engine_db, how, "ratio", value)
    assert (caught.value.entity, caught.value.field) == ("PRODUCT", "ratio")
    assert str(caught.value).startswith(
        f"PRODUCT.ratio = {value!r} is refused: DynamoDB cannot store the number"
    )
    assert trace.requests == []


def test_the_issue_cases_and_their_messages(engine_db: DB) -> None:
    """``stock: int = Field(ge=0)`` then ``stock=-1``; ``plan: Literal[...]`` then ``"gold"``."""
    with engine_db.trace() as trace:
        with pytest.raises(FieldValueError) as caught:
            engine_db.update(Product.key(sku="s1"), stock=-1)
        assert (
            str(caught.value) == "PRODUCT.stock = -1 is refused: Input should be greater than or equal to 0"
        )
        assert (caught.value.expected, caught.value.reason) == (
            "int",
            "Input should be greater than or equal to 0",
        )
        assert isinstance(caught.value, ValueError) and isinstance(caught.value, TypeError)
        with pytest.raises(
            FieldValueError, match=r"^PRODUCT\.plan = 'gold' is refused: Input should be 'free' or 'pro'$"
        ):
            engine_db.update(Product.key(sku="s1"), plan="gold")
        with pytest.raises(
            FieldValueError, match=r"^PRODUCT\.email = 'nobody' is refused: Value error, an email has an @$"
        ):
            engine_db.update(Product.key(sku="s1"), email="nobody")
        with pytest.raises(
            FieldValueError,
            match=r"^PRODUCT\.title = None is refused: the field is required \(no default\), and removing it",
        ):
            engine_db.update(Product.key(sku="s1"), Product.f.title.remove())
        with pytest.raises(
            FieldValueError,
            match=r"^PRODUCT\.labels = set\(\) is refused: DynamoDB stores no empty set, so this required",
        ):
            engine_db.create(Product(**{**VALID, "sku": "s9", "labels": set()}))
    assert trace.requests == []
    assert engine_db.get(Product, sku="s1") == Product(**VALID)


def test_values_come_out_of_validation_as_it_returns_them(engine_db: DB) -> None:
    """A validator that changes a value (here a nested dict becoming its model) gives what is stored."""
    updated = engine_db.update(Product.key(sku="s1"), address={"street": "x", "zip": 5}, tags=["a"])
    assert updated.address == Address(street="x", zip=5)
    assert engine_db.get(Product, sku="s1") == updated
    engine_db.update(Product.key(sku="s1"), address=None, tags=[])


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (
            lambda: Product.f.plan.add(1),
            r"^PRODUCT\.plan = 1 is refused: add\(\) computes the new value on the server",
        ),
        (lambda: Product.f.tags.append(["x"]), r"^PRODUCT\.tags = \['x'\] is refused: append\(\) computes"),
        (lambda: Product.f.email.add({"x"}), r"^PRODUCT\.email = \{'x'\} is refused: add\(\) computes"),
    ],
)
def test_an_action_computed_on_the_server_that_no_condition_can_check_is_refused(
    engine_db: DB, action: Callable[[], Any], message: str
) -> None:
    with engine_db.trace() as trace, pytest.raises(FieldValueError, match=message):
        engine_db.update(Product.key(sku="s1"), action())
    assert trace.requests == []


def test_a_nested_member_passes_its_own_declared_rules(engine_db: DB) -> None:
    refused = r"^PRODUCT\.address\['zip'\] = -1 is refused"
    with engine_db.trace() as trace, pytest.raises(FieldValueError, match=refused) as caught:
        engine_db.update(Product.key(sku="s1"), Product.f.address.zip.set(-1))
    assert caught.value.field == "address['zip']"
    assert trace.requests == []


# -- numbers computed on the server: a condition keeps them in bounds, on every target --------------------


@pytest.fixture
def product_db(open_db: Callable[..., DB]) -> DB:
    db = open_db(shop)
    db.create(Product(**{**VALID, "stock": 3}))
    return db


def test_a_decrement_below_the_bound_is_refused_by_its_condition(product_db: DB) -> None:
    db = product_db
    with pytest.raises(FieldValueError) as caught:
        db.update(Product.key(sku="s1"), Product.f.stock.add(-5))
    assert str(caught.value) == "PRODUCT.stock = -5 is refused: add(-5) would make it -2, which must be >= 0"
    assert db.get(Product, sku="s1").stock == 3
    with pytest.raises(
        FieldValueError, match=r"^PRODUCT\.stock = 4 is refused: subtract\(4\) would make it -1"
    ):
        db.update(Product.key(sku="s1"), Product.f.stock.subtract(4))
    with pytest.raises(
        FieldValueError, match=r"^PRODUCT\.ratio = 0.75 is refused: add\(0.75\) would make it 1.25"
    ):
        db.update(Product.key(sku="s1"), Product.f.ratio.add(0.75))
    assert db.update(Product.key(sku="s1"), Product.f.stock.add(-3)).stock == 0  # exactly the bound
    assert db.get(Product, sku="s1").stock == 0


def test_the_callers_condition_failing_is_still_condition_failed(product_db: DB) -> None:
    with pytest.raises(ConditionFailed) as caught:
        product_db.update(Product.key(sku="s1"), Product.f.stock.add(-1), condition=Product.f.plan == "pro")
    assert not isinstance(caught.value, FieldValueError)
    assert product_db.get(Product, sku="s1").stock == 3


@pytest.mark.async_twin
def test_a_model_validator_sees_the_entity_a_partial_update_leaves(open_db: Callable[..., DB]) -> None:
    db = open_db(shop)
    db.create(Range(range_id="r"))
    with db.trace() as trace, pytest.raises(FieldValueError) as caught:
        db.update(Range.key(range_id="r"), low=11)
    assert str(caught.value) == "RANGE is refused by its validation: Value error, low must not exceed high"
    assert caught.value.field is None
    assert trace.operations == ["GetItem"]  # the stored item, read to validate the whole; nothing written
    with pytest.raises(FieldValueError):
        db.update(Range.key(range_id="r"), Range.f.low.add(20))
    with pytest.raises(FieldValueError):
        db.update(Range.key(range_id="q"), upsert=True, low=30)
    with pytest.raises(FieldValueError):
        db.create(Range.model_construct(range_id="p", low=5, high=1))
    assert db.update(Range.key(range_id="r"), high=20, low=15).low == 15
    assert db.get(Range, range_id="r") == Range(range_id="r", low=15, high=20, version=2)
    assert db.get(Range, range_id="q") is None and db.get(Range, range_id="p") is None


@pytest.mark.parametrize("target", ["engine", "reference"], indirect=True)
def test_any_sequence_of_increments_keeps_a_bounded_number_in_bounds(
    open_db: Callable[..., DB], request: pytest.FixtureRequest
) -> None:
    """Random ``add``/``subtract`` steps on a level bounded to 0..100: each step that would leave the bounds
    is refused (nothing written), every other one is applied; the stored level is always the reference's."""
    db = open_db(shop)
    drawn = examples(30 if request.node.callspec.params["target"] == "engine" else 8)
    bins = itertools.count()

    @settings(max_examples=drawn, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(steps=st.lists(st.tuples(st.sampled_from(["add", "subtract"]), st.integers(-60, 60)), max_size=8))
    def bounded(steps: list[tuple[str, int]]) -> None:
        key = Bin.key(bin_id=f"b{next(bins)}")
        level: int | None = None  # no item yet: add creates it (upsert), counting from 0
        for kind, delta in steps:
            change = delta if kind == "add" else -delta
            start = 0 if level is None else level
            fits = 0 <= start + change <= 100 and not (kind == "subtract" and level is None)
            action = getattr(Bin.f.level, kind)(delta)
            if fits:
                assert db.update(key, action, upsert=True).level == start + change
                level = start + change
            elif kind == "subtract" and level is None:
                with pytest.raises(ModelError):  # DynamoDB cannot subtract from nothing
                    db.update(key, action, upsert=True)
            else:
                with pytest.raises(FieldValueError) as caught:
                    db.update(key, action, upsert=True)
                assert caught.value.reason.startswith(f"{kind}({delta}) would make it {start + change}")
            stored = db.get(key, consistent=True)
            assert (stored.level if stored else None) == level

    bounded()


@pytest.mark.parametrize("how", ["update", "upsert", "tx_update"])
def test_if_not_exists_of_nothing_on_a_required_field_is_refused_before_any_request(
    engine_db: DB, how: str
) -> None:
    """``if_not_exists(None)`` stores NULL where the attribute is missing (an upsert's new item): an item
    whose every read is refused. Refused before sending, naming entity, field and value."""
    before = scan(engine_db)
    for field, nothing in (("title", None), ("labels", set())):
        action = getattr(Product.f, field).if_not_exists(nothing)
        with engine_db.trace() as trace, pytest.raises(FieldValueError) as caught:
            if how == "update":
                engine_db.update(Product.key(sku="s1"), action)
            elif how == "upsert":
                engine_db.update(Product.key(sku="s9"), action, upsert=True, title="t", labels={"x"})
            else:
                with engine_db.transaction() as tx:
                    tx.update(Product.key(sku="s1"), action)
        assert (caught.value.entity, caught.value.field, caught.value.value) == ("PRODUCT", field, nothing)
        assert str(caught.value).startswith(
            f"PRODUCT.{field} = {nothing!r} is refused: the field is required"
        )
        assert trace.requests == []
    assert scan(engine_db) == before


@pytest.mark.async_twin
def test_a_bound_broken_inside_a_transaction_is_the_same_field_value_error(
    open_db: Callable[..., DB],
) -> None:
    """The transaction's cancellation names the update whose bound condition failed: the error is the one a
    lone update raises (an ``OutOfBounds``: a ``FieldValueError`` and a ``ConditionFailed``), with every
    action's cancellation; nothing of the transaction is written."""
    db = open_db(shop)
    db.create(Product(**{**VALID, "stock": 3}))
    db.create(Bin(bin_id="b", level=50))
    with pytest.raises(FieldValueError) as caught, db.transaction() as tx:
        tx.update(Bin.key(bin_id="b"), Bin.f.level.add(10))
        tx.update(Product.key(sku="s1"), Product.f.stock.add(-5))
    error = caught.value
    assert str(error) == "PRODUCT.stock = -5 is refused: add(-5) would make it -2, which must be >= 0"
    assert isinstance(error, OutOfBounds) and isinstance(error, ConditionFailed)
    assert (error.entity, error.field, error.value) == ("PRODUCT", "stock", -5)
    failed = [c for c in error.cancellations if c.failed]
    assert [(c.index, c.entity, c.role, c.code) for c in failed] == [
        (1, "PRODUCT", "update", "ConditionalCheckFailed")
    ]
    assert len(error.cancellations) == 2
    assert db.get(Product, sku="s1").stock == 3 and db.get(Bin, bin_id="b").level == 50
    with pytest.raises(ConditionFailed) as alone:  # outside a transaction: the same error
        db.update(Product.key(sku="s1"), Product.f.stock.add(-5))
    assert type(alone.value) is OutOfBounds and str(alone.value) == str(error)
    # the caller's own condition is not a bound
    with pytest.raises(ConditionFailed) as other, db.transaction() as tx:
        tx.update(Product.key(sku="s1"), Product.f.stock.add(-1), condition=Product.f.plan == "pro")
    assert not isinstance(other.value, FieldValueError)


@pytest.mark.async_twin
def test_a_field_validator_reading_info_data_sees_the_other_fields_in_a_partial_update(
    open_db: Callable[..., DB],
) -> None:
    """The update reads the stored item (as for a model validator) and validates the entity it leaves, so
    ``info.data`` holds the stored ``opens``; refused before anything is written, never written and then
    refused on every read."""
    db = open_db(shop)
    db.create(Window(window_id="w", opens=5))
    with db.trace() as trace, pytest.raises(FieldValueError) as caught:
        db.update(Window.key(window_id="w"), closes=3)
    assert str(caught.value) == "WINDOW.closes = 3 is refused: Value error, closes before it opens (5)"
    assert trace.operations == ["GetItem"]
    assert db.get(Window, window_id="w").closes == 10
    assert db.update(Window.key(window_id="w"), closes=7).closes == 7
    with pytest.raises(FieldValueError):
        db.update(Window.key(window_id="w"), opens=8)  # the other field changed: closes is checked again
    with pytest.raises(FieldValueError), db.transaction() as tx:
        tx.update(Window.key(window_id="w"), Window.f.closes.add(-3))
    assert db.get(Window, window_id="w") == Window(window_id="w", opens=5, closes=7)


def test_delete_from_a_required_set_is_refused_before_any_request(engine_db: DB) -> None:
    """Taking the last element removes the attribute (DynamoDB keeps no empty set): an item every read
    refuses. No condition can tell beforehand, so the action is refused, naming entity, field and value."""
    before = scan(engine_db)
    with engine_db.trace() as trace, pytest.raises(FieldValueError) as caught:
        engine_db.update(Product.key(sku="s1"), Product.f.labels.delete({"x"}))
    assert (caught.value.entity, caught.value.field, caught.value.value) == ("PRODUCT", "labels", {"x"})
    assert "delete() could take its last element" in str(caught.value)
    assert trace.requests == [] and scan(engine_db) == before
