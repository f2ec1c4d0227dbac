"""``export_design`` and ``import_workbench``: the design exports and the Workbench import by name, as the
command line calls them (``singletable synth --format ...``, ``singletable import-workbench``).

A design is named as everywhere else (``myapp.design``, ``myapp.design:TABLE``, a ``.py`` path) and loaded
by the data tools' loader; a Workbench model is a JSON file. Errors a person can fix -- a module that does
not load, a model file that is not JSON, a design the format cannot say -- are ``ValueError``s with the
file (and line) and what is wrong.
"""

from __future__ import annotations

import inspect
import json
from datetime import datetime
from pathlib import Path
from typing import Any

from singletable.design._cdk import to_cdk
from singletable.design._cloudformation import to_cloudformation
from singletable.design._items import sample_items
from singletable.design._terraform import to_terraform
from singletable.design._workbench import workbench_model
from singletable.design._workbench_import import WorkbenchError, design_source

FORMATS = ("cloudformation", "terraform", "cdk", "workbench")


def export_design(
    design: str,
    format: str,
    *,
    include_local_indexes: bool = True,
    rows_per_facet: int = 20,
    now: datetime | None = None,
) -> str:
    """The text of design module ``design`` in ``format``: ``cloudformation`` (YAML), ``terraform`` (HCL),
    ``cdk`` (a Python app) or ``workbench`` (a NoSQL Workbench model, JSON, with the design's sample items
    as facet rows and its module docstring as the description)."""
    from singletable._designs import load_design

    if format not in FORMATS:
        raise ValueError(f"unknown design export format {format!r}; choose one of {', '.join(FORMATS)}")
    loaded = load_design(design)  # imported once: a design file run twice would declare its table twice
    table = loaded.table
    if format == "cloudformation":
        return to_cloudformation(table)
    if format == "terraform":
        return to_terraform(table)
    if format == "cdk":
        return to_cdk(table)
    module = loaded.module
    model = workbench_model(
        table,
        items=sample_items(module, table),
        description=inspect.getdoc(module) or "",
        now=now,
        rows_per_facet=rows_per_facet,
        include_local_indexes=include_local_indexes,
    )
    return json.dumps(model, indent=2, ensure_ascii=False) + "\n"


def import_workbench(model: str | Path | dict[str, Any], *, table: str | None = None) -> str:
    """The Python source of a design module for a NoSQL Workbench model: a path to its JSON file, or the
    parsed model. ``table`` picks one table of a model that holds several."""
    if isinstance(model, dict):
        return design_source(model, table)
    path = Path(model)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise WorkbenchError(f"{path}: {error.strerror or error}") from None
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as error:
        raise WorkbenchError(f"{path}, line {error.lineno}: not JSON ({error.msg})") from None
    try:
        return design_source(parsed, table)
    except WorkbenchError as error:
        raise WorkbenchError(f"{path}: {error}") from None
