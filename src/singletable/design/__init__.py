"""singletable.design: tools that read a single-table design before production does (docs/design-tools.md).

Every tool takes a design module (``myapp.design``), a :class:`singletable.model.Table` or its
``describe()`` data, through the modeling layer's introspection and :func:`singletable.data.load_design`.
Public names:

- ``check(design, traffic=None, config=None)``: lint the design (and recorded traffic) -> ``CheckReport``
- ``CheckReport``: the findings, as data, JSON (``to_json``) and SARIF 2.1.0 (``to_sarif``)
- ``Finding``: one problem: rule, subject, message, why, fix, file and line
- ``CheckConfig``, ``load_config(path=None)``: what a project ignores (``[tool.singletable.check]``)
- ``Rule``, ``RULES``: the rules by id (``ST101``...), each with its name, severity, why and fix
- ``design_docs(design)`` -> ``DesignDocs`` (Markdown, SVG pictures of the item collections, one HTML page);
  ``write_docs(docs, DIR)`` writes it into a directory
- ``design_cost(design, traffic, prices)`` -> ``CostReport``: the monthly bill of a traffic profile, from the
  capacity every pattern and write really consumes on the embedded engine; ``load_traffic`` reads the profile
  (``Traffic``), ``load_prices`` the prices (``Prices``; US East by default)
- ``SampleError``: items cannot be generated for a design without sample data; ``CostError``: a traffic or
  prices file that cannot be used
"""

from singletable._extras import MissingExtra, missing

if missing(("pydantic",)):
    raise MissingExtra("model", "singletable.design")

from singletable.design._check import check
from singletable.design._config import load_config
from singletable.design._cost import CostReport, design_cost
from singletable.design._cost_inputs import CostError, Prices, Traffic, load_prices, load_traffic
from singletable.design._docs import DesignDocs, design_docs, write_docs
from singletable.design._findings import CheckConfig, CheckReport, Finding
from singletable.design._items import SampleError
from singletable.design._rules import RULES, Rule

__all__ = [
    "RULES",
    "CheckConfig",
    "CheckReport",
    "CostError",
    "CostReport",
    "DesignDocs",
    "Finding",
    "Prices",
    "Rule",
    "SampleError",
    "Traffic",
    "check",
    "design_cost",
    "design_docs",
    "load_config",
    "load_prices",
    "load_traffic",
    "write_docs",
]
