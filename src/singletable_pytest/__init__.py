"""singletable's pytest plugin: DynamoDB fixtures on the embedded engine (loaded through ``pytest11``).

It does nothing until a test asks for one of its fixtures; loading it imports neither boto3 nor the engine.

- ``dynamodb``: :func:`~singletable.testing.mock_dynamodb` active for the test, on the test's own copy of
  the session's tables and seed data; ``dynamodb.calls("Scan")`` lists the requests the test made.
- ``dynamodb_client`` / ``dynamodb_resource``: a boto3 client / resource under that mock.
- ``dynamodb_engine``: the test's :class:`~singletable.engine.Engine`.
- ``singletable_db``: a ``singletable.model`` DB for the design named by the ``singletable_design`` ini
  option or ``@pytest.mark.singletable(design="app.design")``.
- ``dynamodb_server``: (session) serve's app in a thread on a free loopback port, answering from the running
  test's engine (its own copy of the tables and seed between tests), with ``AWS_ENDPOINT_URL_DYNAMODB`` plus
  dummy credentials set for subprocesses.

Tables come from the ``singletable_tables`` ini option (one source a line: a CloudFormation / SAM template,
a Terraform file, a DescribeTable JSON, a design module) and seed data from ``singletable_seed``
(``TABLE=PATH`` lines: JSON Lines or an S3-export directory); the marker's ``tables=`` / ``seed=`` /
``design=`` replace them for one test. Relative paths are from the rootdir. Each distinct set of sources is
built once per session (per xdist worker); every test gets a copy of it (SQLite's backup API, ~1 ms).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any, NamedTuple

import pytest

MARKER = "singletable"
_SOURCES = pytest.StashKey[dict]()


class Sources(NamedTuple):
    """What one test's database is built from: table sources, seed specs, the design module (or None)."""

    tables: tuple[str, ...]
    seed: tuple[str, ...]
    design: str | None


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini("singletable_tables", "DynamoDB table sources for the dynamodb fixtures", type="linelist")
    parser.addini("singletable_seed", "seed data for them: TABLE=PATH lines", type="linelist")
    parser.addini("singletable_design", "the design module of the singletable_db fixture", default="")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "singletable(design=None, tables=None, seed=None): the design, table sources and seed data of this "
        "test's dynamodb fixtures (replacing the singletable_* ini options)",
    )


def _as_tuple(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str | os.PathLike):
        return (os.fspath(value),)
    return tuple(os.fspath(v) for v in value)


def _sources(request: pytest.FixtureRequest) -> Sources:
    """This test's sources: its marker's, else the ini options'; computed once per marker (and once for
    every test without one), since a test's setup budget is a couple of milliseconds."""
    marker = request.node.get_closest_marker(MARKER)
    cache = request.config.stash.setdefault(_SOURCES, {})
    cached = cache.get(id(marker))
    if cached is not None and cached[0] is marker:
        return cached[1]
    sources = _read_sources(request.config, marker)
    cache[id(marker)] = (marker, sources)  # the marker is kept alive with it, so its id stays its own
    return sources


def _read_sources(config: pytest.Config, marker: Any) -> Sources:
    tables = _as_tuple(config.getini("singletable_tables"))
    seed = _as_tuple(config.getini("singletable_seed"))
    design = config.getini("singletable_design") or None
    if marker is not None:
        if "tables" in marker.kwargs:
            tables = _as_tuple(marker.kwargs["tables"])
        if "seed" in marker.kwargs:
            seed = _as_tuple(marker.kwargs["seed"])
        design = marker.kwargs.get("design", design)
    root = config.rootpath

    def rooted(path: str) -> str:
        table, sep, rest = path.partition("=")
        if sep:  # a seed's TABLE=PATH
            return f"{table}={rooted(rest)}"
        candidate = root / path
        return str(candidate) if candidate.exists() else path  # a module name stays a module name

    return Sources(tuple(rooted(t) for t in tables), tuple(rooted(s) for s in seed), design)


class _Templates:
    """One seeded template engine per distinct :class:`Sources`, built on first use, closed at session end."""

    def __init__(self) -> None:
        self.engines: dict[Sources, Any] = {}

    def get(self, sources: Sources) -> Any:
        engine = self.engines.get(sources)
        if engine is None:
            engine = self.engines[sources] = _build(sources)
        return engine

    def close(self) -> None:
        for engine in self.engines.values():
            engine.close()
        self.engines.clear()


