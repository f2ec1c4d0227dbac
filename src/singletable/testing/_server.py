"""``singletable serve`` in a child process on a free loopback port, for code under test that is not
Python in-process: a CLI, a Lambda handler run as a subprocess, Node code. While it runs,
``AWS_ENDPOINT_URL_DYNAMODB`` (and dummy credentials and a region) are in ``os.environ``, so every
subprocess started meanwhile reaches it with no configuration; stopping restores ``os.environ`` exactly.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import Any

from singletable.testing._mock import DUMMY_ENVIRONMENT

START_TIMEOUT = 30.0


def free_port() -> int:
    """A TCP port nothing listens on at 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """``singletable serve --db PATH`` on 127.0.0.1; ``endpoint`` is its URL. Use it with ``with``."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self._process: subprocess.Popen[bytes] | None = None
        self._saved_env: dict[str, str | None] = {}
        self._log: Any = None

    def environment(self) -> dict[str, str]:
        """What a subprocess needs to reach the server with any AWS SDK or the AWS CLI."""
        return {
            **DUMMY_ENVIRONMENT,
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_REGION": "us-east-1",
            "AWS_ENDPOINT_URL_DYNAMODB": self.endpoint,
            "AWS_ENDPOINT_URL_DYNAMODB_STREAMS": self.endpoint,
        }

    def client(self, **kwargs: Any) -> Any:
        """A boto3 DynamoDB client on the server."""
        import boto3

        options = {
            "region_name": "us-east-1",
            "aws_access_key_id": "testing",
            "aws_secret_access_key": "testing",
        }
        return boto3.client("dynamodb", endpoint_url=self.endpoint, **(options | kwargs))

    def start(self) -> Server:
        command = [sys.executable, "-m", "singletable", "serve", "--db", self.path, "--port", str(self.port)]
        # Its log goes to a file beside the database: a pipe nobody reads would block a chatty server.
        self._log = open(self.path + ".log", "wb")  # noqa: SIM115 -- closed in stop()
        self._process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=self._log)
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if self._process.poll() is not None:
                self._log.close()
                with open(self.path + ".log", "rb") as log:
                    error = log.read()[-2000:].decode(errors="replace")
                raise RuntimeError(f"singletable serve exited ({self._process.returncode}): {error.strip()}")
            try:
                with urllib.request.urlopen(self.endpoint + "/", timeout=1):
                    break
            except (urllib.error.URLError, OSError):
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"singletable serve did not answer on {self.endpoint}") from None
                time.sleep(0.05)
        variables = self.environment()
        self._saved_env = {name: os.environ.get(name) for name in variables}
        os.environ.update(variables)
        return self

    def stop(self) -> None:
        for name, value in self._saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        self._saved_env = {}
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._log is not None:
            self._log.close()

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
