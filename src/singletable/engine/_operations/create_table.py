"""CreateTable: validate the definition as DynamoDB does, then persist its static TableDescription.

Stored description (the catalog's one truth about a table; :mod:`schema` and :mod:`table_descriptions` read
it): the TableDescription members that do not change by themselves (AttributeDefinitions, KeySchema, indexes,
ProvisionedThroughput, BillingModeSummary, stream/SSE/table-class summaries, DeletionProtectionEnabled,
TableId), timestamps as epoch seconds, and private keys DynamoDB never shows: ``_IndexId`` on each index
(unique within the table, never reused, so index entries survive catalog rewrites), ``_NextIndexId``,
``_BillingMode`` and ``_Tags``.

Error texts are AWS's. Validation runs in DynamoDB's order: request shape first, then the definition,
then the existence check -- so a bad definition of an existing table still reports the definition error.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from singletable.engine import _stream_records as stream_records
from singletable.engine._errors import in_use, validation
from singletable.engine._import_state import IMPORT_OWNER
from singletable.engine._interfaces import OperationEngine
from singletable.engine._table_definitions import (
    MAX_GSI,
    MAX_LSI,
    MAX_PROJECTED,
    ZERO_THROUGHPUT,
    attribute_names,
    check_defined,
    check_global_key_schema,
    check_key_schema,
    check_projection,
    invalid,
    on_demand_throughput,
    throughput_description,
)
from singletable.engine._table_descriptions import render
from singletable.engine._tags import MAX_TAGS, check_tag_keys
from singletable.engine._vector_definitions import create_table_vector_indexes, schema_attribute_names


class _IndexNames:
    """What the checks of both index lists share: distinct names, ``_IndexId`` in request order, and the
    count of projected attributes across all indexes."""

    def __init__(self, definitions: list[dict[str, str]]) -> None:
        self.definitions = definitions
        self.seen: set[str] = set()
        self.next_id = 1
        self.projected = 0

    def stored(self, index: dict[str, Any], *, is_global: bool = False) -> dict[str, Any]:
        """Check one index's name, key schema and projection; return its stored form."""
        name = index["IndexName"]
        if name in self.seen:
            raise invalid(f"Duplicate index name: {name}")
        self.seen.add(name)
        if is_global:
            check_global_key_schema(index["KeySchema"])
        else:
            check_key_schema(index["KeySchema"], index=True)
        check_defined(index["KeySchema"], self.definitions)
        self.projected += check_projection(index["Projection"])
        stored = {
            "IndexName": name,
            "KeySchema": [dict(k) for k in index["KeySchema"]],
            "Projection": dict(index["Projection"]),
            "_IndexId": self.next_id,
        }
        self.next_id += 1
        return stored


def _indexes(params: dict[str, Any], pay_per_request: bool) -> tuple[list[dict], list[dict]]:
    """Validate both index lists; return their stored forms (``_IndexId`` assigned in request order)."""
    names = _IndexNames(params["AttributeDefinitions"])
    lsis = params.get("LocalSecondaryIndexes")
    gsis = params.get("GlobalSecondaryIndexes")
    stored_lsis = _local_indexes(params["KeySchema"], lsis, names) if lsis is not None else []
    stored_gsis = _global_indexes(gsis, pay_per_request, names) if gsis is not None else []
    if names.projected > MAX_PROJECTED:
        raise invalid(
            f"Number of projected attributes in all indexes exceeds limit of {MAX_PROJECTED}, "
            f"number of projected attributes: {names.projected}"
        )
    return stored_lsis, stored_gsis


def _local_indexes(
    key_schema: list[dict[str, str]], lsis: list[dict[str, Any]], names: _IndexNames
) -> list[dict[str, Any]]:
    if not lsis:
        raise invalid("List of LocalSecondaryIndexes is empty")
    if len(key_schema) < 2:
        raise invalid(
            "Table KeySchema does not have a range key, which is required when specifying a "
            "LocalSecondaryIndex"
        )
    if len(lsis) > MAX_LSI:
        raise invalid(f"Number of LocalSecondaryIndexes exceeds per-table limit of {MAX_LSI}")
    table_hash = key_schema[0]["AttributeName"]
    stored_lsis: list[dict[str, Any]] = []
    for index in lsis:
        stored = names.stored(index)
        index_hash = index["KeySchema"][0]["AttributeName"]
        if index_hash != table_hash:
            raise invalid(
                "Index KeySchema does not have the same leading hash key as table KeySchema for index: "
                f"{index['IndexName']}. index hash key: {index_hash}, table hash key: {table_hash}"
            )
        if len(index["KeySchema"]) < 2:
            raise invalid(f"Index KeySchema does not have a range key for index: {index['IndexName']}")
        stored_lsis.append(stored)
    return stored_lsis


