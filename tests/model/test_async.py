"""What only ``AsyncDB`` has to prove; its behaviour is the DB's, proved by the
``async_twin`` modules running their synchronous tests on it.

The embedded engine runs in a worker thread, so the event loop keeps running while it works (a heartbeat task
ticks during an engine call, and does not while the same call runs on the loop); 100+ operations gathered at
once all land, on every target; a CostlyPage warning points at the awaiting line; ``connect_async`` takes each
kind of target, closes what it opened and refuses what it cannot use.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest

import singletable
from model_targets import EventLoopThread
from singletable.engine import Engine
from singletable.model import (
    AlreadyExists,
    AsyncAdapter,
    AsyncDB,
    CostlyPage,
    DBClosed,
    Entity,
    Keys,
    Pattern,
    Sequence,
    Table,
    UniqueViolation,
    adapt,
    connect,
    connect_async,
)

board = Table(name="board")


class Card(Entity, table=board, type="CARD", unique=["slug"], timestamps=False):
    lane: str
    number: int
    slug: str
    votes: int = 0

    keys = Keys(PK="LANE#{lane}", SK="CARD#{number:05d}")
    in_lane = Pattern()


class Lane(Entity, table=board, type="LANE", timestamps=False):
    lane: str
    cards: int = 0

    keys = Keys(PK="LANE#{lane}", SK="LANE")


class Noise(Entity, table=board, type="NOISE", timestamps=False):
    lane: str
    number: int

    keys = Keys(PK="LANE#{lane}", SK="CARD#{number:05d}#NOISE")


@pytest.fixture
def api() -> str:
    """Every test here runs on AsyncDB (``target`` gives what ``connect_async`` takes)."""
    return "async"


def on_loop(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Run a test body on the session's event loop (where the reference's aiobotocore client lives)."""
    return EventLoopThread.shared().run(coroutine)


async def opened(target: Any, name: str) -> AsyncDB:
    db = await connect_async(board, target, name=name)
    await db.create_table()
    return db


async def ticks_during(work: Callable[[], Awaitable[Any]]) -> int:
    """How many times a heartbeat task (1 ms sleeps) ticked while ``work`` ran."""
    ticks = 0
    running = True

    async def heartbeat() -> None:
        nonlocal ticks
        while running:
            await asyncio.sleep(0.001)
            ticks += 1

    beating = asyncio.create_task(heartbeat())
    await asyncio.sleep(0.005)  # the heartbeat is going
    before = ticks
    await work()
    during = ticks - before
    running = False
    await beating
    return during


SCANS = 5


def test_engine_work_does_not_block_the_event_loop(tmp_path: Path) -> None:
    engine = Engine(str(tmp_path / "heartbeat.sqlite3"))

    async def body() -> tuple[int, int, int]:
        db = await opened(engine, "heartbeat")
        await db.batch_write(put=[Noise(lane="a", number=n) for n in range(3000)])
        scan = {
            "TableName": db.table_name,
            "FilterExpression": "votes > :v",
            "ExpressionAttributeValues": {":v": {"N": "0"}},
        }

        async def in_the_worker() -> None:  # scans of 3000 items through the AsyncDB's own call
            for _ in range(SCANS):
                await db.call("Scan", scan)

        async def on_the_loop() -> None:  # the same engine calls, made synchronously by a coroutine
            for _ in range(SCANS):
                engine.execute("Scan", scan)

        started = time.perf_counter()
        in_thread = await ticks_during(in_the_worker)
        elapsed = time.perf_counter() - started

        blocked = await ticks_during(on_the_loop)
        await db.close()
        return in_thread, blocked, round(elapsed * 1000)

    try:
        in_thread, blocked, elapsed_ms = on_loop(body())
    finally:
        engine.close()
    assert blocked == 0  # the heartbeat can tell: a call on the loop stops it
    assert in_thread >= SCANS, f"{in_thread} ticks in {elapsed_ms} ms"  # at least one during each scan


