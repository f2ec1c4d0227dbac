"""A multi-tenant shop, written as a new user writes one: the design the design tools are tried on.

Stores (each numbering its orders from a counter, ``next_order_number``); customers whose email is unique
within their store; products whose SKU is unique within their store, with optimistic locking (``version=``)
on their stock; orders, each with its lines in the order's partition; a sparse index of each store's open
orders (an order leaves it when it is paid, shipped or cancelled) and an index of each customer's orders.
``load_sample(db)`` writes a small shop through the model, as the application's service would.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pydantic import Field

from singletable.model import GSI, Collection, Entity, Key, Keys, Pattern, Table

shop = Table(
    name="shop",
    indexes=[
        GSI("openOrders", pk="GSI1PK", sk="GSI1SK"),
        GSI("byCustomer", pk="GSI2PK", sk="GSI2SK"),
    ],
)


def _is_open(status: str) -> bool:
    return status == "open"


class Store(Entity, table=shop, type="STORE"):
    """A tenant. ``next_order_number`` is the counter its orders are numbered from."""

    store_id: str
    name: str
    currency: str = "EUR"
    next_order_number: int = 0

    keys = Keys(PK="STORE#{store_id}", SK="STORE")


class Customer(Entity, table=shop, type="CUSTOMER", unique={"email": "STORE#{store_id}#EMAIL#{email}"}):
    """A store's customer; one email per store (the same person may shop in two stores)."""

    store_id: str
    customer_id: str
    email: str
    name: str

    keys = Keys(PK="STORE#{store_id}", SK="CUSTOMER#{customer_id}")
    of_store = Pattern(sk="CUSTOMER#", doc="a store's customers")


class Product(
    Entity, table=shop, type="PRODUCT", unique={"sku": "STORE#{store_id}#SKU#{sku}"}, version="version"
):
    """A store's product; one SKU per store. Stock changes are checked against the version read."""

    store_id: str
    product_id: str
    sku: str
    name: str
    price_cents: int = Field(ge=0)
    stock: int = Field(default=0, ge=0)
    version: int = 0

    keys = Keys(PK="STORE#{store_id}", SK="PRODUCT#{product_id}")
    of_store = Pattern(sk="PRODUCT#", doc="a store's catalogue")


class Order(Entity, table=shop, type="ORDER"):
    """An order; open orders are in the store's ``openOrders`` index until paid or cancelled."""

    store_id: str
    order_number: int = Field(ge=1)
    customer_id: str
    status: str = "open"  # then "paid", "shipped" or "cancelled"
    placed_at: datetime
    total_cents: int = Field(default=0, ge=0)

    keys = Keys(
        PK="STORE#{store_id}#ORDER#{order_number:08d}",
        SK="ORDER",
        GSI1PK=Key("STORE#{store_id}#OPEN", when=_is_open),
        GSI1SK=Key("{placed_at}#{order_number:08d}", when=_is_open),
        GSI2PK="STORE#{store_id}#CUSTOMER#{customer_id}",
        GSI2SK="ORDER#{placed_at}",
    )
    open_in_store = Pattern(index="openOrders", newest_first=True, doc="a store's open orders, newest first")
    of_customer = Pattern(index="byCustomer", newest_first=True, doc="a customer's orders, newest first")


class OrderLine(Entity, table=shop, type="LINE", timestamps=False):
    """One line of an order, in the order's partition."""

    store_id: str
    order_number: int = Field(ge=1)
    line: int = Field(ge=1, le=999)
    product_id: str
    quantity: int = Field(ge=1)
    price_cents: int = Field(ge=0)

    keys = Keys(PK="STORE#{store_id}#ORDER#{order_number:08d}", SK="LINE#{line:03d}")


# An order and its lines, one Query.
order_with_lines = Collection(
    shop, "order_with_lines", pk="STORE#{store_id}#ORDER#{order_number:08d}", entities=(Order, OrderLine)
)

# What the sample shop holds (used by load_sample, and by the tests that replay its writes).
STORES = ("acme", "globex")
START = datetime(2026, 1, 15, 9, 0, tzinfo=UTC)


def sample_store(store_id: str) -> Store:
    return Store(store_id=store_id, name=f"{store_id.title()} Supplies")


def sample_customer(store_id: str, n: int) -> Customer:
    return Customer(store_id=store_id, customer_id=f"c{n}", email=f"buyer{n}@example.com", name=f"Buyer {n}")


def sample_product(store_id: str, n: int) -> Product:
    return Product(
        store_id=store_id,
        product_id=f"p{n}",
        sku=f"SKU-{n:04d}",
        name=f"Widget {n}",
        price_cents=250 * n,
        stock=100,
    )


def sample_order(store_id: str, number: int, customer: str) -> Order:
    """A new order as checkout creates it: open, placed now (the status is the default)."""
    return Order(
        store_id=store_id,
        order_number=number,
        customer_id=customer,
        placed_at=START + timedelta(hours=number),
        total_cents=750,
    )


def sample_line(store_id: str, number: int, line: int, product: str) -> OrderLine:
    return OrderLine(
        store_id=store_id, order_number=number, line=line, product_id=product, quantity=1, price_cents=250
    )


def load_sample(db) -> None:  # type: ignore[no-untyped-def]
    """Two stores, each with three customers, three products and four orders of two lines (the same emails
    and SKUs in both stores: unique per store only); half the orders paid, the rest open."""
    for store_id in STORES:
        db.create(sample_store(store_id))
        for n in range(1, 4):
            db.create(sample_customer(store_id, n))
            db.create(sample_product(store_id, n))
        for number in range(1, 5):
            db.update(Store.key(store_id=store_id), Store.f.next_order_number.add(1))
            db.create(sample_order(store_id, number, f"c{1 + number % 3}"))
            for line in (1, 2):
                db.create(sample_line(store_id, number, line, f"p{line}"))
            if number % 2 == 0:
                db.update(Order.key(store_id=store_id, order_number=number), status="paid")
        product = db.must_get(Product, store_id=store_id, product_id="p1")
        db.update(product, stock=product.stock - 4)  # a versioned stock change
