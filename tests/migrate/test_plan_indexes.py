"""plan prices an index step as ``up`` runs it: ``add_index`` of an index the table already has, and
``drop_index`` of one it does not have, are steps ``up`` skips (no UpdateTable, no backfill), so the plan
says so and counts them at 0 units: on the engine, ``serve`` and DynamoDB Local; in the library and the
CLI."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_migrate import old_table, old_user, run_cli, seed

from draws import examples
from singletable.migrate import Migration, add_index, drop_index, plan, up
from singletable.model import DB, GSI, Table, connect

indexed = Table(name="shop", indexes=[GSI("byEmail", pk="GSI1PK")])

ADD = Migration("0001-index", "an index", [add_index(GSI("byEmail", pk="GSI1PK"))], table=indexed)
DROP_MISSING = Migration("0001-drop", "drop an index", [drop_index("legacy")], table=indexed)
DROP_THEN_ADD = Migration(
    "0001-rebuild",
    "the index dropped and built again",
    [drop_index("byEmail"), add_index(GSI("byEmail", pk="GSI1PK"))],
    table=indexed,
)

MODULE = """
from singletable.migrate import Migration, add_index, drop_index
from singletable.model import GSI, Table

shop = Table(name="shop", indexes=[GSI("byEmail", pk="GSI1PK")])
migration = Migration(
    "0001-indexes", "indexes", [add_index(GSI("byEmail", pk="GSI1PK")), drop_index("legacy")], table=shop
)
"""


def users(count: int) -> list[dict[str, Any]]:
    return [{**old_user(i), "GSI1PK": {"S": f"u{i}@x"}} for i in range(count)]


@pytest.fixture
def with_index(target: Any) -> Iterator[DB]:
    """A table that already has ``byEmail`` (created from the design that declares it), with users in it."""
    db = connect(indexed, target, name=f"shop_{uuid.uuid4().hex[:10]}")
    db.create_table()
    seed(db, users(4))
    yield db
    db.delete_table()


def test_an_index_already_there_is_skipped_at_no_cost(with_index: DB) -> None:
    [step] = plan(ADD, with_index).steps
    assert step.skipped == "index byEmail already exists: up skips this step"
    assert (step.read_units, step.write_units) == (0.0, 0.0)
    assert not step.touched and not step.scanned and not step.indexes
    [dropping] = plan(DROP_MISSING, with_index).steps
    assert dropping.skipped == "index legacy does not exist: up skips this step"
    assert (dropping.read_units, dropping.write_units, dropping.indexes) == (0.0, 0.0, set())
    # up agrees: both steps send no UpdateTable and the index is as it was
    up([ADD, Migration("0002-drop", "drop an index", [drop_index("legacy")], table=indexed)], with_index)
    [index] = with_index.call("DescribeTable", {"TableName": with_index.table_name})["Table"][
        "GlobalSecondaryIndexes"
    ]
    assert (index["IndexName"], index["IndexStatus"]) == ("byEmail", "ACTIVE")


def test_a_step_after_one_that_changes_the_index_is_priced(with_index: DB) -> None:
    """Dropped, then added again: neither is skipped, and the new index is priced for every indexed user."""
    dropped, added = plan(DROP_THEN_ADD, with_index).steps
    assert dropped.skipped == added.skipped == ""
    assert dropped.indexes == {"byEmail"}
    assert added.touched == {"indexed by byEmail": 4} and added.write_units == 4.0


def test_an_index_to_build_is_priced(tmp_path: Path) -> None:
    db = connect(indexed, str(tmp_path / "t.db"))
    old_table(db)  # keys only: no byEmail yet
    seed(db, users(3))
    [step] = plan(ADD, db).steps
    assert step.skipped == ""
    assert step.touched == {"indexed by byEmail": 3} and step.write_units == 3.0


def test_the_cli_says_the_step_is_skipped(tmp_path: Path) -> None:
    file = tmp_path / "t.db"
    db = connect(indexed, str(file))
    db.create_table()
    seed(db, users(5))
    db.close()
    module = tmp_path / "indexes.py"
    module.write_text(MODULE)
    done = run_cli("migrate", "plan", str(module), str(file))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:6] == [
        "0001-indexes: add index byEmail",
        "  index byEmail already exists: up skips this step",
        "  read units 0.0, write units 0.0",
        "0001-indexes: drop index legacy",
        "  index legacy does not exist: up skips this step",
        "  read units 0.0, write units 0.0",
    ]
    assert lines[6].startswith("total: 0.0 read units, 0.0 write units, 0.0000 USD on-demand")
    bare = tmp_path / "bare.db"
    fresh = connect(indexed, str(bare))
    old_table(fresh)
    seed(fresh, users(5))
    fresh.close()
    building = run_cli("migrate", "plan", str(module), str(bare))
    assert building.returncode == 0, building.stderr
    assert "up skips" not in building.stdout.split("drop index")[0]
    assert "  indexed by byEmail: 5\n" in building.stdout
    assert "  index legacy does not exist: up skips this step\n" in building.stdout


INDEXES = {"byA": GSI("byA", pk="GSIAPK"), "byB": GSI("byB", pk="GSIBPK")}
index_steps = st.lists(
    st.tuples(st.sampled_from(["add", "drop"]), st.sampled_from(sorted(INDEXES))), max_size=6
)


@settings(max_examples=examples(25), deadline=None)
@given(initial=st.sets(st.sampled_from(sorted(INDEXES))), steps=index_steps)
def test_plan_skips_exactly_what_up_finds_done(initial: set[str], steps: list[tuple[str, str]]) -> None:
    """Any table's indexes and any sequence of index steps: a step the plan calls skipped is one whose
    index, when ``up`` reaches it, is already there (add) or already gone (drop), and no other."""
    table = Table(name="indexed", indexes=[INDEXES[n] for n in sorted(initial)])
    db = connect(table, ":memory:")
    db.create_table()
    made = [add_index(INDEXES[n]) if verb == "add" else drop_index(n) for verb, n in steps]
    planned = plan(Migration("0001", "indexes", made, table=table), db).steps if made else []
    for n, (step, one) in enumerate(zip(made, planned, strict=True)):
        described = db.call("DescribeTable", {"TableName": "indexed"})["Table"]
        present = {g["IndexName"] for g in described.get("GlobalSecondaryIndexes", [])}
        verb, name = steps[n]
        done_already = (name in present) if verb == "add" else (name not in present)
        assert bool(one.skipped) == done_already, (steps, n, one.skipped)
        assert (one.write_units == 0.0) or not one.skipped
        up(Migration(f"{n:04d}", "one step", [step], table=table), db)
    db.close()
