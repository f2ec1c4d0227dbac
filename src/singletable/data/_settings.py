"""A table's settings -- everything about it but its items -- captured from one target and applied to another.

:class:`TableSettings` is what ``copy`` and ``import --schema`` carry: keys and attribute types, billing mode
and provisioned throughput, every global and local secondary index with its keys, projection and throughput,
every vector index (attribute, dimensions, distance, search schema, projection), the stream, TTL, tags,
server-side encryption, table class and deletion protection. It is captured with the
three calls any DynamoDB endpoint answers (DescribeTable, DescribeTimeToLive, ListTagsOfResource) and applied
with CreateTable (then UpdateTimeToLive), so nothing here assumes the embedded engine. Two captures compare
equal exactly when the tables agree on every setting (``differences`` names those they disagree on).

A target that refuses a setting (an endpoint without tags, say) still gets the table: CreateTable is sent
again with the settings every DynamoDB has (keys, billing, indexes, stream), the others are applied one by
one, and each one refused is a warning line naming it -- never dropped in silence. TTL is applied last, by
``apply_ttl``, once the items are in: a destination that expired items while they were being copied would
disagree with the source about what it holds (DynamoDB itself returns an expired item until its TTL process
deletes it).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from singletable.data._targets import Target, TargetError

Warn = Callable[[str], None]
DEFAULT_TABLE_CLASS = "STANDARD"


@dataclass(frozen=True, slots=True)
class Throughput:
    read: int
    write: int

    @classmethod
    def of(cls, described: dict[str, Any] | None) -> Throughput:
        described = described or {}
        return cls(
            max(1, int(described.get("ReadCapacityUnits") or 1)),
            max(1, int(described.get("WriteCapacityUnits") or 1)),
        )

    def params(self) -> dict[str, int]:
        return {"ReadCapacityUnits": self.read, "WriteCapacityUnits": self.write}


def _projection_of(index: dict[str, Any]) -> tuple[str, tuple[str, ...]]:
    """A described index's projection type and its non-key attributes, sorted (ALL when it names none)."""
    projection = index.get("Projection") or {}
    return projection.get("ProjectionType", "ALL"), tuple(sorted(projection.get("NonKeyAttributes") or ()))


def _projection(projection_type: str, non_key_attributes: tuple[str, ...]) -> dict[str, Any]:
    """CreateTable's ``Projection`` of an index (its non-key attributes only for INCLUDE)."""
    projection: dict[str, Any] = {"ProjectionType": projection_type}
    if projection_type == "INCLUDE":
        projection["NonKeyAttributes"] = list(non_key_attributes)
    return projection


@dataclass(frozen=True, slots=True)
class IndexSettings:
    """One secondary index: ``local`` for an LSI; ``throughput`` for a provisioned table's GSI."""

    name: str
    local: bool
    key_schema: tuple[tuple[str, str], ...]  # (attribute, HASH|RANGE)
    projection_type: str
    non_key_attributes: tuple[str, ...]  # sorted; INCLUDE only
    throughput: Throughput | None

    def params(self) -> dict[str, Any]:
        spec: dict[str, Any] = {
            "IndexName": self.name,
            "KeySchema": [{"AttributeName": a, "KeyType": k} for a, k in self.key_schema],
            "Projection": _projection(self.projection_type, self.non_key_attributes),
        }
        if self.throughput is not None:
            spec["ProvisionedThroughput"] = self.throughput.params()
        return spec


@dataclass(frozen=True, slots=True)
class VectorIndexSettings:
    """One vector index: its vector attribute, dimensions, distance, search schema (in order) and
    projection -- what CreateTable's ``VectorIndexes`` takes, and all a copy needs to rebuild it."""

    name: str
    attribute: str
    dimensions: int
    distance: str
    search_schema: tuple[tuple[str, str], ...]  # (attribute, HASH|INLINE_FILTER)
    projection_type: str
    non_key_attributes: tuple[str, ...]  # sorted; INCLUDE only

    @classmethod
    def of(cls, index: dict[str, Any]) -> VectorIndexSettings:
        projection_type, non_key_attributes = _projection_of(index)
        return cls(
            name=index["IndexName"],
            attribute=index["VectorAttribute"]["AttributeName"],
            dimensions=int(index["Dimensions"]),
            distance=index["DistanceFunction"],
            search_schema=tuple(
                (e["AttributeName"], e["SearchSchemaElementType"]) for e in index.get("SearchSchema") or ()
            ),
            projection_type=projection_type,
            non_key_attributes=non_key_attributes,
        )

    def params(self) -> dict[str, Any]:
        spec: dict[str, Any] = {
            "IndexName": self.name,
            "VectorAttribute": {"AttributeName": self.attribute},
            "Dimensions": self.dimensions,
            "DistanceFunction": self.distance,
            "Projection": _projection(self.projection_type, self.non_key_attributes),
        }
        if self.search_schema:
            spec["SearchSchema"] = [
                {"AttributeName": a, "SearchSchemaElementType": role} for a, role in self.search_schema
            ]
        return spec


