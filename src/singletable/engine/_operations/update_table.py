"""UpdateTable: billing mode and throughput, one global secondary index created or deleted, streams, and
the small settings (SSE, table class, deletion protection).

A new index is stored as ``CREATING`` with ``Backfilling: true`` and is maintained by the write path at once;
the backfill worker (:mod:`singletable.engine._backfill`) fills it from the existing items and marks it
``ACTIVE``. Until then reads of the index fail as on AWS (``reads.resolve_index``). A deleted index goes at
once, entries and all, in the same transaction; the response shows it ``DELETING``, as AWS's does.

Texts are AWS's where known; where only DynamoDB Local's answer could be observed, we give the same (they
share a code base), as recorded in docs/compatibility.md.
"""

from __future__ import annotations

import copy
from typing import Any

from singletable.engine import _stream_records as stream_records
from singletable.engine._errors import DynamoDBError, in_use, not_found, validation
from singletable.engine._interfaces import OperationEngine
from singletable.engine._table_definitions import (
    MAX_GSI,
    ZERO_THROUGHPUT,
    check_global_key_schema,
    check_projection,
    invalid,
    on_demand_throughput,
    throughput_description,
)
from singletable.engine._table_descriptions import render, table_name_of, table_to_change
from singletable.engine._vector_updates import apply_vector_updates, backfill, used_by_vector_indexes

NOTHING_TO_UPDATE = (
    "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates "
    "or SSESpecification or ReplicaUpdates is required"
)
ONE_INDEX = (
    "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table"
)
INDEX_BEING_CREATED = "Attempt to change a resource which is still in use: Index is being created."
_CHANGES = (
    "BillingMode",
    "ProvisionedThroughput",
    "GlobalSecondaryIndexUpdates",
    "StreamSpecification",
    "SSESpecification",
    "TableClass",
    "DeletionProtectionEnabled",
    "ReplicaUpdates",
    "OnDemandThroughput",
    "WarmThroughput",
    "VectorIndexUpdates",
)


def _same_throughput(current: dict[str, int], requested: dict[str, int]) -> DynamoDBError:
    return validation(
        "The provisioned throughput for the table will not change. The requested value equals the current "
        f"value. Current ReadCapacityUnits provisioned for the table: {current['ReadCapacityUnits']}. "
        f"Requested ReadCapacityUnits: {requested['ReadCapacityUnits']}. Current WriteCapacityUnits "
        f"provisioned for the table: {current['WriteCapacityUnits']}. Requested WriteCapacityUnits: "
        f"{requested['WriteCapacityUnits']}. Refer to the Amazon DynamoDB Developer Guide for current limits "
        "and how to request higher limits."
    )


def _changed_throughput(current: dict[str, Any], requested: dict[str, int], now: float) -> dict[str, Any]:
    """New ProvisionedThroughput, with AWS's increase/decrease bookkeeping."""
    updated = dict(current)
    read, write = requested["ReadCapacityUnits"], requested["WriteCapacityUnits"]
    if read > current["ReadCapacityUnits"] or write > current["WriteCapacityUnits"]:
        updated["LastIncreaseDateTime"] = now
    if read < current["ReadCapacityUnits"] or write < current["WriteCapacityUnits"]:
        updated["LastDecreaseDateTime"] = now
        updated["NumberOfDecreasesToday"] = current.get("NumberOfDecreasesToday", 0) + 1
    updated["ReadCapacityUnits"] = read
    updated["WriteCapacityUnits"] = write
    return updated


def _billing(params: dict[str, Any], description: dict[str, Any], now: float) -> None:
    current_mode = description.get("_BillingMode", "PROVISIONED")
    mode = params.get("BillingMode") or current_mode
    throughput = params.get("ProvisionedThroughput")
    if mode == "PAY_PER_REQUEST":
        if throughput is not None:
            raise invalid(
                "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is "
                "PAY_PER_REQUEST"
            )
        if current_mode != mode:
            description["_BillingMode"] = mode
            description["ProvisionedThroughput"] = dict(ZERO_THROUGHPUT)
            description["BillingModeSummary"] = {
                "BillingMode": mode,
                "LastUpdateToPayPerRequestDateTime": now,
            }
            for index in description.get("GlobalSecondaryIndexes", ()):
                index["ProvisionedThroughput"] = dict(ZERO_THROUGHPUT)
        return
    if current_mode != mode:
        if throughput is None:
            raise invalid(
                "ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is "
                "PROVISIONED"
            )
        description["_BillingMode"] = mode
        description["ProvisionedThroughput"] = throughput_description(throughput)
        summary = description.get("BillingModeSummary")
        if summary is not None:
            summary["BillingMode"] = mode
        # Indexes follow the table's new capacity unless an Update action in this call sets their own.
        for index in description.get("GlobalSecondaryIndexes", ()):
            index["ProvisionedThroughput"] = throughput_description(throughput)
        return
    if throughput is not None:
        current = description["ProvisionedThroughput"]
        if (
            throughput["ReadCapacityUnits"] == current["ReadCapacityUnits"]
            and throughput["WriteCapacityUnits"] == current["WriteCapacityUnits"]
        ):
            raise _same_throughput(current, throughput)
        description["ProvisionedThroughput"] = _changed_throughput(current, throughput, now)


