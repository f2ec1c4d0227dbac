"""``check(design)``: every rule of :mod:`singletable.design._rules` applied to one design (and, when given,
to the traffic recorded against it), with the project's ignores applied.

The design is read through the modeling layer's introspection only -- ``Table.describe()`` -- so what is
checked is exactly what the runtime will do. A design module that fails to declare (a ``DeclarationError``
at import, such as seed 001's 21-attribute INCLUDE list) is itself a finding (ST001) pointing at the line
that raised, rather than a traceback.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from singletable.design import _declaration_rules, _glued_key_rules, _item_rules, _key_rules, _vector_rules
from singletable.design._findings import CheckConfig, CheckReport, Finding
from singletable.design._rules import SEVERITIES
from singletable.design._view import DesignView

DesignInput = Any  # a module spec ("myapp.design", "myapp.design:TABLE", "path.py"), a Table, or describe()

STATIC_CHECKS: tuple[Callable[[DesignView], list[Finding]], ...] = (
    _declaration_rules.table_findings,
    _declaration_rules.guard_findings,
    _declaration_rules.counter_findings,
    _key_rules.partition_findings,
    _key_rules.sort_findings,
    _key_rules.collision_findings,
    _key_rules.order_findings,
    _item_rules.read_findings,
    _item_rules.projection_findings,
    _item_rules.key_type_findings,
    _item_rules.size_findings,
    _item_rules.ttl_findings,
    _glued_key_rules.glued_key_findings,
    _vector_rules.vector_findings,
)


def check(
    design: DesignInput,
    *,
    traffic: str | Path | Iterable[dict[str, Any]] | None = None,
    config: CheckConfig | None = None,
) -> CheckReport:
    """Check a design: a module spec, a :class:`~singletable.model.Table` or its ``describe()`` data.

    ``traffic`` is a JSON Lines file (``Trace.save``, ``singletable serve --record``) or its records;
    ``config`` what to ignore (:func:`~singletable.design.load_config` reads ``pyproject.toml``).
    """
    config = config or CheckConfig()
    name, described, table, module, failed = _described(design)
    findings = [failed] if failed else []
    if described is not None:
        view = DesignView(described, _declaration_rules.counters(table, module))
        for rule in STATIC_CHECKS:
            findings.extend(rule(view))
    summary = None
    if traffic is not None:
        from singletable.design._traffic import traffic_findings

        traffic_found, summary = traffic_findings(traffic, table)
        findings.extend(traffic_found)
    kept = [f for f in findings if not config.ignores(f)]
    kept.sort(key=lambda f: (SEVERITIES.index(f.severity), f.file or "", f.line or 0, f.rule, f.subject))
    return CheckReport(name, kept, ignored=len(findings) - len(kept), traffic=summary)


def _described(design: DesignInput) -> tuple[str, dict[str, Any] | None, Any, Any, Finding | None]:
    """(name, describe() data, the Table and its module when there are, the ST001 finding when it does not
    load)."""
    if isinstance(design, dict):
        return design["table"].get("resolved") or design["table"].get("name", ""), design, None, None, None
    if isinstance(design, str):
        from singletable._designs import DesignError, load_design

        try:
            loaded = load_design(design)
        except DesignError as error:
            failed = _declaration_failure(design, error)
            if failed is None:
                raise
            return design, None, None, None, failed
        return design, loaded.table.describe(), loaded.table, loaded.module, None
    return design.resolved_name(), design.describe(), design, None, None


def _declaration_failure(spec: str, error: Exception) -> Finding | None:
    """ST001 for a design whose import raised a model error; None for any other failure (not found...)."""
    from singletable.model import ModelError

    cause = error.__context__
    if not isinstance(cause, ModelError):
        return None
    frames = traceback.extract_tb(cause.__traceback__)
    package = Path(__file__).resolve().parent.parent
    ours = (str(package / "model"), str(package / "data"), str(package / "_designs.py"))
    user = [
        f
        for f in frames
        if not f.filename.startswith("<")
        and not str(Path(f.filename).resolve()).startswith(ours)
        and "pydantic" not in Path(f.filename).parts
    ]
    frame = user[-1] if user else None  # the design's own line that raised
    return Finding(
        "ST001",
        spec,
        f"{type(cause).__name__}: {cause}",
        file=frame.filename if frame else None,
        line=frame.lineno if frame else None,
    )
