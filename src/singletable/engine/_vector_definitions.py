"""Vector index definitions: the checks CreateTable and UpdateTable share, their stored form, and how
DescribeTable shows them.

A vector index is declared with ``VectorIndexes`` on CreateTable or a ``Create`` in UpdateTable's
``VectorIndexUpdates``: IndexName, VectorAttribute, Dimensions (1 to 4096), DistanceFunction, Projection and
an optional SearchSchema (at most one HASH element, INLINE_FILTER elements), every SearchSchema attribute
declared in AttributeDefinitions. Only on-demand tables may have them, at most five a table, and indexes on
one attribute must agree on its dimensions. Error texts are AWS's where AWS's are known (see
docs/compatibility.md for the ones worded here).

Declaring one needs the ``vector`` extra (numpy, the exact search's accelerator): a table that could never
be searched is refused with the one-line MissingExtra message instead.
"""

from __future__ import annotations

from typing import Any

from singletable._extras import require
from singletable.engine._table_definitions import check_projection, invalid

MAX_VECTOR_INDEXES = 5
MAX_DIMENSIONS = 4096
DISTANCE_FUNCTIONS = ("COSINE", "DOT_PRODUCT", "EUCLIDEAN")


def require_numpy() -> None:
    """Vector search without its extra fails with the one-line MissingExtra message."""
    require("vector", ("numpy",), "Vector search")


def check_billing(pay_per_request: bool) -> None:
    if not pay_per_request:
        raise invalid("Vector indexes are only supported for PAY_PER_REQUEST tables")


def stored_vector_index(
    index: dict[str, Any], definitions: list[dict[str, str]], index_id: int
) -> dict[str, Any]:
    """Check one vector index definition; return its stored form (``_IndexId`` is never shown)."""
    dimensions = index["Dimensions"]
    if not 1 <= dimensions <= MAX_DIMENSIONS:
        raise invalid(f"Number of dimensions must be between 1 and {MAX_DIMENSIONS} inclusive.")
    if index["DistanceFunction"] not in DISTANCE_FUNCTIONS:
        raise invalid(f"Unsupported DistanceFunction: {index['DistanceFunction']}")
    check_projection(index["Projection"])
    stored: dict[str, Any] = {
        "IndexName": index["IndexName"],
        "VectorAttribute": {"AttributeName": index["VectorAttribute"]["AttributeName"]},
        "Dimensions": dimensions,
        "DistanceFunction": index["DistanceFunction"],
        "Projection": dict(index["Projection"]),
        "_IndexId": index_id,
    }
    schema = index.get("SearchSchema")
    if schema is not None:
        defined = {d["AttributeName"] for d in definitions}
        if any(element["AttributeName"] not in defined for element in schema):
            raise invalid("One element in SearchSchema is not defined in attribute definitions")
        names = [element["AttributeName"] for element in schema]
        if len(set(names)) != len(names):
            raise invalid("Duplicate attribute in SearchSchema")
        if sum(1 for element in schema if element["SearchSchemaElementType"] == "HASH") > 1:
            raise invalid("SearchSchema can have at most one HASH element")
        if index["VectorAttribute"]["AttributeName"] in names:
            raise invalid("The vector attribute cannot be part of the SearchSchema")
        stored["SearchSchema"] = [
            {"AttributeName": e["AttributeName"], "SearchSchemaElementType": e["SearchSchemaElementType"]}
            for e in schema
        ]
    return stored


def check_dimensions_agree(indexes: list[dict[str, Any]]) -> None:
    """Indexes on one attribute must agree on its dimensions."""
    seen: dict[str, int] = {}
    for index in indexes:
        attribute = index["VectorAttribute"]["AttributeName"]
        dimensions = seen.setdefault(attribute, index["Dimensions"])
        if dimensions != index["Dimensions"]:
            raise invalid(
                f"Conflicting attribute definition for '{attribute}'. All VectorIndexes on the same vector "
                "attribute must use the same dimensions."
            )


def check_count(count: int) -> None:
    if count > MAX_VECTOR_INDEXES:
        raise invalid(f"VectorIndex count exceeds the per-table limit of {MAX_VECTOR_INDEXES}")


def create_table_vector_indexes(
    params: dict[str, Any], pay_per_request: bool, seen_names: set[str], first_id: int
) -> list[dict[str, Any]]:
    """CreateTable's ``VectorIndexes``, checked in DynamoDB's order; their stored forms, ids from
    ``first_id``. ``seen_names`` holds the table's other index names (names are unique across kinds)."""
    indexes = params.get("VectorIndexes")
    if indexes is None:
        return []
    if not indexes:
        raise invalid("List of VectorIndexes is empty")
    check_billing(pay_per_request)
    check_count(len(indexes))
    stored: list[dict[str, Any]] = []
    for offset, index in enumerate(indexes):
        name = index["IndexName"]
        if name in seen_names:
            raise invalid(f"Duplicate index name: {name}")
        seen_names.add(name)
        stored.append(stored_vector_index(index, params["AttributeDefinitions"], first_id + offset))
    check_dimensions_agree(stored)
    require_numpy()
    return stored


def schema_attribute_names(indexes: list[dict[str, Any]]) -> list[str]:
    """The attribute names every SearchSchema uses (they count as used AttributeDefinitions)."""
    return [e["AttributeName"] for index in indexes for e in index.get("SearchSchema", ())]


def describe_vector_index(
    stored: dict[str, Any], arn: str, status: str, count: int, size: int
) -> dict[str, Any]:
    """A VectorIndexDescription: the definition, its status, ARN, item count and size."""
    out = {name: value for name, value in stored.items() if not name.startswith("_")}
    out["IndexStatus"] = status
    if stored.get("_Backfilled"):  # an index UpdateTable added reports its (finished) backfill
        out["Backfilling"] = False
    out["IndexArn"] = arn
    out["ItemCount"] = count
    out["IndexSizeBytes"] = size
    return out