def test_a_hundred_and_twenty_gathered_operations_all_land(target: Any, table_name: str) -> None:
    async def body() -> None:
        db = await opened(target, table_name)
        try:
            created = await asyncio.gather(
                *(db.create(Card(lane="a", number=n, slug=f"s{n}")) for n in range(120))
            )
            assert sorted(c.number for c in created) == list(range(120))
            taken = await asyncio.gather(
                *(db.create(Card(lane="b", number=n, slug=f"s{n}")) for n in range(3)), return_exceptions=True
            )
            assert [type(e) for e in taken] == [UniqueViolation] * 3
            again = await asyncio.gather(
                db.create(Card(lane="a", number=1, slug="new")), return_exceptions=True
            )
            assert type(again[0]) is AlreadyExists
            updated = await asyncio.gather(
                *(db.update(Card.key(lane="a", number=n), Card.f.votes.add(1)) for n in range(120))
            )
            assert {c.votes for c in updated} == {1}
            found = await asyncio.gather(*(db.find(Card, slug=f"s{n}") for n in range(0, 120, 7)))
            assert [c.number for c in found] == list(range(0, 120, 7))
            assert len([c async for c in db.query(Card.in_lane(lane="a"))]) == 120
            await asyncio.gather(*(db.delete(Card, lane="a", number=n) for n in range(20)))
            assert len((await db.collect(Card.in_lane(lane="a"))).of(Card)) == 100
        finally:
            await db.delete_table()
            await db.close()

    on_loop(body())


def test_gathered_sequence_creates_take_every_number_once(target: Any, table_name: str) -> None:
    cards = Sequence(Lane.key(lane="a"), Lane.f.cards)

    async def body() -> None:
        db = await opened(target, table_name)
        try:
            made = await asyncio.gather(
                *(cards.create(db, lambda n, w=w: Card(lane="a", number=n, slug=f"w{w}")) for w in range(16))
            )
            assert sorted(c.number for c in made) == list(range(1, 17))
            assert await cards.current(db) == 16
        finally:
            await db.delete_table()
            await db.close()

    on_loop(body())


def test_a_costly_page_warns_at_the_awaiting_line(tmp_path: Path) -> None:
    async def body() -> None:
        db = await opened(str(tmp_path / "costly.sqlite3"), "costly")
        await asyncio.gather(
            db.create(Card(lane="a", number=0, slug="x")), db.create(Card(lane="a", number=600, slug="y"))
        )
        await db.batch_write(put=[Noise(lane="a", number=n) for n in range(1, 300)])
        with pytest.warns(CostlyPage) as caught:
            page = await db.page(Card.in_lane(lane="a"), size=1)
        assert [c.number for c in page] == [0] and page.has_more
        (warning,) = caught.list
        assert warning.filename == __file__
        await db.close()

    on_loop(body())


def test_connect_async_takes_every_kind_of_target(tmp_path: Path) -> None:
    path = str(tmp_path / "kinds.sqlite3")
    engine = Engine(path)
    client = singletable.client(engine)

    async def body() -> None:
        for target in (engine, client, adapt(engine), path, ":memory:"):
            db = await connect_async(board, target, name="kinds")
            await db.ensure_table()
            await db.put(Lane(lane="x", cards=1))
            assert (await db.get(Lane, lane="x")).cards == 1
            await db.close()
        with pytest.raises(TypeError) as caught:
            await connect_async(board, 42)
        assert str(caught.value) == (
            "connect_async() needs an Engine, an aiobotocore or boto3 DynamoDB client, a path or a URL, "
            "not 42"
        )

    try:
        on_loop(body())
        assert connect_in_sync_sees(engine) == 1  # what the async handles wrote is in the file
    finally:
        engine.close()


def connect_in_sync_sees(engine: Engine) -> int:
    return connect(board, engine, name="kinds").get(Lane, lane="x").cards


def test_close_releases_what_connect_async_opened_and_only_that(tmp_path: Path) -> None:
    engine = Engine(str(tmp_path / "mine.sqlite3"))

    async def body() -> None:
        given = await connect_async(board, engine, name="given")
        await given.create_table()
        await given.close()
        with pytest.raises(DBClosed) as caught:
            await given.get(Lane, lane="x")
        assert str(caught.value) == "this DB was closed (db.close()); connect() again to use the table"
        async with await connect_async(board, engine, name="given") as again:  # the engine is still open
            assert await again.get(Lane, lane="x") is None
        owned = await connect_async(board, str(tmp_path / "owned.sqlite3"), name="owned")
        own_engine = owned.adapter.inner.engine
        await owned.close()
        with pytest.raises(Exception, match="closed"):
            own_engine.execute("ListTables", {})

    try:
        on_loop(body())
    finally:
        engine.close()


def test_the_url_target_gets_its_own_aiobotocore_client_closed_with_the_db(http_server: Any) -> None:
    async def body() -> None:
        db = await opened(http_server.endpoint, "url_target")
        assert type(db.adapter).__name__ == "AioBotocoreAdapter" and isinstance(db.adapter, AsyncAdapter)
        await db.create(Card(lane="a", number=1, slug="u"))
        assert (await db.find(Card, slug="u")).number == 1
        await db.delete_table()
        await db.close()
        assert db.adapter._context is None  # the client it made was closed

    on_loop(body())
