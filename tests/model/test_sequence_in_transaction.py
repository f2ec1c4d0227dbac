"""A gapless number drawn inside a larger transaction, on every target (the engine, the in-process client,
``singletable serve`` over HTTP, DynamoDB Local) and on ``AsyncDB``.

An order takes the store's next number, writes its three lines and takes each line's quantity from stock,
in one transaction (``shop_orders.py``): the number is taken if and only if the transaction commits, so
concurrent writers -- threads, tasks, processes on one file or one endpoint -- get every number once, each
committed order holding exactly its number, and an order cancelled by its stock consumes none. A cancelled
transaction's ``cancellations`` name each action with DynamoDB's reason; a transaction acting on one item
twice is refused before any request.
"""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shop_orders import Cart, Customer, Order, Stock, Store, orders, place, place_async, shop, stored

from draws import examples
from model_targets import EventLoopThread
from singletable.model import (
    Cancellation,
    ConditionFailed,
    RequestRefused,
    Sequence,
    SequenceContended,
    StoredItemError,
    UniqueViolation,
    connect,
)

CART: Cart = [("a", 1), ("b", 2), ("c", 1)]
WORKER = Path(__file__).with_name("shop_order_worker.py")


def opened(open_db: Any, stock: dict[str, int] | None = None) -> Any:
    """A shop with store s1 (named, its counter not stored yet) and stock for SKUs a, b, c."""
    db = open_db(shop)
    db.create(Store(store="s1", name="Corner"))
    for sku, count in (stock or {"a": 10, "b": 10, "c": 10}).items():
        db.create(Stock(store="s1", sku=sku, count=count))
    return db


def run_order(db: Any, api: str, numbers: Sequence, cart: Cart, writer: str = "") -> int:
    """``db.run_transaction`` of one order, with the block each API takes (an async one on AsyncDB)."""
    if api == "async":
        return db.run_transaction(lambda tx: place_async(tx, numbers, cart, writer=writer))  # type: ignore[no-any-return]
    return db.run_transaction(lambda tx: place(tx, numbers, cart, writer=writer))  # type: ignore[no-any-return]


def lines_of(cart: Cart) -> list[tuple[int, str, int]]:
    return [(line, sku, qty) for line, (sku, qty) in enumerate(cart, 1)]


@pytest.mark.async_twin
def test_an_order_its_lines_stock_and_drawn_number_commit_as_one_transaction(open_db: Any, api: str) -> None:
    db = opened(open_db)
    numbers = orders()
    with db.trace() as trace:
        first = run_order(db, api, numbers, CART)
    assert first == 1
    assert trace.operations == ["GetItem", "TransactWriteItems"]  # the counter's read, then one transaction
    actions = trace.requests[1].params["TransactItems"]
    assert [next(iter(a)) for a in actions] == ["Update", "Put"] + ["Put", "Update"] * 3
    assert actions[0]["Update"]["Key"] == {"PK": {"S": "STORE#s1"}, "SK": {"S": "STORE"}}
    with db.transaction() as tx:  # the same block in a with block
        second = place(tx, numbers, CART)
    assert second == 2
    held = stored(db.call, db.table_name)
    assert held.counter == 2
    assert held.orders == {1: (3, ""), 2: (3, "")}
    assert held.lines == {1: lines_of(CART), 2: lines_of(CART)}
    assert held.stock == {"a": 8, "b": 6, "c": 8}
    assert db.get(Store, store="s1", consistent=True).name == "Corner"  # the counter item keeps its fields
    assert numbers.current(db) == 2


@pytest.mark.async_twin
def test_two_numbers_drawn_in_one_transaction_follow_one_another(open_db: Any) -> None:
    db = opened(open_db)
    numbers = orders()
    with db.trace() as trace, db.transaction() as tx:
        first = place(tx, numbers, [("a", 1)])
        second = place(tx, numbers, [("b", 1)])
    assert (first, second) == (1, 2)
    assert trace.operations == ["GetItem", "TransactWriteItems"]  # the second draw reads nothing
    assert len(trace.requests[1].params["TransactItems"]) == 7  # one counter update, to 2
    held = stored(db.call, db.table_name)
    assert (held.counter, sorted(held.orders)) == (2, [1, 2])


