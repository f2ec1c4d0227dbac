"""Backends for behaviour tests: our engine on a real SQLite file, and DynamoDB Local as the oracle.

Four backends run every behaviour test: ``engine`` (native calls), ``client`` (a real boto3 client wired
in-process by ``singletable.client``), ``http`` (boto3 over HTTP to one ``singletable serve`` subprocess
shared by the session) and ``reference`` (DynamoDB Local).
"""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).resolve().parent))

from backends import Backend
from draws import THOROUGH
from reference import DynamoDBLocal, ReferenceUnavailable, required
from serving import ServerProcess

# Property tests must not fail because the shared machine is loaded: no per-example deadline, project-wide.
# Locally every run draws new examples (and replays saved failures), which is how the properties find bugs;
# in CI (the CI variable set) the examples are derandomized and no database is kept, so a CI verdict depends
# on the code alone and a failure there replays everywhere with the printed blob. The default profile draws a
# quarter of what ``thorough`` (``--hypothesis-profile=thorough``, as .ci/run runs) draws: see draws.py.
_ci = {"derandomize": True, "database": None, "print_blob": True} if os.environ.get("CI") else {}
settings.register_profile("singletable", deadline=None, max_examples=25, **_ci)
settings.register_profile("thorough", settings.get_profile("singletable"), max_examples=THOROUGH)
settings.load_profile("singletable")

BACKENDS = ["engine", "client", "http", "reference"]
_names = itertools.count()


@pytest.fixture(scope="session")
def reference_server() -> Iterator[DynamoDBLocal]:
    try:
        server = DynamoDBLocal()
    except ReferenceUnavailable as why:
        if required():
            pytest.fail(f"DynamoDB Local reference required (SINGLETABLE_REQUIRE_REFERENCE) but: {why}")
        pytest.skip(f"DynamoDB Local reference unavailable: {why}")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def reference_client(reference_server: DynamoDBLocal):
    return reference_server.client()


@pytest.fixture(scope="session")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One real ``singletable serve`` on a free loopback port, shared by the whole session.

    ``SINGLETABLE_TEST_SERVE_WORKERS=2`` runs the suite against several worker processes on the file."""
    workers = os.environ.get("SINGLETABLE_TEST_SERVE_WORKERS", "1")
    server = ServerProcess(tmp_path_factory.mktemp("http") / "server.sqlite3", args=("--workers", workers))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def http_client(http_server: ServerProcess):
    return http_server.client()


def _make_backend(name: str, request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    if name == "engine":
        from singletable.engine import Engine

        engine = Engine(str(tmp_path / "engine.sqlite3"))
        request.addfinalizer(engine.close)
        return Backend("engine", engine)
    if name == "client":
        from botocore.config import Config

        import singletable
        from singletable._client import close_engine

        path = str(tmp_path / "client.sqlite3")
        # No client-side validation, as for the reference: tests send invalid requests on purpose.
        client = singletable.client(path, config=Config(parameter_validation=False))
        request.addfinalizer(lambda: close_engine(path))
        return Backend("client", client)
    if name == "http":
        return Backend("http", request.getfixturevalue("http_client"))
    return Backend("reference", request.getfixturevalue("reference_client"))


@pytest.fixture(params=BACKENDS)
def ddb(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    """A backend called like a boto3 client: our engine (file-backed) or DynamoDB Local."""
    backend = _make_backend(request.param, request, tmp_path)
    yield backend
    backend.cleanup()


@pytest.fixture
def table_name() -> str:
    """A table name unique within the test session (the reference is shared by all tests)."""
    return f"t{os.getpid()}_{next(_names)}"
