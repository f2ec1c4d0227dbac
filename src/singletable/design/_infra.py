"""What every infrastructure export shares: the table's CreateTable request, its name, its TTL attribute.

CloudFormation, Terraform and the CDK all describe the same resource; they differ in spelling only. This
module reads a :class:`~singletable.model.Table` once into a :class:`TableSpec` -- the CreateTable request
the runtime itself sends (``Table.create_table_params``), the table name as a literal or as variables a
deployment fills (a name read from the environment becomes a stack parameter or a Terraform variable), and
the one TTL attribute -- so the three renderers cannot disagree about what the table is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


class DesignExportError(ValueError):
    """A design the chosen format cannot express (say, two TTL attributes), with what to change."""


_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class TableName:
    """The table's name: ``literal``, or ``template`` (``${Var}`` placeholders) over ``variables``.

    ``env("DYNAMODB_TABLE", "WavyBlog")`` is the template ``${DYNAMODB_TABLE}`` with one variable;
    ``env("${StackName}-${Environment}-blog", ...)`` keeps its own template.
    """

    literal: str | None
    template: str = ""
    variables: tuple[tuple[str, str], ...] = ()  # (name, default), in order of first use

    @property
    def whole(self) -> bool:
        """Whether one variable is the whole name (``env("DYNAMODB_TABLE", ...)``)."""
        return len(self.variables) == 1 and self.template == "${" + self.variables[0][0] + "}"

    def parameter_names(self) -> dict[str, str]:
        """Each variable's parameter name (alphanumeric, PascalCase); ``TableName`` for a whole name."""
        if self.whole:
            return {self.variables[0][0]: "TableName"}
        return {name: pascal(name) for name, _ in self.variables}

    def variable_names(self) -> dict[str, str]:
        """Each variable's Terraform variable name (snake_case); ``table_name`` for a whole name."""
        if self.whole:
            return {self.variables[0][0]: "table_name"}
        return {name: snake(name) for name, _ in self.variables}

    def describe_variable(self, variable: str) -> str:
        """What a parameter is, in words (no ``${...}``: CloudFormation would read it as a reference)."""
        if self.whole:
            return f"The table name; the design reads it from the environment variable {variable}"
        shown = _VARIABLE.sub(lambda m: m[1], self.template)
        return f"{variable} in the table name {shown}; the design reads it from the environment"

    def cloudformation_template(self) -> str:
        names = self.parameter_names()
        return _VARIABLE.sub(lambda m: "${" + names[m[1]] + "}", self.template)


def pascal(name: str) -> str:
    """``DYNAMO_TABLE_NAME`` -> ``DynamoTableName``; ``StackName`` stays; ``fus-main`` -> ``FusMain``."""
    parts = [p for p in re.split(r"[^A-Za-z0-9]+", name) if p]
    if len(parts) == 1 and not parts[0].isupper():
        return parts[0][:1].upper() + parts[0][1:]
    return "".join(p[:1].upper() + p[1:].lower() for p in parts) or "Table"


def snake(name: str) -> str:
    """``DYNAMO_TABLE_NAME`` -> ``dynamo_table_name``; ``StackName`` -> ``stack_name``."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return re.sub(r"[^A-Za-z0-9]+", "_", spaced).strip("_").lower() or "table"


@dataclass(frozen=True)
class TableSpec:
    """One table as every infrastructure format needs it."""

    name: TableName
    resolved_name: str
    params: dict[str, Any]  # CreateTable's request (TableName is the resolved name)
    ttl_attribute: str | None

    @property
    def logical_id(self) -> str:
        """The resource's id in a template: ``WavyBlogTable`` (never a parameter's name)."""
        base = pascal(self.resolved_name)
        base = base if base.endswith("Table") else base + "Table"
        return base + "Resource" if base in self.name.parameter_names().values() else base

    @property
    def provisioned(self) -> bool:
        return self.params["BillingMode"] == "PROVISIONED"


def table_spec(table: Any) -> TableSpec:
    """Read ``table`` (a :class:`singletable.model.Table`) into a :class:`TableSpec`."""
    params = table.create_table_params()
    return TableSpec(_name(table), table.resolved_name(), params, table.resolved_ttl_attribute())


def _name(table: Any) -> TableName:
    name = table.name
    if isinstance(name, str):
        return TableName(name)
    defaults = dict(name.defaults)
    if "${" not in name.text:
        return TableName(None, "${" + name.text + "}", ((name.text, defaults.get(name.text, "")),))
    used = list(dict.fromkeys(_VARIABLE.findall(name.text)))
    return TableName(None, name.text, tuple((v, defaults.get(v, "")) for v in used))


def secondary_indexes(spec: TableSpec) -> list[tuple[str, dict[str, Any]]]:
    """(kind, index) for every GSI (``"global"``) then LSI (``"local"``) of the CreateTable request."""
    params = spec.params
    return [("global", i) for i in params.get("GlobalSecondaryIndexes", [])] + [
        ("local", i) for i in params.get("LocalSecondaryIndexes", [])
    ]


def multi_attribute(key_schema: list[dict[str, str]]) -> bool:
    """Whether a KeySchema keys on several partition or several sort attributes (a GSI's, up to 4 each)."""
    kinds = [k["KeyType"] for k in key_schema]
    return kinds.count("HASH") > 1 or kinds.count("RANGE") > 1


def key_names(key_schema: list[dict[str, str]]) -> tuple[str, str | None]:
    """(hash key, range key or None) of a KeySchema: the first of each (see :func:`multi_attribute`)."""
    hash_key = next(k["AttributeName"] for k in key_schema if k["KeyType"] == "HASH")
    range_key = next((k["AttributeName"] for k in key_schema if k["KeyType"] == "RANGE"), None)
    return hash_key, range_key