def _build(sources: Sources) -> Any:
    from singletable.engine import Engine
    from singletable.testing.shared import create_tables, seed, table_definitions

    definitions = [d for source in sources.tables for d in table_definitions(source)]
    if sources.design is not None:
        definitions += table_definitions(sources.design)
    engine = Engine(":memory:")
    try:
        create_tables(engine, definitions)
        names = [d["TableName"] for d in definitions]
        for spec in sources.seed:
            seed(engine, spec, names)
    except BaseException:
        engine.close()
        raise
    return engine


def _fail(message: str) -> None:
    """Fail the test's setup with one line (called outside ``except``, so no chained traceback)."""
    pytest.fail(f"singletable: {message}", pytrace=False)


def _template(request: pytest.FixtureRequest, templates: _Templates) -> tuple[Any, str]:
    """The seeded template for this test's sources, or None and the one line saying why it cannot be built
    (a source that cannot be read, a table DynamoDB would refuse, a missing extra)."""
    from singletable.testing.shared import SourceError

    try:
        return templates.get(_sources(request)), ""
    except (SourceError, ImportError) as error:
        return None, str(error)


@pytest.fixture(scope="session")
def _singletable_templates() -> Iterator[_Templates]:
    templates = _Templates()
    yield templates
    templates.close()


@pytest.fixture
def dynamodb(request: pytest.FixtureRequest, _singletable_templates: _Templates) -> Iterator[Any]:
    """mock_dynamodb() active for this test, on its own copy of the session's tables and seed."""
    from singletable.testing import MockDynamoDB

    template, problem = _template(request, _singletable_templates)
    if template is None:
        _fail(problem)
    engine = template.copy()
    mock = MockDynamoDB(engine)
    mock.start()
    try:
        yield mock
    finally:
        mock.stop()
        engine.close()


@pytest.fixture
def dynamodb_engine(dynamodb: Any) -> Any:
    """The test's embedded Engine (the one the mock answers from)."""
    return dynamodb.engine


@pytest.fixture
def dynamodb_client(dynamodb: Any) -> Any:
    """A boto3 DynamoDB client, answered by the test's engine."""
    import boto3

    return boto3.client("dynamodb", region_name="us-east-1")


@pytest.fixture
def dynamodb_resource(dynamodb: Any) -> Any:
    """The boto3 DynamoDB service resource, answered by the test's engine."""
    import boto3

    return boto3.resource("dynamodb", region_name="us-east-1")


@pytest.fixture
def dynamodb_faults(dynamodb_engine: Any) -> Iterator[Any]:
    """A :class:`singletable.testing.FaultPlan` on this test's engine (``dynamodb_faults.throttle("PutItem")``
    ...), detached when the test ends."""
    from singletable.testing import FaultPlan

    with FaultPlan().attach(dynamodb_engine) as plan:
        yield plan


@pytest.fixture
def dynamodb_clock(dynamodb_engine: Any) -> Iterator[Any]:
    """A :class:`singletable.testing.Clock` standing at the current time, made this test's engine's clock (TTL
    expiry, table dates): ``dynamodb_clock.advance(days=1); dynamodb_engine.expire_items()``. Give
    ``dynamodb_clock.now`` to the model (``connect(..., clock=dynamodb_clock.now)``) for its timestamps."""
    from singletable.testing import Clock

    with Clock().attach(dynamodb_engine) as clock:
        yield clock


@pytest.fixture
def singletable_db(request: pytest.FixtureRequest, dynamodb: Any) -> Any:
    """A singletable.model DB for the design (``singletable_design`` or the marker's ``design=``)."""
    from singletable._designs import DesignError, load_design
    from singletable.model import connect

    design = _sources(request).design
    if design is None:
        _fail(
            ValueError(
                "singletable_db needs a design: the singletable_design ini option or "
                "@pytest.mark.singletable(design='module')"
            )
        )
    try:
        table = load_design(design, option="singletable_design").table
    except DesignError as error:
        _fail(error)
    return connect(table, dynamodb.engine)


@pytest.fixture(scope="session")
def dynamodb_server(
    request: pytest.FixtureRequest,
    _singletable_templates: _Templates,
) -> Iterator[Any]:
    """serve's app in a thread of this process, on a free loopback port; while the session runs,
    ``AWS_ENDPOINT_URL_DYNAMODB`` and dummy credentials and region are in os.environ. During a test that takes
    ``dynamodb``, it answers from that test's engine (its faults, clock and calls); otherwise from a copy of
    the session's tables and seed of its own."""
    from singletable.testing.shared import Server

    template, problem = _template(request, _singletable_templates)
    if template is None:
        _fail(problem)
    engine = template.copy()
    try:
        with Server(engine) as server:
            yield server
    finally:
        engine.close()
