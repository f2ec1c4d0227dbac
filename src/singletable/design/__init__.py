"""Design tooling: check, document, price and export a single-table design from its declaration.

Every tool reads a design through the modeling layer's introspection (``Table.describe()``), loaded by
name as the data tools do (``myapp.design``, ``myapp.design:TABLE`` or a ``.py`` path). docs/design-tools.md
documents each one.

- ``export_design``: a design as CloudFormation (YAML), Terraform (HCL), an AWS CDK app (Python) or a NoSQL
  Workbench model (JSON), the text ``singletable export --format ...`` writes.
- ``to_cloudformation``, ``cloudformation_template``, ``to_terraform``, ``to_cdk``, ``workbench_model``: the
  same from a ``Table`` object (the template and the model also as dicts).
- ``import_workbench``: a NoSQL Workbench model back into a Python design module (its source text).
- ``sample_items``: a design module's sample items (``SAMPLE_ITEMS``, or its sibling ``sample`` module run).
- ``diff_table``: a design against a live table, as a list of ``Difference``s (empty when they match).
- ``DesignExportError``, ``WorkbenchError``, ``WorkbenchWarning``: what a design a format cannot say, a
  model that cannot be read, and an approximation raise or warn.
"""

from singletable.design._cdk import to_cdk
from singletable.design._cloudformation import cloudformation_template, to_cloudformation
from singletable.design._diff import Difference, diff_table
from singletable.design._export import export_design, import_workbench
from singletable.design._infra import DesignExportError
from singletable.design._samples import sample_items
from singletable.design._terraform import to_terraform
from singletable.design._workbench import WorkbenchWarning, workbench_model
from singletable.design._workbench_import import WorkbenchError

__all__ = [
    "DesignExportError",
    "Difference",
    "WorkbenchError",
    "WorkbenchWarning",
    "cloudformation_template",
    "diff_table",
    "export_design",
    "import_workbench",
    "sample_items",
    "to_cdk",
    "to_cloudformation",
    "to_terraform",
    "workbench_model",
]
