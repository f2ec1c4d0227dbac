"""What export, import and copy need of a table: its description, and creating it from a schema (reading
and counting it are :mod:`._look`'s ``scan_pages`` and ``count``).

A schema for a missing table is either a DescribeTable answer saved as JSON (``{"Table": {...}}`` or the
TableDescription itself: what ``aws dynamodb describe-table`` prints) or a design module -- a Python module
holding one :class:`singletable.model.Table`, whose public ``create_table_params`` gives the request.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from singletable._designs import DesignError, import_design_module  # found as every command finds one
from singletable.data import _look as look
from singletable.data._targets import Target, TargetError

Item = dict[str, Any]
CREATE_WAIT = 120.0  # seconds to wait for a new table to become ACTIVE (DynamoDB takes seconds to minutes)


class TableError(Exception):
    """A table that cannot be used as asked (missing without a schema, a schema that cannot be read)."""


def describe(target: Target, table: str) -> dict[str, Any] | None:
    """The table's TableDescription, or None when it does not exist."""
    try:
        return look.describe(target, table)
    except TargetError as error:
        if error.code == "ResourceNotFoundException":
            return None
        raise


def key_names(description: dict[str, Any]) -> list[str]:
    return [k["AttributeName"] for k in description["KeySchema"]]


def ensure_table(target: Target, table: str, schema: str | dict[str, Any] | None) -> dict[str, Any]:
    """The table's description, creating it from ``schema`` when it does not exist yet."""
    found = describe(target, table)
    if found is not None:
        return found
    if schema is None:
        raise TableError(f"table {table} does not exist in {target.name}: create it first, or give a schema")
    params = create_params(schema, table)
    target.call("CreateTable", **params)
    return wait_active(target, table)


def wait_active(target: Target, table: str, timeout: float = CREATE_WAIT) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        found = describe(target, table)
        if found is not None and found.get("TableStatus", "ACTIVE") == "ACTIVE":
            return found
        if time.monotonic() > deadline:
            raise TableError(f"table {table} in {target.name} is not ACTIVE after {timeout:.0f} s")
        time.sleep(0.2)


def create_params(schema: str | dict[str, Any], table: str) -> dict[str, Any]:
    """CreateTable's request for ``table`` from a DescribeTable JSON (file or dict) or a design module."""
    if isinstance(schema, dict):
        return params_from_description(schema.get("Table", schema), table)
    if schema.endswith(".json") or Path(schema).is_file():
        try:
            data = json.loads(Path(schema).read_text())
        except (OSError, ValueError) as error:
            raise TableError(f"schema {schema}: cannot read it as DescribeTable JSON ({error})") from None
        if not isinstance(data, dict):
            raise TableError(f"schema {schema}: not a DescribeTable answer (a JSON object with Table)")
        return params_from_description(data.get("Table", data), table, origin=schema)
    return params_from_design(schema, table)


def params_from_description(
    description: dict[str, Any], table: str, origin: str = "schema"
) -> dict[str, Any]:
    """CreateTable's request recreating a described table (keys, indexes, billing, stream) as ``table``."""
    if "KeySchema" not in description or "AttributeDefinitions" not in description:
        raise TableError(f"{origin}: a DescribeTable answer needs KeySchema and AttributeDefinitions")
    params: dict[str, Any] = {
        "TableName": table,
        "KeySchema": description["KeySchema"],
        "AttributeDefinitions": description["AttributeDefinitions"],
    }
    billing = description.get("BillingModeSummary", {}).get("BillingMode")
    throughput = description.get("ProvisionedThroughput", {})
    provisioned = billing == "PROVISIONED" or (billing is None and throughput.get("ReadCapacityUnits"))
    if provisioned:
        params["ProvisionedThroughput"] = _throughput(throughput)
    else:
        params["BillingMode"] = "PAY_PER_REQUEST"
    for kind in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        indexes = []
        for index in description.get(kind, []):
            spec = {k: index[k] for k in ("IndexName", "KeySchema", "Projection")}
            if kind == "GlobalSecondaryIndexes" and provisioned:
                spec["ProvisionedThroughput"] = _throughput(index.get("ProvisionedThroughput", {}))
            indexes.append(spec)
        if indexes:
            params[kind] = indexes
    stream = description.get("StreamSpecification")
    if stream and stream.get("StreamEnabled"):
        params["StreamSpecification"] = stream
    return params


def _throughput(throughput: dict[str, Any]) -> dict[str, int]:
    return {
        "ReadCapacityUnits": max(1, int(throughput.get("ReadCapacityUnits") or 1)),
        "WriteCapacityUnits": max(1, int(throughput.get("WriteCapacityUnits") or 1)),
    }


def params_from_design(module_name: str, table: str) -> dict[str, Any]:
    """CreateTable's request from the one ``singletable.model.Table`` a design module declares."""
    from singletable.model import Table

    try:
        module = import_design_module(module_name)
    except DesignError as error:
        raise TableError(f"schema {module_name}: not a DescribeTable JSON file, and {error}") from None
    tables = [value for value in vars(module).values() if isinstance(value, Table)]
    if len(tables) != 1:
        raise TableError(
            f"schema {module_name}: declares {len(tables)} singletable.model.Table objects, not one"
        )
    return tables[0].create_table_params(table)
