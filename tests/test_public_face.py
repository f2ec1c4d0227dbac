"""The package root's public face is what the README documents, and nothing leaks beside it.

The README's table of public names says which modeling names are "also importable from `singletable`"; the
root's ``__all__`` must be exactly those plus the rows it names as ``singletable.X``, every one must import,
and ``singletable`` and ``singletable.model`` hold no other public attribute (an ``annotations`` or an
``importlib`` left by an import is a name users would find, rely on and lose).
"""

from __future__ import annotations

import re
import types
from pathlib import Path

import singletable
import singletable.model as model

ROOT = Path(__file__).resolve().parents[1]


def _readme_rows() -> list[str]:
    lines = (ROOT / "README.md").read_text().splitlines()
    return [line for line in lines if line.startswith("| `singletable")]


def _names(cell: str) -> set[str]:
    return set(re.findall(r"`([A-Za-z_]\w*)`", cell))


def readme_root_names() -> set[str]:
    """``singletable.NAME`` rows, and the modeling names a row says are also importable from the root."""
    names: set[str] = set()
    for row in _readme_rows():
        first, description = row.split("|")[1:3]
        direct = re.match(r"\s*`singletable\.(\w+)[(`]", first)
        packages = {"model", "data", "design", "ui", "examples", "engine", "testing", "mcp", "migrate"}
        if direct and direct.group(1) not in packages:
            names.add(direct.group(1))
        if "also importable from `singletable`" in description:
            listed = _names(first.split(":", 1)[1])
            mentioned = re.search(r"\(([^)]*)also importable from `singletable`", description)
            if mentioned and _names(mentioned.group(1)):
                listed &= _names(mentioned.group(1))
            names |= listed
    return names


def _public_attributes(module: types.ModuleType) -> set[str]:
    return {
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }


def test_root_all_is_what_the_readme_documents() -> None:
    assert set(singletable.__all__) - {"__version__"} == readme_root_names()


def test_every_root_name_imports_and_is_the_model_s_own() -> None:
    for name in singletable.__all__:
        value = getattr(singletable, name)
        assert value is not None
        if name in model.__all__:
            assert value is getattr(model, name)


def test_the_readme_s_modeling_names_are_the_model_s_public_names() -> None:
    for row in _readme_rows():
        first = row.split("|")[1]
        if first.strip().startswith("`singletable.model`:"):
            assert _names(first.split(":", 1)[1]) <= set(model.__all__), row


def test_nothing_leaks_beside_all() -> None:
    assert _public_attributes(singletable) <= set(singletable.__all__)
    assert _public_attributes(model) <= set(model.__all__)
