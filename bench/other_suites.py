"""Other projects' moto test suites, run unchanged under moto, then with the one-line switch to singletable.

    python3 bench/other_suites.py /tmp/proof/dyntastic /tmp/proof/dynamantic [--runs 3]
        [--venv /tmp/proof/dyntastic=/tmp/proof/venv-dyntastic]
        [--pip /tmp/proof/dyntastic='moto[dynamodb]==4.2.2'] [--args /tmp/proof/dyntastic='tests']

Each argument is a checkout of a public project (brought here by hand: nothing of theirs enters this
repository). Each checkout gets a virtualenv (``--venv`` names an existing one; otherwise one is created under
the system's temporary directory with the checkout, pytest, moto and this tree's ``singletable[testing]``
installed editable, plus any ``--pip`` specs the project pins).

The moto runs use the checkout as it is. The singletable runs use a throwaway copy of it in a temporary
directory where the switch a user would make is made: each line ``from moto import mock_aws`` (or
``mock_dynamodb`` / ``mock_dynamodb2``) becomes ``from singletable.testing import mock_aws as <that name>``.
Nothing else changes. Lines the switch cannot express (``import moto``, a moto import naming other services)
are left alone and counted.

Each way first runs once unmeasured, so both start warm: Python's bytecode caches (``__pycache__``) exist for
the project, its tests, moto and singletable alike, as on a developer's machine or a CI with a cache
(``PYTHONDONTWRITEBYTECODE`` is removed from the runs' environment: with it set, an editable install such
as this tree's is compiled from source on every run while site-packages ship compiled). Then each way runs
``--runs`` times, one at a time. Reported per project: tests collected, passed under each, the
tests that pass under moto and not under singletable (named), and medians of: the whole command's wall time
(interpreter start, imports, collection included) and its CPU time (user + system: less moved by other load on
the machine than wall time), pytest's own session time, and the sum of the test cases' times from its JUnit
XML (setup + call + teardown of each test: what the mock costs, without pytest's start).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

SINGLETABLE = Path(__file__).resolve().parent.parent
# The import, and any comment after it (``# type: ignore``), which stays.
SWITCH = re.compile(r"^(\s*)from moto import (mock_aws|mock_dynamodb2?)(\s*#.*)?$", re.MULTILINE)
LEFT = re.compile(r"^\s*(import moto\b|from moto\b.*)$", re.MULTILINE)


@dataclass(slots=True)
class Run:
    """One pytest run: outcome of each test, the three times, and the CPU time it used."""

    outcomes: dict[str, str]
    wall: float
    session: float
    tests_sum: float
    cpu: float


@dataclass(slots=True)
class Project:
    """A checkout, its venv and the runs made each way."""

    path: Path
    venv: Path
    args: list[str]
    commit: str = ""
    switched: int = 0
    left: list[str] = field(default_factory=list)
    runs: dict[str, list[Run]] = field(default_factory=lambda: {"moto": [], "singletable": []})


def _pairs(values: list[str]) -> dict[str, str]:
    """``PATH=VALUE`` options, keyed by the resolved checkout path."""
    out = {}
    for value in values:
        key, _, rest = value.partition("=")
        out[str(Path(key).resolve())] = rest
    return out


def ensure_venv(path: Path, venv: Path, pins: str) -> None:
    """Create the checkout's venv if it does not exist yet (an existing one is used as it is)."""
    if (venv / "bin" / "python").exists():
        return
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    specs = ["-e", str(path), "pytest", "moto[dynamodb]", "-e", f"{SINGLETABLE}[testing]", *pins.split()]
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", *specs], check=True)


def switched_copy(path: Path, into: Path) -> tuple[int, list[str]]:
    """Copy the checkout and make the one-line switch in its Python files; return (lines switched, left)."""
    shutil.copytree(path, into, ignore=shutil.ignore_patterns(".git", "__pycache__", ".pytest_cache"))
    switched, left = 0, []
    for file in into.rglob("*.py"):
        text = file.read_text(encoding="utf-8", errors="surrogateescape")
        new, count = SWITCH.subn(r"\1from singletable.testing import mock_aws as \2\3", text)
        if count:
            file.write_text(new, encoding="utf-8", errors="surrogateescape")
            switched += count
        left += [f"{file.relative_to(into)}: {m.group(0).strip()}" for m in LEFT.finditer(new)]
    return switched, left


