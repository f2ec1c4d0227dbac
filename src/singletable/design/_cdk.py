"""A design as an AWS CDK (v2) app in Python: one stack holding the table as ``dynamodb.CfnTable``.

The app is written from the same properties as the CloudFormation export (``table_properties``), one CDK
property class per CloudFormation property type, so ``cdk synth`` of the app gives the exported template's
table (the tests synthesize it and compare when ``aws-cdk-lib`` is installed). ``CfnTable`` -- the L1
construct -- is chosen over the L2 ``Table`` because it maps every property one to one and keeps the
logical id, so an existing stack can adopt the app without replacing the table.
"""

from __future__ import annotations

from typing import Any

from singletable.design._cloudformation import table_properties
from singletable.design._infra import pascal, snake, table_spec

# CloudFormation list properties whose items are one property type each (the type's name is singular).
_ITEM_TYPES = {
    "AttributeDefinitions": "AttributeDefinition",
    "KeySchema": "KeySchema",
    "GlobalSecondaryIndexes": "GlobalSecondaryIndex",
    "LocalSecondaryIndexes": "LocalSecondaryIndex",
    "VectorIndexes": "VectorIndex",
    "SearchSchema": "SearchSchemaElement",
}


def to_cdk(table: Any) -> str:
    """``table`` (a :class:`singletable.model.Table`) as a CDK app (``python3 app.py`` under ``cdk``)."""
    spec = table_spec(table)
    stack = pascal(spec.resolved_name) + "Stack"
    properties = table_properties(spec)
    del properties["TableName"]
    lines = [
        f'"""DynamoDB table {spec.resolved_name}, exported by singletable from its design: an AWS CDK app.',
        "",
        'Deploy with `cdk deploy --app "python3 THIS_FILE.py"`; the table keeps its data when the stack goes',
        '(RemovalPolicy.RETAIN)."""',
        "",
        "import aws_cdk as cdk",
        "from aws_cdk import aws_dynamodb as dynamodb",
        "",
        "",
        f"class {stack}(cdk.Stack):",
        "    def __init__(self, scope, construct_id, **kwargs):",
        "        super().__init__(scope, construct_id, **kwargs)",
        *_name_lines(spec),
        "        table = dynamodb.CfnTable(",
        "            self,",
        f"            {spec.logical_id!r},",
        "            table_name=table_name,",
    ]
    for name, value in properties.items():
        lines.append(f"            {snake(name)}={_value(name, value, 12)},")
    lines += [
        "        )",
        f"        table.override_logical_id({spec.logical_id!r})",
        "        table.apply_removal_policy(cdk.RemovalPolicy.RETAIN)",
        *_output_lines(spec),
        "",
        "",
        "app = cdk.App()",
        f"{stack}(app, {stack!r}, description={_description(spec)!r})",
        "app.synth()",
    ]
    return "\n".join(lines) + "\n"


def _description(spec: Any) -> str:
    return f"DynamoDB table {spec.resolved_name}, exported by singletable from its design"


def _name_lines(spec: Any) -> list[str]:
    name = spec.name
    if name.literal is not None:
        return [f"        table_name = {name.literal!r}"]
    parameters = name.parameter_names()
    lines = []
    for variable, default in name.variables:
        lines.append(
            f"        {snake(parameters[variable])} = cdk.CfnParameter(self, {parameters[variable]!r}, "
            f'type="String", default={default!r}, description={name.describe_variable(variable)!r})'
        )
    if name.whole:
        lines.append("        table_name = table_name.value_as_string")
    else:
        lines.append(f"        table_name = cdk.Fn.sub({name.cloudformation_template()!r})")
    return lines


def _output_lines(spec: Any) -> list[str]:
    outputs = [("TableName", "table.ref"), ("TableArn", "table.attr_arn")]
    if "StreamSpecification" in spec.params:
        outputs.append(("StreamArn", "table.attr_stream_arn"))
    lines = []
    for name, value in outputs:
        lines.append(f"        output = cdk.CfnOutput(self, {name + 'Output'!r}, value={value})")
        lines.append(f"        output.override_logical_id({name!r})")
    return lines


def _value(name: str, value: Any, indent: int) -> str:
    """Python source for CloudFormation property ``name``'s ``value``, as CDK property classes."""
    if isinstance(value, list):
        item_type = _ITEM_TYPES.get(name)
        if item_type is None:
            return repr(value)
        pad = " " * (indent + 4)
        items = [f"{pad}{_property(item_type, item, indent + 4)}," for item in value]
        return "[\n" + "\n".join(items) + "\n" + " " * indent + "]"
    if isinstance(value, dict):
        return _property(name, value, indent)
    return repr(value)


def _property(type_name: str, value: dict[str, Any], indent: int) -> str:
    arguments = ", ".join(f"{snake(k)}={_value(k, v, indent)}" for k, v in value.items())
    return f"dynamodb.CfnTable.{type_name}Property({arguments})"
