"""The multi-tenant shop as first written, with counters inside keys, which check must catch: a "top
customers" index sorted on an order count, and the store's Sequence counter in an index key. The guard
templates scoped to a store (per-store email and SKU) are right, and check accepts them."""

from __future__ import annotations

from singletable.model import GSI, Entity, Keys, Pattern, Sequence, Table

shop = Table(
    name="shop-mistakes",
    indexes=[GSI("topCustomers", pk="GSI1PK", sk="GSI1SK"), GSI("storesBySize", pk="GSI2PK", sk="GSI2SK")],
)


class Store(Entity, table=shop, type="STORE"):
    store_id: str
    region: str
    orders_placed: int = 0
    keys = Keys(PK="STORE#{store_id}", SK="STORE", GSI2PK="REGION#{region}", GSI2SK="{orders_placed:09d}")
    by_size = Pattern(index="storesBySize", newest_first=True)


class Customer(Entity, table=shop, type="CUSTOMER", unique={"email": "STORE#{store_id}#EMAIL#{email}"}):
    store_id: str
    customer_id: str
    email: str
    order_count: int = 0
    keys = Keys(
        PK="STORE#{store_id}",
        SK="CUSTOMER#{customer_id}",
        GSI1PK="STORE#{store_id}#TOP",
        GSI1SK="{order_count:06d}#{customer_id}",
    )
    top = Pattern(index="topCustomers", newest_first=True)


class Product(Entity, table=shop, type="PRODUCT", unique={"sku": "STORE#{store_id}#SKU#{sku}"}):
    store_id: str
    product_id: str
    sku: str
    keys = Keys(PK="STORE#{store_id}", SK="PRODUCT#{product_id}")


order_numbers = Sequence(Store.key(store_id="acme"), Store.f.orders_placed)
