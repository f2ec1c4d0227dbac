"""A field stored under the table's own key attribute (``Field(alias="PK")``, what a Workbench import of a
display-name key produces) is written as the key and read back from it, on every target, and
never fails at declaration with a bare ``KeyError``."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from singletable.model import Entity, Keys, Table

products = Table(name="key-fields")
scores = Table(name="number-key-fields", pk=("PK", "N"), sk=("SK", "N"))


class Product(Entity, table=products, type="PRODUCT", timestamps=False, unique=["name"]):
    product_id: str = Field(alias="PK")
    name: str
    price: int = 0

    keys = Keys(PK="{product_id}", SK="PRODUCT")


class Score(Entity, table=scores, type="SCORE", timestamps=False):
    player: int = Field(alias="PK")
    round: int = Field(alias="SK")
    points: int = 0

    keys = Keys(PK="{player}", SK="{round}")


def test_a_field_stored_as_the_partition_key_is_written_once_and_read_back(open_db: Any) -> None:
    db = open_db(products)
    db.create(Product(PK="p1", name="lamp", price=3))
    assert db.get(Product, product_id="p1") == Product(PK="p1", name="lamp", price=3)
    db.update(Product.key(product_id="p1"), price=4)
    assert db.must_get(Product, product_id="p1").price == 4
    key = {"PK": {"S": "p1"}, "SK": {"S": "PRODUCT"}}
    stored = db.call("GetItem", {"TableName": db.table_name, "Key": key})["Item"]
    assert stored == {
        "PK": {"S": "p1"},
        "SK": {"S": "PRODUCT"},
        "name": {"S": "lamp"},
        "price": {"N": "4"},
        "entityType": {"S": "PRODUCT"},
    }
    db.delete(Product.key(product_id="p1"))
    assert db.get(Product, product_id="p1") is None


def test_number_fields_stored_as_number_keys_are_read_back(open_db: Any) -> None:
    db = open_db(scores)
    db.create(Score(PK=7, SK=2, points=40))
    assert db.get(Score, player=7, round=2) == Score(PK=7, SK=2, points=40)
