"""A shop's orders, for the tests of sequences inside transactions (``test_sequence_in_transaction.py``) and
the worker processes they start (``shop_order_worker.py``).

An order is numbered from its store's counter (``Store.next_order``, gapless), written with one line per
item of the cart, and takes each line's quantity from the stock of its SKU -- all in one transaction, which
a stock too low cancels. :func:`place` is the block for ``db.run_transaction`` (or a ``with
db.transaction()`` block), :func:`place_async` its ``AsyncDB`` form; :func:`stored` reads back what a
store holds, as plain values.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from singletable.model import Entity, Keys, Sequence, Table

shop = Table(name="shop")

Cart = list[tuple[str, int]]  # (sku, quantity) per line


class Store(Entity, table=shop, type="STORE", timestamps=False):
    store: str
    name: str = ""
    next_order: int = 0
    keys = Keys(PK="STORE#{store}", SK="STORE")


class Order(Entity, table=shop, type="ORDER", timestamps=False):
    store: str
    number: int
    lines: int
    writer: str = ""
    keys = Keys(PK="STORE#{store}", SK="ORDER#{number:08d}")


class Line(Entity, table=shop, type="LINE", timestamps=False):
    store: str
    order: int
    line: int
    sku: str
    qty: int
    keys = Keys(PK="STORE#{store}", SK="LINE#{order:08d}#{line:03d}")


class Stock(Entity, table=shop, type="STOCK", timestamps=False):
    store: str
    sku: str
    count: int
    keys = Keys(PK="STORE#{store}", SK="STOCK#{sku}")


class Customer(Entity, table=shop, type="CUSTOMER", unique=["email"], timestamps=False):
    store: str
    id: str
    email: str
    keys = Keys(PK="STORE#{store}", SK="CUSTOMER#{id}")


def orders(store: str = "s1", attempts: int = 50) -> Sequence:
    return Sequence(Store.key(store=store), Store.f.next_order, attempts=attempts)


def place(tx: Any, numbers: Sequence, cart: Cart, store: str = "s1", writer: str = "") -> int:
    """Draw the order's number, write the order and its lines, take the stock: one transaction."""
    number = numbers.draw(tx)
    tx.create(Order(store=store, number=number, lines=len(cart), writer=writer))
    for line, (sku, qty) in enumerate(cart, 1):
        tx.create(Line(store=store, order=number, line=line, sku=sku, qty=qty))
        tx.update(Stock.key(store=store, sku=sku), Stock.f.count.add(-qty), condition=Stock.f.count >= qty)
    return number


async def place_async(tx: Any, numbers: Sequence, cart: Cart, store: str = "s1", writer: str = "") -> int:
    """:func:`place` on an ``AsyncTransaction``."""
    number = await numbers.draw(tx)
    await tx.create(Order(store=store, number=number, lines=len(cart), writer=writer))
    for line, (sku, qty) in enumerate(cart, 1):
        await tx.create(Line(store=store, order=number, line=line, sku=sku, qty=qty))
        await tx.update(
            Stock.key(store=store, sku=sku), Stock.f.count.add(-qty), condition=Stock.f.count >= qty
        )
    return number


class Held(NamedTuple):
    """What a store holds: its counter, its orders (number -> (lines, writer)), each order's lines
    (number -> [(line, sku, qty)]) and its stock (sku -> count)."""

    counter: int | None
    orders: dict[int, tuple[int, str]]
    lines: dict[int, list[tuple[int, str, int]]]
    stock: dict[str, int]


def stored(call: Any, table_name: str, store: str = "s1") -> Held:
    """Every item of ``store``, read consistently with ``call`` (``db.call`` of a synchronous DB)."""
    params: dict[str, Any] = {
        "TableName": table_name,
        "KeyConditionExpression": "PK = :p",
        "ExpressionAttributeValues": {":p": {"S": f"STORE#{store}"}},
        "ConsistentRead": True,
    }
    items: list[dict[str, Any]] = []
    while True:
        page = call("Query", params)
        items += page["Items"]
        if "LastEvaluatedKey" not in page:
            break
        params["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    held = Held(None, {}, {}, {})
    counter = None
    for item in items:
        sk = item["SK"]["S"]
        if sk == "STORE":
            counter = int(item["nextOrder"]["N"]) if "N" in item.get("nextOrder", {}) else None
        elif sk.startswith("ORDER#"):
            writer = item["writer"]["S"] if "writer" in item else ""
            held.orders[int(item["number"]["N"])] = (int(item["lines"]["N"]), writer)
        elif sk.startswith("LINE#"):
            entry = (int(item["line"]["N"]), item["sku"]["S"], int(item["qty"]["N"]))
            held.lines.setdefault(int(item["order"]["N"]), []).append(entry)
        elif sk.startswith("STOCK#"):
            held.stock[item["sku"]["S"]] = int(item["count"]["N"])
    return held._replace(counter=counter)