def _merge_definitions(params: dict[str, Any], description: dict[str, Any]) -> dict[str, str]:
    """The table's attribute types with the request's added (a request may restate existing ones)."""
    types = {d["AttributeName"]: d["AttributeType"] for d in description["AttributeDefinitions"]}
    seen: set[str] = set()
    for definition in params.get("AttributeDefinitions") or ():
        name = definition["AttributeName"]
        if name in seen:
            raise validation(f"Attribute Name is duplicated: {name}")
        seen.add(name)
        known = types.get(name)
        if known is not None and known != definition["AttributeType"]:
            raise _redefined(name, params, description, types, definition["AttributeType"])
        types[name] = definition["AttributeType"]
    return types


def _redefined(
    name: str, params: dict[str, Any], description: dict[str, Any], types: dict[str, str], new_type: str
) -> DynamoDBError:
    """AWS's refusal of an AttributeDefinition that gives a key attribute of the table or of an index
    another type: it shows the existing key schema that uses the attribute and the new index's."""
    schemas = [description["KeySchema"]] + [
        index["KeySchema"]
        for kind in ("LocalSecondaryIndexes", "GlobalSecondaryIndexes")
        for index in description.get(kind, ())
    ]
    existing = next(schema for schema in schemas if any(k["AttributeName"] == name for k in schema))
    creates = [
        update["Create"]["KeySchema"]
        for update in params.get("GlobalSecondaryIndexUpdates") or ()
        if isinstance(update.get("Create"), dict) and isinstance(update["Create"].get("KeySchema"), list)
    ]
    uses = [schema for schema in creates if any(k.get("AttributeName") == name for k in schema)]
    new = uses[0] if uses else existing
    retyped = {**types, name: new_type}
    return invalid(
        "Attributes cannot be redefined. Please check that your attribute has the same type as previously "
        f"defined. Existing schema: {_schema_text(existing, types)} New schema: {_schema_text(new, retyped)}"
    )


def _schema_text(key_schema: list[dict[str, str]], types: dict[str, str]) -> str:
    elements = []
    for key in key_schema:
        attribute = key.get("AttributeName", "")
        elements.append(f"SchemaElement: key{{{attribute}:{types.get(attribute, '?')}:{key.get('KeyType')}}}")
    return f"Schema:[{', '.join(elements)}]"


def _used_definitions(description: dict[str, Any], types: dict[str, str]) -> list[dict[str, str]]:
    """AttributeDefinitions as DynamoDB keeps them: only the attributes some key uses."""
    used: list[str] = []
    schemas = [description["KeySchema"]] + [
        index["KeySchema"]
        for kind in ("LocalSecondaryIndexes", "GlobalSecondaryIndexes")
        for index in description.get(kind, ())
    ]
    for schema in schemas:
        for key in schema:
            if key["AttributeName"] not in used:
                used.append(key["AttributeName"])
    used.extend(name for name in used_by_vector_indexes(description) if name not in used)
    return [{"AttributeName": name, "AttributeType": types[name]} for name in used]


