"""A design as Terraform: one ``aws_dynamodb_table`` resource (HCL), its name from variables.

The text is written the way ``terraform fmt`` writes it (two-space indents, the ``=`` of consecutive
arguments aligned, blocks separated by blank lines), so a repository that runs ``terraform fmt -check``
accepts the file as exported. A name the design reads from the environment becomes a ``variable`` with the
design's default; ``lifecycle { prevent_destroy = true }`` plays the part of CloudFormation's Retain.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from singletable.design._infra import (
    DesignExportError,
    TableSpec,
    key_names,
    multi_attribute,
    secondary_indexes,
    snake,
    table_spec,
)


@dataclass
class _Block:
    """An HCL block: ``type "label" { ... }``; ``body`` holds (name, expression) pairs, blocks and None
    (a blank line)."""

    type: str
    labels: tuple[str, ...] = ()
    body: list[Any] = field(default_factory=list)

    def lines(self, indent: int = 0) -> list[str]:
        pad = " " * indent
        head = " ".join([self.type, *(_string(label) for label in self.labels)])
        out = [f"{pad}{head} {{"]
        group: list[tuple[str, str]] = []
        for item in [*self.body, None]:
            if isinstance(item, tuple):
                group.append(item)
                continue
            width = max((len(name) for name, _ in group), default=0)
            out += [f"{pad}  {name.ljust(width)} = {value}" for name, value in group]
            group = []
            if isinstance(item, _Block):
                if len(out) > 1 and out[-1] != "":
                    out.append("")
                out += item.lines(indent + 2)
        while out[-1] == "":
            out.pop()
        out.append(f"{pad}}}")
        return out


def _string(text: str) -> str:
    """An HCL quoted string: JSON's escapes, and ``${``/``%{`` doubled so they stay literal."""
    return json.dumps(text, ensure_ascii=False).replace("${", "$${").replace("%{", "%%{")


def _strings(values: list[str]) -> str:
    return "[" + ", ".join(_string(v) for v in values) + "]"


def to_terraform(table: Any) -> str:
    """``table`` (a :class:`singletable.model.Table`) as Terraform HCL: provider requirement, variables for
    a name read from the environment, the ``aws_dynamodb_table`` and its name and ARN as outputs."""
    spec = table_spec(table)
    if "VectorIndexes" in spec.params:
        vector_names = ", ".join(i["IndexName"] for i in spec.params["VectorIndexes"])
        raise DesignExportError(
            f"Terraform cannot express this design: the aws_dynamodb_table resource documents no vector "
            f"index block, and the design declares vector index(es) {vector_names}; export CloudFormation or "
            "the CDK (both document VectorIndexes), or add the index after `terraform apply` with "
            "UpdateTable's VectorIndexUpdates"
        )
    label = _label(spec.resolved_name)
    # Multi-attribute index keys need the provider's key_schema blocks (hashicorp/aws 6.28 and later).
    needs = any(multi_attribute(i["KeySchema"]) for _, i in secondary_indexes(spec))
    provider = (
        '{ source = "hashicorp/aws", version = ">= 6.28" }' if needs else '{ source = "hashicorp/aws" }'
    )
    blocks = [_Block("terraform", body=[_Block("required_providers", body=[("aws", provider)])])]
    names = spec.name.variable_names()
    for variable, default in spec.name.variables:
        body = [
            ("description", _string(spec.name.describe_variable(variable))),
            ("type", "string"),
            ("default", _string(default)),
        ]
        blocks.append(_Block("variable", (names[variable],), body))
    blocks.append(_Block("resource", ("aws_dynamodb_table", label), _table_body(spec)))
    reference = f"aws_dynamodb_table.{label}"
    blocks.append(_Block("output", ("table_name",), [("value", f"{reference}.name")]))
    blocks.append(_Block("output", ("table_arn",), [("value", f"{reference}.arn")]))
    if "StreamSpecification" in spec.params:
        blocks.append(_Block("output", ("stream_arn",), [("value", f"{reference}.stream_arn")]))
    header = f"# DynamoDB table {spec.resolved_name}, exported by singletable from its design.\n\n"
    return header + "\n\n".join("\n".join(b.lines()) for b in blocks) + "\n"


