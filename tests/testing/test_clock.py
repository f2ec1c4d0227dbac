"""Clock: a test moves time, and TTL expiry (on demand and by the background sweeper), table dates and the
model's ``created_at`` stamps and key templates move with it. Real boto3 clients on a SQLite file."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone

import pytest
from fault_support import TABLE, create_orders, in_process

from singletable.engine import Engine
from singletable.model import Entity, Keys, Table, connect
from singletable.testing import Clock

START = datetime(2030, 1, 1, tzinfo=UTC)

shop = Table(name="clock-shop", indexes=[])


class Basket(Entity, table=shop, type="BASKET", ttl="expires_at"):
    id: str
    expires_at: datetime | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(PK="BASKET#{id}", SK="AT#{created_at}")


@pytest.fixture
def clock() -> Clock:
    return Clock(START)


@pytest.fixture
def engine(tmp_path, clock) -> Iterator[Engine]:
    with Engine(str(tmp_path / "clock.sqlite3"), clock=clock, ttl_sweep_interval=3600) as engine:
        create_orders(engine)
        yield engine


def test_a_clock_stands_still_until_moved(clock):
    assert clock() == START.timestamp() and clock.now() == START
    time.sleep(0.01)
    assert clock.now() == START
    assert clock.advance(seconds=30, minutes=1, hours=1, days=1) == START + timedelta(
        days=1, hours=1, seconds=90
    )
    assert clock.advance(timedelta(seconds=10)) == START + timedelta(days=1, hours=1, seconds=100)
    assert clock.set(datetime(2031, 6, 1, 12, tzinfo=timezone(timedelta(hours=2)))) == datetime(
        2031, 6, 1, 10, tzinfo=UTC
    )
    assert clock.set(START.timestamp()) == START  # epoch seconds too; set goes back as well


def test_a_ticking_clock_runs_from_where_it_was_set():
    clock = Clock(START, ticking=True)
    time.sleep(0.05)
    assert START < clock.now() < START + timedelta(seconds=5)
    clock.advance(days=1)
    assert START + timedelta(days=1) < clock.now() < START + timedelta(days=1, seconds=5)


@pytest.mark.parametrize(
    ("move", "error", "words"),
    [
        (lambda c: c.set(datetime(2030, 1, 1)), ValueError, "timezone-aware datetime"),
        (lambda c: c.set("2030-01-01"), TypeError, "aware datetime or epoch seconds, got str"),
        (lambda c: c.advance(seconds=-1), ValueError, "forwards only"),
        (lambda c: c.advance(timedelta(hours=-1)), ValueError, "use set\\(\\) to go back"),
        (lambda c: Clock(datetime(2030, 1, 1)), ValueError, "timezone-aware"),
    ],
)
def test_bad_times_are_refused_clearly(clock, move, error, words):
    with pytest.raises(error, match=words):
        move(clock)
    assert clock.now() == START


def ttl_table(client) -> None:
    client.update_time_to_live(
        TableName=TABLE, TimeToLiveSpecification={"Enabled": True, "AttributeName": "ttl"}
    )


def keys(client) -> list[str]:
    return sorted(i["pk"]["S"] for i in client.scan(TableName=TABLE, ConsistentRead=True)["Items"])


def test_ttl_expiry_follows_the_clock(engine, clock):
    client = in_process(engine, attempts=1)
    ttl_table(client)
    for pk, seconds in (("hour", 3600), ("day", 86400)):
        client.put_item(
            TableName=TABLE,
            Item={"pk": {"S": pk}, "sk": {"S": "x"}, "ttl": {"N": str(int(clock()) + seconds)}},
        )
    assert engine.expire_items() == 0
    clock.advance(minutes=59)
    assert engine.expire_items() == 0 and keys(client) == ["day", "hour"]
    clock.advance(minutes=1, seconds=1)
    assert engine.expire_items() == 1 and keys(client) == ["day"]
    clock.advance(days=1)
    assert engine.expire_items() == 1 and keys(client) == []


class SweeperReads:
    """``clock`` as the engine reads it, counting the reads from threads other than the test's: the TTL
    sweeper reads it once as each sweep starts, so two more reads mean a whole sweep ran in between."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.test_thread = threading.get_ident()
        self.count = 0

    def __call__(self) -> float:
        if threading.get_ident() != self.test_thread:
            self.count += 1
        return self.clock()

    def wait_for_sweeps(self, sweeps: int) -> None:
        until = self.count + sweeps + 1
        deadline = time.monotonic() + 10
        while self.count < until:
            assert time.monotonic() < deadline, f"the sweeper read the clock {self.count} times"
            time.sleep(0.005)


def test_the_background_sweeper_reads_the_clock_too(tmp_path, clock):
    reads = SweeperReads(clock)
    with Engine(str(tmp_path / "sweep.sqlite3"), clock=reads, ttl_sweep_interval=0.02) as engine:
        create_orders(engine)
        client = in_process(engine, attempts=1)
        ttl_table(client)
        client.put_item(
            TableName=TABLE, Item={"pk": {"S": "a"}, "sk": {"S": "x"}, "ttl": {"N": str(int(clock()) + 60)}}
        )
        reads.wait_for_sweeps(3)
        assert keys(client) == ["a"]  # swept several times: not yet expired by the clock
        clock.advance(seconds=61)
        deadline = time.monotonic() + 10
        while keys(client) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert keys(client) == []


def test_attach_moves_an_existing_engines_time_and_detach_restores_it(tmp_path, clock):
    with Engine(str(tmp_path / "attached.sqlite3")) as engine:
        previous = engine.clock
        with clock.attach(in_process(engine)):
            assert engine.clock is clock
            create_orders(engine)
            created = engine.execute("DescribeTable", {"TableName": TABLE})["Table"]["CreationDateTime"]
            assert created == START
        assert engine.clock is previous


def test_model_stamps_and_key_templates_follow_the_clock(engine, clock):
    db = connect(shop, in_process(engine, attempts=1), clock=clock.now)
    db.create_table()
    basket = db.create(Basket(id="b1", expires_at=START + timedelta(hours=2)))
    assert basket.created_at == START and basket.updated_at == START
    stored = engine.execute("Scan", {"TableName": "clock-shop"})["Items"][0]
    assert stored["SK"] == {"S": "AT#2030-01-01T00:00:00.000Z"}
    clock.advance(hours=1)
    assert db.update(basket, expires_at=START + timedelta(hours=3)).updated_at == START + timedelta(hours=1)
    clock.advance(hours=2, seconds=1)
    assert engine.expire_items() == 1
    assert engine.execute("Scan", {"TableName": "clock-shop"})["Items"] == []


# -- the pytest fixtures (the plugin gives dynamodb_engine; here a plain engine stands in for it) ----------


@pytest.fixture
def dynamodb_engine(tmp_path) -> Iterator[Engine]:
    with Engine(str(tmp_path / "fixture.sqlite3")) as engine:
        create_orders(engine)
        yield engine


def test_the_fixtures_attach_to_the_tests_engine(dynamodb_engine, dynamodb_clock, dynamodb_faults):
    assert dynamodb_engine.clock is dynamodb_clock and dynamodb_engine.faults is dynamodb_faults
    assert abs(dynamodb_clock() - time.time()) < 60
    dynamodb_faults.throttle("Scan")
    with pytest.raises(Exception, match="ProvisionedThroughputExceeded"):
        in_process(dynamodb_engine, attempts=1).scan(TableName=TABLE)
