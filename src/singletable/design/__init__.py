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
- ``export_design``: a design as CloudFormation (YAML), Terraform (HCL), an AWS CDK app (Python) or a NoSQL
  Workbench model (JSON), the text ``singletable synth --format ...`` writes; ``to_cloudformation``,
  ``cloudformation_template``, ``to_terraform``, ``to_cdk``, ``workbench_model``: the same from a ``Table``
- ``import_workbench``: a NoSQL Workbench model back into a Python design module (its source text)
- ``sample_items``: a design module's sample items (``SAMPLE_ITEMS``, or its sibling ``sample`` module run)
- ``infer(target, table, sample=1000)`` -> ``InferredDesign``: a design inferred from a live table's items;
  its ``source`` is the design module, every guess commented with its evidence; ``infer_items`` the same
  from a DescribeTable answer and items in hand; ``InferError``
- ``diff_table``: a design against a live table, as a list of ``Difference``s (empty when they match)
- ``DesignExportError``, ``WorkbenchError``, ``WorkbenchWarning``: what a design a format cannot say, a model
  that cannot be read, and an approximation raise or warn
"""

from singletable._extras import MissingExtra, missing

if missing(("pydantic",)):
    raise MissingExtra("model", "singletable.design")

from singletable.design._cdk import to_cdk
from singletable.design._check import check
from singletable.design._cloudformation import cloudformation_template, to_cloudformation
from singletable.design._config import load_config
from singletable.design._cost import CostReport, design_cost
from singletable.design._cost_inputs import CostError, Prices, Traffic, load_prices, load_traffic
from singletable.design._diff import Difference, diff_table
from singletable.design._docs import DesignDocs, design_docs, write_docs
from singletable.design._export import export_design, import_workbench
from singletable.design._findings import CheckConfig, CheckReport, Finding
from singletable.design._infer import InferError, InferredDesign, infer, infer_items
from singletable.design._infra import DesignExportError
from singletable.design._items import SampleError, sample_items
from singletable.design._rules import RULES, Rule
from singletable.design._terraform import to_terraform
from singletable.design._workbench import WorkbenchWarning, workbench_model
from singletable.design._workbench_import import WorkbenchError

__all__ = [
    "RULES",
    "CheckConfig",
    "CheckReport",
    "CostError",
    "CostReport",
    "DesignDocs",
    "DesignExportError",
    "Difference",
    "Finding",
    "InferError",
    "InferredDesign",
    "Prices",
    "Rule",
    "SampleError",
    "Traffic",
    "WorkbenchError",
    "WorkbenchWarning",
    "check",
    "cloudformation_template",
    "design_cost",
    "design_docs",
    "diff_table",
    "export_design",
    "import_workbench",
    "infer",
    "infer_items",
    "load_config",
    "load_prices",
    "load_traffic",
    "sample_items",
    "to_cdk",
    "to_cloudformation",
    "to_terraform",
    "workbench_model",
    "write_docs",
]
