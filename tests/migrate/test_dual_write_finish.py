"""A re-keying with a dual-write window, end to end: old code wrote the old shape; writers connected with
``migrating={Member: OldMember}`` write both shapes while ``rekey(..., keep_old=True)`` runs in another
thread; ``finish`` then verifies every twin, removes the old shapes and moves the guards -- on the engine,
``serve`` and DynamoDB Local. ``finish`` refuses (naming the keys, deleting nothing) when a twin is missing
or differs, and the command line does the same as the library."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest

from cli_runs import run_in_process as run_cli
from every_item import every_item_of
from singletable.migrate import MigrationError, finish, finished_at, load_migrations, status, up
from singletable.model import ModelError, connect

TESTS = Path(__file__).resolve().parents[1]  # where member_shapes is, for the command line

# The migration module: a file, so that load_migrations and the command line load it as a user's would.
MEMBERS = """
from member_shapes import Member, OldMember
from singletable.migrate import Migration, rekey

migration = Migration(
    "0001-member-keys", "members keyed M#id", [rekey(OldMember, to=Member, keep_old=True)]
)
"""


def load(tmp_path: Path) -> tuple[Any, type, type, Path]:
    path = tmp_path / f"members_{uuid.uuid4().hex[:8]}.py"
    path.write_text(MEMBERS)
    [migration] = load_migrations(str(path))
    step = migration.steps[0]
    return migration, step.entity, step.to, path


def items(db: Any) -> list[dict[str, Any]]:
    found = [i for i in every_item_of(db) if not i["PK"]["S"].startswith("_singletable")]
    return sorted(found, key=lambda i: (i["PK"]["S"], i["SK"]["S"]))


def prefixes(db: Any) -> list[str]:
    return sorted(i["PK"]["S"].split("#")[0] for i in items(db))


def test_concurrent_writers_during_the_rekey_end_verified(target: Any, tmp_path: Path) -> None:
    migration, old_cls, new_cls, _ = load(tmp_path)
    name = f"members_{uuid.uuid4().hex[:8]}"
    old_app = connect(old_cls.model_entity().table, target, name=name)
    old_app.create_table()
    try:
        for i in range(40):
            old_app.create(old_cls(id=str(i), email=f"m{i}@x.org"))
        window = connect(new_cls.model_entity().table, target, name=name, migrating={new_cls: old_cls})
        errors: list[BaseException] = []
        refused: list[str] = []

        def writer(seed: int) -> None:
            rng = random.Random(seed)
            try:
                for n in range(25):
                    member_id = str(rng.randrange(50))
                    try:
                        choice = rng.random()
                        if choice < 0.5:
                            window.update(new_cls.key(id=member_id), new_cls.f.visits.add(1))
                        elif choice < 0.7:
                            window.create(new_cls(id=f"{member_id}-{seed}-{n}", email=f"{seed}-{n}@x.org"))
                        elif choice < 0.85:
                            window.delete(new_cls, id=member_id)
                        else:
                            found = window.get(new_cls, id=member_id)
                            if found is not None:
                                found.visits += 10
                                window.put(found)
                    except ModelError as error:  # NotFound, a version or transaction another writer won
                        refused.append(type(error).__name__)
            except BaseException as error:
                errors.append(error)

        threads = [threading.Thread(target=writer, args=(seed,)) for seed in range(3)]

        def migrate() -> None:
            try:
                up(migration, window)
            except BaseException as error:
                errors.append(error)

        migrator = threading.Thread(target=migrate)
        for thread in [*threads, migrator]:
            thread.start()
        for thread in [*threads, migrator]:
            thread.join()
        assert errors == []
        assert set(refused) <= {"NotFound", "VersionConflict", "TransactionFailed", "ConditionFailed"}
        assert status([migration], window)[0].state == "applied"
        # the window still open: every member in both shapes, equal but for the key
        members = [i for i in items(window) if i["PK"]["S"].startswith(("M#", "MEMBER_OLD#"))]
        new = {i["id"]["S"]: i for i in members if i["PK"]["S"].startswith("M#")}
        old = {i["id"]["S"]: i for i in members if i["PK"]["S"].startswith("MEMBER_OLD#")}
        assert new.keys() == old.keys()
        for member_id, item in new.items():
            assert {k: v for k, v in item.items() if k != "PK"} == {
                k: v for k, v in old[member_id].items() if k != "PK"
            }
        [done] = finish(migration, window)
        assert (done.verified, done.deleted) == (len(old), len(old))
        assert not any(p == "MEMBER_OLD" for p in prefixes(window))
        reader = connect(new_cls.model_entity().table, target, name=name)
        for member_id, item in new.items():  # each guard now names the new key
            found = reader.find(new_cls, email=item["email"]["S"])
            assert found is not None and found.id == member_id
        assert finished_at(window, migration.id) is not None
        [again] = finish(migration, window)
        assert (again.verified, again.deleted) == (0, 0)
    finally:
        old_app.delete_table()


def test_finish_refuses_a_missing_or_different_twin(target: Any, tmp_path: Path) -> None:
    migration, old_cls, _, _ = load(tmp_path)
    name = f"members_{uuid.uuid4().hex[:8]}"
    old_app = connect(old_cls.model_entity().table, target, name=name)
    old_app.create_table()
    try:
        with pytest.raises(
            MigrationError, match=r"^finish 0001-member-keys: the migration is not applied yet"
        ):
            finish(migration, old_app)
        for i in range(3):
            old_app.create(old_cls(id=str(i), email=f"m{i}@x.org"))
        up(migration, old_app)
        # old code, still running, changes one old shape and deletes another's twin
        old_app.update(old_cls.key(id="1"), visits=7)
        old_app.call("DeleteItem", {"TableName": name, "Key": {"PK": {"S": "M#2"}, "SK": {"S": "MEMBER"}}})
        before = items(old_app)
        message = (
            r"^finish 0001-member-keys: MEMBER old-shape items 1 without a new-shape item \(PK=MEMBER_OLD#2, "
            r"SK=MEMBER\); 1 whose new-shape item differs \(PK=MEMBER_OLD#1, SK=MEMBER\); nothing was deleted"
        )
        with pytest.raises(MigrationError, match=message):
            finish(migration, old_app)
        assert items(old_app) == before
        assert finished_at(old_app, migration.id) is None
    finally:
        old_app.delete_table()


def test_finish_needs_a_window_to_close(tmp_path: Path) -> None:
    path = tmp_path / "plain.py"
    path.write_text(MEMBERS.replace(", keep_old=True", ""))
    [migration] = load_migrations(str(path))
    db = connect(migration.table, ":memory:")
    with pytest.raises(
        MigrationError, match=r"has no rekey\(\.\.\., keep_old=True\) step, so no window to close"
    ):
        finish(migration, db)


def run_process(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m singletable ARGS`` in a process of its own, whose path imports ``member_shapes``."""
    return subprocess.run(
        [sys.executable, "-m", "singletable", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])},
    )


