"""One-line failures for missing optional dependencies, naming the extra that installs them.

singletable's core needs only orjson, click and rich; the boto3 client, the HTTP server, the modeling layer
and the seed examples each come with an extra (``pip install 'singletable[server]'``...). A feature that
lacks its extra raises :class:`MissingExtra` -- an ``ImportError`` whose message is one line saying what to
install -- before it imports anything, instead of a traceback from deep inside an import chain. The command
line prints that line and exits 1. Shared by every package with an optional extra (``model``, ``design``,
``ui``, ``data``, the client and the command line).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable


class MissingExtra(ImportError):
    """``feature`` needs third-party modules that are not installed; ``str()`` is the one line to show."""

    def __init__(self, extra: str, feature: str) -> None:
        self.extra = extra
        self.feature = feature
        super().__init__(f"{feature} needs the '{extra}' extra: pip install 'singletable[{extra}]'")


def missing(modules: Iterable[str]) -> str | None:
    """The first of ``modules`` that cannot be imported, or None when all of them can."""
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError:
            return module
    return None


def require(extra: str, modules: Iterable[str], feature: str) -> None:
    """Raise :class:`MissingExtra` unless every one of ``modules`` imports."""
    if missing(modules) is not None:
        raise MissingExtra(extra, feature)