def _label(name: str) -> str:
    label = snake(name)
    return label if label[:1].isalpha() else "table_" + label


def _name_expression(spec: TableSpec) -> str:
    if spec.name.literal is not None:
        return _string(spec.name.literal)
    names = spec.name.variable_names()
    if spec.name.whole:
        return "var." + names[spec.name.variables[0][0]]
    parts = re.split(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", spec.name.template)
    text = "".join(
        "${var." + names[part] + "}" if i % 2 else _string(part)[1:-1] for i, part in enumerate(parts)
    )
    return f'"{text}"'


def _table_body(spec: TableSpec) -> list[Any]:
    params = spec.params
    hash_key, range_key = key_names(params["KeySchema"])
    body: list[Any] = [("name", _name_expression(spec)), ("billing_mode", _string(params["BillingMode"]))]
    body += _capacity(params.get("ProvisionedThroughput"))
    body.append(("hash_key", _string(hash_key)))
    if range_key:
        body.append(("range_key", _string(range_key)))
    if "StreamSpecification" in params:
        body.append(("stream_enabled", "true"))
        body.append(("stream_view_type", _string(params["StreamSpecification"]["StreamViewType"])))
    for attribute in params["AttributeDefinitions"]:
        body.append(
            _Block(
                "attribute",
                body=[
                    ("name", _string(attribute["AttributeName"])),
                    ("type", _string(attribute["AttributeType"])),
                ],
            )
        )
    for kind, index in secondary_indexes(spec):
        body.append(_index_block(kind, index))
    if spec.ttl_attribute:
        body.append(
            _Block("ttl", body=[("attribute_name", _string(spec.ttl_attribute)), ("enabled", "true")])
        )
    body.append(_Block("lifecycle", body=[("prevent_destroy", "true")]))
    return body


def _capacity(throughput: dict[str, int] | None) -> list[tuple[str, str]]:
    if not throughput:
        return []
    return [
        ("read_capacity", str(throughput["ReadCapacityUnits"])),
        ("write_capacity", str(throughput["WriteCapacityUnits"])),
    ]


def _index_block(kind: str, index: dict[str, Any]) -> _Block:
    hash_key, range_key = key_names(index["KeySchema"])
    body: list[Any] = [("name", _string(index["IndexName"]))]
    if multi_attribute(index["KeySchema"]):
        body += _key_schema_blocks(index["KeySchema"])
    else:
        if kind == "global":
            body.append(("hash_key", _string(hash_key)))
        if range_key:
            body.append(("range_key", _string(range_key)))
    projection = index["Projection"]
    body.append(("projection_type", _string(projection["ProjectionType"])))
    if projection.get("NonKeyAttributes"):
        body.append(("non_key_attributes", _strings(projection["NonKeyAttributes"])))
    body += _capacity(index.get("ProvisionedThroughput"))
    blocks = [item for item in body if isinstance(item, _Block)]  # terraform fmt: arguments, then blocks
    return _Block(f"{kind}_secondary_index", body=[i for i in body if not isinstance(i, _Block)] + blocks)


def _key_schema_blocks(key_schema: list[dict[str, str]]) -> list[_Block]:
    """A key of several attributes per part: one ``key_schema`` block per attribute, in KeySchema order
    (the AWS provider's form since 6.28; ``hash_key``/``range_key`` hold one attribute each)."""
    return [
        _Block(
            "key_schema",
            body=[("attribute_name", _string(k["AttributeName"])), ("key_type", _string(k["KeyType"]))],
        )
        for k in key_schema
    ]
