"""What export, import and copy need of a table: its description, and creating it from a schema (reading
and counting it are :mod:`._look`'s ``scan_pages`` and ``count``).

A schema for a missing table is read as :class:`~singletable.data._settings.TableSettings` from either a
DescribeTable answer saved as JSON (``{"Table": {...}}`` or the TableDescription itself: what
``aws dynamodb describe-table`` prints; with ``TimeToLiveDescription`` and ``Tags`` beside ``Table``, as
``singletable describe --settings`` writes, TTL and tags too) or a design module -- a Python module holding
one :class:`singletable.model.Table`, whose public ``create_table_params`` gives the request and whose TTL
attribute turns TTL on.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from singletable._designs import DesignError, import_design_module  # found as every command finds one
from singletable.data import _look as look
from singletable.data._settings import CREATE_WAIT, TableSettings, Warn, request_as_description
from singletable.data._settings import wait_active as settings_wait_active
from singletable.data._targets import Target, TargetError

Item = dict[str, Any]


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


def ensure_table(target: Target, table: str, settings: TableSettings | None, warn: Warn) -> dict[str, Any]:
    """The table's description, creating it with ``settings`` (but TTL, applied once the items are in: see
    ``TableSettings.apply_ttl``) when it does not exist yet."""
    found = describe(target, table)
    if found is not None:
        return found
    if settings is None:
        raise TableError(f"table {table} does not exist in {target.name}: create it first, or give a schema")
    try:
        settings.create(target, table, warn)
    except TimeoutError as error:
        raise TableError(str(error)) from None
    return wait_active(target, table)


def wait_active(target: Target, table: str, timeout: float = CREATE_WAIT) -> dict[str, Any]:
    try:
        return settings_wait_active(target, table, timeout)
    except TimeoutError as error:
        raise TableError(str(error)) from None


def schema_settings(schema: str | dict[str, Any] | TableSettings) -> TableSettings:
    """The settings a schema gives: settings already, a DescribeTable JSON (file or dict) or a design module.
    :class:`TableError` naming the schema when it cannot be read."""
    if isinstance(schema, TableSettings):
        return schema
    try:
        if isinstance(schema, dict):
            return TableSettings.from_json(schema)
        if schema.endswith(".json") or Path(schema).is_file():
            try:
                data = json.loads(Path(schema).read_text())
            except (OSError, ValueError) as error:
                raise TableError(f"schema {schema}: cannot read it as DescribeTable JSON ({error})") from None
            return TableSettings.from_json(data, origin=f"schema {schema}")
    except ValueError as error:  # from_json's words name the schema
        raise TableError(str(error)) from None
    return settings_from_design(schema)


def create_params(schema: str | dict[str, Any] | TableSettings, table: str) -> dict[str, Any]:
    """CreateTable's request for ``table`` from a schema (see :func:`schema_settings`)."""
    return schema_settings(schema).create_params(table)


def settings_from_design(module_name: str) -> TableSettings:
    """The settings of the one ``singletable.model.Table`` a design module declares (its TTL attribute
    included: CreateTable cannot say it, so the model turns it on with UpdateTimeToLive, and so does this)."""
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
    params = tables[0].create_table_params("placeholder")
    ttl_attribute = tables[0].resolved_ttl_attribute()
    ttl = {"TimeToLiveStatus": "ENABLED", "AttributeName": ttl_attribute} if ttl_attribute else None
    return TableSettings.from_description(
        request_as_description(params), ttl, params.get("Tags"), origin=f"schema {module_name}"
    )