@pytest.mark.async_twin
def test_a_cancelled_order_consumes_no_number_and_names_the_failing_action(open_db: Any, api: str) -> None:
    db = opened(open_db, {"a": 10, "b": 1, "c": 10})  # the cart wants 2 of b
    numbers = orders()
    with pytest.raises(ConditionFailed) as caught:
        run_order(db, api, numbers, CART)
    error = caught.value
    assert str(error) == (
        "TransactionCanceledException: transaction cancelled, action 6 of 8 (STOCK update PK='STORE#s1' "
        "SK='STOCK#b'): its condition did not hold"
    )
    assert [c.action for c in error.cancellations] == [
        "STORE sequence next_order",
        "ORDER create",
        "LINE create",
        "STOCK update",
        "LINE create",
        "STOCK update",
        "LINE create",
        "STOCK update",
    ]
    assert [c.code for c in error.cancellations] == ["None"] * 5 + ["ConditionalCheckFailed"] + ["None"] * 2
    (failed,) = [c for c in error.cancellations if c.failed]
    assert isinstance(failed, Cancellation)
    assert (failed.index, failed.entity, failed.role, failed.key) == (
        5,
        "STOCK",
        "update",
        {"PK": "STORE#s1", "SK": "STOCK#b"},
    )
    assert failed.item is not None and failed.item["count"] == {"N": "1"}  # the stored item, as it was
    assert error.cancellations[2].key == {"PK": "STORE#s1", "SK": "LINE#00000001#001"}  # a Put's key too
    assert numbers.current(db) == 0
    held = stored(db.call, db.table_name)
    assert (held.counter, held.orders, held.lines) == (0, {}, {})
    assert held.stock == {"a": 10, "b": 1, "c": 10}
    assert run_order(db, api, numbers, [("a", 1)]) == 1  # the number was not consumed


@pytest.mark.async_twin
def test_a_taken_unique_value_names_its_guard_item_in_the_cancellations(open_db: Any) -> None:
    db = opened(open_db)
    db.create(Customer(store="s1", id="c1", email="a@x"))
    with pytest.raises(UniqueViolation) as caught:
        db.create(Customer(store="s1", id="c2", email="a@x"))  # the customer and its guard: a transaction
    assert [(c.index, c.action, c.role, c.key, c.code) for c in caught.value.cancellations] == [
        (0, "CUSTOMER create", "create", {"PK": "STORE#s1", "SK": "CUSTOMER#c2"}, "None"),
        (
            1,
            "CUSTOMER claim email='a@x'",
            "claim",
            {"PK": "UNIQUE#CUSTOMER#email#a@x", "SK": "UNIQUE#CUSTOMER#email#a@x"},
            "ConditionalCheckFailed",
        ),
    ]
    assert db.find(Customer, email="a@x").id == "c1"


@pytest.mark.async_twin
def test_two_actions_on_one_item_are_refused_before_any_request(open_db: Any) -> None:
    db = opened(open_db)
    stock = Stock.key(store="s1", sku="a")
    with db.trace() as trace, pytest.raises(RequestRefused) as caught, db.transaction() as tx:
        tx.create(Order(store="s1", number=9, lines=0))
        tx.update(stock, Stock.f.count.add(-1))
        tx.check(stock, Stock.f.count >= 1)
    assert str(caught.value) == (
        "two actions of this transaction act on one item, STOCK PK='STORE#s1' SK='STOCK#a': action 2 of 3 "
        "(STOCK update) and action 3 of 3 (STOCK check); DynamoDB refuses a transaction that acts on an item "
        "twice, so nothing was sent -- make them one action (one update can set several fields under one "
        "condition)"
    )
    assert trace.operations == []

    numbers = orders()
    with db.trace() as trace, pytest.raises(RequestRefused) as caught, db.transaction() as tx:
        place(tx, numbers, [("a", 1)])
        tx.update(Store.key(store="s1"), name="Renamed")  # the counter's item, which the draw updates
    assert str(caught.value).startswith(
        "two actions of this transaction act on one item, STORE PK='STORE#s1' SK='STORE': action 1 of 5 "
        "(STORE sequence next_order) and action 5 of 5 (STORE update); "
    )
    assert trace.operations == ["GetItem"]  # the draw's read of the counter; nothing was written

    with db.trace() as trace, pytest.raises(RequestRefused) as caught, db.transaction() as tx:
        tx.raw({"Put": {"Item": {"PK": {"S": "STORE#s1"}, "SK": {"S": "STOCK#a"}, "count": {"N": "1"}}}})
        tx.delete(stock)
    assert str(caught.value).startswith(
        "two actions of this transaction act on one item, PK='STORE#s1' SK='STOCK#a': action 1 of 2 (raw) "
        "and action 2 of 2 (STOCK delete); "
    )
    assert trace.operations == []
    assert stored(db.call, db.table_name).stock == {"a": 10, "b": 10, "c": 10}


