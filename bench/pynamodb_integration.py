"""PynamoDB's own integration tests (written for a DynamoDB Local endpoint) against the pytest plugin's
``dynamodb_server`` fixture, and, for comparison, against DynamoDB Local itself.

    python3 bench/pynamodb_integration.py /tmp/proof/PynamoDB [--ddblocal DIR]

The checkout (brought here by hand: nothing of PynamoDB's enters this repository) is copied to a temporary
directory, where one file is added: a ``conftest.py`` whose session fixture takes ``dynamodb_server`` and
puts its endpoint in ``PYNAMODB_INTEGRATION_TEST_DDB_URL`` -- the variable PynamoDB's ``ddb_url`` fixture
reads. Its tests run unchanged with ``-p singletable_pytest``, the checkout's own ``pynamodb`` first on the
path. ``--ddblocal`` (DynamoDB Local's directory, with ``DynamoDBLocal.jar``) also runs them against a
DynamoDB Local started on a free port. Reported: passed / failed per endpoint, each failure named with its
last error line.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
CONFTEST = """
import os
import pytest

@pytest.fixture(scope="session", autouse=True)
def _pynamodb_endpoint(dynamodb_server):
    os.environ["PYNAMODB_INTEGRATION_TEST_DDB_URL"] = dynamodb_server.endpoint
"""


def run(checkout: Path, extra: list[str], env: dict[str, str], report: Path) -> dict[str, str]:
    """pytest on tests/integration; each test's outcome (with its failure's last line)."""
    command = [sys.executable, "-m", "pytest", "tests/integration", "-q", "-p", "no:cacheprovider"]
    command += ["-o", "addopts=", f"--junitxml={report}", *extra]
    started = time.perf_counter()
    subprocess.run(command, cwd=checkout, env=env, check=False, stdout=subprocess.DEVNULL)
    print(f"  ({time.perf_counter() - started:.1f} s)", file=sys.stderr)
    outcomes = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error"):
                message = (child.get("message") or "").strip().splitlines()
                outcome = f"{child.tag}: {message[-1][:300] if message else ''}"
            elif child.tag == "skipped":
                outcome = "skipped"
        outcomes[name] = outcome
    return outcomes


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def with_ddblocal(directory: Path, checkout: Path, env: dict[str, str], report: Path) -> dict[str, str]:
    port = free_port()
    jar = [
        "java",
        f"-Djava.library.path={directory}/DynamoDBLocal_lib",
        "-jar",
        f"{directory}/DynamoDBLocal.jar",
    ]
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    process = subprocess.Popen([*jar, "-inMemory", "-port", str(port)], **quiet)  # type: ignore[call-overload]
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(300):
            try:
                urllib.request.urlopen(url, timeout=1).close()
                break
            except OSError as error:
                if getattr(error, "code", None):  # an HTTP answer (400): it is up
                    break
                time.sleep(0.1)
        return run(checkout, [], {**env, "PYNAMODB_INTEGRATION_TEST_DDB_URL": url}, report)
    finally:
        process.terminate()
        process.wait(10)


def show(label: str, outcomes: dict[str, str]) -> None:
    passed = sum(1 for o in outcomes.values() if o == "passed")
    print(f"{label}: {passed} passed of {len(outcomes)}")
    for name, outcome in sorted(outcomes.items()):
        if outcome not in ("passed", "skipped"):
            print(f"  - {name}: {outcome}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--ddblocal", type=Path, help="DynamoDB Local's directory (DynamoDBLocal.jar)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pynamodb-") as scratch:
        copy = Path(scratch) / "PynamoDB"
        shutil.copytree(options.checkout, copy, ignore=shutil.ignore_patterns(".git", "__pycache__"))
        (copy / "conftest.py").write_text(CONFTEST)
        env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
        env.update(PYTHONPATH=os.pathsep.join([str(copy), str(SRC)]), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
        ours = run(copy, ["-p", "singletable_pytest"], env, Path(scratch) / "ours.xml")
        show("dynamodb_server", ours)
        if options.ddblocal is not None:
            (copy / "conftest.py").unlink()
            env.update(AWS_ACCESS_KEY_ID="x", AWS_SECRET_ACCESS_KEY="x", AWS_DEFAULT_REGION="us-east-1")
            show("DynamoDB Local", with_ddblocal(options.ddblocal, copy, env, Path(scratch) / "ddblocal.xml"))


if __name__ == "__main__":
    main()