@dataclass(frozen=True, slots=True)
class TableSettings:
    """Everything about a table but its name and items (see the module docstring). ``stream_view`` is the
    stream's view type, None when off; ``ttl_attribute`` None when TTL is off; ``sse_kms_key`` the KMS key
    of KMS encryption, None for DynamoDB's default (owned-key) encryption."""

    key_schema: tuple[tuple[str, str], ...]
    attribute_types: tuple[tuple[str, str], ...]  # sorted (attribute, S|N|B)
    billing_mode: str  # PAY_PER_REQUEST or PROVISIONED
    throughput: Throughput | None  # PROVISIONED only
    indexes: tuple[IndexSettings, ...]  # sorted by name
    stream_view: str | None = None
    ttl_attribute: str | None = None
    tags: tuple[tuple[str, str], ...] = ()  # sorted (key, value)
    sse_kms_key: str | None = None
    table_class: str = DEFAULT_TABLE_CLASS
    deletion_protection: bool = False
    vector_indexes: tuple[VectorIndexSettings, ...] = ()  # sorted by name

    # -- capturing ------------------------------------------------------------------------------------------

    @classmethod
    def from_description(
        cls,
        description: dict[str, Any],
        ttl: dict[str, Any] | None = None,
        tags: list[dict[str, str]] | None = None,
        origin: str = "schema",
    ) -> TableSettings:
        """From a TableDescription, DescribeTimeToLive's ``TimeToLiveDescription`` and a table's tags.
        ``ValueError`` naming ``origin`` when the description lacks its keys."""
        if (
            not isinstance(description, dict)
            or not {"KeySchema", "AttributeDefinitions"} <= description.keys()
        ):
            raise ValueError(f"{origin}: a DescribeTable answer needs KeySchema and AttributeDefinitions")
        billing = (description.get("BillingModeSummary") or {}).get("BillingMode")
        throughput = description.get("ProvisionedThroughput") or {}
        provisioned = billing == "PROVISIONED" or (
            billing is None and bool(throughput.get("ReadCapacityUnits"))
        )
        indexes = []
        for kind, local in (("GlobalSecondaryIndexes", False), ("LocalSecondaryIndexes", True)):
            for index in description.get(kind) or []:
                projection_type, non_key_attributes = _projection_of(index)
                indexes.append(
                    IndexSettings(
                        name=index["IndexName"],
                        local=local,
                        key_schema=_keys(index["KeySchema"]),
                        projection_type=projection_type,
                        non_key_attributes=non_key_attributes,
                        throughput=(
                            Throughput.of(index.get("ProvisionedThroughput"))
                            if provisioned and not local
                            else None
                        ),
                    )
                )
        stream = description.get("StreamSpecification") or {}
        sse = description.get("SSEDescription") or {}
        ttl = ttl or {}
        return cls(
            key_schema=_keys(description["KeySchema"]),
            attribute_types=tuple(
                sorted((a["AttributeName"], a["AttributeType"]) for a in description["AttributeDefinitions"])
            ),
            billing_mode="PROVISIONED" if provisioned else "PAY_PER_REQUEST",
            throughput=Throughput.of(throughput) if provisioned else None,
            indexes=tuple(sorted(indexes, key=lambda i: i.name)),
            stream_view=stream.get("StreamViewType") if stream.get("StreamEnabled") else None,
            ttl_attribute=(
                ttl.get("AttributeName") if ttl.get("TimeToLiveStatus") in ("ENABLED", "ENABLING") else None
            ),
            tags=tuple(sorted((t["Key"], t["Value"]) for t in tags or ())),
            sse_kms_key=(
                sse.get("KMSMasterKeyArn") or "aws/dynamodb"
                if sse.get("Status") in ("ENABLED", "ENABLING") and sse.get("SSEType") == "KMS"
                else None
            ),
            table_class=(description.get("TableClassSummary") or {}).get("TableClass") or DEFAULT_TABLE_CLASS,
            deletion_protection=bool(description.get("DeletionProtectionEnabled", False)),
            vector_indexes=tuple(
                sorted(
                    (VectorIndexSettings.of(i) for i in description.get("VectorIndexes") or ()),
                    key=lambda i: i.name,
                )
            ),
        )

    @classmethod
    def from_json(cls, data: Any, origin: str = "schema") -> TableSettings:
        """From :meth:`to_json`'s form, or a bare DescribeTable answer (``{"Table": {...}}`` or the
        TableDescription itself, as ``aws dynamodb describe-table`` prints it: no TTL, no tags then).
        Anything else is a ``ValueError`` naming ``origin`` and what is wrong."""
        if not isinstance(data, dict):
            raise ValueError(f"{origin}: not a DescribeTable answer (a JSON object with Table)")
        ttl = data.get("TimeToLiveDescription")
        tags = data.get("Tags")
        if (ttl is not None and not isinstance(ttl, dict)) or (tags is not None and not _tag_list(tags)):
            raise ValueError(f"{origin}: TimeToLiveDescription must be an object, Tags a list of Key/Value")
        try:
            return cls.from_description(data.get("Table", data), ttl, tags, origin)
        except (KeyError, TypeError, AttributeError, ValueError) as error:  # a member missing or mistyped
            if str(error).startswith(f"{origin}: "):
                raise
            raise ValueError(
                f"{origin}: not a DescribeTable answer ({type(error).__name__}: {error})"
            ) from None

    def to_json(self, table: str) -> dict[str, Any]:
        """A JSON object :meth:`from_json` reads back: DescribeTable's ``Table`` (as CreateTable's request
        for ``table``), DescribeTimeToLive's ``TimeToLiveDescription`` and ListTagsOfResource's ``Tags``."""
        params = self.create_params(table)
        tags = params.pop("Tags", [])
        ttl = (
            {"TimeToLiveStatus": "ENABLED", "AttributeName": self.ttl_attribute}
            if self.ttl_attribute
            else {"TimeToLiveStatus": "DISABLED"}
        )
        return {"Table": request_as_description(params), "TimeToLiveDescription": ttl, "Tags": tags}

    @classmethod
    def capture(cls, target: Target, table: str, warn: Warn) -> TableSettings | None:
        """The table's settings on ``target``, or None when it does not exist. A target that cannot tell its
        TTL or tags (it does not support them) is a warning, and the setting is taken as off."""
        try:
            description = target.call("DescribeTable", TableName=table)["Table"]
        except TargetError as error:
            if error.code == "ResourceNotFoundException":
                return None
            raise
        ttl = _optional(target, warn, f"TTL of {table}", "DescribeTimeToLive", TableName=table).get(
            "TimeToLiveDescription"
        )
        tags: list[dict[str, str]] = []
        params: dict[str, Any] = {"ResourceArn": description.get("TableArn", table)}
        while True:
            page = _optional(target, warn, f"tags of {table}", "ListTagsOfResource", **params)
            tags.extend(page.get("Tags") or ())
            if not page.get("NextToken"):
                break
            params["NextToken"] = page["NextToken"]
        return cls.from_description(description, ttl, tags, origin=f"{target.name} {table}")

    # -- applying -------------------------------------------------------------------------------------------

    def create_params(self, table: str, *, everything: bool = True) -> dict[str, Any]:
        """CreateTable's request for ``table``; ``everything=False``: only what every DynamoDB takes (keys,
        billing, indexes, stream), for a target that refused the rest."""
        params: dict[str, Any] = {
            "TableName": table,
            "KeySchema": [{"AttributeName": a, "KeyType": k} for a, k in self.key_schema],
            "AttributeDefinitions": [
                {"AttributeName": a, "AttributeType": t} for a, t in self.attribute_types
            ],
        }
        if self.throughput is not None:
            params["BillingMode"] = "PROVISIONED"
            params["ProvisionedThroughput"] = self.throughput.params()
        else:
            params["BillingMode"] = "PAY_PER_REQUEST"
        for kind, local in (("GlobalSecondaryIndexes", False), ("LocalSecondaryIndexes", True)):
            indexes = [index.params() for index in self.indexes if index.local == local]
            if indexes:
                params[kind] = indexes
        if self.stream_view is not None:
            params["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": self.stream_view}
        if self.vector_indexes:  # always: their search-schema attributes are in AttributeDefinitions
            params["VectorIndexes"] = [index.params() for index in self.vector_indexes]
        if everything:
            params.update(self._extras())
        return params

    def _extras(self) -> dict[str, Any]:
        """CreateTable's parameters for the settings not every target supports."""
        extras: dict[str, Any] = {}
        if self.tags:
            extras["Tags"] = [{"Key": k, "Value": v} for k, v in self.tags]
        if self.sse_kms_key is not None:
            extras["SSESpecification"] = _sse(self.sse_kms_key)
        if self.table_class != DEFAULT_TABLE_CLASS:
            extras["TableClass"] = self.table_class
        if self.deletion_protection:
            extras["DeletionProtectionEnabled"] = True
        return extras

    def create(self, target: Target, table: str, warn: Warn) -> None:
        """CreateTable ``table`` on ``target`` with these settings (but TTL: see :meth:`apply_ttl`), and wait
        for it to be ACTIVE. When the target refuses the whole request, the table is created with what every
        DynamoDB takes and each other setting is applied on its own. Every setting the target refused, or
        took but does not show (DynamoDB Local takes tags and a table class without keeping them), is a
        warning."""
        extras = self._extras()
        refused: set[str] = set()
        try:
            target.call("CreateTable", **self.create_params(table))
        except TargetError as error:
            if not extras or error.code in ("ResourceInUseException", "LimitExceededException"):
                raise
            try:
                target.call("CreateTable", **self.create_params(table, everything=False))
            except TargetError:
                raise error from None
            arn = wait_active(target, table).get("TableArn", table)
            refused = self._apply_extras(target, table, arn, extras, warn)
        wait_active(target, table)
        kept = TableSettings.capture(target, table, _quiet) or self
        for name in self.differences(kept):
            if name != "ttl_attribute" and name not in refused:
                warn(
                    f"{target.name} did not keep {_FIELD_NAMES.get(name, name)} of {table}: asked for "
                    f"{self.describe_setting(name)}, it has {kept.describe_setting(name)}"
                )

    def _apply_extras(
        self, target: Target, table: str, arn: str, extras: dict[str, Any], warn: Warn
    ) -> set[str]:
        """Apply each setting of ``extras`` on its own; the fields of those refused (each a warning)."""
        refused = set()
        for name, value in extras.items():
            if name == "Tags":
                operation, params = "TagResource", {"ResourceArn": arn, "Tags": value}
            else:
                operation, params = "UpdateTable", {"TableName": table, name: value}
            try:
                target.call(operation, **params)
            except TargetError as error:
                field = _EXTRA_FIELDS[name]
                refused.add(field)
                warn(f"{target.name} did not take {_FIELD_NAMES[field]} for {table} ({error}): not carried")
        return refused

    def apply_ttl(self, target: Target, table: str, warn: Warn) -> None:
        """Turn TTL on for ``table`` as these settings say (after its items are in), unless it already is;
        a target that refuses it, or has another TTL attribute, is a warning."""
        if self.ttl_attribute is None:
            return
        current = _optional(target, warn, f"TTL of {table}", "DescribeTimeToLive", TableName=table)
        described = current.get("TimeToLiveDescription") or {}
        if described.get("TimeToLiveStatus") in ("ENABLED", "ENABLING"):
            if described.get("AttributeName") != self.ttl_attribute:
                warn(
                    f"{table} on {target.name} already expires items on {described.get('AttributeName')!r}, "
                    f"not {self.ttl_attribute!r}: its TTL was left as it is"
                )
            return
        spec = {"Enabled": True, "AttributeName": self.ttl_attribute}
        try:
            target.call("UpdateTimeToLive", TableName=table, TimeToLiveSpecification=spec)
        except TargetError as refused:
            warn(
                f"{target.name} did not take TTL on {self.ttl_attribute!r} for {table} ({refused}): "
                "not carried"
            )

    def differences(self, other: TableSettings) -> list[str]:
        """The settings (field names) on which ``other`` differs from these."""
        return [f.name for f in fields(self) if getattr(self, f.name) != getattr(other, f.name)]

    def describe_setting(self, name: str) -> str:
        """One setting's value, for a message."""
        value = getattr(self, name)
        if value is None or value == ():
            return "none"
        if name == "tags":
            return ", ".join(f"{k}={v}" for k, v in value)
        if name in ("indexes", "vector_indexes"):
            return ", ".join(index.name for index in value)
        if isinstance(value, Throughput):
            return f"read {value.read}, write {value.write}"
        return value if isinstance(value, str) else json.dumps(value, default=str)


