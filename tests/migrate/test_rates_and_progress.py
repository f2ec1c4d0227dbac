"""A rate given as a share of the table's capacity (provisioned, warm throughput, an on-demand maximum or an
observed rate), and ``up``'s progress: the ETA it computes, the plain lines it writes when stderr is not a
terminal, and the bar it draws when it is."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_migrate import migration_file, old_table, old_user, run_cli, seed, shop_file

from singletable.migrate import (
    Eta,
    Migration,
    MigrationError,
    Progress,
    capacity_share,
    expected_reads,
    load_migrations,
    share_of_capacity,
    up,
)
from singletable.model import DB, connect

WARM = "neither its warm throughput nor a maximum"


@pytest.fixture
def shop(tmp_path: Path, target: Any) -> Iterator[tuple[Migration, DB, Any]]:
    [migration] = load_migrations(str(migration_file(tmp_path)))
    assert migration.table is not None
    db = connect(migration.table, target, name=f"shop_{uuid.uuid4().hex[:10]}")
    yield migration, db, target
    db.call("DeleteTable", {"TableName": db.table_name})


def test_a_share_of_an_on_demand_table(shop: tuple[Migration, DB, Any]) -> None:
    _, db, _ = shop
    old_table(db)
    shown = db.call("DescribeTable", {"TableName": db.table_name})["Table"]
    if "WarmThroughput" not in shown:  # DynamoDB Local
        with pytest.raises(
            MigrationError, match=f"is on-demand and DescribeTable shows {WARM}: .*--observed-wcu"
        ):
            share_of_capacity(db, 25, "write")
    else:
        write = share_of_capacity(db, 25, "write")
        assert (write.units, write.source) == (1000.0, "warm throughput")
        assert write.describe() == (
            "write rate: 25% of the table's warm throughput (4,000 write units per second) "
            "= 1,000.0 units per second"
        )
        assert share_of_capacity(db, 10, "read").units == 1200.0
    observed = share_of_capacity(db, 50, "write", observed=80)
    assert (observed.units, observed.source) == (40.0, "observed rate")


def test_an_on_demand_maximum_below_the_warm_throughput(shop: tuple[Migration, DB, Any]) -> None:
    migration, db, _ = shop
    assert migration.table is not None
    db.call(
        "CreateTable",
        {
            **migration.table.create_table_params(db.table_name),
            "OnDemandThroughput": {"MaxReadRequestUnits": 800, "MaxWriteRequestUnits": 100},
        },
    )
    shown = db.call("DescribeTable", {"TableName": db.table_name})["Table"]
    if "OnDemandThroughput" not in shown:
        pytest.skip("DynamoDB Local does not show OnDemandThroughput (docs/compatibility.md)")
    assert share_of_capacity(db, 20, "write").units == 20.0
    assert share_of_capacity(db, 20, "read").source == "on-demand maximum"


def test_a_share_of_provisioned_capacity(shop: tuple[Migration, DB, Any]) -> None:
    migration, db, _ = shop
    assert migration.table is not None
    params = migration.table.create_table_params(db.table_name)
    db.call(
        "CreateTable",
        {
            **params,
            "BillingMode": "PROVISIONED",
            "ProvisionedThroughput": {"ReadCapacityUnits": 40, "WriteCapacityUnits": 20},
            "GlobalSecondaryIndexes": [
                {**g, "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}}
                for g in params["GlobalSecondaryIndexes"]
            ],
        },
    )
    share = share_of_capacity(db, 50, "write")
    assert (share.units, share.source) == (10.0, "provisioned capacity")
    assert capacity_share(db, 25, "read") == 10.0
    with pytest.raises(
        ValueError, match="a share of capacity is a percentage above 0 and at most 100, not 150"
    ):
        capacity_share(db, 150, "read")
    with pytest.raises(ValueError, match="an observed rate is a positive number of units per second, not 0"):
        share_of_capacity(db, 50, "write", observed=0)
    with pytest.raises(ValueError, match="kind is read or write, not 'both'"):
        share_of_capacity(db, 50, "both")


def test_a_share_is_a_percentage_up_to_100(tmp_path: Path) -> None:
    file, path = shop_file(tmp_path, [])
    for option in ("--max-wcu", "--max-share"):
        bad = run_cli("migrate", "up", option, "150%", str(path), str(file))
        assert bad.returncode == 2
        assert "give units above 0, or a percentage above 0 and at most 100" in bad.stderr


def test_max_share_on_the_command_line(tmp_path: Path, reference_server: Any) -> None:
    file, path = shop_file(tmp_path, [old_user(i) for i in range(3)])
    [migration] = load_migrations(str(path))
    assert migration.table is not None
    done = run_cli("migrate", "up", "--max-share", "25%", "--progress-every", "1000", str(path), str(file))
    assert done.returncode == 0, done.stderr
    assert (
        "read rate: 25% of the table's warm throughput (12,000 read units per second) "
        "= 3,000.0 units per second" in done.stderr
    )
    assert (
        "write rate: 25% of the table's warm throughput (4,000 write units per second) = 1,000.0"
        in done.stderr
    )
    not_percent = run_cli("migrate", "up", "--max-share", "25", str(path), str(file))
    assert not_percent.returncode == 2 and "give a percentage, like 25%" in not_percent.stderr
    endpoint = reference_server.endpoint
    name = f"shop_{uuid.uuid4().hex[:10]}"
    local = connect(migration.table, endpoint, name=name)
    old_table(local)
    seed(local, [old_user(i) for i in range(3)])
    try:
        refused = run_cli("migrate", "up", "--max-share", "25%", str(path), endpoint, "--table", name)
        assert refused.returncode == 1
        assert f"is on-demand and DescribeTable shows {WARM}" in refused.stderr
        assert "give --observed-rcu" in refused.stderr
        observed = ["--observed-rcu", "400", "--observed-wcu", "80"]
        given = run_cli(
            "migrate", "up", "--max-share", "25%", *observed, str(path), endpoint, "--table", name
        )
        assert given.returncode == 0, given.stderr
        assert (
            "write rate: 25% of the table's observed rate (80 write units per second) = 20.0" in given.stderr
        )
    finally:
        local.call("DeleteTable", {"TableName": name})


def progress(examined: int, step: int = 0, pages: int = 1) -> Progress:
    return Progress("0001-x", step, pages, examined, 3, examined, 12.5, 40.0)


def test_the_eta() -> None:
    eta = Eta(total=1000, started=100.0)
    assert eta.remaining(progress(250), now=110.0) == pytest.approx(30.0)  # 25 items a second, 750 left
    assert eta.line(progress(250), now=110.0) == (
        "0001-x: step 1: 250 of ~1,000 items read (25%), 3 written, 12.5 read units, 40.0 write units, "
        "ETA 0:00:30"
    )
    assert eta.remaining(progress(0), now=110.0) is None  # nothing read yet: no rate
    assert eta.remaining(progress(10), now=100.0) is None
    assert eta.remaining(progress(1500), now=110.0) == 0.0  # the item count was an estimate, and low
    assert "(100%)" in eta.line(progress(1500), now=110.0)
    unknown = Eta(total=None, started=0.0)
    assert unknown.remaining(progress(10), now=5.0) is None
    assert unknown.line(progress(10), now=5.0) == (
        "0001-x: step 1: 10 items read, 3 written, 12.5 read units, 40.0 write units"
    )
    assert Eta.clock(3725.4) == "1:02:05"
    nothing = Eta(total=0, started=0.0)  # only index steps left: nothing to read
    assert nothing.line(progress(0, pages=0), now=1.0) == (
        "0001-x: step 1: 0 items read, 3 written, 12.5 read units, 40.0 write units"
    )


def test_expected_reads(tmp_path: Path) -> None:
    [migration] = load_migrations(str(migration_file(tmp_path)))
    assert migration.table is not None
    db = connect(migration.table, str(tmp_path / "t.db"))
    old_table(db)
    assert expected_reads([migration], db) is None  # an empty table: no count to go by
    seed(db, [old_user(i) for i in range(5)])
    assert expected_reads([migration], db) == 5 * 4  # each, rekey, backfill, rename scan; add_index does not
    assert expected_reads([migration], db, item_count=100) == 400

    class Stop(Exception):
        pass

    def stop_in_rekey(progress: Progress) -> None:
        if progress.step == 1:
            raise Stop

    with pytest.raises(Stop):
        up(migration, db, page_size=2, on_page=stop_in_rekey)
    assert expected_reads([migration], db, item_count=5) == 5 * 3  # from the running step on
    up(migration, db)
    assert expected_reads([migration], db, item_count=5) == 0


LINE = re.compile(
    r"^0001-users-by-email: step (\d): [\d,]+ of ~24 items read \(\d+%\), [\d,]+ written, "
    r"[\d,.]+ read units, [\d,.]+ write units(, ETA \d+:\d\d:\d\d)?$"
)


def test_plain_progress_lines_when_not_a_terminal(tmp_path: Path) -> None:
    file, path = shop_file(tmp_path, [old_user(i, f"P{i}@x.com") for i in range(6)])
    done = run_cli("migrate", "up", "--page-size", "2", "--progress-every", "0", str(path), str(file))
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines and all(LINE.match(line) for line in lines), lines
    assert {LINE.match(line).group(1) for line in lines} == {"1", "2", "3", "4", "5"}  # type: ignore[union-attr]
    assert "\x1b" not in done.stderr  # no control codes in a log
    quiet, _ = shop_file(tmp_path, [old_user(i) for i in range(6)], "quiet.db")
    few = run_cli("migrate", "up", "--page-size", "2", "--progress-every", "3600", str(path), str(quiet))
    # the first page, then one line per step as it changes: never a line per page
    assert len(few.stderr.splitlines()) < len(lines)


def test_the_bar_on_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    from singletable._cli.migrate_progress import progress as drawing

    clock = iter([0.0, 10.0, 20.0, 30.0])
    with drawing(100, 0, terminal=True, clock=lambda: next(clock)) as on_page:
        on_page(progress(20))
        on_page(progress(40))
    shown = capsys.readouterr().err
    assert "0001-x: step 1" in shown and "40 items read, 3 written, 12 RCU, 40 WCU" in shown
    assert "ETA 0:00:30" in shown  # 40 items in the 20 seconds since it started, 60 left


def test_a_non_loopback_target_runs_only_with_yes(tmp_path: Path) -> None:
    """``serve`` reached by a name that is not a loopback one (0.0.0.0): ``up`` refuses without ``--yes``,
    ``--dry-run`` reads without it, and ``--yes`` runs the migration."""
    from serving import ServerProcess

    path = migration_file(tmp_path)
    [migration] = load_migrations(str(path))
    assert migration.table is not None
    server = ServerProcess(tmp_path / "served.db", args=("--allow-host", "0.0.0.0"))
    try:
        endpoint = f"http://0.0.0.0:{server.port}"
        db = connect(migration.table, endpoint)
        old_table(db)
        seed(db, [old_user(i) for i in range(3)])
        refused = run_cli("migrate", "up", str(path), endpoint)
        assert refused.returncode == 2
        assert f"{endpoint} is not local: pass --yes to migrate it" in refused.stderr
        dry = run_cli("migrate", "up", "--dry-run", str(path), endpoint)
        assert dry.returncode == 0 and "rekey user" in dry.stdout
        assert run_cli("migrate", "status", str(path), endpoint).stdout.startswith(
            "0001-users-by-email: pending"
        )
        done = run_cli("migrate", "up", "--yes", str(path), endpoint)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("0001-users-by-email: applied:")
    finally:
        server.stop()
