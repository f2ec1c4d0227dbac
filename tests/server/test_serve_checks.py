"""``singletable serve`` checks that it can open the database, read the credentials and bind the address
before it says it is serving; otherwise one line on stderr and exit code 1 (real sockets and files; the
command run in-process, and as a real process for a missing directory and a port in use by workers)."""

from __future__ import annotations

import errno
import os
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest

from serving import free_port, refused_in_process, run_cli


def serve(*args: str) -> Any:
    return refused_in_process("serve", *args)


def serve_process(*args: str) -> subprocess.CompletedProcess:
    return run_cli("serve", *args, timeout=30)


def assert_refused(result: Any, message: str) -> None:
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert "serving" not in result.stderr
    assert result.stderr == f"Error: {message}\n"


def test_database_in_a_missing_directory(tmp_path):
    db = tmp_path / "missing" / "app.db"
    result = serve_process("--db", str(db), "--port", str(free_port()))
    assert_refused(result, f"cannot open database {db}: directory {db.parent} does not exist")


def test_file_that_is_not_a_database(tmp_path):
    db = tmp_path / "notes.txt"
    db.write_text("not a database, just notes\n" * 100)
    result = serve("--db", str(db), "--port", str(free_port()))
    assert_refused(result, f"cannot open database {db}: file is not a database")
    assert db.read_text().startswith("not a database")


def test_file_written_by_a_newer_singletable(tmp_path):
    import sqlite3

    from singletable.engine import Engine

    db = tmp_path / "future.db"
    Engine(str(db)).close()
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE st_meta SET value = '3' WHERE key = 'schema_version'")
    result = serve("--db", str(db), "--port", str(free_port()))
    assert_refused(
        result,
        f"cannot open database {db}: this database has storage schema version 3, written by a newer "
        "singletable; this singletable reads versions up to 2. Upgrade singletable to open it.",
    )


@pytest.fixture
def read_only_directory(tmp_path):
    """A directory in which this process cannot create files: one without write permission, or, for root
    (whom permissions do not stop), sysfs, which takes no new files from anyone."""
    directory = tmp_path / "read-only"
    directory.mkdir()
    directory.chmod(0o555)
    try:
        yield directory if not os.access(directory, os.W_OK) else Path("/sys")
    finally:
        directory.chmod(0o755)


def test_database_in_a_read_only_location(read_only_directory):
    db = read_only_directory / "app.db"
    result = serve("--db", str(db), "--port", str(free_port()))
    denied = os.strerror(errno.EACCES)
    assert_refused(
        result, f"cannot open database {db}: cannot create files in {read_only_directory}: {denied}"
    )


@pytest.mark.parametrize("storage", [("--in-memory",), ("--workers", "2")])
def test_port_already_in_use(tmp_path, storage):
    if "--workers" in storage:
        storage = ("--db", str(tmp_path / "app.db"), *storage)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = (serve_process if "--workers" in storage else serve)(*storage, "--port", str(port))
    assert_refused(result, f"cannot listen on 127.0.0.1:{port}: {os.strerror(errno.EADDRINUSE)}")


def test_host_that_does_not_resolve():
    host = "no-such-host.invalid"
    with pytest.raises(socket.gaierror) as lookup:
        socket.getaddrinfo(host, 8000, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    result = serve("--host", host, "--port", "8000")
    assert_refused(result, f"cannot listen on {host}:8000: {lookup.value.strerror}")


def test_host_that_is_no_interface_of_this_machine():
    host = "192.0.2.1"  # TEST-NET-1 (RFC 5737): documentation only, never assigned to a machine
    result = serve("--host", host, "--port", "8000")
    assert_refused(result, f"cannot listen on {host}:8000: {os.strerror(errno.EADDRNOTAVAIL)}")


def test_malformed_credentials_file(tmp_path):
    credentials = tmp_path / "credentials"
    credentials.write_text("ACCESSKEY:secret\njust-a-key\n")
    result = serve("--credentials", str(credentials), "--port", str(free_port()))
    assert_refused(
        result, "cannot read --credentials: credentials line is not ACCESS_KEY:SECRET: 'just-a-key'"
    )
