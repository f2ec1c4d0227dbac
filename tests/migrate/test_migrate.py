"""singletable.migrate on real tables: each verb, idempotence, the checksum refusal, plan's read-only
promise, rate limiting, and resume after kill -9 at random points (hypothesis)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_runs import run_in_process as run_cli
from draws import examples
from every_item import every_item_of
from pk_sk_table import pk_sk_table
from singletable.migrate import (
    Limiter,
    Migration,
    MigrationChanged,
    MigrationError,
    backfill,
    drop_index,
    load_migrations,
    plan,
    status,
    up,
)
from singletable.model import DB, connect

HERE = Path(__file__).parent
RECORD = {"S": "_singletable#migrations"}


def migration_file(directory: Path) -> Path:
    """A fresh copy of the shop migration (its own module name, so each test loads its own)."""
    path = directory / f"shop_{uuid.uuid4().hex[:8]}.py"
    shutil.copy(HERE / "shop_migration.py", path)
    return path


def shop_file(directory: Path, items: list[dict[str, Any]], name: str = "live.db") -> tuple[Path, Path]:
    """A database file holding ``items`` in the old table, and a fresh copy of the shop migration."""
    module = migration_file(directory)
    [migration] = load_migrations(str(module))
    assert migration.table is not None
    file = directory / name
    db = connect(migration.table, str(file))
    old_table(db)
    seed(db, items)
    db.close()
    return file, module


def old_table(db: DB) -> None:
    """The table as it was before the migration: keys only, no GSI."""
    db.call(
        "CreateTable",
        pk_sk_table(db.table_name),
    )


def old_user(i: int, email: str | None = None, nick: str | None = "x") -> dict[str, Any]:
    item: dict[str, Any] = {
        "PK": {"S": f"U#{i}"},
        "SK": {"S": "PROFILE"},
        "entityType": {"S": "user"},
        "id": {"S": str(i)},
        "name": {"S": f"name {i}"},
    }
    if email is not None:
        item["email"] = {"S": email}
    if nick is not None:
        item["nick"] = {"S": nick}
    return item


def seed(db: DB, items: list[dict[str, Any]]) -> None:
    for item in items:
        db.call("PutItem", {"TableName": db.table_name, "Item": item})


def snapshot(db: DB) -> list[dict[str, Any]]:
    """Every item but the migrations' record, in key order."""
    items = [i for i in every_item_of(db) if i["PK"] != RECORD]
    return sorted(items, key=lambda i: (i["PK"]["S"], i["SK"]["S"]))


@pytest.fixture
def shop(tmp_path: Path, target: Any) -> Iterator[tuple[Migration, DB]]:
    [migration] = load_migrations(str(migration_file(tmp_path)))
    assert migration.table is not None
    db = connect(migration.table, target, name=f"shop_{uuid.uuid4().hex[:10]}")
    old_table(db)
    yield migration, db
    db.call("DeleteTable", {"TableName": db.table_name})


def test_every_verb(shop: tuple[Migration, DB]) -> None:
    migration, db = shop
    seed(db, [old_user(1, "Ann@Example.com"), old_user(2), old_user(3, "BOB@x.org", nick=None)])
    [result] = up(migration, db, page_size=2)
    assert (result.state, result.resumed) == ("applied", False)
    items = snapshot(db)
    assert [i["PK"]["S"] for i in items] == ["USER#1", "USER#2", "USER#3"]  # rekey: the old keys are gone
    assert items[0]["emailLower"] == {"S": "ann@example.com"} and items[0]["GSI1PK"] == {
        "S": "ann@example.com"
    }
    assert "GSI1PK" not in items[1] and "emailLower" not in items[1]  # backfill: no email, no index key
    assert items[0]["nickname"] == {"S": "x"} and "nick" not in items[0]  # rename
    assert "nickname" not in items[2]
    found = db.call(
        "Query",
        {
            "TableName": db.table_name,
            "IndexName": "byEmail",  # add_index: built and ACTIVE
            "KeyConditionExpression": "GSI1PK = :e",
            "ExpressionAttributeValues": {":e": {"S": "bob@x.org"}},
        },
    )["Items"]
    assert [i["PK"]["S"] for i in found] == ["USER#3"]
    [state] = status([migration], db)
    assert state.state == "applied" and state.written == result.written