def _global_indexes(
    gsis: list[dict[str, Any]], pay_per_request: bool, names: _IndexNames
) -> list[dict[str, Any]]:
    if not gsis:
        raise invalid("List of GlobalSecondaryIndexes is empty")
    if len(gsis) > MAX_GSI:
        raise invalid(f"GlobalSecondaryIndex count exceeds the per-table limit of {MAX_GSI}")
    stored_gsis: list[dict[str, Any]] = []
    for index in gsis:
        stored = names.stored(index, is_global=True)
        throughput = index.get("ProvisionedThroughput")
        if pay_per_request:
            if throughput is not None:
                raise invalid(
                    f"ProvisionedThroughput should not be specified for index: {index['IndexName']} "
                    "when BillingMode is PAY_PER_REQUEST"
                )
            stored["ProvisionedThroughput"] = dict(ZERO_THROUGHPUT)
        else:
            if throughput is None:
                raise invalid(f"ProvisionedThroughput is not specified for index: {index['IndexName']}")
            stored["ProvisionedThroughput"] = throughput_description(throughput)
        stored_gsis.append(stored)
    return stored_gsis


def _check_definitions(
    params: dict[str, Any], lsis: list[dict], gsis: list[dict], vectors: list[dict]
) -> None:
    """Every definition must be used by some key or SearchSchema; DynamoDB rejects unused ones."""
    definitions = params["AttributeDefinitions"]
    used: list[str] = []
    for schema in [params["KeySchema"]] + [i["KeySchema"] for i in lsis + gsis]:
        for key in schema:
            if key["AttributeName"] not in used:
                used.append(key["AttributeName"])
    for name in schema_attribute_names(vectors):
        if name not in used:
            used.append(name)
    unused = [d for d in definitions if d["AttributeName"] not in used]
    if not unused:
        return
    if not lsis and not gsis and not vectors:
        raise invalid(
            "Number of attributes in KeySchema does not exactly match number of attributes defined in "
            "AttributeDefinitions"
        )
    raise invalid(
        f"Some AttributeDefinitions are not used. AttributeDefinitions: [{attribute_names(definitions)}], "
        f"keys used: [{', '.join(used)}]"
    )


def _billing(params: dict[str, Any]) -> bool:
    """Check BillingMode against ProvisionedThroughput; True for on-demand tables."""
    pay_per_request = params.get("BillingMode") == "PAY_PER_REQUEST"
    throughput = params.get("ProvisionedThroughput")
    if pay_per_request and throughput is not None:
        raise invalid(
            "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is "
            "PAY_PER_REQUEST"
        )
    if not pay_per_request and throughput is None:
        raise invalid(
            "ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED"
        )
    return pay_per_request


