"""Tables and seed data from where users already declare them, as CreateTable requests and imports.

:func:`table_definitions` reads one source -- a CloudFormation / SAM template (YAML or JSON), a Terraform
file (``.tf``), a DescribeTable JSON (or a list of them), or a design module (``myapp.design``,
``MODULE:TABLE``, a ``.py`` path) -- and returns the CreateTable parameters of every table it declares.
:func:`seed` loads JSON Lines (DynamoDB JSON, one item per line) or a DynamoDB export-to-S3 directory into a
table with ``singletable.data``'s import. A source that cannot be read is one :class:`SourceError` naming
the file and what is wrong.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from singletable._extras import require

CFN_TABLE_TYPES = ("AWS::DynamoDB::Table", "AWS::DynamoDB::GlobalTable")
SAM_SIMPLE_TABLE = "AWS::Serverless::SimpleTable"
# What a template's pseudo parameters stand for under the mock.
PSEUDO_PARAMETERS = {
    "AWS::Region": "us-east-1",
    "AWS::AccountId": "123456789012",
    "AWS::Partition": "aws",
    "AWS::URLSuffix": "amazonaws.com",
    "AWS::NoValue": None,
}
_TF_INTERPOLATION = re.compile(r"\$\{\s*([^}]*?)\s*\}")


class SourceError(ValueError):
    """A table or seed source that cannot be used: ``str()`` names the file and the reason."""


def table_definitions(source: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The CreateTable parameters of every table ``source`` declares (see the module docstring)."""
    text_source = os.fspath(source)
    suffix = Path(text_source).suffix.lower()
    if suffix == ".tf":
        return _from_terraform(_read(text_source), text_source)
    if suffix in (".yaml", ".yml", ".json", ".template"):
        document = _load_document(text_source)
        if isinstance(document, dict) and "Resources" in document:
            return _from_cloudformation(document, text_source)
        return _from_describe(document, text_source)
    from singletable._designs import DesignError, load_design

    try:
        loaded = load_design(text_source, option="singletable_design")
    except DesignError as error:
        raise SourceError(str(error)) from None
    return [loaded.table.create_table_params()]


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise SourceError(f"{path}: cannot read: {error.strerror or error}") from None


