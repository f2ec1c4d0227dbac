"""What export, import and copy need of a table: its description, creating it from a schema, reading it
page by page (parallel-scan segments on threads), and counting it.

A schema for a missing table is either a DescribeTable answer saved as JSON (``{"Table": {...}}`` or the
TableDescription itself: what ``aws dynamodb describe-table`` prints) or a design module -- a Python module
holding one :class:`singletable.model.Table`, whose public ``create_table_params`` gives the request.
"""

from __future__ import annotations

import importlib
import json
import queue
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from singletable.data._targets import Target, TargetError

Item = dict[str, Any]
CREATE_WAIT = 120.0  # seconds to wait for a new table to become ACTIVE (DynamoDB takes seconds to minutes)


class TableError(Exception):
    """A table that cannot be used as asked (missing without a schema, a schema that cannot be read)."""


def describe(target: Target, table: str) -> dict[str, Any] | None:
    """The table's TableDescription, or None when it does not exist."""
    try:
        return target.call("DescribeTable", TableName=table)["Table"]
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
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise TableError(
            f"schema {module_name}: not a JSON file, and not an importable module ({error})"
        ) from None
    tables = [value for value in vars(module).values() if isinstance(value, Table)]
    if len(tables) != 1:
        raise TableError(
            f"schema {module_name}: declares {len(tables)} singletable.model.Table objects, not one"
        )
    return tables[0].create_table_params(table)


def count(target: Target, table: str) -> int:
    """How many items the table holds (a Scan with Select=COUNT, every page)."""
    total = 0
    params: dict[str, Any] = {"TableName": table, "Select": "COUNT"}
    while True:
        page = target.call("Scan", **params)
        total += page["Count"]
        if "LastEvaluatedKey" not in page:
            return total
        params["ExclusiveStartKey"] = page["LastEvaluatedKey"]


# One page of a scan: (segment, items, LastEvaluatedKey or None when the segment is done).
Page = tuple[int, list[Item], Item | None]


def scan_pages(
    target: Target, table: str, segments: int = 1, start: dict[int, Item | None] | None = None
) -> Iterator[Page]:
    """Every page of the table, ``segments`` parallel-scan segments at once (one thread each).

    ``start`` gives segments resumed from a checkpoint their ExclusiveStartKey; segments it marks done
    (absent from it when it is given) are not read again. Pages of one segment arrive in order.
    """
    todo = {s: None for s in range(segments)} if start is None else dict(start)
    if segments == 1 and todo:
        yield from _segment_pages(target, table, 0, 1, todo.get(0))
        return
    pages: queue.Queue[Page | BaseException | int] = queue.Queue(maxsize=2 * max(1, len(todo)))
    stop = threading.Event()

    def run(segment: int, key: Item | None) -> None:
        try:
            for page in _segment_pages(target, table, segment, segments, key):
                if stop.is_set():
                    return
                pages.put(page)
            pages.put(segment)
        except BaseException as error:  # handed to the consumer, which raises it
            pages.put(error)

    threads = [threading.Thread(target=run, args=item, daemon=True) for item in todo.items()]
    for thread in threads:
        thread.start()
    running = len(threads)
    try:
        while running:
            got = pages.get()
            if isinstance(got, int):
                running -= 1
            elif isinstance(got, BaseException):
                raise got
            else:
                yield got
    finally:
        stop.set()
        while any(t.is_alive() for t in threads):
            try:
                pages.get(timeout=0.05)
            except queue.Empty:
                pass


def _segment_pages(
    target: Target, table: str, segment: int, segments: int, key: Item | None
) -> Iterator[Page]:
    params: dict[str, Any] = {"TableName": table}
    if segments > 1:
        params.update(Segment=segment, TotalSegments=segments)
    if key is not None:
        params["ExclusiveStartKey"] = key
    while True:
        page = target.call("Scan", **params)
        last = page.get("LastEvaluatedKey")
        yield segment, page["Items"], last
        if last is None:
            return
        params["ExclusiveStartKey"] = last
