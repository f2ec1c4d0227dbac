"""singletable.design: tools that read a single-table design before production does (docs/design-tools.md).

Every tool takes a design module (``myapp.design``), a :class:`singletable.model.Table` or its
``describe()`` data. Public names:

- ``check(design, traffic=None, config=None)``: lint the design (and recorded traffic) -> ``CheckReport``
- ``CheckReport``: the findings, as data, JSON (``to_json``) and SARIF 2.1.0 (``to_sarif``)
- ``Finding``: one problem: rule, subject, message, why, fix, file and line
- ``CheckConfig``, ``load_config(path=None)``: what a project ignores (``[tool.singletable.check]``)
- ``Rule``, ``RULES``: the rules by id (``ST101``...), each with its name, severity, why and fix
"""

from singletable._extras import MissingExtra, missing

if missing(("pydantic",)):
    raise MissingExtra("model", "singletable.design")

from singletable.design._check import check
from singletable.design._config import load_config
from singletable.design._findings import CheckConfig, CheckReport, Finding
from singletable.design._rules import RULES, Rule

__all__ = ["RULES", "CheckConfig", "CheckReport", "Finding", "Rule", "check", "load_config"]
