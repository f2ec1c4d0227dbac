"""A design against a live table: what differs, each with what to do about it (``singletable diff``).

The live side is what any endpoint answers to DescribeTable and DescribeTimeToLive -- a database file, a
``singletable serve``, DynamoDB Local or AWS, through :func:`singletable.data.open_target`. The design side
is the CreateTable request the design itself sends (``Table.create_table_params``), its TTL attribute and
stream. Compared: the table's key schema, the type of every key attribute, billing mode and provisioned
capacity, each index (missing, extra, kind, keys, projection, capacity), each vector index (missing, extra,
its attribute, dimensions, distance function, search schema and projection), TTL and the stream. Each
:class:`Difference` carries a stable ``kind``, what the design says, what the table has, and the fix,
worded with DynamoDB's limits in mind (a GSI's keys and projection never change in place; an LSI exists
only from CreateTable).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from singletable.design._infra import key_names, table_spec


@dataclass(frozen=True)
class Difference:
    """One way the live table differs from the design."""

    kind: str  # table-missing, key-schema, attribute-type, billing, throughput, index-missing, index-extra,
    # index-kind, index-keys, projection, vector-index-missing, vector-index-extra, vector-index, ttl, stream
    subject: str  # the table's or the index's name
    design: str
    table: str
    fix: str

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


def diff_table(table: Any, target: Any, table_name: str | None = None) -> list[Difference]:
    """How the table ``table_name`` (default: the design's own name) on ``target`` differs from the
    design ``table`` (a :class:`singletable.model.Table`); ``[]`` when it matches. ``target`` is a
    :class:`singletable.data.Target` or what :func:`~singletable.data.open_target` takes."""
    from singletable.data import Target, TargetError, open_target

    if not isinstance(target, Target):
        with open_target(target, read_only=True) as opened:  # comparing never changes the file
            return diff_table(table, opened, table_name)
    spec = table_spec(table)
    name = table_name or spec.resolved_name
    try:
        live = target.call("DescribeTable", TableName=name)["Table"]
    except TargetError as error:
        if error.code != "ResourceNotFoundException":
            raise
        return [
            Difference(
                "table-missing",
                name,
                "a table",
                "none",
                "create it: singletable synth MODULE --format cloudformation",
            )
        ]
    ttl = target.call("DescribeTimeToLive", TableName=name).get("TimeToLiveDescription", {})
    return [
        *_keys(spec.params, live, name),
        *_billing(spec.params, live, name),
        *_indexes(spec.params, live),
        *_vector_indexes(spec.params.get("VectorIndexes", []), live.get("VectorIndexes", [])),
        *_ttl(spec.ttl_attribute, ttl, name),
        *_stream(spec.params.get("StreamSpecification"), live.get("StreamSpecification"), name),
    ]


def _schema_text(key_schema: list[dict[str, str]], types: dict[str, str]) -> str:
    """Every key attribute in KeySchema order, with its type: a GSI keyed on several attributes per part
    differs from the design when any of them, their order or their types differ."""
    return ", ".join(
        f"{k['KeyType']} {k['AttributeName']} ({types.get(k['AttributeName'], '?')})" for k in key_schema
    )


def _types(description: dict[str, Any]) -> dict[str, str]:
    return {a["AttributeName"]: a["AttributeType"] for a in description.get("AttributeDefinitions", [])}


def _keys(params: dict[str, Any], live: dict[str, Any], name: str) -> list[Difference]:
    want, have = _types(params), _types(live)
    if key_names(params["KeySchema"]) != key_names(live["KeySchema"]):
        return [
            Difference(
                "key-schema",
                name,
                _schema_text(params["KeySchema"], want),
                _schema_text(live["KeySchema"], have),
                "a table's key never changes: create a table with the design's keys and copy the items over "
                "(singletable copy), transforming keys on the way",
            )
        ]
    out = []
    for attribute, kind in want.items():
        if attribute in have and have[attribute] != kind:
            out.append(
                Difference(
                    "attribute-type",
                    name,
                    f"{attribute} is {kind}",
                    f"{attribute} is {have[attribute]}",
                    "a key attribute's type never changes: change the design's type to match, or rebuild "
                    "the table (or index) with the new type and copy the items",
                )
            )
    return out


def _billing(params: dict[str, Any], live: dict[str, Any], name: str) -> list[Difference]:
    want = params["BillingMode"]
    have = live.get("BillingModeSummary", {}).get("BillingMode", "PROVISIONED")
    if want != have:
        return [
            Difference(
                "billing", name, want, have, f"UpdateTable BillingMode={want} (allowed once per 24 hours)"
            )
        ]
    if want != "PROVISIONED":
        return []
    return _throughput(params.get("ProvisionedThroughput"), live.get("ProvisionedThroughput"), name)


def _throughput(want: dict[str, int] | None, have: dict[str, Any] | None, subject: str) -> list[Difference]:
    if not want or not have:
        return []
    pairs = [(k, want[k], have.get(k)) for k in ("ReadCapacityUnits", "WriteCapacityUnits")]
    if all(w == h for _, w, h in pairs):
        return []
    return [
        Difference(
            "throughput",
            subject,
            ", ".join(f"{k} {w}" for k, w, _ in pairs),
            ", ".join(f"{k} {h}" for k, _, h in pairs),
            "UpdateTable ProvisionedThroughput to the design's (or change read_capacity/write_capacity)",
        )
    ]


def _indexes(params: dict[str, Any], live: dict[str, Any]) -> list[Difference]:
    want = _index_map(params)
    have = _index_map(live)
    want_types, have_types = _types(params), _types(live)
    out = []
    for name, (kind, index) in want.items():
        if name not in have:
            fix = (
                "UpdateTable GlobalSecondaryIndexUpdates Create (DynamoDB backfills it online)"
                if kind == "GSI"
                else "an LSI exists only from CreateTable: create a new table with it and copy the items"
            )
            out.append(
                Difference(
                    "index-missing",
                    name,
                    f"{kind} {_schema_text(index['KeySchema'], want_types)}",
                    "none",
                    fix,
                )
            )
            continue
        live_kind, live_index = have[name]
        out += _index(name, kind, index, live_kind, live_index, want_types, have_types)
    for name, (kind, index) in have.items():
        if name not in want:
            out.append(
                Difference(
                    "index-extra",
                    name,
                    "none",
                    f"{kind} {_schema_text(index['KeySchema'], have_types)}",
                    "declare it in the design, or delete it (UpdateTable GlobalSecondaryIndexUpdates Delete)"
                    if kind == "GSI"
                    else "declare it in the design (an LSI cannot be deleted without recreating the table)",
                )
            )
    return out


def _index_map(description: dict[str, Any]) -> dict[str, tuple[str, dict[str, Any]]]:
    found = {i["IndexName"]: ("GSI", i) for i in description.get("GlobalSecondaryIndexes", [])}
    found.update({i["IndexName"]: ("LSI", i) for i in description.get("LocalSecondaryIndexes", [])})
    return found


def _index(
    name: str,
    kind: str,
    want: dict[str, Any],
    live_kind: str,
    have: dict[str, Any],
    want_types: dict[str, str],
    have_types: dict[str, str],
) -> list[Difference]:
    rebuild = (
        "a GSI's keys and projection never change in place: create a new GSI with the design's definition, "
        "move readers to it, then delete this one"
        if kind == "GSI"
        else "an LSI never changes: create a new table with the design's LSI and copy the items"
    )
    if kind != live_kind:
        return [Difference("index-kind", name, kind, live_kind, rebuild)]
    out = []
    want_keys = _schema_text(want["KeySchema"], want_types)
    have_keys = _schema_text(have["KeySchema"], have_types)
    if want_keys != have_keys:
        out.append(Difference("index-keys", name, want_keys, have_keys, rebuild))
    if _projection(want) != _projection(have):
        out.append(Difference("projection", name, _projection(want), _projection(have), rebuild))
    if kind == "GSI":
        out += _throughput(want.get("ProvisionedThroughput"), have.get("ProvisionedThroughput"), name)
    return out


def _projection(index: dict[str, Any]) -> str:
    projection = index.get("Projection", {})
    text = projection.get("ProjectionType", "ALL")
    if text == "INCLUDE":
        text += " " + ", ".join(sorted(projection.get("NonKeyAttributes", [])))
    return text


def _vector_indexes(want: list[dict[str, Any]], have: list[dict[str, Any]]) -> list[Difference]:
    """Vector indexes by name: missing, extra, or declared otherwise. A vector index never changes in place
    (UpdateTable only creates or deletes one), so every fix that is not a create or delete is a rebuild."""
    wanted = {i["IndexName"]: i for i in want}
    live = {i["IndexName"]: i for i in have}
    out = []
    for name, index in wanted.items():
        if name not in live:
            out.append(
                Difference(
                    "vector-index-missing",
                    name,
                    _vector_text(index),
                    "none",
                    "UpdateTable VectorIndexUpdates Create (DynamoDB backfills it from the table's items)",
                )
            )
        elif _vector_text(index) != _vector_text(live[name]):
            out.append(
                Difference(
                    "vector-index",
                    name,
                    _vector_text(index),
                    _vector_text(live[name]),
                    "a vector index never changes in place: create one with the design's definition under "
                    "a new name (UpdateTable VectorIndexUpdates Create), move searches to it, then delete "
                    "this one",
                )
            )
    for name, index in live.items():
        if name not in wanted:
            out.append(
                Difference(
                    "vector-index-extra",
                    name,
                    "none",
                    _vector_text(index),
                    "declare it in the design (Table(vector_indexes=[VectorIndex(...)])), or delete it "
                    "(UpdateTable VectorIndexUpdates Delete)",
                )
            )
    return out


def _vector_text(index: dict[str, Any]) -> str:
    """A vector index as one comparable line: attribute, dimensions, distance, search schema, projection."""
    schema = ", ".join(
        f"{e['AttributeName']} {e['SearchSchemaElementType']}" for e in index.get("SearchSchema") or []
    )
    text = (
        f"VECTOR {index['VectorAttribute']['AttributeName']} ({index['Dimensions']} dimensions, "
        f"{index['DistanceFunction']})"
    )
    return text + (f", search schema {schema}" if schema else "") + f", projection {_projection(index)}"


def _ttl(want: str | None, have: dict[str, Any], name: str) -> list[Difference]:
    status = have.get("TimeToLiveStatus", "DISABLED")
    live = have.get("AttributeName") if status in ("ENABLED", "ENABLING") else None
    if want == live:
        return []
    design = f"on {want}" if want else "off"
    table = f"{status.lower()} on {live}" if live else "off"
    if want and live:
        fix = f"disable TTL on {live}, then enable it on {want} (UpdateTimeToLive; one change per hour)"
    elif want:
        fix = f"UpdateTimeToLive Enabled=true AttributeName={want}"
    else:
        fix = f"declare ttl_attribute={live!r} (or an entity's ttl field), or disable TTL (UpdateTimeToLive)"
    return [Difference("ttl", name, design, table, fix)]


def _stream(want: dict[str, Any] | None, have: dict[str, Any] | None, name: str) -> list[Difference]:
    want_view = want["StreamViewType"] if want else None
    have_view = have.get("StreamViewType") if have and have.get("StreamEnabled") else None
    if want_view == have_view:
        return []
    if want_view and have_view:
        fix = f"disable the stream, then enable it with {want_view} (UpdateTable StreamSpecification)"
    elif want_view:
        fix = f"UpdateTable StreamSpecification StreamEnabled=true StreamViewType={want_view}"
    else:
        fix = f"declare stream={have_view!r} in the design, or disable the stream (UpdateTable)"
    return [Difference("stream", name, want_view or "off", have_view or "off", fix)]
