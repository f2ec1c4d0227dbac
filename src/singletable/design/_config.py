"""A project's settings for ``singletable check``, from the ``[tool.singletable.check]`` table of the
``pyproject.toml`` in the working directory::

    [tool.singletable.check]
    ignore = ["ST102", "filtered-pattern"]      # rule ids or names, everywhere
    fail-on = "error"                           # --strict's threshold: error, warning (default) or note

    [tool.singletable.check.per-entity]
    User = ["ST101"]                            # ADMINS is a handful of rarely written items

A name that is not a rule, or a threshold that is not a severity, is refused with the file named: a typo
must not silently turn a rule back on (or off).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from singletable.design._findings import CheckConfig
from singletable.design._rules import SEVERITIES, rule_named


def load_config(path: str | Path | None = None) -> CheckConfig:
    """The settings in ``path`` (default: ``./pyproject.toml``); defaults when it or the table is absent."""
    file = Path(path) if path is not None else Path.cwd() / "pyproject.toml"
    if not file.is_file():
        if path is not None:
            raise ValueError(f"{file}: no such file")
        return CheckConfig()
    try:
        with open(file, "rb") as handle:
            document = tomllib.load(handle)
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{file}: not valid TOML: {error}") from None
    table = document.get("tool", {}).get("singletable", {}).get("check")
    if table is None:
        return CheckConfig(source=str(file))
    return config_from(table, str(file))


def config_from(table: dict[str, Any], where: str = "[tool.singletable.check]") -> CheckConfig:
    known = {"ignore", "per-entity", "fail-on"}
    unknown = sorted(set(table) - known)
    if unknown:
        raise ValueError(f"{where}: unknown setting {unknown[0]!r} (settings: {', '.join(sorted(known))})")
    ignore = frozenset(_rule_ids(table.get("ignore", []), f"{where}: ignore"))
    per_entity_table = table.get("per-entity", {})
    if not isinstance(per_entity_table, dict):
        raise ValueError(f"{where}: per-entity must be a table of entity = [rules]")
    per_entity = {
        str(entity): frozenset(_rule_ids(rules, f"{where}: per-entity.{entity}"))
        for entity, rules in per_entity_table.items()
    }
    fail_on = table.get("fail-on", "warning")
    if fail_on not in SEVERITIES:
        raise ValueError(f"{where}: fail-on must be one of {', '.join(SEVERITIES)}, not {fail_on!r}")
    return CheckConfig(ignore, per_entity, fail_on, where)


def _rule_ids(rules: Any, where: str) -> list[str]:
    if not isinstance(rules, list) or not all(isinstance(r, str) for r in rules):
        raise ValueError(f"{where} must be a list of rule ids or names")
    try:
        return [rule_named(r).id for r in rules]
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from None