def test_cli_finish_over_http(tmp_path: Path, http_server: Any) -> None:
    _, old_cls, _, path = load(tmp_path)
    name = f"members_{uuid.uuid4().hex[:8]}"
    old_app = connect(old_cls.model_entity().table, http_server.endpoint, name=name)
    old_app.create_table()
    try:
        for i in range(3):
            old_app.create(old_cls(id=str(i), email=f"m{i}@x.org"))
        early = run_cli("migrate", "finish", str(path), http_server.endpoint, "--table", name)
        assert early.returncode == 1
        assert early.stderr.strip().endswith("the migration is not applied yet; run migrate up first")
        assert run_cli("migrate", "up", str(path), http_server.endpoint, "--table", name).returncode == 0
        assert prefixes(old_app) == ["M"] * 3 + ["MEMBER_OLD"] * 3 + ["UNIQUE"] * 3
        done = run_cli("migrate", "finish", str(path), http_server.endpoint, "--table", name)
        assert done.returncode == 0, done.stderr
        assert done.stdout == (
            "0001-member-keys: finished (OldMember -> Member): 3 old-shape items verified, 3 deleted\n"
        )
        assert prefixes(old_app) == ["M"] * 3 + ["UNIQUE"] * 3
        # a real process: the exit status a shell sees when finish refuses a remote target
        remote = run_process("migrate", "finish", str(path), "https://dynamodb.us-east-1.amazonaws.com")
        assert remote.returncode == 2 and "pass --yes to finish a migration there" in remote.stderr
    finally:
        old_app.delete_table()
