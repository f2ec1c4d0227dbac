"""A design as a CloudFormation template (YAML): one ``AWS::DynamoDB::Table``, its name as stack parameters.

The template is built as plain data first (:func:`cloudformation_template`, also what the CDK export is
compared with) and written as YAML by a small emitter of our own: the template holds only mappings, lists,
strings, numbers and booleans, and every string that YAML could read as something else (a number, a date,
``yes``) is double-quoted with YAML's escapes, so no YAML library is needed at run time (a hypothesis test
reads arbitrary documents back through PyYAML).
"""

from __future__ import annotations

import re
from typing import Any

from singletable.design._infra import TableSpec, table_spec

# Unquoted only when YAML reads the text back as itself: never ending in ":" ("Patterns:" would be a key).
_PLAIN = re.compile(r"[A-Za-z_/](?:[A-Za-z0-9_./:-]*[A-Za-z0-9_./-])?")
_YAML_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"}


def cloudformation_template(table: Any) -> dict[str, Any]:
    """The CloudFormation template of ``table`` as a dict (what :func:`to_cloudformation` writes)."""
    spec = table_spec(table)
    template: dict[str, Any] = {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Description": f"DynamoDB table {spec.resolved_name}, exported by singletable from its design",
    }
    names = spec.name.parameter_names()
    if spec.name.variables:
        template["Parameters"] = {
            names[variable]: {
                "Type": "String",
                "Default": default,
                "Description": spec.name.describe_variable(variable),
            }
            for variable, default in spec.name.variables
        }
    resource = {
        "Type": "AWS::DynamoDB::Table",
        "DeletionPolicy": "Retain",  # a table holds data: deleting the stack must not delete it
        "UpdateReplacePolicy": "Retain",
        "Properties": table_properties(spec),
    }
    template["Resources"] = {spec.logical_id: resource}
    outputs = {
        "TableName": {"Value": {"Ref": spec.logical_id}},
        "TableArn": {"Value": {"Fn::GetAtt": [spec.logical_id, "Arn"]}},
    }
    if "StreamSpecification" in spec.params:
        outputs["StreamArn"] = {"Value": {"Fn::GetAtt": [spec.logical_id, "StreamArn"]}}
    template["Outputs"] = outputs
    return template


def table_properties(spec: TableSpec) -> dict[str, Any]:
    """``AWS::DynamoDB::Table``'s Properties: CreateTable's request in CloudFormation's spelling."""
    params = spec.params
    properties: dict[str, Any] = {"TableName": _name_value(spec), "BillingMode": params["BillingMode"]}
    properties["AttributeDefinitions"] = params["AttributeDefinitions"]
    properties["KeySchema"] = params["KeySchema"]
    if "ProvisionedThroughput" in params:
        properties["ProvisionedThroughput"] = params["ProvisionedThroughput"]
    for key in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes", "VectorIndexes"):
        if key in params:
            properties[key] = params[key]
    if "StreamSpecification" in params:  # CloudFormation has no StreamEnabled: the view type turns it on
        properties["StreamSpecification"] = {
            "StreamViewType": params["StreamSpecification"]["StreamViewType"]
        }
    if spec.ttl_attribute:
        properties["TimeToLiveSpecification"] = {"AttributeName": spec.ttl_attribute, "Enabled": True}
    return properties


def _name_value(spec: TableSpec) -> Any:
    if spec.name.literal is not None:
        return spec.name.literal
    text = spec.name.cloudformation_template()
    whole = re.fullmatch(r"\$\{([A-Za-z0-9]+)\}", text)
    return {"Ref": whole[1]} if whole else {"Fn::Sub": text}


def to_cloudformation(table: Any) -> str:
    """``table`` (a :class:`singletable.model.Table`) as a CloudFormation template in YAML."""
    return yaml_text(cloudformation_template(table))


def yaml_text(document: dict[str, Any]) -> str:
    """A mapping of mappings, lists, strings, integers and booleans as block YAML."""
    return "\n".join(_yaml(document, 0)) + "\n" if document else "{}\n"


def _yaml(value: Any, indent: int) -> list[str]:
    pad = " " * indent
    if isinstance(value, dict):
        lines = []
        for key, item in value.items():
            if _is_block(item):
                lines.append(f"{pad}{_scalar(key)}:")
                lines += _yaml(item, indent + 2)
            else:
                lines.append(f"{pad}{_scalar(key)}: {_scalar(item)}")
        return lines
    lines = []
    for item in value:
        if _is_block(item):
            nested = _yaml(item, indent + 2)
            lines.append(f"{pad}- {nested[0].lstrip()}")
            lines += nested[1:]
        else:
            lines.append(f"{pad}- {_scalar(item)}")
    return lines


def _is_block(value: Any) -> bool:
    return isinstance(value, dict | list) and bool(value)


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if value is None:
        return "null"
    if isinstance(value, dict | list):
        return "{}" if isinstance(value, dict) else "[]"
    text = str(value)
    if _PLAIN.fullmatch(text) and text.lower() not in _YAML_WORDS:
        return text
    return '"' + "".join(_escaped(c) for c in text) + '"'


def _escaped(char: str) -> str:
    """One character of a YAML double-quoted scalar: printable ASCII as is, the rest escaped (YAML folds
    raw line separators, and reads ``\\U`` -- not a surrogate pair -- for characters past U+FFFF)."""
    if char in '"\\':
        return "\\" + char
    if " " <= char <= "~":
        return char
    code = ord(char)
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
