"""A table an import is creating: what marks it, who owns it, and whether that owner is still alive.

``singletable import`` into a table it creates does what DynamoDB's ImportTable does: the table is
``CREATING`` until the import has loaded every item, built each index from them and checked that each
index agrees with its items; only then does it become ``ACTIVE``. Meanwhile its stored description carries
:data:`IMPORT_OWNER` -- the importing process's host, process id and start time -- and the engine keeps it
out of its usable tables: DescribeTable shows it ``CREATING``, ListTables lists it, every read or write of it
answers ResourceNotFoundException and every change ResourceInUseException, as DynamoDB answers for a table
that is not ``ACTIVE`` yet.

A process killed mid-import leaves the table ``CREATING``, never half-usable: the items and entries of an
unfinished build are in no committed transaction. Once its owner is gone (:func:`owner_alive` says so), the
table can be deleted (DeleteTable) or imported again from the start (the import replaces it).
"""

from __future__ import annotations

import os
import socket
from typing import Any

IMPORT_OWNER = "_ImportOwner"
BEING_CREATED = "Attempt to change a resource which is still in use: Table is being created: {name}"


def _started(pid: int) -> str | None:
    """When process ``pid`` started (Linux's clock ticks since boot), which tells a reused pid apart."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        return fields[19].decode()
    except (OSError, IndexError):
        return None


def owner_record() -> dict[str, Any]:
    """This process as the owner of an import."""
    pid = os.getpid()
    return {"host": socket.gethostname(), "pid": pid, "started": _started(pid)}


def owner_alive(owner: dict[str, Any]) -> bool:
    """Whether the process that owns an import may still be running it. An owner on another host is
    taken to be alive: nothing here can tell otherwise."""
    if owner.get("host") != socket.gethostname():
        return True
    pid = owner.get("pid")
    if not isinstance(pid, int):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # a process of another user holds the pid
    started = owner.get("started")
    return started is None or _started(pid) in (None, started)


def creating_owner(description: dict[str, Any]) -> dict[str, Any] | None:
    """The owner of the import creating this table, or None for a table no import is creating."""
    owner = description.get(IMPORT_OWNER)
    return owner if isinstance(owner, dict) else None
