"""A wheel built from the tree runs ``singletable demo NAME`` for every example, with no source checkout.

The wheel is built once per module from a copy of the tree (``src/``, ``pyproject.toml``, ``README.md``, so
the build leaves nothing behind in the checkout), installed with ``pip install --no-deps --target``, and
each demo runs through the installed console script from an empty directory with ``PYTHONPATH`` naming the
install target only: the package's dependencies come from this interpreter's site-packages, the package
itself from the wheel. Each run first checks that ``singletable`` is imported from the target, not from
the checkout.

The build uses the interpreter's own setuptools (``--no-build-isolation``) when it satisfies
``[build-system] requires``; otherwise pip builds in an isolated environment, which fetches setuptools and
wheel from the package index.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

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


def test_the_installed_package_is_the_wheel_not_the_checkout(installed: Path, tmp_path: Path) -> None:
    found = _run(
        [sys.executable, "-c", "import singletable; print(singletable.__file__)"], installed, tmp_path
    )
    assert found.returncode == 0, found.stderr
    assert Path(found.stdout.strip()).resolve().is_relative_to(installed.resolve())


@pytest.mark.parametrize("name", list(DEMOS))
def test_demo_runs_from_an_empty_directory(installed: Path, tmp_path: Path, name: str) -> None:
    script = installed / "bin" / "singletable"
    result = _run([str(script), "demo", name], installed, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(DEMOS[name])
    assert "\n== " in result.stdout
    assert list(tmp_path.iterdir()) == []  # an in-memory demo leaves the directory as it found it


def test_cost_reads_its_prices_from_the_installed_wheel(wheel: Path, installed: Path, tmp_path: Path) -> None:
    """``singletable cost``'s default prices are data shipped in the wheel, not read from a checkout."""
    assert "singletable/design/prices.toml" in set(zipfile.ZipFile(wheel).namelist())
    code = "from singletable.design import load_prices; print(load_prices().write_request_units_per_million)"
    found = _run([sys.executable, "-c", code], installed, tmp_path)
    assert (found.returncode, found.stdout) == (0, "0.625\n"), found.stderr