def test_parallel_segments_end_as_one(shop: tuple[Migration, DB], tmp_path: Path) -> None:
    migration, db = shop
    items = [old_user(i, f"P{i}@Q.com" if i % 2 else None) for i in range(30)]
    seed(db, items)
    [result] = up(migration, db, page_size=4, segments=4)
    assert result.scanned >= 30 * 4
    alone = connect(migration.table, str(tmp_path / "alone.db"))  # type: ignore[arg-type]
    old_table(alone)
    seed(alone, items)
    up(migration, alone, page_size=4)
    assert snapshot(db) == snapshot(alone)
    with pytest.raises(ValueError, match="segments must be from 1 to 1000000, not 0"):
        up(migration, db, segments=0)


def test_run_twice_is_run_once(shop: tuple[Migration, DB]) -> None:
    """Every step run again over its own result writes nothing and changes nothing."""
    migration, db = shop
    seed(db, [old_user(i, f"U{i}@X.com" if i % 2 else None) for i in range(7)])
    up(migration, db, page_size=3)
    once = snapshot(db)
    db.call("DeleteItem", {"TableName": db.table_name, "Key": {"PK": RECORD, "SK": RECORD}})  # forget it ran
    [again] = up(migration, db, page_size=3)
    assert again.written == 0
    assert snapshot(db) == once
    assert up(migration, db)[0].state == "already applied"


def test_changed_migration_is_refused(tmp_path: Path) -> None:
    path = migration_file(tmp_path)
    [migration] = load_migrations(str(path))
    assert migration.table is not None
    db = connect(migration.table, str(tmp_path / "t.db"))
    old_table(db)
    seed(db, [old_user(1, "a@b.c")])
    up(migration, db)
    path.write_text(path.read_text() + "\n# an edit\n")
    [changed] = load_migrations(str(path))
    with pytest.raises(
        MigrationChanged, match=r"migration 0001-users-by-email was applied with checksum \w{12}"
    ):
        up(changed, db)
    with pytest.raises(MigrationChanged, match="must not change"):
        plan(changed, db)
    assert status([changed], db)[0].state == "changed"


def test_rekey_refuses_to_overwrite_another_item(tmp_path: Path) -> None:
    [migration] = load_migrations(str(migration_file(tmp_path)))
    assert migration.table is not None
    db = connect(migration.table, str(tmp_path / "t.db"))
    old_table(db)
    squatter = {**old_user(1), "PK": {"S": "USER#1"}, "name": {"S": "someone else"}}
    seed(db, [old_user(1), squatter])
    with pytest.raises(
        MigrationError,
        match=r"cannot move PK=U#1, SK=PROFILE to PK=USER#1, SK=PROFILE: the new key holds another item",
    ):
        up(migration, db)
    assert [i["name"]["S"] for i in snapshot(db)] == ["name 1", "someone else"]  # both kept, nothing lost
    assert status([migration], db)[0].state == "running"


def test_a_moved_item_someone_already_wrote_is_only_deleted(tmp_path: Path) -> None:
    """A writer that already wrote the new shape (dual writes): the old item goes, the new one stays."""
    [migration] = load_migrations(str(migration_file(tmp_path)))
    assert migration.table is not None
    db = connect(migration.table, str(tmp_path / "t.db"))
    old_table(db)
    moved = {k: v for k, v in old_user(1).items()}
    moved["PK"] = {"S": "USER#1"}
    seed(db, [old_user(1), moved])
    up(migration, db)
    assert [i["PK"]["S"] for i in snapshot(db)] == ["USER#1"]


INDEX_ONLY = """
from singletable.migrate import Migration, add_index
from singletable.model import GSI, Table

shop = Table(name="shop")
migration = Migration("0001-index", "an index", [add_index(GSI("byEmail", pk="GSI1PK"))], table=shop)
"""


