"""The MCP server as clients meet it, for the tests in this directory: ``python -m singletable mcp`` as a
subprocess over stdio (:func:`stdio`) or streamable HTTP (:class:`HTTPServer`), driven by the official SDK's
own client (:func:`session`)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp_schemas import check_schema
from mcp_seeds import SEEDS, design_table

from mcp import Client, StdioServerParameters
from reference import free_port
from singletable.examples import DEMO_CLOCK
from singletable.model import connect

DDB_LOCAL_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "local",
    "AWS_SECRET_ACCESS_KEY": "local",
    "AWS_DEFAULT_REGION": "us-east-1",
}


def seed_file(seed: str, path: Path) -> Path:
    """An engine file holding ``seed``'s sample data."""
    db = connect(design_table(seed), str(path), clock=lambda: DEMO_CLOCK)
    db.create_table()
    SEEDS[seed][1](db)
    db.close()
    return path


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in ("PYTHONPATH", "HOME", "PATH")}
    return {**env, **(extra or {})}


def stdio(
    *args: str, env: dict[str, str] | None = None, without: tuple[str, ...] = ()
) -> StdioServerParameters:
    """``python -m singletable mcp ARGS`` for the SDK's stdio client; each module named in ``without``
    cannot be imported in it (as if not installed)."""
    start = ["-m", "singletable"]
    if without:
        hide = f"import runpy, sys; sys.modules.update(dict.fromkeys({list(without)!r}))"
        start = ["-c", f"{hide}; runpy.run_module('singletable', run_name='__main__', alter_sys=True)"]
    return StdioServerParameters(
        command=sys.executable, args=[*start, "mcp", *args], env=child_env(env), cwd=os.getcwd()
    )


async def session(server: Any, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[Any], list[Any]]:
    """The server's tool list and the results of ``calls``, through the SDK's client."""
    async with Client(server, read_timeout_seconds=60) as client:
        listed = (await client.list_tools()).tools
        results = [await client.call_tool(name, arguments) for name, arguments in calls]
    return listed, results


def check_listing(tools: list[Any]) -> dict[str, Any]:
    """The tools by name, each input and output schema checked as a JSON Schema (draft 2020-12)."""
    by_name = {t.name: t for t in tools}
    for tool in tools:
        check_schema(tool.input_schema)
        if tool.output_schema is not None:
            check_schema(tool.output_schema)
        assert tool.description
    return by_name


class HTTPServer:
    """``singletable mcp ... --http PORT`` on 127.0.0.1, ready when its port accepts; what it writes on
    stderr goes to a file, readable while it runs (:meth:`logged`)."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        command = [sys.executable, "-m", "singletable", "mcp", *args, "--http", str(self.port)]
        log, self.log = tempfile.mkstemp(prefix="singletable-mcp-", suffix=".log")
        try:
            self.process = subprocess.Popen(command, env=child_env(env), stderr=log)
        finally:
            os.close(log)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"singletable mcp exited: {self.stop()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.1)
        raise AssertionError(f"singletable mcp --http did not start in 30 s: {self.stop()}")

    def alive(self) -> bool:
        return self.process.poll() is None

    def logged(self) -> str:
        """What the server wrote on stderr so far."""
        return Path(self.log).read_text()

    def stop(self) -> str:
        """Stop the server (once); what it wrote on stderr."""
        if not os.path.exists(self.log):
            return ""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        text = self.logged()
        os.unlink(self.log)
        return text
