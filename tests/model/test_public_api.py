"""``singletable.model``'s public face: exactly the names docs/modeling-reference.md documents, and the public
calls the examples use instead of reaching into the model's private modules (``guard_key``,
``db.batch_get(raw=True)``, ``table.attribute()``, the ``cursor`` module, ``Adapter``/``adapt``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import singletable.model as model
from singletable.model import (
    Adapter,
    Entity,
    InvalidCursor,
    Keys,
    Pattern,
    Table,
    adapt,
    connect,
    cursor,
    guard_key,
)

ROOT = Path(__file__).resolve().parents[2]
# What may import the model only through its public face: everything outside the model and the tests. The
# other packages of singletable may also import ``singletable.model.shared``, the model's interface for them.
APPLICATION_CODE = [ROOT / "bench", ROOT / "src" / "singletable"]  # the examples ship under src/
PRIVATE_IMPORT = re.compile(
    r"^\s*(?:from|import) singletable\.model\.(?!cursor\b|shared\b)\w+"
    r"|^\s*from singletable\.model import _\w+",
    re.M,
)

shop = Table(name="shop")


class Product(Entity, table=shop, type="PRODUCT", unique={"slug": "SLUG#{slug}"}):
    product_id: str
    slug: str
    keys = Keys(PK="PRODUCT#{product_id}", SK="PRODUCT#{product_id}")
    by_id = Pattern()


def documented_names() -> set[str]:
    text = (ROOT / "docs" / "modeling-reference.md").read_text()
    section = text.split("## Public names", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1] for line in section.splitlines() if line.startswith("| `")]
    return {name for row in rows for name in re.findall(r"`([A-Za-z_]+)`", row)}


def test_all_is_exactly_what_the_docs_list() -> None:
    assert set(model.__all__) == documented_names()
    for name in model.__all__:
        assert getattr(model, name) is not None


def test_application_code_imports_no_private_model_module() -> None:
    offenders = []
    for folder in APPLICATION_CODE:
        for path in folder.rglob("*.py"):
            if (ROOT / "src" / "singletable" / "model") in path.parents:
                continue
            offenders += [f"{path.relative_to(ROOT)}: {m}" for m in PRIVATE_IMPORT.findall(path.read_text())]
    assert offenders == []


def test_guard_key_and_raw_batch_get_read_guard_items() -> None:
    db = connect(shop)
    db.create_table()
    db.create(Product(product_id="p1", slug="red-shoe"))
    key = guard_key(Product, "slug", "red-shoe")
    assert key == {"PK": {"S": "SLUG#red-shoe"}, "SK": {"S": "SLUG#red-shoe"}}
    assert guard_key(Product.model_entity(), "slug", "red-shoe") == key
    found = db.batch_get([key, guard_key(Product, "slug", "blue-shoe")], consistent=True, raw=True)
    assert [item["owner"]["M"]["PK"] for item in found] == [{"S": "PRODUCT#p1"}]


def test_table_attribute_filters_on_an_attribute_no_field_holds() -> None:
    db = connect(shop)
    db.create_table()
    db.create(Product(product_id="p1", slug="a"))
    kind = shop.attribute("entityType")
    assert [p.slug for p in db.query(Product.by_id("p1").filter(kind == "PRODUCT"))] == ["a"]
    assert list(db.query(Product.by_id("p1").filter(kind == "OTHER"))) == []


def test_cursor_round_trips_and_refuses_another_scope() -> None:
    secret = cursor.default_secret()
    token = cursor.encode(secret, "newest", {"GSI2SK": {"S": "CREATED#2024"}})
    assert cursor.decode(secret, "newest", token) == {"GSI2SK": {"S": "CREATED#2024"}}
    with pytest.raises(InvalidCursor):
        cursor.decode(secret, "oldest", token)


def test_an_adapter_wrapping_adapt_sees_every_request() -> None:
    class Counting(Adapter):
        def __init__(self, inner: Adapter) -> None:
            self.inner, self.calls = inner, 0

        def call(self, operation: str, params: dict) -> dict:
            self.calls += 1
            return self.inner.call(operation, params)

        def close(self) -> None:
            self.inner.close()

    counting = Counting(adapt(":memory:"))
    with connect(shop, counting) as db:
        db.create_table()
        before = counting.calls
        db.create(Product(product_id="p1", slug="a"))
        assert db.get(Product, product_id="p1").slug == "a"
    assert counting.calls == before + 2