@pytest.mark.async_twin
def test_a_number_taken_before_a_with_block_commits_raises_and_writes_nothing(open_db: Any) -> None:
    db = opened(open_db)
    numbers = orders()
    with pytest.raises(SequenceContended) as caught, db.transaction() as first:
        place(first, numbers, [("a", 1)], writer="first")
        with db.transaction() as second:  # another writer draws the same number and commits first
            place(second, numbers, [("b", 1)], writer="second")
    error = caught.value
    assert str(error) == (
        "Sequence on STORE.next_order: another writer took number 1 (or a concurrent transaction conflicted) "
        "before this transaction was committed; nothing was written -- db.run_transaction(block) runs the "
        "block again with the next number"
    )
    assert (error.sequence, error.number) == (numbers, 1)
    assert [(c.index, c.action, c.code) for c in error.cancellations if c.failed] == [
        (0, "STORE sequence next_order", "ConditionalCheckFailed"),
        (1, "ORDER create", "ConditionalCheckFailed"),  # order 1 and its line are the other writer's now
        (2, "LINE create", "ConditionalCheckFailed"),
    ]
    held = stored(db.call, db.table_name)
    assert (held.counter, held.orders) == (1, {1: (1, "second")})
    assert held.stock == {"a": 10, "b": 9, "c": 10}


@pytest.mark.async_twin
@pytest.mark.sync_only(
    "its block commits another order through the DB while it runs, which a synchronous block cannot do on "
    "an AsyncDB (the gathered writers below race on AsyncDB)"
)
def test_run_transaction_runs_the_block_again_when_its_number_was_taken(open_db: Any) -> None:
    db = opened(open_db)
    numbers, other = orders(), orders()
    calls: list[int] = []

    def racing(tx: Any) -> int:
        number = place(tx, numbers, [("a", 1)], writer="mine")
        calls.append(number)
        if len(calls) == 1:  # another writer takes the number between our read and our commit
            db.run_transaction(lambda o: place(o, other, [("b", 1)], writer="other"))
        return number

    assert db.run_transaction(racing) == 2
    assert (calls, numbers.retries) == ([1, 2], 1)
    held = stored(db.call, db.table_name)
    assert held.orders == {1: (1, "other"), 2: (1, "mine")}
    assert held.stock == {"a": 9, "b": 9, "c": 10}

    once = orders(attempts=1)

    def always_racing(tx: Any) -> int:
        number = place(tx, once, [("c", 1)], writer="lost")
        db.run_transaction(lambda o: place(o, other, [("b", 1)], writer="other"))
        return number

    with pytest.raises(SequenceContended) as caught:
        db.run_transaction(always_racing)
    assert str(caught.value) == (
        "Sequence on STORE.next_order: another writer took the next number under each of 1 attempts; "
        "nothing was written -- try again, or raise attempts=..."
    )
    assert caught.value.cancellations[0].code == "ConditionalCheckFailed"

    short: list[int] = []

    def too_many(tx: Any) -> int:
        short.append(1)
        return place(tx, numbers, [("c", 99)], writer="short")

    with pytest.raises(ConditionFailed):  # any other failure is raised at once: the block ran once
        db.run_transaction(too_many)
    assert short == [1]
    held = stored(db.call, db.table_name)
    assert held.orders == {1: (1, "other"), 2: (1, "mine"), 3: (1, "other")}
    assert held.stock == {"a": 9, "b": 8, "c": 10}


