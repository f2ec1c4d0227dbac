"""What ``check`` found: :class:`Finding` (one problem, where it is, why it matters, the fix) and
:class:`CheckReport` (all of them, after the project's ignores), as plain data, JSON and SARIF 2.1.0.

SARIF is what code-scanning services (GitHub's among them) read: one run whose ``tool.driver.rules`` lists
every rule with its id, and one result per finding with ``ruleId``, ``level``, ``message`` and a physical
location (the design file, relative to the working directory when it lies below it, and the line).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from singletable.design._rules import RULE_LIST, RULES, SEVERITIES

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


@dataclass(frozen=True)
class Finding:
    """One problem: the rule, the entity (or index, or request) it is about, the file and line to change."""

    rule: str
    subject: str  # "Listing", "Listing.latest", "index GSI2", "Query GSI4-SlugLookupIndex"...
    message: str  # what is wrong, with this design's names and values
    file: str | None = None
    line: int | None = None
    entity: str | None = None  # the entity class, for per-entity ignores
    fix: str | None = None  # this finding's fix, when more precise than the rule's

    @property
    def severity(self) -> str:
        return RULES[self.rule].severity

    @property
    def name(self) -> str:
        return RULES[self.rule].name

    @property
    def why(self) -> str:
        return RULES[self.rule].why

    @property
    def remedy(self) -> str:
        return self.fix or RULES[self.rule].fix

    def location(self) -> str:
        if self.file is None:
            return ""
        return f"{display_path(self.file)}:{self.line}" if self.line else display_path(self.file)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "name": self.name,
            "severity": self.severity,
            "subject": self.subject,
            "entity": self.entity,
            "message": self.message,
            "why": self.why,
            "fix": self.remedy,
            "file": display_path(self.file) if self.file else None,
            "line": self.line,
        }


def at(source: dict[str, Any] | None) -> dict[str, Any]:
    """``file=`` and ``line=`` for a Finding from a describe() ``source``."""
    if not source:
        return {}
    return {"file": source["file"], "line": source["line"]}


def display_path(path: str) -> str:
    """A path relative to the working directory when it lies below it (what SARIF viewers resolve)."""
    try:
        relative = Path(path).resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return path
    return relative.as_posix()


@dataclass
class CheckConfig:
    """What a project turns off: rule ids everywhere, rule ids per entity class, and the CI threshold."""

    ignore: frozenset[str] = frozenset()
    per_entity: dict[str, frozenset[str]] = field(default_factory=dict)
    fail_on: str = "warning"
    source: str | None = None  # the pyproject.toml it came from

    def ignores(self, finding: Finding) -> bool:
        if finding.rule in self.ignore:
            return True
        return finding.entity is not None and finding.rule in self.per_entity.get(finding.entity, ())


@dataclass
class CheckReport:
    """The findings of one check, most severe first; ``ignored`` counts what the configuration dropped."""

    design: str
    findings: list[Finding]
    ignored: int = 0
    traffic: dict[str, Any] | None = None  # what the recorded traffic held, when it was checked

    def at_least(self, severity: str) -> list[Finding]:
        """The findings of ``severity`` or worse."""
        rank = SEVERITIES.index(severity)
        return [f for f in self.findings if SEVERITIES.index(f.severity) <= rank]

    def counts(self) -> dict[str, int]:
        return {s: sum(1 for f in self.findings if f.severity == s) for s in SEVERITIES}

    def to_dict(self) -> dict[str, Any]:
        return {
            "design": self.design,
            "counts": self.counts(),
            "ignored": self.ignored,
            "traffic": self.traffic,
            "findings": [f.to_dict() for f in self.findings],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def to_sarif(self, version: str = "") -> dict[str, Any]:
        """The report as a SARIF 2.1.0 log (one run)."""
        rules = [
            {
                "id": rule.id,
                "name": rule.name,
                "shortDescription": {"text": rule.title},
                "fullDescription": {"text": rule.why},
                "help": {"text": f"{rule.why}. Fix: {rule.fix}."},
                "defaultConfiguration": {"level": rule.severity},
            }
            for rule in RULE_LIST
        ]
        index = {rule.id: i for i, rule in enumerate(RULE_LIST)}
        results = [_sarif_result(f, index[f.rule]) for f in self.findings]
        driver: dict[str, Any] = {"name": "singletable check", "rules": rules}
        if version:
            driver["version"] = version
        return {
            "$schema": SARIF_SCHEMA,
            "version": "2.1.0",
            "runs": [{"tool": {"driver": driver}, "results": results, "columnKind": "unicodeCodePoints"}],
        }


def _sarif_result(finding: Finding, rule_index: int) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": finding.rule,
        "ruleIndex": rule_index,
        "level": finding.severity,
        "message": {
            "text": f"{finding.subject}: {finding.message}. Why: {finding.why}. Fix: {finding.remedy}."
        },
    }
    if finding.file:
        physical: dict[str, Any] = {"artifactLocation": {"uri": _uri(finding.file)}}
        if finding.line:
            physical["region"] = {"startLine": finding.line}
        result["locations"] = [{"physicalLocation": physical}]
    return result


def _uri(path: str) -> str:
    shown = display_path(path)
    if os.path.isabs(shown):
        return Path(shown).as_uri()
    return shown