def test_plan_reads_only_and_reports_violations(tmp_path: Path) -> None:
    path = migration_file(tmp_path)
    [migration] = load_migrations(str(path))
    assert migration.table is not None
    file = tmp_path / "t.db"
    db = connect(migration.table, str(file))
    old_table(db)
    wrong_type = {**old_user(9), "GSI1PK": {"N": "7"}}
    seed(db, [old_user(1, "A@B.c"), old_user(2, ""), wrong_type])
    db.close()
    before = (file.read_bytes(), file.stat().st_mtime_ns)
    done = run_cli("migrate", "plan", str(path), str(file))
    assert done.returncode == 0, done.stderr
    assert (file.read_bytes(), file.stat().st_mtime_ns) == before
    wal = tmp_path / "t.db-wal"
    assert not wal.exists() or wal.stat().st_size == 0  # a reader's WAL index, nothing written
    out = done.stdout
    assert "rekey user" in out and "user: 3 scanned, 3 to write" in out
    assert "PK=USER#9" not in out  # the rekey rewrites the item, and drops its stale GSI1PK
    index_only = tmp_path / "index_only.py"
    index_only.write_text(INDEX_ONLY)
    adding = run_cli("migrate", "plan", str(index_only), str(file))
    assert "PK=U#9, SK=PROFILE: GSI1PK for index byEmail is N, the index key is S" in adding.stdout
    assert (file.read_bytes(), file.stat().st_mtime_ns) == before
    assert "on-demand" in out and "USD" in out
    dry = run_cli("migrate", "up", "--dry-run", str(path), str(file))
    assert dry.returncode == 0 and "rekey user" in dry.stdout
    assert (file.read_bytes(), file.stat().st_mtime_ns) == before
    assert not wal.exists() or wal.stat().st_size == 0


def test_plan_finds_empty_and_too_long_index_keys(tmp_path: Path) -> None:
    [migration] = load_migrations(str(migration_file(tmp_path)))
    assert migration.table is not None
    db = connect(migration.table, str(tmp_path / "t.db"))
    old_table(db)
    stale = {**old_user(1), "PK": {"S": "USER#1"}, "GSI1PK": {"S": ""}}  # stored before the index existed
    long = {**old_user(2, "x" * 2049 + "@a"), "PK": {"S": "USER#2"}}
    empty = {**old_user(3, ""), "PK": {"S": "USER#3"}}
    seed(db, [stale, long, empty])
    index_only = tmp_path / "index_only.py"
    index_only.write_text(INDEX_ONLY)
    [adding_index] = load_migrations(str(index_only))
    [adding] = plan(adding_index, db).steps
    assert [(v.key, v.problem) for v in adding.violations] == [("PK=USER#1, SK=PROFILE", "is empty")]
    assert adding.touched == {"indexed by byEmail": 1} and adding.indexes == {"byEmail"}
    report = plan(migration, db)
    backfill = next(s for s in report.steps if s.step == "backfill user")
    assert [(v.key, v.attribute, v.index) for v in backfill.violations] == [
        ("PK=USER#2, SK=PROFILE", "GSI1PK", "byEmail")
    ]
    assert backfill.violations[0].problem == "is 2051 bytes, over the 2048-byte limit of a partition key"
    assert backfill.problem_count == 1
    assert backfill.problems[0].startswith("backfill user PK=USER#3, SK=PROFILE: user: key attribute GSI1PK")
    assert "byEmail" in backfill.indexes and backfill.write_units > 0


def test_rate_limit_spaces_requests(tmp_path: Path) -> None:
    slept: list[float] = []
    clock = [0.0]

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock[0] += seconds

    limiter = Limiter(max_wcu=2, sleep=sleep, clock=lambda: clock[0])
    for _ in range(6):
        limiter.charge("write", 1)
    # a one-second burst (2 units), then one unit every half second
    assert sum(slept) == pytest.approx(2.0)
    [migration] = load_migrations(str(migration_file(tmp_path)))
    assert migration.table is not None
    db = connect(migration.table, str(tmp_path / "t.db"))
    old_table(db)
    seed(db, [old_user(i) for i in range(5)])
    slept.clear()
    up(migration, db, limiter=Limiter(max_wcu=10, max_rcu=1000, sleep=sleep, clock=lambda: clock[0]))
    assert sum(slept) > 1.0  # 5 moves at 4 units each and 5 renames: over 20 units at 10 a second