def _load_document(path: str) -> Any:
    text = _read(path)
    if path.lower().endswith(".json"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as error:
            raise SourceError(f"{path}:{error.lineno}: not JSON: {error.msg}") from None
    require("testing", ("yaml",), "a CloudFormation YAML template")
    import yaml

    class _Loader(yaml.SafeLoader):
        """SafeLoader that reads CloudFormation's short forms (``!Ref x``) as their long forms."""

    def _short_form(loader: Any, tag_suffix: str, node: Any) -> Any:
        name = "Ref" if tag_suffix == "Ref" else f"Fn::{tag_suffix}"
        if isinstance(node, yaml.ScalarNode):
            value: Any = loader.construct_scalar(node)
            if name == "Fn::GetAtt" and isinstance(value, str):
                value = value.split(".", 1)
        elif isinstance(node, yaml.SequenceNode):
            value = loader.construct_sequence(node, deep=True)
        else:
            value = loader.construct_mapping(node, deep=True)
        return {name: value}

    _Loader.add_multi_constructor("!", _short_form)
    try:
        return yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else path
        raise SourceError(f"{where}: not YAML: {getattr(error, 'problem', error)}") from None


# -- CloudFormation / SAM ------------------------------------------------------------------------------------


class _Template:
    """Resolves the intrinsic functions a table's properties use: Ref, Sub, Join, Select, If-free subset."""

    def __init__(self, document: dict[str, Any], path: str) -> None:
        self.path = path
        self.values: dict[str, Any] = dict(PSEUDO_PARAMETERS)
        self.values["AWS::StackName"] = Path(path).stem
        for name, spec in (document.get("Parameters") or {}).items():
            if isinstance(spec, dict) and "Default" in spec:
                self.values[name] = spec["Default"]
        self.resources: dict[str, Any] = document.get("Resources") or {}

    def resolve(self, value: Any, where: str) -> Any:
        if isinstance(value, list):
            return [self.resolve(v, where) for v in value]
        if not isinstance(value, dict):
            return value
        if len(value) == 1:
            ((key, argument),) = value.items()
            if key == "Ref":
                return self._ref(argument, where)
            if key == "Fn::Sub":
                return self._sub(argument, where)
            if key == "Fn::Join":
                separator, parts = argument
                return str(separator).join(str(self.resolve(p, where)) for p in self.resolve(parts, where))
            if key == "Fn::Select":
                index, items = argument
                return self.resolve(items, where)[int(self.resolve(index, where))]
        return {k: self.resolve(v, where) for k, v in value.items()}

    def _ref(self, name: str, where: str) -> Any:
        if name in self.values:
            return self.values[name]
        resource = self.resources.get(name)
        if isinstance(resource, dict) and resource.get("Type") in (*CFN_TABLE_TYPES, SAM_SIMPLE_TABLE):
            return self._table_name(name, resource)
        raise SourceError(f"{self.path}: {where}: !Ref {name} names no parameter with a Default")

    def _sub(self, argument: Any, where: str) -> str:
        if isinstance(argument, list):
            text, variables = argument[0], {k: self.resolve(v, where) for k, v in argument[1].items()}
        else:
            text, variables = argument, {}

        def fill(match: re.Match[str]) -> str:
            name = match.group(1)
            if name.startswith("!"):
                return "${" + name[1:] + "}"
            if name in variables:
                return str(variables[name])
            return str(self._ref(name, where))

        return re.sub(r"\$\{([^}]+)\}", fill, text)

    def _table_name(self, logical_id: str, resource: dict[str, Any]) -> str:
        props = resource.get("Properties") or {}
        name = props.get("TableName")
        if name is None:  # CloudFormation names it STACK-LOGICALID-RANDOM; ours is stable
            return f"{self.values['AWS::StackName']}-{logical_id}"
        return str(self.resolve(name, f"{logical_id}.TableName"))


def _from_cloudformation(document: dict[str, Any], path: str) -> list[dict[str, Any]]:
    template = _Template(document, path)
    tables = []
    for logical_id, resource in template.resources.items():
        if not isinstance(resource, dict):
            continue
        kind = resource.get("Type")
        if kind in (*CFN_TABLE_TYPES, SAM_SIMPLE_TABLE):
            with _malformed(f"{path}: {logical_id}"):
                props = template.resolve(resource.get("Properties") or {}, logical_id)
                name = template._table_name(logical_id, resource)
                tables.append(
                    _cfn_table(name, props) if kind != SAM_SIMPLE_TABLE else _simple_table(name, props)
                )
    if not tables:
        raise SourceError(f"{path}: declares no AWS::DynamoDB::Table, GlobalTable or Serverless::SimpleTable")
    return tables


@contextmanager
def _malformed(where: str) -> Iterator[None]:
    """A declaration missing what a table needs (or of the wrong shape), as one SourceError naming it."""
    try:
        yield
    except SourceError:
        raise
    except KeyError as error:
        raise SourceError(f"{where}: missing {error.args[0]}") from None
    except (TypeError, ValueError, IndexError, AttributeError) as error:
        raise SourceError(f"{where}: not a table declaration this can read ({error})") from None


def _simple_table(name: str, props: dict[str, Any]) -> dict[str, Any]:
    key = props.get("PrimaryKey") or {"Name": "id", "Type": "String"}
    kind_of = {"String": "S", "Number": "N", "Binary": "B"}[key.get("Type", "String")]
    return {
        "TableName": name,
        "KeySchema": [{"AttributeName": key["Name"], "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": key["Name"], "AttributeType": kind_of}],
        "BillingMode": "PAY_PER_REQUEST",
    }


def _cfn_table(name: str, props: dict[str, Any]) -> dict[str, Any]:
    params: dict[str, Any] = {
        "TableName": name,
        "KeySchema": props["KeySchema"],
        "AttributeDefinitions": props["AttributeDefinitions"],
    }
    throughput = props.get("ProvisionedThroughput")
    billing = props.get("BillingMode") or ("PROVISIONED" if throughput else "PAY_PER_REQUEST")
    params["BillingMode"] = billing
    if billing == "PROVISIONED" and throughput:
        params["ProvisionedThroughput"] = _throughput(throughput)
    for key in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        indexes = props.get(key)
        if indexes:
            params[key] = [_index(i, billing) for i in indexes]
    stream = props.get("StreamSpecification")
    if stream and stream.get("StreamViewType"):
        params["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": stream["StreamViewType"]}
    ttl = props.get("TimeToLiveSpecification")
    if ttl and ttl.get("Enabled") in (True, "true", "True"):
        params["_ttl"] = ttl["AttributeName"]
    return params


def _throughput(value: dict[str, Any]) -> dict[str, int]:
    return {k: int(value[k]) for k in ("ReadCapacityUnits", "WriteCapacityUnits") if k in value}


def _index(index: dict[str, Any], billing: str) -> dict[str, Any]:
    out = {
        "IndexName": index["IndexName"],
        "KeySchema": index["KeySchema"],
        "Projection": index["Projection"],
    }
    if billing == "PROVISIONED" and index.get("ProvisionedThroughput"):
        out["ProvisionedThroughput"] = _throughput(index["ProvisionedThroughput"])
    return out


# -- Terraform ----------------------------------------------------------------------------------------------


def _from_terraform(text: str, path: str) -> list[dict[str, Any]]:
    require("testing", ("hcl2",), "a Terraform table source")
    import hcl2

    try:
        document = hcl2.loads(text)
    except Exception as error:  # python-hcl2's parser errors have no common base class
        raise SourceError(f"{path}: not Terraform (HCL): {str(error).splitlines()[0]}") from None
    variables: dict[str, Any] = {}
    for block in document.get("variable", []):
        for name, spec in block.items():
            if isinstance(spec, dict) and "default" in spec:
                variables[_unquote(name)] = _unquote(spec["default"])
    local_values: dict[str, Any] = {}
    for block in document.get("locals", []):
        local_values.update({k: _unquote(v) for k, v in block.items() if not k.startswith("__")})
    tables = []
    for block in document.get("resource", []):
        for kind, named in block.items():
            if _unquote(kind) != "aws_dynamodb_table":
                continue
            for resource_name, body in named.items():
                where = f"{path}: aws_dynamodb_table.{_unquote(resource_name)}"
                with _malformed(where):
                    tables.append(
                        _tf_table(body, lambda v, w=where: _interpolate(v, variables, local_values, w))
                    )
    if not tables:
        raise SourceError(f"{path}: declares no aws_dynamodb_table resource")
    return tables


def _unquote(value: Any) -> Any:
    """python-hcl2 keeps string literals' quotes (newer versions) or drops them (older): either way, text."""
    if isinstance(value, str) and len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    return value


def _interpolate(value: Any, variables: dict[str, Any], local_values: dict[str, Any], where: str) -> Any:
    value = _unquote(value)
    if not isinstance(value, str):
        return value

    def fill(match: re.Match[str]) -> str:
        reference = match.group(1)
        scope, _, name = reference.partition(".")
        table = {"var": variables, "local": local_values}.get(scope)
        if table is None or name not in table:
            raise SourceError(f"{where}: cannot resolve ${{{reference}}} (no default)")
        return str(table[name])

    if re.fullmatch(r"(?:var|local)\.\w+", value):  # HCL2's bare reference: name = var.table_name
        return _TF_INTERPOLATION.sub(fill, "${" + value + "}")
    return _TF_INTERPOLATION.sub(fill, value)


def _tf_table(body: dict[str, Any], value: Any) -> dict[str, Any]:
    def text(key: str, default: Any = None) -> Any:
        return value(body[key]) if key in body else default

    types = {value(a["name"]): value(a["type"]) for a in body.get("attribute", [])}

    def keys(block: dict[str, Any], hash_key: str = "hash_key", range_key: str = "range_key") -> list[Any]:
        if block.get("key_schema"):  # hashicorp/aws 6.28+: one block per attribute (multi-attribute GSI keys)
            return [
                {"AttributeName": value(k["attribute_name"]), "KeyType": value(k["key_type"])}
                for k in block["key_schema"]
            ]
        schema = [{"AttributeName": value(block[hash_key]), "KeyType": "HASH"}]
        if block.get(range_key):
            schema.append({"AttributeName": value(block[range_key]), "KeyType": "RANGE"})
        return schema

    def projection(block: dict[str, Any]) -> dict[str, Any]:
        kind = value(block.get("projection_type", "ALL"))
        out: dict[str, Any] = {"ProjectionType": kind}
        if kind == "INCLUDE":
            out["NonKeyAttributes"] = [value(a) for a in block.get("non_key_attributes", [])]
        return out

    billing = text("billing_mode", "PROVISIONED")
    params: dict[str, Any] = {
        "TableName": text("name"),
        "KeySchema": keys(body),
        "AttributeDefinitions": [{"AttributeName": k, "AttributeType": t} for k, t in types.items()],
        "BillingMode": billing,
    }
    if billing == "PROVISIONED":
        params["ProvisionedThroughput"] = {
            "ReadCapacityUnits": int(text("read_capacity", 1)),
            "WriteCapacityUnits": int(text("write_capacity", 1)),
        }
    gsis = [
        {"IndexName": value(g["name"]), "KeySchema": keys(g), "Projection": projection(g)}
        | (
            {
                "ProvisionedThroughput": {
                    "ReadCapacityUnits": int(value(g.get("read_capacity", 1))),
                    "WriteCapacityUnits": int(value(g.get("write_capacity", 1))),
                }
            }
            if billing == "PROVISIONED"
            else {}
        )
        for g in body.get("global_secondary_index", [])
    ]
    if gsis:
        params["GlobalSecondaryIndexes"] = gsis
    lsis = [
        {
            "IndexName": value(i["name"]),
            "KeySchema": [
                params["KeySchema"][0],
                {"AttributeName": value(i["range_key"]), "KeyType": "RANGE"},
            ],
            "Projection": projection(i),
        }
        for i in body.get("local_secondary_index", [])
    ]
    if lsis:
        params["LocalSecondaryIndexes"] = lsis
    if body.get("stream_enabled") in (True, "true") and body.get("stream_view_type"):
        params["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": text("stream_view_type")}
    for ttl in body.get("ttl", []):
        if ttl.get("enabled") in (True, "true", None) and ttl.get("attribute_name"):
            params["_ttl"] = value(ttl["attribute_name"])
    return params


# -- DescribeTable JSON --------------------------------------------------------------------------------


def _from_describe(document: Any, path: str) -> list[dict[str, Any]]:
    descriptions = document if isinstance(document, list) else [document]
    tables = []
    for description in descriptions:
        with _malformed(path):
            tables.append(_described_table(description, path))
    if not tables:
        raise SourceError(f"{path}: an empty list of tables")
    return tables


def _described_table(description: Any, path: str) -> dict[str, Any]:
    table = description.get("Table", description) if isinstance(description, dict) else None
    if not isinstance(table, dict) or "TableName" not in table or "KeySchema" not in table:
        raise SourceError(
            f"{path}: neither a CloudFormation template (no Resources) nor DescribeTable output "
            "(no Table with TableName and KeySchema)"
        )
    billing = (table.get("BillingModeSummary") or {}).get("BillingMode", "PROVISIONED")
    params: dict[str, Any] = {
        "TableName": table["TableName"],
        "KeySchema": table["KeySchema"],
        "AttributeDefinitions": table["AttributeDefinitions"],
        "BillingMode": billing,
    }
    if billing == "PROVISIONED":
        params["ProvisionedThroughput"] = _throughput(
            table.get("ProvisionedThroughput") or {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}
        )
    for key in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        if table.get(key):
            params[key] = [_index(i, billing) for i in table[key]]
    stream = table.get("StreamSpecification")
    if stream and stream.get("StreamEnabled"):
        params["StreamSpecification"] = stream
    return params


# -- creating and seeding ---------------------------------------------------------------------------------


def create_tables(engine: Any, definitions: list[dict[str, Any]]) -> None:
    """Create each table on ``engine`` (and turn on the TTL a template declares); a table DynamoDB would
    refuse is a :class:`SourceError` with DynamoDB's error."""
    from singletable.engine import DynamoDBError

    for definition in definitions:
        params = {k: v for k, v in definition.items() if k != "_ttl"}
        try:
            engine.create_table(**params)
            if definition.get("_ttl"):
                engine.update_time_to_live(
                    TableName=params["TableName"],
                    TimeToLiveSpecification={"Enabled": True, "AttributeName": definition["_ttl"]},
                )
        except DynamoDBError as error:
            raise SourceError(f"table {params.get('TableName')!r}: {error.code}: {error.message}") from None


def seed(engine: Any, spec: str, table_names: list[str]) -> int:
    """Load ``spec`` -- ``TABLE=PATH``, or ``PATH`` when there is one table -- into the engine's table:
    a directory is a DynamoDB export-to-S3 layout, a file is JSON Lines of DynamoDB JSON items. Returns the
    items loaded."""
    from singletable.data import Target, TransferError, import_table

    table, sep, path = spec.partition("=")
    if not sep:
        if len(table_names) != 1:
            raise SourceError(
                f"seed {spec}: name its table (TABLE=PATH): the tables are {', '.join(table_names)}"
            )
        table, path = table_names[0], spec
    table, path = table.strip(), path.strip()
    if table not in table_names:
        raise SourceError(f"seed {spec}: no table {table} (the tables are {', '.join(table_names)})")
    if not os.path.exists(path):
        raise SourceError(f"seed {spec}: no such file or directory: {path}")
    fmt = "dynamodb" if os.path.isdir(path) else "jsonl"
    with tempfile.TemporaryDirectory() as scratch:
        try:
            summary = import_table(
                Target(path, engine=engine),
                table,
                path,
                format=fmt,
                checkpoint=os.path.join(scratch, "checkpoint.json"),
            )
        except (TransferError, ValueError, OSError) as error:
            raise SourceError(f"seed {spec}: {error}") from None
    return summary.items
