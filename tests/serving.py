"""A real ``singletable serve`` subprocess for tests and benchmarks: free loopback port, tmp database."""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from reference import free_port, local_client


def run_cli(*args: str, without: tuple[str, ...] = (), timeout: float = 60.0) -> subprocess.CompletedProcess:
    """``python -m singletable ARGS`` as a user runs it, to its end. Each third-party module named in
    ``without`` cannot be imported in that process (``sys.modules[name] = None``, as if not installed)."""
    prologue = f"import runpy, sys; sys.modules.update(dict.fromkeys({list(without)!r}))"
    command = [
        sys.executable,
        "-c",
        f"{prologue}; runpy.run_module('singletable', run_name='__main__', alter_sys=True)",
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)


def refused_in_process(*args: str, timeout: float = 30.0) -> Any:
    """``singletable ARGS`` -- a ``serve`` or ``ui`` that must refuse before it serves -- run in this process
    (``cli_runs.run_in_process``: returncode, stdout, stderr), in a thread of its own: should the command
    serve instead, the test fails after ``timeout`` seconds, as ``run_cli``'s would, rather than hanging."""
    import threading

    from cli_runs import run_in_process

    ended: list[Any] = []
    runner = threading.Thread(target=lambda: ended.append(run_in_process(*args)), daemon=True)
    runner.start()
    runner.join(timeout)
    assert ended, f"singletable {' '.join(args)} did not end within {timeout} s: is it serving?"
    return ended[0]


class ServerProcess:
    """``python -m singletable serve`` on 127.0.0.1 (or ``host``), started and ready (GET / answers).

    ``preexec_fn`` runs in the child before it starts Python (e.g. to set a resource limit on it alone)."""

    def __init__(
        self,
        db: Path | str | None,
        *,
        args: tuple[str, ...] = (),
        env: dict[str, str] | None = None,
        timeout: float = 20.0,
        host: str = "127.0.0.1",
        preexec_fn: Any = None,
    ) -> None:
        self.port = free_port()
        self.endpoint = f"http://{host}:{self.port}"
        storage = ["--db", str(db)] if db is not None else ["--in-memory"]
        if host != "127.0.0.1":
            args = ("--host", host, *args)
        command = [
            sys.executable,
            "-m",
            "singletable",
            "serve",
            *storage,
            "--port",
            str(self.port),
            *args,
        ]
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            command,
            # Not PYTEST_CURRENT_TEST: a server started inside a test whose id holds a long parameter would
            # pass the kernel's limit on one variable, and the exec would fail.
            env={**{k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}, **(env or {})},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            preexec_fn=preexec_fn,
        )
        self.ready_after = self._wait_ready(timeout)

    def _wait_ready(self, timeout: float) -> float:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"singletable serve exited: {self.process.stderr.read().decode()[-2000:]}")
            try:
                with urllib.request.urlopen(self.endpoint, timeout=0.5) as response:
                    if response.status == 200:
                        return time.perf_counter() - self.started
            except OSError:
                time.sleep(0.01)
        self.stop()
        raise RuntimeError("singletable serve did not answer GET / in time")

    def client(self, **config: Any) -> Any:
        """A boto3 client on this server (:func:`reference.local_client`; ``config`` changes its options)."""
        return local_client(self.endpoint, **config)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15.0) -> int | None:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stderr:
            self.process.stderr.close()
        return self.process.returncode


def send_until_answered(sock: socket.socket, head: bytes, piece: bytes, total: int, end: bytes) -> int:
    """Send ``head``, then ``piece`` until ``total`` bytes are sent or the server has answered (something to
    read), then ``end`` if all was sent: how a test pushes an oversized request at a server that must refuse
    it while it arrives. Returns how many bytes of ``piece`` were sent; a server that answered and closed
    ends the sending quietly, its answer left for the caller to read."""
    sent = 0
    sock.sendall(head)
    try:
        while sent < total and not select.select([sock], [], [], 0)[0]:
            sock.sendall(piece)
            sent += len(piece)
        if sent >= total:
            sock.sendall(end)
    except (BrokenPipeError, ConnectionResetError):
        pass
    return sent
