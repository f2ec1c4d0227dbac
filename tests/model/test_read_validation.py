"""Every read path validates a stored item as the entity declares it, the same way.

Before: ``plan: Literal["free", "pro"]`` holding ``"gold"`` (written by another tool) was returned by ``get``
when the item was whole -- the fast decoding path took any text -- yet refused when the item lacked an
unrelated attribute (which sends it through validation), and a projection checked the choices but not the
constraints (``Field(ge=0)``). Now get, query, page, batch_get and projections all raise
:class:`StoredItemError` naming the attribute and what was stored, and ``on_bad_item="skip"`` leaves such
items out, on the fast path and the validation path, on every target. Items are written with raw PutItem.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import Field

from draws import examples
from singletable.model import DB, Entity, Keys, Pattern, StoredItemError, Table

pytestmark = pytest.mark.async_twin

plans = Table(name="read-validation")


class Account(Entity, table=plans, type="ACCOUNT", timestamps=False):
    """Plain (no validators, no constraints): whole items take the fast decoding path."""

    org: str
    name: str
    plan: Literal["free", "pro"] = "free"
    levels: list[Literal[1, 2]] = []
    note: str = ""

    keys = Keys(PK="ORG#{org}", SK="ACCOUNT#{name}")
    in_org = Pattern()


class Stock(Entity, table=plans, type="STOCK", timestamps=False):
    """Constrained: items are validated by pydantic."""

    org: str
    sku: str
    count: int = Field(ge=0)
    note: str = ""

    keys = Keys(PK="ORG#{org}", SK="STOCK#{sku}")
    in_org = Pattern()


TYPE = plans.type_attribute


def raw_put(db: DB, item: dict[str, Any]) -> None:
    db.call("PutItem", {"TableName": db.table_name, "Item": item})


def account(name: str, plan: str, *, note: bool) -> dict[str, Any]:
    item = {
        "PK": {"S": "ORG#o"},
        "SK": {"S": f"ACCOUNT#{name}"},
        TYPE: {"S": "ACCOUNT"},
        "org": {"S": "o"},
        "name": {"S": name},
        "plan": {"S": plan},
    }
    if note:  # with it, the item is whole; without it, decoding goes the careful way
        item["note"] = {"S": "n"}
    return item


@pytest.fixture
def db(open_db: Callable[..., DB]) -> DB:
    database = open_db(plans)
    database.create(Account(org="o", name="good", plan="pro"))
    return database


@pytest.mark.parametrize("whole", [True, False], ids=["whole", "missing-optional"])
def test_a_literal_outside_its_choices_is_refused_by_every_read(db: DB, whole: bool) -> None:
    raw_put(db, account("bad", "gold", note=whole))
    expected = (
        f"table '{db.table_name}', item (PK='ORG#o', SK='ACCOUNT#bad'): "
        "attribute 'plan' does not fit ACCOUNT: "
        "expected Literal['free', 'pro'] (S), stored S 'gold': Input should be 'free' or 'pro'"
    )
    reads = {
        "get": lambda: db.get(Account, org="o", name="bad"),
        "query": lambda: list(db.query(Account.in_org(org="o"))),
        "page": lambda: db.page(Account.in_org(org="o"), size=5),
        "batch_get": lambda: db.batch_get([Account.key(org="o", name="bad")]),
        "projection": lambda: list(db.query(Account.in_org(org="o").select(Account.f.plan))),
    }
    for name, read in reads.items():
        with pytest.raises(StoredItemError) as caught:
            read()
        assert str(caught.value) == expected, name
        assert (caught.value.attribute, caught.value.entity) == ("plan", "ACCOUNT")
    kept = [a.name for a in db.query(Account.in_org(org="o"), on_bad_item="skip")]
    assert kept == ["good"]


def test_a_literal_inside_a_list_is_checked_on_the_fast_path(db: DB) -> None:
    item = account("lv", "free", note=True) | {"levels": {"L": [{"N": "1"}, {"N": "3"}]}}
    raw_put(db, item)
    with pytest.raises(StoredItemError) as caught:
        db.get(Account, org="o", name="lv")
    assert caught.value.attribute == "levels"


def test_a_constraint_is_refused_by_a_projection_too(db: DB) -> None:
    stock = {"PK": {"S": "ORG#o"}, "SK": {"S": "STOCK#s"}, TYPE: {"S": "STOCK"}, "count": {"N": "-1"}}
    raw_put(db, stock | {"org": {"S": "o"}, "sku": {"S": "s"}})
    message = "attribute 'count' does not fit STOCK: expected int (N), stored N '-1': Input should be greater"
    for read in (
        lambda: db.get(Stock, org="o", sku="s"),
        lambda: list(db.query(Stock.in_org(org="o"))),
        lambda: list(db.query(Stock.in_org(org="o").select(Stock.f.count))),
        lambda: db.batch_get([Stock.key(org="o", sku="s")]),
    ):
        with pytest.raises(StoredItemError, match=re.escape(message)):
            read()


@pytest.mark.sync_only("hypothesis drives the examples synchronously; the decoding is shared")
@pytest.mark.parametrize("target", ["engine", "reference"], indirect=True)
def test_whole_and_partial_items_agree_on_every_value(open_db: Callable[..., DB]) -> None:
    """Whatever text is stored, the fast path, the careful path and a projection all accept it or all
    refuse it: exactly when it is one of the choices."""
    db = open_db(plans)

    @settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(plan=st.text(max_size=6), whole=st.booleans())
    def agree(plan: str, whole: bool) -> None:
        raw_put(db, account("h", plan, note=whole))
        outcomes = []
        for read in (
            lambda: db.get(Account, org="o", name="h").plan,
            lambda: next(iter(db.query(Account.in_org(org="o").select(Account.f.plan)))).plan,
        ):
            try:
                outcomes.append(read())
            except StoredItemError:
                outcomes.append("refused")
        assert outcomes == ([plan, plan] if plan in ("free", "pro") else ["refused", "refused"])

    agree()