def check_every_number_once(held: Any, placed: dict[int, tuple[str, Cart]], stock: int) -> None:
    """Numbers 1..n each taken once, each order holding the writer and the lines of the transaction that
    took it, the stock down by exactly what the orders hold, the counter at n."""
    total = len(placed)
    assert sorted(placed) == list(range(1, total + 1))
    assert held.counter == total
    assert held.orders == {n: (len(cart), writer) for n, (writer, cart) in placed.items()}
    assert held.lines == {n: lines_of(cart) for n, (_, cart) in placed.items()}
    taken: dict[str, int] = {}
    for _, cart in placed.values():
        for sku, qty in cart:
            taken[sku] = taken.get(sku, 0) + qty
    assert held.stock == {sku: stock - taken.get(sku, 0) for sku in held.stock}


def random_cart(rng: random.Random) -> Cart:
    skus = rng.sample(["a", "b", "c"], rng.randint(1, 3))
    return [(sku, rng.randint(1, 3)) for sku in skus]


def test_concurrent_threads_take_every_number_once(open_db: Any) -> None:
    db = opened(open_db, {"a": 1000, "b": 1000, "c": 1000})
    numbers = orders()
    threads, each = 6, 3
    placed: dict[int, tuple[str, Cart]] = {}
    errors: list[BaseException] = []
    lock = threading.Lock()
    start = threading.Barrier(threads)

    def writer(w: int) -> None:
        rng = random.Random(w)
        start.wait()
        for _ in range(each):
            cart = random_cart(rng)
            try:
                number = db.run_transaction(lambda tx, cart=cart: place(tx, numbers, cart, writer=f"w{w}"))
            except BaseException as error:
                errors.append(error)
                return
            with lock:
                assert number not in placed
                placed[number] = (f"w{w}", cart)

    pool = [threading.Thread(target=writer, args=(w,)) for w in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    assert errors == []
    check_every_number_once(stored(db.call, db.table_name), placed, 1000)


@pytest.mark.parametrize("api", ["async"])
def test_gathered_async_writers_take_every_number_once(open_db: Any, api: str) -> None:
    db = opened(open_db, {"a": 1000, "b": 1000, "c": 1000})
    adb = db._inner  # the AsyncDB itself: the writers are gathered on its event loop
    numbers = orders()
    carts = [random_cart(random.Random(w)) for w in range(12)]

    async def writers() -> list[int]:
        return await asyncio.gather(
            *(
                adb.run_transaction(lambda tx, w=w: place_async(tx, numbers, carts[w], writer=f"w{w}"))
                for w in range(len(carts))
            )
        )

    got = EventLoopThread.shared().run(writers())
    placed = {number: (f"w{w}", carts[w]) for w, number in enumerate(got)}
    assert len(placed) == len(carts)
    check_every_number_once(stored(db.call, db.table_name), placed, 1000)


@pytest.mark.parametrize("where", ["file", "serve"])
def test_writer_processes_take_every_number_once(
    where: str, tmp_path: Path, table_name: str, request: pytest.FixtureRequest
) -> None:
    """Three processes, each with its own connection -- its own Engine on one SQLite file, or boto3 to one
    ``singletable serve`` -- placing orders at once (DynamoDB Local's writers are the threads and tasks
    above)."""
    if where == "file":
        target = str(tmp_path / "shop.sqlite3")
    else:
        target = request.getfixturevalue("http_server").endpoint
    processes, each = 3, 5
    go = tmp_path / "go"
    with connect(shop, target, name=table_name) as db:
        db.create_table()
        try:
            db.create(Store(store="s1"))
            for sku in "abc":
                db.create(Stock(store="s1", sku=sku, count=1000))
            workers = [
                subprocess.Popen(
                    [sys.executable, str(WORKER), target, table_name, f"p{i}", str(each), str(go)],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
                for i in range(processes)
            ]
            go.touch()
            placed: dict[int, tuple[str, Cart]] = {}
            for i, worker in enumerate(workers):
                out, err = worker.communicate(timeout=180)
                assert worker.returncode == 0, err
                for number in json.loads(out)["placed"]:
                    assert number not in placed
                    placed[number] = (f"p{i}", [("a", 1), ("b", 2), ("c", 1)])
            check_every_number_once(stored(db.call, db.table_name), placed, 1000)
        finally:
            db.delete_table()


# -- random interleavings ----------------------------------------------------------------------------------

# A round: a few transactions opened at once, each drawing a number when it first appears in the schedule
# and committing when it appears again; some want stock that is not there.
rounds = st.lists(
    st.integers(2, 4).flatmap(
        lambda k: st.tuples(
            st.permutations([i for i in range(k) for _ in (0, 1)]),
            st.lists(st.booleans(), min_size=k, max_size=k),
        )
    ),
    min_size=1,
    max_size=3,
)


@settings(max_examples=examples(40), deadline=None)
@given(rounds)
def test_any_interleaving_of_drawers_leaves_numbers_gapless_and_unique(
    schedule: list[tuple[list[int], list[bool]]],
) -> None:
    """A transaction commits iff no other committed between its draw and its commit (else
    SequenceContended) and its stock is there (else ConditionFailed); the numbers stored are exactly
    1..commits, each order holding the number its transaction drew."""
    with connect(shop, ":memory:", name="interleavings") as db:
        db.create_table()
        db.create(Stock(store="s1", sku="plenty", count=1000))
        db.create(Stock(store="s1", sku="none", count=0))
        numbers = orders()
        counter = 0
        placed: dict[int, tuple[str, Cart]] = {}
        for r, (events, short) in enumerate(schedule):
            open_: dict[int, tuple[Any, int, int, Cart]] = {}
            for i in events:
                cart: Cart = [("none" if short[i] else "plenty", 1)]
                if i not in open_:
                    tx = db.transaction()
                    number = place(tx, numbers, cart, writer=f"r{r}t{i}")
                    assert number == counter + 1
                    open_[i] = (tx, number, counter, cart)
                    continue
                tx, number, read, cart = open_[i]
                if read != counter:
                    with pytest.raises(SequenceContended):
                        tx.commit()
                elif short[i]:
                    with pytest.raises(ConditionFailed):
                        tx.commit()
                else:
                    tx.commit()
                    counter = number
                    placed[number] = (f"r{r}t{i}", cart)
        held = stored(db.call, db.table_name)
        assert held.orders == {n: (1, writer) for n, (writer, _) in placed.items()}
        assert sorted(placed) == list(range(1, counter + 1))
        assert (held.counter or 0) == counter
        assert held.stock["plenty"] == 1000 - counter


@pytest.mark.async_twin
def test_a_null_counter_starts_from_zero_and_a_counter_that_is_no_number_is_refused(open_db: Any) -> None:
    db = opened(open_db)
    numbers = orders()
    counter = {"TableName": db.table_name, "Key": {"PK": {"S": "STORE#s1"}, "SK": {"S": "STORE"}}}
    db.call(
        "UpdateItem",
        {
            **counter,
            "UpdateExpression": "SET nextOrder = :v",
            "ExpressionAttributeValues": {":v": {"NULL": True}},
        },
    )
    assert run_order_sync(db, numbers) == 1  # NULL is taken as 0, conditioned on still being NULL
    db.call(
        "UpdateItem",
        {
            **counter,
            "UpdateExpression": "SET nextOrder = :v",
            "ExpressionAttributeValues": {":v": {"S": "seven"}},
        },
    )
    with db.trace() as trace, pytest.raises(StoredItemError) as caught, db.transaction() as tx:
        place(tx, numbers, [("a", 1)])
    assert str(caught.value) == (
        f"table {db.table_name!r}, item (PK='STORE#s1', SK='STORE'): attribute 'nextOrder' does not fit "
        "STORE: expected int, stored {'S': 'seven'}"
    )
    assert trace.operations == ["GetItem"]  # refused at the draw: nothing was retried or written
    assert sorted(stored(db.call, db.table_name).orders) == [1]


def run_order_sync(db: Any, numbers: Sequence) -> int:
    """One order in a with block (which a test shares with its async twin)."""
    with db.transaction() as tx:
        return place(tx, numbers, [("a", 1)])
