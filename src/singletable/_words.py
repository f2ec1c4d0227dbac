"""Counts in words, for every message that says how many: ``1 line``, ``2 lines``, ``1,024 items``.

Shared by the data tools (``singletable.data``) and the command line (``singletable._cli``)."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` with thousands separators and ``noun`` in the number it takes (``plural`` when adding an
    ``s`` is not the plural: ``counted(2, "entry", "entries")``)."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"