def test_limits_are_checked() -> None:
    with pytest.raises(ValueError, match="max_wcu must be a positive number"):
        Limiter(max_wcu=0)


def test_non_local_target_needs_yes(tmp_path: Path) -> None:
    path = migration_file(tmp_path)
    done = run_process("migrate", "up", str(path), "https://dynamodb.eu-west-1.amazonaws.com")
    assert done.returncode == 2
    assert "is not local: pass --yes to migrate it" in done.stderr


def test_a_module_without_a_migration(tmp_path: Path) -> None:
    empty = tmp_path / "nothing.py"
    empty.write_text("x = 1\n")
    done = run_cli("migrate", "plan", str(empty), str(tmp_path / "t.db"))
    assert done.returncode == 1
    assert done.stderr.strip() == f"Error: {empty}: declares no `migration = Migration(...)`"


@pytest.mark.parametrize("verb", ["plan", "up", "status", "finish"])
def test_each_verb_closes_the_file_it_opened(tmp_path: Path, verb: str) -> None:
    """Run in-process (by a test, an application), a command leaves no engine open, whether it succeeds or
    refuses (``finish``: the shop migration has no window to close): its checkpoint thread stopped and, once
    the last connection is closed, SQLite's WAL folded into the file and removed."""
    file, module = shop_file(tmp_path, [old_user(1, "a@x.org"), old_user(2)])
    before = {thread.ident for thread in threading.enumerate() if thread.name == "singletable-checkpoint"}
    done = run_cli("migrate", verb, str(module), str(file))
    assert done.returncode == (1 if verb == "finish" else 0), done.stderr
    left = {thread.ident for thread in threading.enumerate() if thread.name == "singletable-checkpoint"}
    assert left <= before
    assert not Path(f"{file}-wal").exists()