def _index_updates(
    params: dict[str, Any],
    description: dict[str, Any],
    types: dict[str, str],
    table_id: int,
    engine: OperationEngine,
) -> tuple[str | None, str | None]:
    """Apply GlobalSecondaryIndexUpdates to ``description``; returns (created, deleted) index names."""
    updates = params.get("GlobalSecondaryIndexUpdates")
    if not updates:
        return None, None
    gsis: list[dict[str, Any]] = description.setdefault("GlobalSecondaryIndexes", [])
    by_name = {index["IndexName"]: index for index in gsis}
    lsi_names = {index["IndexName"] for index in description.get("LocalSecondaryIndexes", ())}
    actions = _index_actions(updates)
    creating = [index for index in gsis if index.get("IndexStatus") == "CREATING"]
    pay_per_request = description.get("_BillingMode") == "PAY_PER_REQUEST"
    created = deleted = None
    for kind, action in actions:
        name = action["IndexName"]
        if kind != "Create" and name in lsi_names:
            verb = "delete" if kind == "Delete" else "update"
            raise validation(f"Cannot {verb} an index that is not a GlobalSecondaryIndex: {name}")
        if kind == "Update":
            _update_index(by_name.get(name), action, pay_per_request)
            continue
        if creating:
            if kind == "Delete" and name == creating[0]["IndexName"]:
                raise in_use(INDEX_BEING_CREATED)
            raise DynamoDBError("LimitExceededException", ONE_INDEX)
        if kind == "Delete":
            index = by_name.get(name)
            if index is None:
                raise not_found("Requested resource not found")
            gsis.remove(index)
            engine.storage.drop_index(table_id, index["_IndexId"])
            deleted = name
            continue
        if name in by_name or name in lsi_names:
            raise validation("Attempting to create an index which already exists")
        if len(gsis) >= MAX_GSI:
            raise invalid(f"GlobalSecondaryIndex count exceeds the per-table limit of {MAX_GSI}")
        gsis.append(_new_index(action, description, types, pay_per_request))
        created = name
    if not gsis:
        del description["GlobalSecondaryIndexes"]
    return created, deleted


