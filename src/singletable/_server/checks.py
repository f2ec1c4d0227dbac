"""What ``singletable serve`` verifies before it says it is serving: it can open the database, read the
credentials and listen on the address.

Without these checks a wrong ``--db`` or a busy port surfaced only once the HTTP server was starting, as a
traceback from inside it (or, with several workers, one per worker), after the command had already printed
that it was serving. Each check here fails with :class:`CannotServe`, whose message is one line naming what
is wrong; the command line prints it and exits 1.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import tempfile

from singletable.engine import Engine


class CannotServe(Exception):
    """``str()`` is one line saying why the server cannot start."""


def check_database(path: str) -> None:
    """The database opens (created if missing) and its directory takes the files SQLite writes beside it."""
    if path == ":memory:":
        return
    problem = _directory_problem(os.path.dirname(os.path.abspath(path)))
    if problem is None and os.path.exists(path) and not os.access(path, os.W_OK):
        problem = "the file is read-only"
    if problem is None:
        try:
            Engine(path).close()
        except (sqlite3.Error, OSError) as error:
            problem = str(error)
    if problem is not None:
        raise CannotServe(f"cannot open database {path}: {problem}")


def _directory_problem(directory: str) -> str | None:
    """Why SQLite could not create the database, its journal and its WAL files in ``directory``, if so."""
    if not os.path.exists(directory):
        return f"directory {directory} does not exist"
    if not os.path.isdir(directory):
        return f"{directory} is not a directory"
    try:
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".singletable-check-"):
            pass
    except OSError as error:
        return f"cannot create files in {directory}: {error.strerror or error}"
    return None


def check_credentials(source: str | None) -> None:
    """The ``--credentials`` file (or inline pairs) reads and parses."""
    if not source:
        return
    from singletable._server.sigv4 import load_verifier

    try:
        load_verifier(source)
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise CannotServe(f"cannot read --credentials: {error}") from None


def check_address(host: str, port: int) -> None:
    """Every address ``host`` resolves to can be bound on ``port`` now (as the HTTP server binds it)."""
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        for family, kind, protocol, _, address in addresses:
            with socket.socket(family, kind, protocol) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind(address)
    except OSError as error:
        raise CannotServe(f"cannot listen on {host}:{port}: {error.strerror or error}") from None


def check_record(path: str) -> str | None:
    """The ``--record`` file opens for appending (created private, 0600). Returns a notice to show when an
    existing file was open to others and has been made private; raises :class:`CannotServe`."""
    from singletable._server.record import open_record

    try:
        opened = open_record(path)
    except OSError as error:
        raise CannotServe(f"cannot record to {path}: {error.strerror or error}") from None
    os.close(opened.fd)
    if opened.was_mode is None:
        return None
    return (
        f"{path} was open to others (mode {opened.was_mode:04o}): made private (0600), since recorded "
        "traffic holds item values"
    )


def check_can_serve(db: str, host: str, port: int, credentials: str | None) -> None:
    """Every check above, in the order a user would fix them; raises :class:`CannotServe`."""
    check_database(db)
    check_credentials(credentials)
    check_address(host, port)