def run_process(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m singletable ARGS`` in a process of its own: for what only a real process shows (a kill,
    Ctrl-C, the exit status a shell sees). Every other run is :func:`cli_runs.run_in_process`."""
    return subprocess.run(
        [sys.executable, "-m", "singletable", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


users = st.lists(
    st.tuples(
        st.integers(0, 500),
        st.one_of(st.none(), st.from_regex(r"[A-Za-z0-9.+]{1,10}@[A-Za-z]{1,8}\.(com|ORG)", fullmatch=True)),
        st.booleans(),
    ),
    min_size=1,
    max_size=12,
    unique_by=lambda u: u[0],
)


@pytest.mark.slow
@settings(
    max_examples=examples(4), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(users=users, page_size=st.integers(1, 5), segments=st.integers(1, 3), kill=st.floats(0, 1))
def test_resume_after_kill_9_ends_as_an_uninterrupted_run(
    tmp_path: Path, users: list[tuple[int, str | None, bool]], page_size: int, segments: int, kill: float
) -> None:
    base = tmp_path / uuid.uuid4().hex[:8]
    base.mkdir()
    path = migration_file(base)
    [migration] = load_migrations(str(path))
    assert migration.table is not None
    items = [old_user(i, email, "nick" if has_nick else None) for i, email, has_nick in users]
    files = []
    for name in ("straight", "killed"):
        db = connect(migration.table, str(base / f"{name}.db"))
        old_table(db)
        seed(db, items)
        db.close()
        files.append(base / f"{name}.db")
    size = ["--page-size", str(page_size), "--segments", str(segments)]
    straight = run_cli("migrate", "up", "--page-size", str(page_size), str(path), str(files[0]))
    assert straight.returncode == 0, straight.stderr
    # each(tick) sees every item once and backfill's function once per item: kill at one of those moments
    kill_at = 1 + int(kill * (2 * len(items) - 1))
    killed = run_process("migrate", "up", *size, str(path), str(files[1]), env={"KILL_AT": str(kill_at)})
    assert killed.returncode == -9
    resumed = run_cli("migrate", "up", *size, str(path), str(files[1]))
    assert resumed.returncode == 0, resumed.stderr
    assert snapshot(connect(migration.table, str(files[1]))) == snapshot(
        connect(migration.table, str(files[0]))
    )


def test_an_item_changed_meanwhile_is_read_again(tmp_path: Path) -> None:
    """Another writer changes an item between the backfill's read and its write: the conditional put is
    refused, the item read again and computed from what is stored now; the other writer's change stays."""
    [shop] = load_migrations(str(migration_file(tmp_path)))
    assert shop.table is not None
    user = shop.steps[1].entity  # type: ignore[attr-defined]
    db = connect(shop.table, str(tmp_path / "t.db"))
    old_table(db)
    seed(db, [{**old_user(1, "First@X.com"), "PK": {"S": "USER#1"}}])
    other = connect(shop.table, str(tmp_path / "t.db"))
    calls: list[str] = []

    def lower(values: dict[str, Any]) -> dict[str, Any]:
        calls.append(values["email"])
        if len(calls) == 1:  # the first computation races a writer
            other.call(
                "UpdateItem",
                {
                    "TableName": db.table_name,
                    "Key": {"PK": {"S": "USER#1"}, "SK": {"S": "PROFILE"}},
                    "UpdateExpression": "SET email = :e",
                    "ExpressionAttributeValues": {":e": {"S": "Second@X.com"}},
                },
            )
        return {"email_lower": values["email"].lower()}

    raced = Migration("0002-raced", "a backfill that races a writer", [backfill(user, set=lower)])
    [result] = up(raced, db)
    assert calls == ["First@X.com", "Second@X.com"] and result.written == 1
    [item] = snapshot(db)
    assert item["email"] == {"S": "Second@X.com"} and item["GSI1PK"] == {"S": "second@x.com"}


def test_the_record_must_stay_out_of_every_index() -> None:
    from singletable.model import GSI, Table

    inverted = Table(name="tbl", indexes=[GSI("inverted", pk="SK", sk="PK")])
    numbered = Table(name="tbl", pk=("PK", "N"))
    for table, message in (
        (inverted, "index inverted is keyed by the table's own key attributes"),
        (numbered, "but PK is a Number: this table cannot hold the record"),
    ):
        db = connect(table, ":memory:")
        db.create_table()
        with pytest.raises(MigrationError, match=message):
            up(Migration("0001", "drop an index", [drop_index("x")], table=table), db)


def test_cli_up_and_status_over_http(tmp_path: Path, http_server: Any) -> None:
    path = migration_file(tmp_path)
    [migration] = load_migrations(str(path))
    assert migration.table is not None
    name = f"shop_{uuid.uuid4().hex[:10]}"
    db = connect(migration.table, http_server.endpoint, name=name)
    old_table(db)
    seed(db, [old_user(1, "A@B.com"), old_user(2)])
    pending = run_cli("migrate", "status", str(path), http_server.endpoint, "--table", name)
    assert pending.stdout.startswith("0001-users-by-email: pending")
    done = run_cli("migrate", "up", str(path), http_server.endpoint, "--table", name)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("0001-users-by-email: applied:")
    again = run_cli("migrate", "up", str(path), http_server.endpoint, "--table", name)
    assert again.stdout == "0001-users-by-email: already applied\n"
    shown = run_cli("migrate", "status", str(path), http_server.endpoint, "--table", name)
    assert shown.stdout.startswith("0001-users-by-email: applied at ")
    assert [i["PK"]["S"] for i in snapshot(db)] == ["USER#1", "USER#2"]
    db.call("DeleteTable", {"TableName": name})


@pytest.fixture(params=["http", "reference"])
def endpoint(request: pytest.FixtureRequest) -> str:
    """``serve`` over HTTP, and DynamoDB Local: a URL the CLI reaches with boto3."""
    server = request.getfixturevalue("http_server" if request.param == "http" else "reference_server")
    return str(server.endpoint)


@pytest.mark.slow
@pytest.mark.parametrize("signal_at", ["KILL_AT", "INTERRUPT_AT"])
def test_interrupted_up_on_an_endpoint_resumes(tmp_path: Path, endpoint: str, signal_at: str) -> None:
    """kill -9 or Ctrl-C in the middle of the backfill, on a table behind an endpoint, then ``up`` again:
    the same table as one uninterrupted run on another table of the same endpoint."""
    path = migration_file(tmp_path)
    [migration] = load_migrations(str(path))
    assert migration.table is not None
    items = [
        old_user(i, f"User{i}@Example.com" if i % 3 else None, "nick" if i % 2 else None) for i in range(9)
    ]
    names = [f"shop_{uuid.uuid4().hex[:10]}" for _ in range(2)]
    dbs = [connect(migration.table, endpoint, name=name) for name in names]
    for db in dbs:
        old_table(db)
        seed(db, items)
    size = ["--page-size", "2", "--segments", "2"]
    straight = run_cli("migrate", "up", *size, str(path), endpoint, "--table", names[0])
    assert straight.returncode == 0, straight.stderr
    # the 9 items of each(tick), then backfill's function: the 17th call is the backfill's 8th item
    stopped = run_process(
        "migrate", "up", *size, str(path), endpoint, "--table", names[1], env={signal_at: "17"}
    )
    if signal_at == "KILL_AT":
        assert stopped.returncode == -9
    else:
        assert stopped.returncode == 130
        assert (
            "interrupted: the checkpoint holds the last page done; run the same command to resume"
            in stopped.stderr
        )
    shown = run_cli("migrate", "status", str(path), endpoint, "--table", names[1])
    assert shown.stdout.startswith("0001-users-by-email: running: step 4, ")
    assert " items scanned in 2 scan segments " in shown.stdout
    resumed = run_cli("migrate", "up", *size, str(path), endpoint, "--table", names[1])
    assert resumed.returncode == 0, resumed.stderr
    assert "(resumed)" in resumed.stdout
    assert snapshot(dbs[1]) == snapshot(dbs[0])
    for db in dbs:
        db.call("DeleteTable", {"TableName": db.table_name})


MEMBERS = """
from singletable.migrate import Migration, rekey
from singletable.model import Entity, Keys, Table

before = Table(name="members")
after = Table(name="members")


class OldMember(Entity, table=before, type="member", timestamps=False, unique={"email": "EMAIL#{email}"}):
    id: str
    email: str
    keys = Keys(PK="MEMBER_OLD#{id}", SK="MEMBER")


class Member(Entity, table=after, type="member", timestamps=False, unique={"email": "EMAIL#{email}"}):
    id: str
    email: str
    keys = Keys(PK="M#{id}", SK="MEMBER")


migration = Migration("0001-member-keys", "members keyed M#id", [rekey(OldMember, to=Member)])
"""


def test_rekey_moves_the_guard_with_its_owner(tmp_path: Path) -> None:
    path = tmp_path / "members.py"
    path.write_text(MEMBERS)
    [migration] = load_migrations(str(path))
    step = migration.steps[0]
    old_cls, new_cls = step.entity, step.to  # type: ignore[attr-defined]
    file = str(tmp_path / "t.db")
    old_db = connect(old_cls.model_entity().table, file)
    old_db.create_table()
    for i in range(3):
        old_db.create(old_cls(id=str(i), email=f"m{i}@x.org"))
    [result] = up(migration, old_db)
    assert result.written == 3
    new_db = connect(new_cls.model_entity().table, file)
    found = new_db.find(new_cls, email="m1@x.org")  # through the guard, which now names the new key
    assert found is not None and found.id == "1"
    keys = sorted(i["PK"]["S"] for i in snapshot(new_db))
    assert keys == ["EMAIL#m0@x.org", "EMAIL#m1@x.org", "EMAIL#m2@x.org", "M#0", "M#1", "M#2"]
    guard = new_db.call(
        "GetItem",
        {"TableName": "members", "Key": {"PK": {"S": "EMAIL#m2@x.org"}, "SK": {"S": "EMAIL#m2@x.org"}}},
    )
    assert guard["Item"]["owner"] == {"M": {"PK": {"S": "M#2"}, "SK": {"S": "MEMBER"}}}
    from singletable.model import UniqueViolation

    with pytest.raises(UniqueViolation):  # the guard still guards
        new_db.create(new_cls(id="9", email="m0@x.org"))


def test_a_failing_step_function_stops_with_one_line(tmp_path: Path) -> None:
    [shop] = load_migrations(str(migration_file(tmp_path)))
    assert shop.table is not None
    user = shop.steps[1].entity  # type: ignore[attr-defined]
    db = connect(shop.table, str(tmp_path / "t.db"))
    old_table(db)
    seed(db, [{**old_user(1), "PK": {"S": "USER#1"}}])
    broken = Migration(
        "0003-broken", "a backfill with a bug", [backfill(user, set=lambda v: {"name": v["missing"]})]
    )
    message = r"^backfill user: item PK=USER#1, SK=PROFILE: KeyError: 'missing'$"
    with pytest.raises(MigrationError, match=message):
        up(broken, db)
    [step] = plan(broken, db).steps
    assert step.problems == ["backfill user: item PK=USER#1, SK=PROFILE: KeyError: 'missing'"]


def test_a_missing_table_is_one_line(tmp_path: Path) -> None:
    path = migration_file(tmp_path)
    file = tmp_path / "t.db"
    connect(load_migrations(str(path))[0].table, str(file)).close()  # an empty database file
    done = run_cli("migrate", "up", str(path), str(file))
    assert done.returncode == 1
    assert done.stderr.startswith("Error: ResourceNotFoundException: ")


def test_a_concurrent_writer_keeps_its_writes(tmp_path: Path) -> None:
    """An application (already on the new keys) renames users while the backfill runs: every item ends
    backfilled and holds the application's last write, whichever of the two wrote first."""
    import threading

    [shop] = load_migrations(str(migration_file(tmp_path)))
    assert shop.table is not None
    user = shop.steps[1].entity  # type: ignore[attr-defined]
    file = str(tmp_path / "t.db")
    db = connect(shop.table, file)
    old_table(db)
    seed(db, [{**old_user(i, f"U{i}@X.com"), "PK": {"S": f"USER#{i}"}} for i in range(40)])
    app = connect(shop.table, file)
    stop = threading.Event()
    last: dict[int, str] = {}

    def rename_users() -> None:
        n = 0
        while not stop.is_set():
            i, n = n % 40, n + 1
            app.call(
                "UpdateItem",
                {
                    "TableName": db.table_name,
                    "Key": {"PK": {"S": f"USER#{i}"}, "SK": {"S": "PROFILE"}},
                    "UpdateExpression": "SET #n = :n",
                    "ExpressionAttributeNames": {"#n": "name"},
                    "ExpressionAttributeValues": {":n": {"S": f"renamed {n}"}},
                },
            )
            last[i] = f"renamed {n}"

    writer = threading.Thread(target=rename_users)
    writer.start()
    try:
        lower = Migration(
            "0004-lower", "fold emails", [backfill(user, set={"email_lower": lambda v: v["email"].lower()})]
        )
        up(lower, db, page_size=3)
    finally:
        stop.set()
        writer.join()
    items = snapshot(db)
    assert len(items) == 40
    for item in items:
        i = int(item["id"]["S"])
        assert item["GSI1PK"] == {"S": f"u{i}@x.com"}
        assert item["name"] == {"S": last.get(i, f"name {i}")}


DOCS = """
from singletable.migrate import Migration, backfill
from singletable.model import Entity, Keys, Table

docs = Table(name="docs")


class Doc(Entity, table=docs, type="doc", timestamps=False, version="version"):
    id: str
    title: str
    slug: str | None = None
    version: int = 0
    keys = Keys(PK="DOC#{id}", SK="DOC")


slugs = backfill(Doc, set={"slug": lambda v: v["title"].lower()})
migration = Migration("0001-slugs", "slugs from titles", [slugs])
"""


def test_a_backfill_bumps_the_version_once(tmp_path: Path) -> None:
    """A writer still holding the item as it was fails its version check rather than undo the backfill."""
    path = tmp_path / "docs_migration.py"
    path.write_text(DOCS)
    [migration] = load_migrations(str(path))
    doc = migration.steps[0].entity  # type: ignore[attr-defined]
    db = connect(doc.model_entity().table, str(tmp_path / "t.db"))
    db.create_table()
    held = db.create(doc(id="1", title="Hello"))
    assert up(migration, db)[0].written == 1
    stored = db.get(doc, id="1")
    assert (stored.slug, stored.version) == ("hello", held.version + 1)
    from singletable.model import VersionConflict

    with pytest.raises(VersionConflict):
        db.put(held)
    db.call("DeleteItem", {"TableName": "docs", "Key": {"PK": RECORD, "SK": RECORD}})
    assert up(migration, db)[0].written == 0  # run again: nothing to do, the version stays
    assert db.get(doc, id="1").version == held.version + 1


def test_attributes_of_every_type_are_kept_and_conditioned_on(shop: tuple[Migration, DB]) -> None:
    """Attributes the model does not know, of every DynamoDB type, ride along through the move and the
    backfill (whose conditions compare them whole), and a second run finds nothing to write."""
    migration, db = shop
    extra = {
        "tags": {"SS": ["b", "a", "c"]},
        "scores": {"NS": ["10", "2.50", "-3"]},
        "blobs": {"BS": [b"\x00\x01", b"\xff"]},
        "meta": {"M": {"nested": {"L": [{"N": "1"}, {"S": "x"}, {"M": {"deep": {"BOOL": False}}}]}}},
        "flag": {"BOOL": True},
        "nothing": {"NULL": True},
        "blob": {"B": b"\x00binary\xff"},
        "big": {"N": "12345678901234567890.5"},
    }
    seed(db, [{**old_user(i, f"T{i}@Types.com"), **extra} for i in range(3)])
    up(migration, db, page_size=2)
    once = snapshot(db)
    for item in once:
        assert item["PK"]["S"].startswith("USER#") and "GSI1PK" in item
        assert sorted(item["tags"]["SS"]) == ["a", "b", "c"]
        assert {float(n) for n in item["scores"]["NS"]} == {10.0, 2.5, -3.0}
        assert (
            item["meta"] == extra["meta"]
            and item["blob"] == extra["blob"]
            and item["nothing"] == extra["nothing"]
        )
    db.call("DeleteItem", {"TableName": db.table_name, "Key": {"PK": RECORD, "SK": RECORD}})
    assert up(migration, db, page_size=2)[0].written == 0
    assert snapshot(db) == once


def test_throttled_requests_are_sent_again(tmp_path: Path) -> None:
    """DynamoDB's throttling (injected by singletable.testing's FaultPlan on the in-process client, whose own
    retries are off) is backed off, each request's wait doubling from 50 ms, and retried; the run ends as an
    unthrottled one. The limiter's ``sleep`` records the waits (the index step's polls too) instead of
    sleeping them."""
    from botocore.config import Config

    import singletable
    from singletable._client import close_engine
    from singletable.testing.faults import FaultPlan

    path = migration_file(tmp_path)
    [migration] = load_migrations(str(path))
    assert migration.table is not None
    file = str(tmp_path / "t.db")
    client = singletable.client(file, config=Config(retries={"total_max_attempts": 1}))
    try:
        db = connect(migration.table, client)
        old_table(db)
        seed(db, [old_user(i, f"Z{i}@Q.com") for i in range(4)])
        faults = FaultPlan().attach(client)
        faults.throttle("TransactWriteItems", table=db.table_name, times=3)
        faults.throttle("Scan", table=db.table_name, times=2)
        slept: list[float] = []
        [result] = up(migration, db, page_size=2, limiter=Limiter(sleep=slept.append))
        assert result.throttled == 5
        backoffs, polls = slept[:5], slept[5:]
        assert backoffs == [0.05, 0.1, 0.05, 0.1, 0.2]  # rekey's Scan throttled twice, then its write thrice
        # then add_index's waits for the index to be ACTIVE: as many as the machine's speed takes
        assert polls == [min(0.2 * 2**i, 10.0) for i in range(len(polls))]
        assert result.write_units > 0 and result.read_units > 0
        assert len(faults.attempts("TransactWriteItems")) == 4 + 3
        assert [i["PK"]["S"] for i in snapshot(db)] == [f"USER#{i}" for i in range(4)]
    finally:
        close_engine(file)
