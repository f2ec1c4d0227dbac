"""The demo framework's public half: what an example gives ``singletable demo`` and how the demo runs it.

An example package under :mod:`singletable.examples` exposes ``EXAMPLE`` from its ``__init__``: an
:class:`Example` (a design on the modeling layer, whose :class:`Step` list the runner performs and prints
request by request) or an :class:`EngineExample` (a script that drives the engine itself and prints its own
output, as the quickstart does). :data:`DEMO_CLOCK` and :data:`DEMO_CURSOR_SECRET` fix what would otherwise
change between runs, so a demo prints the same on every backend. :func:`run_demo` finds an example by its
demo name and runs it; how it records requests and prints them is private (``_runner``, ``_render``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

DEMO_CLOCK = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)
"""The demo's "now": the model's clock during a demo, and the time sample data counts back from."""

DEMO_CURSOR_SECRET = "singletable-demo"
"""The key a demo signs page cursors with, so a printed cursor is the same on every run."""

# Demo name (``singletable demo NAME``) -> example package under singletable.examples.
_DEMOS: dict[str, str] = {
    "quickstart": "quickstart",
    "fus-main": "fus_main",
    "hustlehub": "hustlehub",
    "places": "places",
    "wavyblog": "wavyblog",
    "blog-api": "blog_api",
    "docsearch": "docsearch",
}


@dataclass
class Step:
    """One access pattern of a walkthrough.

    ``name`` heads the step's output and ``note`` (optional) follows it in parentheses; ``run()`` performs
    the pattern through the example's service API and returns what to print: an entity, a page, a list, a
    dict or any value with a readable ``str``. An exception it raises is printed as the step's outcome.
    """

    name: str
    run: Callable[[], Any]
    note: str = ""


@dataclass
class Example:
    """A design on the modeling layer, as the demo runs it.

    The runner connects ``table`` (a :class:`singletable.model.Table`) to the target with
    :data:`DEMO_CLOCK` and :data:`DEMO_CURSOR_SECRET`, creates the table, then calls ``open(db)`` to build
    the example's service, ``load(service)`` to write the sample data, and runs ``steps(service)`` in
    order, printing each step's requests, result and consumed capacity. ``title`` heads the output.
    """

    name: str
    title: str
    table: Any
    open: Callable[[Any], Any]
    load: Callable[[Any], None]
    steps: Callable[[Any], Iterable[Step]]


@dataclass
class EngineExample:
    """An example that calls the embedded engine itself and prints its own output.

    ``run(path, echo)`` opens an :class:`singletable.Engine` on ``path`` (a SQLite file or ``":memory:"``)
    and prints each line through ``echo``. The demo's ``--endpoint`` and ``--reset`` do not apply to it.
    """

    name: str
    run: Callable[[str, Callable[[str], None]], None]


class DemoError(Exception):
    """A demo that cannot run: an unknown name, or the table already there without ``reset``."""


def _load_example(name: str) -> Example | EngineExample:
    """The ``EXAMPLE`` of the package ``singletable.examples.<package>`` that demo ``name`` names."""
    package = _DEMOS.get(name)
    if package is None:
        raise DemoError(f"unknown demo {name!r}; choose one of: {', '.join(_DEMOS)}")
    try:
        module = importlib.import_module(f"singletable.examples.{package}")
    except ModuleNotFoundError as error:
        raise DemoError(
            f"demo {name!r} needs the examples extra: pip install 'singletable[examples]' ({error})"
        ) from None
    return module.EXAMPLE


def run_demo(
    name: str,
    *,
    target: Any = ":memory:",
    reset: bool = False,
    echo: Callable[[str], None] = print,
) -> None:
    """Run demo ``name`` on ``target`` and print it through ``echo``.

    ``target`` is what :func:`singletable.model.connect` accepts: a SQLite path, ``":memory:"``, an
    endpoint URL or a boto3 client (an :class:`EngineExample` takes a path only). An :class:`Example`'s
    table must not exist yet on the target unless ``reset`` is true, which deletes and recreates it.
    """
    example = _load_example(name)
    if isinstance(example, EngineExample):
        example.run(target, echo)
        return
    from singletable.examples._runner import run_example

    run_example(example, target=target, reset=reset, echo=echo)
