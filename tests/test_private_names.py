"""A leading underscore means "this package only": no private name crosses a package boundary.

The rule, checked by parsing every module under ``src/singletable`` with :mod:`ast`:

* A *package* is the first name under ``singletable``: ``engine``, ``model``, ``data``, ``design``, ``ui``,
  ``examples``, ``_cli``, ``_server``, ``_protocol``, or a top-level module such as ``_designs`` or
  ``_client``. ``singletable/__init__.py`` and ``__main__.py`` form the root package.
* (a) An import may name another package's modules and names only when they are public: no path component
  after the package and no imported name starts with ``_``. Where two packages need a thing, it gets a name
  without an underscore in a module that says it is shared (``engine/shared.py``, ``data/shared.py``).
* A top-level private package or module (``singletable._designs``, ``singletable._protocol``) is private to
  singletable as a whole, not to one package: another package may import it only when its docstring says
  who shares it (the words "shared by ..."); the command line (``_cli``) and the root package, whose job is
  to wire the packages together, may import any of them.
* (b) An attribute read ``obj._name`` names a private member of the reader's own code. ``self._name`` and
  ``cls._name`` (the class hierarchy's own) must be defined (a ``def``/``class``, an assignment, an annotated
  field) somewhere in the reading module's package; ``obj._name`` on any other object must be defined in the
  reading module itself -- a member another module's class keeps private is that class's business (make it a
  public attribute or method). Names singletable never defines (``sys._getframe``, a NamedTuple's
  ``_replace``) are the standard library's and pass. A heuristic: it knows names, not types, so a read of
  another class's ``_x`` in a module that defines its own ``_x`` passes.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src" / "singletable"
ROOT_PACKAGE = "<root>"
# The packages that wire the others together: they may import any top-level private module.
WIRING = {ROOT_PACKAGE, "_cli"}


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def package_of(path: Path) -> str:
    parts = path.relative_to(SOURCE).parts
    if len(parts) == 1:
        stem = parts[0].removesuffix(".py")
        return ROOT_PACKAGE if stem in ("__init__", "__main__") else stem
    return parts[0]


def modules() -> list[Path]:
    return sorted(SOURCE.rglob("*.py"))


@functools.cache
def says_shared(package: str) -> bool:
    """Whether a top-level private package or module's docstring declares it shared."""
    path = SOURCE / package / "__init__.py" if (SOURCE / package).is_dir() else SOURCE / f"{package}.py"
    return (
        re.search(r"\bshared\s+by\b", ast.get_docstring(ast.parse(path.read_text())) or "", re.I) is not None
    )


