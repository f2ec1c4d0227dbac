"""Design modules, found one way by every command that takes one (shared by ``data``, ``design``, ``ui``, the
pytest plugin's ``singletable_db`` fixture and the command line: ``--design``, ``import --schema``, ``check``,
``docs``, ``cost``, ``export``, ``diff``).

``load_design("myapp.design")`` imports a module that declares a :class:`singletable.model.Table` and returns
it with its module as a :class:`LoadedDesign`. A spec is a module name (``myapp.design``, looked for in the
current directory first, as ``python -m`` does), ``MODULE:VARIABLE`` when the module declares several tables,
or a path to a ``.py`` file. Whatever fails -- no such module or file, the module's own code raising, no
``Table`` or several -- is one :class:`DesignError` naming the spec, and nothing else is touched: loading a
design never creates a file or a table.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from types import ModuleType
from typing import Any, NamedTuple

from singletable._extras import require


class DesignError(ValueError):
    """A design module that cannot be loaded, or a pattern or argument it does not declare."""


class LoadedDesign(NamedTuple):
    """A design module's one ``Table`` (or the one its spec names), and the module it was declared in."""

    table: Any
    module: ModuleType


def load_design(spec: str, *, option: str = "") -> LoadedDesign:
    """The ``Table`` that ``spec`` names (see the module docstring). ``option`` is how the command that
    asked spells the spec (``--design``), for the message that says how to name one of several tables."""
    require("model", ("pydantic",), option or "a design module")
    from singletable.model import Table

    module_name, _, variable = spec.partition(":")
    if not module_name:
        raise DesignError(f"{spec!r} names no design module: give MODULE, MODULE:TABLE or a .py path")
    module = import_design_module(module_name)
    found = {name: value for name, value in vars(module).items() if isinstance(value, Table)}
    if variable:
        if variable not in found:
            raise DesignError(f"design module {module_name} has no Table named {variable}")
        return LoadedDesign(found[variable], module)
    tables = list({id(t): t for t in found.values()}.values())
    if len(tables) != 1:
        names = ", ".join(sorted(found)) or "none"
        how = f"{option} {module_name}:NAME" if option else f"{module_name}:NAME"
        raise DesignError(
            f"design module {module_name} must declare one singletable.model Table, not {len(tables)} "
            f"({names}); name one: {how}"
        )
    return LoadedDesign(tables[0], module)


def import_design_module(name: str) -> ModuleType:
    """The module ``name`` (a dotted name, looked for in the current directory first, or a ``.py`` path),
    imported; any failure, the module's own included, as one :class:`DesignError` line."""
    try:
        if name.endswith(".py"):
            return _import_file(name)
        here = os.getcwd()
        if here not in sys.path:  # as `python -m` does: a design beside the user imports
            sys.path.insert(0, here)
        return importlib.import_module(name)
    except Exception as error:  # the module's own failure, whatever it is, in one line
        raise DesignError(f"cannot import design module {name}: {type(error).__name__}: {error}") from None


def _import_file(name: str) -> ModuleType:
    module_name = os.path.basename(name)[:-3]
    if module_name in sys.modules:  # never shadow an imported module of the same name
        module_name = f"_singletable_design_{len(sys.modules)}_{module_name}"
    spec = importlib.util.spec_from_file_location(module_name, name)
    if spec is None or spec.loader is None or not os.path.isfile(name):
        raise ImportError(f"no such file: {name}")
    module = importlib.util.module_from_spec(spec)
    # Registered as imports are: pydantic resolves a model's postponed annotations (`from __future__
    # import annotations`) through sys.modules[cls.__module__].
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
    return module
