"""A database file the engine creates holds item values, so it is private (0600) whatever the umask, and so
are the write-ahead log and shared-memory files SQLite makes beside it; a file that exists keeps its mode."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from singletable.engine import Engine

TABLE = {
    "TableName": "modes",
    "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}],
    "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}],
    "BillingMode": "PAY_PER_REQUEST",
}


def write_one(path: Path) -> dict[str, int]:
    engine = Engine(str(path))
    try:
        engine.execute("CreateTable", TABLE)
        engine.execute("PutItem", {"TableName": "modes", "Item": {"k": {"S": "secret"}}})
        modes = {p.name: p.stat().st_mode & 0o777 for p in path.parent.iterdir()}
    finally:
        engine.close()
    return modes


@pytest.mark.parametrize("umask", [0o022, 0o000])
def test_a_new_database_file_and_its_side_files_are_private(tmp_path: Path, umask: int) -> None:
    before = os.umask(umask)
    try:
        modes = write_one(tmp_path / "app.db")
    finally:
        os.umask(before)
    assert modes == {"app.db": 0o600, "app.db-wal": 0o600, "app.db-shm": 0o600}


def test_an_existing_file_keeps_the_mode_its_owner_chose(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    path.touch()
    path.chmod(0o640)
    write_one(path)
    assert path.stat().st_mode & 0o777 == 0o640


def test_a_path_that_cannot_be_created_is_sqlite_s_error(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="unable to open database file"):
        Engine(str(tmp_path / "missing" / "app.db"))
    assert not (tmp_path / "missing").exists()