def run_pytest(venv: Path, cwd: Path, args: list[str], report: Path) -> Run:
    """One pytest run in ``cwd``; the outcomes and times come from its JUnit XML."""
    dropped = ("PYTHONPATH", "AWS_ENDPOINT_URL", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env.setdefault("AWS_DEFAULT_REGION", "us-east-1")  # as a CI for a suite that expects one would set
    command = [str(venv / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    command += ["-o", "junit_duration_report=total", f"--junitxml={report}", *args]
    start, used = time.perf_counter(), _children_cpu()
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    subprocess.run(command, cwd=cwd, env=env, check=False, **quiet)
    wall, cpu = time.perf_counter() - start, _children_cpu() - used
    root = ET.parse(report).getroot()
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    assert suite is not None
    outcomes, total = {}, 0.0
    for case in suite.iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        kinds = {child.tag for child in case}
        outcome = "passed"
        for tag in ("error", "failure", "skipped"):
            if tag in kinds:
                outcome = tag
        outcomes[name] = outcome
        total += float(case.get("time") or 0)
    return Run(outcomes, wall, float(suite.get("time") or 0), total, cpu)


def _children_cpu() -> float:
    """User + system CPU seconds of the waited-for child processes so far (the runs are one at a time)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(project: Project, runs: int) -> None:
    """Run the suite under moto and under the switch, alternating, ``runs`` times each."""
    project.commit = subprocess.run(
        ["git", "-C", str(project.path), "rev-parse", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="other-suite-") as tmp:
        copy = Path(tmp) / project.path.name
        project.switched, project.left = switched_copy(project.path, copy)
        for way, cwd in (("moto", project.path), ("singletable", copy)):  # warm-up: bytecode caches
            run_pytest(project.venv, cwd, project.args, Path(tmp) / f"{way}-warm.xml")
        for n in range(runs):
            for way, cwd in (("moto", project.path), ("singletable", copy)):
                run = run_pytest(project.venv, cwd, project.args, Path(tmp) / f"{way}-{n}.xml")
                project.runs[way].append(run)
                print(
                    f"  {project.path.name} {way} #{n + 1}: {_passed(run)}/{len(run.outcomes)} passed, "
                    f"{run.wall:.2f} s",
                    file=sys.stderr,
                )


def _passed(run: Run) -> int:
    return sum(1 for outcome in run.outcomes.values() if outcome == "passed")


def _median(runs: list[Run], attribute: str) -> float:
    return statistics.median(getattr(run, attribute) for run in runs)


def report(projects: list[Project]) -> None:
    """Print the table and, per project, the tests that pass under moto and not under singletable."""
    print(
        "| project | commit | tests | passed moto | passed singletable | whole command moto / st (s) | ratio "
        "| its CPU moto / st (s) | ratio | pytest session moto / st (s) | ratio "
        "| sum of tests moto / st (s) | ratio |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for p in projects:
        moto, st = p.runs["moto"], p.runs["singletable"]
        cells = []
        for attribute in ("wall", "cpu", "session", "tests_sum"):
            a, b = _median(moto, attribute), _median(st, attribute)
            cells += [f"{a:.2f} / {b:.2f}", f"{a / b:.1f}x" if b else "-"]
        print(
            f"| {p.path.name} | {p.commit[:12]} | {len(moto[0].outcomes)} | {_passed(moto[0])} "
            f"| {_passed(st[0])} | " + " | ".join(cells) + " |"
        )
    for p in projects:
        moto, st = p.runs["moto"][0].outcomes, p.runs["singletable"][0].outcomes
        lost = sorted(name for name, how in moto.items() if how == "passed" and st.get(name) != "passed")
        gained = sorted(name for name, how in st.items() if how == "passed" and moto.get(name) != "passed")
        print(f"\n{p.path.name}: {p.switched} line(s) switched; pass under moto only: {len(lost)}")
        for name in lost:
            print(f"  - {name} ({st.get(name, 'missing')})")
        if gained:
            print(f"  pass under singletable only: {len(gained)}")
        for line in p.left:
            print(f"  not switched: {line}")


def main() -> None:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("checkouts", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--venv", action="append", default=[], help="CHECKOUT=VENV: use this venv")
    parser.add_argument("--pip", action="append", default=[], help="CHECKOUT='SPEC ...': pins for a new venv")
    parser.add_argument("--args", action="append", default=[], help="CHECKOUT='ARGS': pytest arguments")
    options = parser.parse_args()
    venvs, pins, extra = _pairs(options.venv), _pairs(options.pip), _pairs(options.args)
    projects = []
    for checkout in options.checkouts:
        path = checkout.resolve()
        key = str(path)
        venv = Path(venvs.get(key) or Path(tempfile.gettempdir()) / f"other-suite-venv-{path.name}")
        ensure_venv(path, venv, pins.get(key, ""))
        project = Project(path, venv, extra.get(key, "").split())
        measure(project, options.runs)
        projects.append(project)
    report(projects)


if __name__ == "__main__":
    main()