def _index_actions(updates: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """The (kind, action) pairs of GlobalSecondaryIndexUpdates: at most one Create or Delete, one action
    per index."""
    actions = [
        (kind, update[kind])
        for update in updates
        for kind in ("Create", "Delete", "Update")
        if update.get(kind)
    ]
    structural = [action for action in actions if action[0] != "Update"]
    if len(structural) > 1:
        raise DynamoDBError("LimitExceededException", ONE_INDEX)
    seen: set[str] = set()
    for _, action in actions:
        if action["IndexName"] in seen:
            raise invalid(
                "Only one global secondary index update per index is allowed simultaneously. "
                f"Index: {action['IndexName']}"
            )
        seen.add(action["IndexName"])
    return actions


def _update_index(index: dict[str, Any] | None, action: dict[str, Any], pay_per_request: bool) -> None:
    """An Update action: the index's own provisioned throughput."""
    name = action["IndexName"]
    if index is None:
        raise not_found(f"Requested resource not found: Index: {name} not found")
    throughput = action.get("ProvisionedThroughput")
    if throughput is not None:
        if pay_per_request:
            raise invalid(
                f"ProvisionedThroughput should not be specified for index: {name} "
                "when BillingMode is PAY_PER_REQUEST"
            )
        index["ProvisionedThroughput"] = throughput_description(throughput)


def _new_index(
    action: dict[str, Any], description: dict[str, Any], types: dict[str, str], pay_per_request: bool
) -> dict[str, Any]:
    """A Create action, checked: the new index's stored form, CREATING until the backfill finishes."""
    name = action["IndexName"]
    check_global_key_schema(action["KeySchema"])
    missing = [k["AttributeName"] for k in action["KeySchema"] if k["AttributeName"] not in types]
    if missing:
        keys = ", ".join(k["AttributeName"] for k in action["KeySchema"])
        defined = ", ".join(types)
        raise invalid(
            "Some index key attributes are not defined in AttributeDefinitions. "
            f"Keys: [{keys}], AttributeDefinitions: [{defined}]"
        )
    check_projection(action["Projection"])
    throughput = action.get("ProvisionedThroughput")
    if pay_per_request and throughput is not None:
        raise invalid(
            f"ProvisionedThroughput should not be specified for index: {name} when BillingMode is "
            "PAY_PER_REQUEST"
        )
    if pay_per_request:
        provisioned = dict(ZERO_THROUGHPUT)
    elif throughput is None:
        raise invalid(f"ProvisionedThroughput is not specified for index: {name}")
    else:
        provisioned = throughput_description(throughput)
    index_id = description.get("_NextIndexId", 1)
    description["_NextIndexId"] = index_id + 1
    return {
        "IndexName": name,
        "KeySchema": [dict(k) for k in action["KeySchema"]],
        "Projection": dict(action["Projection"]),
        "ProvisionedThroughput": provisioned,
        "_IndexId": index_id,
        "IndexStatus": "CREATING",
        "Backfilling": True,
    }


def _stream(params: dict[str, Any], description: dict[str, Any], engine: OperationEngine, now: float) -> bool:
    """Apply StreamSpecification; True when a new stream must be created."""
    spec = params.get("StreamSpecification")
    if spec is None:
        return False
    view = spec.get("StreamViewType")
    if spec["StreamEnabled"]:
        if not view:
            raise validation(
                "Invalid StreamViewType: Stream ViewType must not be null or empty when enabling streams."
            )
        if "_StreamId" in description:
            raise validation("Table already has an enabled stream")
        description["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": view}
        description["LatestStreamLabel"] = stream_records.stream_label(now)
        return True
    if view is not None:
        raise validation(
            "Invalid StreamViewType: Stream StreamEnabled was false but a StreamViewType was present."
        )
    if "_StreamId" not in description:
        raise validation("Table has no stream to disable")
    description.pop("StreamSpecification", None)
    description.pop("_StreamId", None)
    return False


def _settings(params: dict[str, Any], description: dict[str, Any], engine: OperationEngine) -> None:
    sse = params.get("SSESpecification")
    if sse is not None:
        if sse.get("Enabled", True):
            key = sse.get("KMSMasterKeyId") or "aws/dynamodb"
            arn = key if key.startswith("arn:") else f"arn:aws:kms:{engine.region}:{engine.account}:key/{key}"
            description["SSEDescription"] = {"Status": "ENABLED", "SSEType": "KMS", "KMSMasterKeyArn": arn}
        else:
            description.pop("SSEDescription", None)
    if params.get("TableClass") is not None:
        description["TableClassSummary"] = {"TableClass": params["TableClass"]}
    if params.get("DeletionProtectionEnabled") is not None:
        description["DeletionProtectionEnabled"] = bool(params["DeletionProtectionEnabled"])
    on_demand = params.get("OnDemandThroughput")
    if on_demand is not None:
        maxima = on_demand_throughput(on_demand, description.get("OnDemandThroughput"))
        if maxima is None:
            description.pop("OnDemandThroughput", None)
        else:
            description["OnDemandThroughput"] = maxima


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    name = table_name_of(params["TableName"])
    if params.get("ReplicaUpdates"):
        raise DynamoDBError(
            "UnknownOperationException",
            "ReplicaUpdates (global tables) is an AWS-only feature that singletable does not support locally",
        )
    if not any(params.get(key) is not None for key in _CHANGES):
        raise validation(NOTHING_TO_UPDATE)
    now = round(engine.clock(), 3)
    with engine.storage.write():
        schema = table_to_change(engine, name)
        description = copy.deepcopy(schema.description)
        types = _merge_definitions(params, description)
        _billing(params, description, now)
        _, deleted = _index_updates(params, description, types, schema.table_id, engine)
        vector_updates = apply_vector_updates(params, description, types, engine)
        new_stream = _stream(params, description, engine, now)
        _settings(params, description, engine)
        description["AttributeDefinitions"] = _used_definitions(description, types)
        if new_stream:
            description["_StreamId"] = stream_records.create_stream(
                engine.storage, engine.arn(name), description, description["LatestStreamLabel"], now
            )
        deleted_entry = next(
            (i for i in schema.description.get("GlobalSecondaryIndexes", ()) if i["IndexName"] == deleted),
            None,
        )
        engine.storage.update_table(schema.table_id, description)
        engine.catalog_changed()
        if vector_updates.created is not None:
            backfill(engine, engine.table(name), vector_updates.created)
        out = render(engine, schema.table_id, description, "UPDATING")
    _show_vector_updates(engine, out, schema.description, vector_updates.created, vector_updates.deleted)
    if deleted_entry is not None:
        # AWS still lists the index, DELETING, in this response.
        shown = render(
            engine,
            schema.table_id,
            {**schema.description, "GlobalSecondaryIndexes": [deleted_entry]},
            "ACTIVE",
        )["GlobalSecondaryIndexes"][0]
        shown["IndexStatus"] = "DELETING"
        out.setdefault("GlobalSecondaryIndexes", []).append(shown)
    return {"TableDescription": out}


def _show_vector_updates(
    engine: OperationEngine,
    out: dict[str, Any],
    before: dict[str, Any],
    created: str | None,
    deleted: dict[str, Any] | None,
) -> None:
    """AWS's response shows a vector index being added CREATING (backfilling) and one deleted DELETING."""
    for index in out.get("VectorIndexes", ()):
        if index["IndexName"] == created:
            index["IndexStatus"] = "CREATING"
            index["Backfilling"] = True
    if deleted is not None:
        shown = {name: value for name, value in deleted.items() if not name.startswith("_")}
        shown.update(
            IndexStatus="DELETING",
            IndexArn=engine.arn(before["TableName"], deleted["IndexName"]),
            ItemCount=0,
            IndexSizeBytes=0,
        )
        out.setdefault("VectorIndexes", []).append(shown)