# CreateTable's parameter -> the TableSettings field it sets, for the settings not every target takes.
_EXTRA_FIELDS = {
    "Tags": "tags",
    "SSESpecification": "sse_kms_key",
    "TableClass": "table_class",
    "DeletionProtectionEnabled": "deletion_protection",
}
_FIELD_NAMES = {
    "key_schema": "the key schema",
    "attribute_types": "the key attribute types",
    "billing_mode": "the billing mode",
    "throughput": "the provisioned throughput",
    "indexes": "the secondary indexes",
    "stream_view": "the stream",
    "ttl_attribute": "TTL",
    "tags": "the tags",
    "sse_kms_key": "KMS encryption",
    "table_class": "the table class",
    "deletion_protection": "deletion protection",
    "vector_indexes": "the vector indexes",
}
CREATE_WAIT = 120.0  # seconds to wait for a new table to become ACTIVE (DynamoDB takes seconds to minutes)


def _quiet(_: str) -> None:
    """A capture's warnings, when the comparison that follows says the same."""


def wait_active(target: Target, table: str, timeout: float = CREATE_WAIT) -> dict[str, Any]:
    """The table's description once it is ACTIVE; ``ValueError`` if it is not after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            found = target.call("DescribeTable", TableName=table)["Table"]
        except TargetError as error:
            if error.code != "ResourceNotFoundException":
                raise
            found = None
        if found is not None and found.get("TableStatus", "ACTIVE") == "ACTIVE":
            return found
        if time.monotonic() > deadline:
            raise TimeoutError(f"table {table} in {target.name} is not ACTIVE after {timeout:.0f} s")
        time.sleep(0.2)


def _keys(schema: list[dict[str, str]]) -> tuple[tuple[str, str], ...]:
    return tuple((k["AttributeName"], k["KeyType"]) for k in schema)


def _tag_list(tags: Any) -> bool:
    return isinstance(tags, list) and all(isinstance(t, dict) and {"Key", "Value"} <= t.keys() for t in tags)


def _sse(key: str) -> dict[str, Any]:
    spec: dict[str, Any] = {"Enabled": True, "SSEType": "KMS"}
    if key != "aws/dynamodb" and not key.endswith(":alias/aws/dynamodb"):
        spec["KMSMasterKeyId"] = key
    return spec


def request_as_description(params: dict[str, Any]) -> dict[str, Any]:
    """CreateTable's request as the TableDescription fields :meth:`TableSettings.from_description` reads."""
    description = {
        k: v for k, v in params.items() if k not in ("BillingMode", "SSESpecification", "TableClass")
    }
    description["BillingModeSummary"] = {"BillingMode": params.get("BillingMode", "PROVISIONED")}
    if (params.get("SSESpecification") or {}).get("Enabled"):
        key = params["SSESpecification"].get("KMSMasterKeyId", "aws/dynamodb")
        description["SSEDescription"] = {"Status": "ENABLED", "SSEType": "KMS", "KMSMasterKeyArn": key}
    if "TableClass" in params:
        description["TableClassSummary"] = {"TableClass": params["TableClass"]}
    return description


def _optional(target: Target, warn: Warn, what: str, operation: str, **params: Any) -> dict[str, Any]:
    """A call for a setting some targets do not support: its answer, or {} and a warning when refused for
    that reason (any other refusal -- the endpoint unreachable, bad credentials -- is raised)."""
    try:
        return target.call(operation, **params)
    except TargetError as error:
        if error.code not in ("UnknownOperationException", "ValidationException", "UnrecognizedOperation"):
            raise
        warn(f"{target.name} cannot tell the {what} ({error}): taken as none")
        return {}
