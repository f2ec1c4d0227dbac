"""A wheel built from the tree runs ``singletable demo NAME`` for every example, with no source checkout.

The wheel is built once per module from a copy of the tree (``src/``, ``pyproject.toml``, ``README.md``, so
the build leaves nothing behind in the checkout) and installed with ``pip install --no-deps --target``. Then,
with ``PYTHONPATH`` naming the install target only (the package's dependencies come from this interpreter's
site-packages, the package itself from the wheel): the installed console script runs the quickstart demo
from an empty directory, and one process (each start of which costs more than a demo) runs every demo
through the command line in-process, each from an empty directory of its own, and reads where
``singletable`` was imported from and the prices ``cost`` reads.

The build uses the interpreter's own setuptools (``--no-build-isolation``) when it satisfies
``[build-system] requires``; otherwise pip builds in an isolated environment, which fetches setuptools and
wheel from the package index.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Demo name -> how its output starts.
DEMOS = {
    "quickstart": "created table quickstart in :memory:\n",
    "fus-main": "# fus-main: sites, tags, star ratings, comments and custom RBAC groups in one table\n",
    "hustlehub": "# HustleHubDirectory (seed 001): users by email, listings newest first",
    "places": "# Seed 002: places, posts and records (inverted index, sparse GSI, prefix search",
    "wavyblog": "# WavyBlog (seed 003): users, posts and categories; unique emails and slugs",
    "blog-api": "# Blog API (seed 004): ${StackName}-${Environment}-blog, PAY_PER_REQUEST, GSI1 + GSI2\n",
    "docsearch": "# Help-centre documents searched by meaning: a vector index partitioned by tenant\n",
}
EXAMPLE_PACKAGES = ["quickstart", "fus_main", "hustlehub", "places", "wavyblog", "blog_api", "docsearch"]


def _can_build_without_isolation() -> bool:
    """Whether this interpreter has what ``[build-system] requires`` asks: setuptools>=68 and wheel."""
    try:
        setuptools = metadata.version("setuptools")
        metadata.version("wheel")
    except metadata.PackageNotFoundError:
        return False
    return int(setuptools.split(".")[0]) >= 68


def _copy_tree(into: Path) -> Path:
    project = into / "project"
    shutil.copytree(ROOT / "src", project / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, project / name)
    return project


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from a copy of the tree."""
    workspace = tmp_path_factory.mktemp("wheel")
    project = _copy_tree(workspace)
    isolation = ["--no-build-isolation"] if _can_build_without_isolation() else []
    command = [
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        *isolation,
        "-q",
        "-w",
        str(workspace / "dist"),
    ]
    subprocess.run([*command, str(project)], check=True, capture_output=True, text=True, timeout=600)
    (built,) = (workspace / "dist").glob("singletable-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The install target the wheel went into (``pip install --target``)."""
    target = tmp_path_factory.mktemp("target")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return target


def _run(command: list[str], target: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(target)}
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


# Run in one process from the install target: where singletable comes from, the prices ``cost`` reads,
# and each demo through the command line (exit code, output, what it left in its empty directory).
PROBE = """\
import json, os, sys, tempfile
import singletable
from click.testing import CliRunner
from singletable._cli import main
from singletable.design import load_prices
demos = {}
for name in sys.argv[1:]:
    os.chdir(tempfile.mkdtemp(dir=os.environ["PROBE_DIR"]))
    result = CliRunner().invoke(main, ["demo", name])
    demos[name] = [result.exit_code, result.stdout, result.stderr, os.listdir(".")]
prices = load_prices().write_request_units_per_million
print(json.dumps({"file": singletable.__file__, "prices": prices, "demos": demos}))
"""


@pytest.fixture(scope="module")
def from_the_wheel(installed: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What ``PROBE`` reports, run from an empty directory with only the install target on the path."""
    here = tmp_path_factory.mktemp("probe")
    env = {**os.environ, "PYTHONPATH": str(installed), "PROBE_DIR": str(here)}
    command = [sys.executable, "-c", PROBE, *DEMOS]
    done = subprocess.run(command, cwd=here, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_wheel_carries_every_example_and_its_readme(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "singletable/examples/README.md" in names
    for package in EXAMPLE_PACKAGES:
        for module in ("__init__.py", "design.py", "sample.py", "walkthrough.py", "README.md"):
            assert f"singletable/examples/{package}/{module}" in names
        for migration in (ROOT / "src/singletable/examples" / package).glob("migrations/*.py"):
            assert f"singletable/examples/{package}/migrations/{migration.name}" in names
    assert not any(name.startswith(("examples/", "tests/")) for name in names)


def test_the_wheel_carries_the_consoles_pages_and_static_files(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    pages = {Path(n).name for n in names if n.startswith("singletable/ui/templates/")}
    assert {"base.html", "items.html", "item.html", "patterns.html", "query.html"} <= pages
    shipped = {p.name for p in (ROOT / "src/singletable/ui/templates").glob("*.html")}
    assert pages == shipped
    assert {"singletable/ui/static/console.css", "singletable/ui/static/console.js"} <= names


def test_the_installed_package_is_the_wheel_not_the_checkout(
    installed: Path, from_the_wheel: dict[str, Any]
) -> None:
    assert Path(from_the_wheel["file"]).resolve().is_relative_to(installed.resolve())


def test_the_console_script_runs_a_demo_from_an_empty_directory(installed: Path, tmp_path: Path) -> None:
    script = installed / "bin" / "singletable"
    result = _run([str(script), "demo", "quickstart"], installed, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(DEMOS["quickstart"])
    assert "\n== " in result.stdout
    assert list(tmp_path.iterdir()) == []  # an in-memory demo leaves the directory as it found it


@pytest.mark.parametrize("name", list(DEMOS))
def test_demo_runs_from_an_empty_directory(from_the_wheel: dict[str, Any], name: str) -> None:
    exit_code, stdout, stderr, left = from_the_wheel["demos"][name]
    assert exit_code == 0, stderr
    assert stdout.startswith(DEMOS[name])
    assert "\n== " in stdout
    assert left == []  # an in-memory demo leaves the directory as it found it


def test_cost_reads_its_prices_from_the_installed_wheel(wheel: Path, from_the_wheel: dict[str, Any]) -> None:
    """``singletable cost``'s default prices are data shipped in the wheel, not read from a checkout."""
    assert "singletable/design/prices.toml" in set(zipfile.ZipFile(wheel).namelist())
    assert from_the_wheel["prices"] == 0.625
