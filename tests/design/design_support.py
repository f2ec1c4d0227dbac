"""What the design-export tests share: the five seed designs and the tracker written from scratch, by the
name a user gives the command line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from singletable.data._design import load_design

TRACKER = str(Path(__file__).with_name("tracker_design.py"))
SEEDS = {
    name: f"singletable.examples.{name}.design"
    for name in ("fus_main", "hustlehub", "places", "wavyblog", "blog_api")
}
DESIGNS = {**SEEDS, "tracker": TRACKER}


def table_of(name: str) -> Any:
    """The ``Table`` of design ``name`` (a key of :data:`DESIGNS`)."""
    return load_design(DESIGNS[name]).table