def module_name(path: Path) -> list[str]:
    parts = list(path.relative_to(SOURCE.parent).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def absolute(node: ast.ImportFrom, path: Path) -> list[str]:
    """The dotted module an ``ImportFrom`` names, relative imports resolved against ``path``."""
    named = node.module.split(".") if node.module else []
    if not node.level:
        return named
    here = module_name(path)
    base = here if path.name == "__init__.py" else here[:-1]
    return base[: len(base) - node.level + 1] + named


def import_offences(path: Path, tree: ast.Module) -> list[str]:
    mine = package_of(path)
    found: list[str] = []
    where = path.relative_to(ROOT)

    def check(dotted: list[str], names: list[str], line: int) -> None:
        if len(dotted) < 2 or dotted[0] != "singletable":
            if dotted == ["singletable"]:  # ``from singletable import engine, _designs``
                for name in names:
                    check(["singletable", name], [], line)
            return
        theirs = dotted[1]
        if theirs in (mine, "__init__", "__main__"):
            return
        if is_private(theirs) and mine not in WIRING and not says_shared(theirs):
            found.append(f"{where}:{line}: imports {'.'.join(dotted)} (private to singletable)")
        if any(is_private(part) for part in dotted[2:]):
            found.append(f"{where}:{line}: imports private module {'.'.join(dotted)}")
        elif private := [name for name in names if is_private(name)]:
            found.append(f"{where}:{line}: imports {', '.join(private)} from {'.'.join(dotted)}")

    for node in facts(tree).imports:
        if isinstance(node, ast.Import):
            for alias in node.names:
                check(alias.name.split("."), [], node.lineno)
        else:
            dotted = absolute(node, path)
            names = [alias.name for alias in node.names]
            check(dotted, names, node.lineno)  # ``from singletable.data import _keys``: a private name
    return found


class Facts(NamedTuple):
    """What the checks read from one module, gathered in one walk of its tree."""

    imports: list[ast.Import | ast.ImportFrom]
    defined: set[str]  # every private name it defines
    private_reads: list[ast.Attribute]  # every ``obj._name``


@functools.cache
def facts(tree: ast.Module) -> Facts:
    """A module's imports, the private names it defines (functions, classes, assignments, fields,
    ``self._x = ...``) and its ``obj._name`` attributes: one walk for both checks, which ask every module."""
    imports: list[ast.Import | ast.ImportFrom] = []
    names: set[str] = set()
    reads: list[ast.Attribute] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            imports.append(node)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            if isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            if is_private(node.attr):
                reads.append(node)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
            names.add(node.value)  # ``__slots__ = ("_x",)``, ``setattr(obj, "_x", ...)``
    return Facts(imports, {name for name in names if is_private(name)}, reads)


def defined_names(tree: ast.Module) -> set[str]:
    return facts(tree).defined


def attribute_offences(trees: dict[Path, ast.Module]) -> list[str]:
    defined = {path: defined_names(tree) for path, tree in trees.items()}
    by_package: dict[str, set[str]] = {}
    for path, names in defined.items():
        by_package.setdefault(package_of(path), set()).update(names)
    anywhere = set().union(*by_package.values())
    found = []
    for path, tree in trees.items():
        package, module = by_package[package_of(path)], defined[path]
        for node in facts(tree).private_reads:
            if node.attr in anywhere:
                own = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
                if node.attr not in package or not (own or node.attr in module):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: reads {ast.unparse(node)}")
    return found


@functools.cache
def parsed() -> dict[Path, ast.Module]:
    """Every module of the package, parsed once for both checks below (the tests only read the trees)."""
    return {path: ast.parse(path.read_text(), str(path)) for path in modules()}


PLUGIN = ROOT / "src" / "singletable_pytest"  # the pytest plugin: a package of its own, beside singletable


def plugin_offences(path: Path, tree: ast.Module) -> list[str]:
    """Imports of singletable's private modules or names by the pytest plugin: rule (a), the plugin being
    one more package (a top-level private module it may import only when its docstring says it is shared)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules, names = [node.module], [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            modules, names = [alias.name for alias in node.names], []
        else:
            continue
        for module in modules:
            parts = module.split(".")
            if parts[0] != "singletable":
                continue
            inner = parts[1:]
            shared_top = len(inner) == 1 and is_private(inner[0]) and says_shared(inner[0])
            if (any(is_private(part) for part in inner) and not shared_top) or any(map(is_private, names)):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: imports {ast.unparse(node)}")
    return found


def test_the_pytest_plugin_names_no_private_module_or_name_of_singletable() -> None:
    offences = []
    for path in sorted(PLUGIN.rglob("*.py")):
        offences += plugin_offences(path, ast.parse(path.read_text(), str(path)))
    assert offences == [], "\n".join(offences)


def test_no_import_names_another_packages_private_module_or_name() -> None:
    offences = []
    for path, tree in parsed().items():
        offences += import_offences(path, tree)
    assert offences == [], "\n".join(offences)


def test_no_attribute_read_names_another_packages_private_member() -> None:
    offences = attribute_offences(parsed())
    assert offences == [], "\n".join(offences)


def test_the_checks_catch_what_they_are_for() -> None:
    """The two checks on hand-written modules, so a refactor of the checker cannot make it pass everything."""
    model_file = SOURCE / "model" / "example.py"
    tree = ast.parse("from singletable.engine._engine import Engine\nfrom ..engine import shared\n")
    assert len(import_offences(model_file, tree)) == 1
    tree = ast.parse("from singletable.engine import _sizes\nfrom singletable._cli import look\n")
    assert len(import_offences(model_file, tree)) == 2
    engine_file, model_reader = SOURCE / "engine" / "x.py", SOURCE / "model" / "y.py"
    trees = {
        engine_file: ast.parse("class Catalog:\n    def _refresh(self):\n        self._cache = {}\n"),
        model_reader: ast.parse("def go(catalog):\n    catalog._refresh()\n    return catalog._replace()\n"),
        SOURCE / "engine" / "z.py": ast.parse("def go(catalog):\n    return catalog._cache\n"),
    }
    found = sorted(line.split(": ", 1)[1] for line in attribute_offences(trees))
    assert found == ["reads catalog._cache", "reads catalog._refresh"]
    plugin_file = PLUGIN / "example.py"
    tree = ast.parse(
        "from singletable.testing._server import Server\nfrom singletable.testing import _sources\n"
        "from singletable._designs import load_design\nfrom singletable.testing.shared import Server\n"
    )
    assert len(plugin_offences(plugin_file, tree)) == 2
