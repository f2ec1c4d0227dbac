"""Backends for behaviour tests: our engine on a real SQLite file, and DynamoDB Local as the oracle.

Four backends run every behaviour test: ``engine`` (native calls), ``client`` (a real boto3 client wired
in-process by ``singletable.client``), ``http`` (boto3 over HTTP to one ``singletable serve`` subprocess
shared by the session) and ``reference`` (DynamoDB Local).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).resolve().parent))

from backends import Backend, SharedTables, unique_table_name
from browser import launched
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


@pytest.fixture(scope="session", autouse=True)
def compiled_once_for_subprocesses(request: pytest.FixtureRequest) -> None:
    """Lets the Python processes the tests start (``serve``, the CLI, MCP servers) share one bytecode cache.

    The suite starts hundreds of them. With ``PYTHONDONTWRITEBYTECODE`` set, as on many CI images, each would
    compile singletable from source again (about 0.15 s of CPU apiece). Their cache goes to pytest's cache
    directory (``PYTHONPYCACHEPREFIX``), never beside the sources, so the setting's intent holds. Set here, in
    each process that runs tests, so that only their children see it: the test processes themselves keep the
    caches their packages shipped with."""
    if not sys.flags.dont_write_bytecode:
        return
    cache = getattr(request.config, "cache", None)
    if cache is None:
        return
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(cache.mkdir("subprocess-bytecode"))


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
def browser() -> Iterator[Any]:
    """One headless Chromium for the test process's browser tests (tests/browser.py); each test opens its own
    context (its own cookies and storage). Playwright runs in a thread of its own, so the tests that run
    between browser tests (``asyncio.run`` among them) find no event loop of its in theirs."""
    yield from launched()


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


@pytest.fixture(scope="session")
def engine_file(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One engine on a real SQLite file, shared by the session's ``engine`` backend tests as the ``http`` and
    ``reference`` backends share their servers: each test works on its own tables (``table_name``), and
    Backend.cleanup drops them. Opening and closing a file engine per test (its checkpointer thread, its WAL)
    cost more than most of the tests themselves."""
    from singletable.engine import Engine

    engine = Engine(str(tmp_path_factory.mktemp("engine") / "engine.sqlite3"))
    yield engine
    engine.close()


def _client_on_a_file(factory: pytest.TempPathFactory, **config: Any) -> Iterator[Any]:
    from botocore.config import Config

    import singletable
    from singletable._client import close_engine

    path = str(factory.mktemp("client") / "client.sqlite3")
    yield singletable.client(path, config=Config(**config))
    close_engine(path)


@pytest.fixture(scope="session")
def client_file(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One in-process boto3 client (``singletable.client``) on a real SQLite file, shared like engine_file,
    without client-side validation, as for the reference: tests send invalid requests on purpose."""
    yield from _client_on_a_file(tmp_path_factory, parameter_validation=False)


@pytest.fixture(scope="session")
def model_client_file(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The model layer's in-process boto3 client on its own file, as an application makes it (botocore's
    own validation on), shared like engine_file."""
    yield from _client_on_a_file(tmp_path_factory)


def _make_backend(name: str, request: pytest.FixtureRequest) -> Backend:
    if name == "engine":
        return Backend("engine", request.getfixturevalue("engine_file"))
    if name == "client":
        return Backend("client", request.getfixturevalue("client_file"))
    if name == "http":
        return Backend("http", request.getfixturevalue("http_client"))
    return Backend("reference", request.getfixturevalue("reference_client"))


@pytest.fixture(params=BACKENDS)
def ddb(request: pytest.FixtureRequest) -> Iterator[Backend]:
    """A backend called like a boto3 client: our engine (file-backed) or DynamoDB Local."""
    backend = _make_backend(request.param, request)
    yield backend
    backend.cleanup()


@pytest.fixture
def table_name() -> str:
    """A table name unique within the test session (the reference is shared by all tests)."""
    return unique_table_name()


@pytest.fixture(scope="module")
def module_tables() -> Iterator[SharedTables]:
    """The module's shared tables (:class:`backends.SharedTables`), checked and dropped at its end."""
    shared = SharedTables()
    yield shared
    shared.drop()