def _extras(engine: OperationEngine, params: dict[str, Any], now: float, description: dict[str, Any]) -> None:
    """Streams, encryption, table class, tags, deletion protection: recorded, then shown by Describe."""
    stream = params.get("StreamSpecification")
    if stream is not None:
        view = stream.get("StreamViewType")
        if stream["StreamEnabled"]:
            if view is None:
                raise invalid("Table is being created with a stream enabled, UpdateViewType is required")
            description["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": view}
            label = datetime.fromtimestamp(now, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3]
            description["LatestStreamLabel"] = label
        elif view is not None:
            raise invalid(
                "Table is being created with a stream disabled, UpdateViewType should not be specified"
            )
    sse = params.get("SSESpecification")
    if sse is not None:
        enabled = sse.get("Enabled", False)
        if not enabled:
            if "SSEType" in sse:
                raise invalid("SSEType can not be specified if Enabled is false")
            if "KMSMasterKeyId" in sse:
                raise invalid("KMSMasterKeyId can not be specified if Enabled is false")
        else:
            if sse.get("SSEType") == "AES256":
                raise invalid("SSEType AES256 is not supported")
            key = sse.get("KMSMasterKeyId") or "aws/dynamodb"
            arn = key if key.startswith("arn:") else f"arn:aws:kms:{engine.region}:{engine.account}:key/{key}"
            description["SSEDescription"] = {"Status": "ENABLED", "SSEType": "KMS", "KMSMasterKeyArn": arn}
    on_demand = params.get("OnDemandThroughput")
    if on_demand is not None:
        maxima = on_demand_throughput(on_demand)
        if maxima is not None:
            description["OnDemandThroughput"] = maxima
    table_class = params.get("TableClass")
    if table_class is not None:
        classes = ("STANDARD", "STANDARD_INFREQUENT_ACCESS")
        if table_class not in classes:
            raise validation(
                "Invalid table-class parameter provided. Please try again with a valid table-class value: "
                f"[{', '.join(classes)}]."
            )
        description["TableClassSummary"] = {"TableClass": table_class}
    tags = params.get("Tags")
    if tags is not None:
        check_tag_keys(tags)
        if len(tags) > MAX_TAGS:
            raise validation("Number of Tags exceed the current limit for the provided ResourceArn")
        description["_Tags"] = [{"Key": t["Key"], "Value": t["Value"]} for t in tags]
    description["DeletionProtectionEnabled"] = bool(params.get("DeletionProtectionEnabled", False))


def run(
    engine: OperationEngine, params: dict[str, Any], *, import_owner: dict[str, Any] | None = None
) -> dict[str, Any]:
    """CreateTable. ``import_owner`` (an import creating the table, not a request's parameter): the table
    is stored CREATING, owned by that import, until the import activates it (see ``_import_state``)."""
    name = params["TableName"]
    definitions = params["AttributeDefinitions"]
    key_schema = params["KeySchema"]
    seen: set[str] = set()
    for definition in definitions:
        if definition["AttributeName"] in seen:
            raise validation(f"Attribute Name is duplicated: {definition['AttributeName']}")
        seen.add(definition["AttributeName"])
    check_key_schema(key_schema)
    check_defined(key_schema, definitions)
    pay_per_request = _billing(params)
    lsis, gsis = _indexes(params, pay_per_request)
    vectors = create_table_vector_indexes(
        params, pay_per_request, {i["IndexName"] for i in lsis + gsis}, len(lsis) + len(gsis) + 1
    )
    _check_definitions(params, lsis, gsis, vectors)

    now = round(engine.clock(), 3)
    description: dict[str, Any] = {
        "AttributeDefinitions": [dict(d) for d in definitions],
        "TableName": name,
        "KeySchema": [dict(k) for k in key_schema],
        "CreationDateTime": now,
        "ProvisionedThroughput": (
            dict(ZERO_THROUGHPUT)
            if pay_per_request
            else throughput_description(params["ProvisionedThroughput"])
        ),
        "TableId": str(uuid.uuid4()),
        "_BillingMode": "PAY_PER_REQUEST" if pay_per_request else "PROVISIONED",
        "_NextIndexId": len(lsis) + len(gsis) + len(vectors) + 1,
    }
    if pay_per_request:
        description["BillingModeSummary"] = {
            "BillingMode": "PAY_PER_REQUEST",
            "LastUpdateToPayPerRequestDateTime": now,
        }
    if lsis:
        description["LocalSecondaryIndexes"] = lsis
    if gsis:
        description["GlobalSecondaryIndexes"] = gsis
    if vectors:
        description["VectorIndexes"] = vectors
    _extras(engine, params, now, description)
    if import_owner is not None:
        description[IMPORT_OWNER] = import_owner

    with engine.storage.write():
        if engine.find_table(name) is not None or engine.creating_table(name) is not None:
            raise in_use(f"Table already exists: {name}")
        if "StreamSpecification" in description:
            description["_StreamId"] = stream_records.create_stream(
                engine.storage, engine.arn(name), description, description["LatestStreamLabel"], now
            )
        table_id = engine.storage.insert_table(name, description)
        engine.catalog_changed()
    # DynamoDB answers CreateTable while the table is still CREATING; ours is usable at once, and every
    # later DescribeTable says ACTIVE.
    return {"TableDescription": render(engine, table_id, description, "CREATING")}
