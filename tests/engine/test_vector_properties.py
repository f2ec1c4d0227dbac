"""SearchVectors is exact: over random vectors, partitions, filters and projections it answers what a brute
force computed here, in plain Python, answers -- the same items in the same order with the same scores.

The brute force rounds each stored vector to float32 (what the index holds), scores in float64 as AWS
defines each distance, and orders COSINE and EUCLIDEAN smallest first, DOT_PRODUCT largest first. Where two
scores are too close for float32 to order them, only the scores are compared.
"""

from __future__ import annotations

import math
import struct
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from draws import examples
from singletable.engine import DynamoDBError, Engine

TENANTS = ("t1", "t2")
CATEGORIES = ("red", "blue")
ATTRIBUTES = ("pk", "tenant", "category", "emb", "note")


def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def score(distance: str, stored: list[float], query: list[float]) -> float:
    if distance == "EUCLIDEAN":
        return math.sqrt(sum((s - q) ** 2 for s, q in zip(stored, query, strict=True)))
    dot = sum(s * q for s, q in zip(stored, query, strict=True))
    if distance == "DOT_PRODUCT":
        return dot
    norms = math.sqrt(sum(s * s for s in stored)) * math.sqrt(sum(q * q for q in query))
    if norms == 0:
        return 1.0
    if stored == query:
        return 0.0
    return min(2.0, max(0.0, 1.0 - dot / norms))


numbers = st.integers(-8, 8).map(float) | st.floats(-4, 4, allow_nan=False, width=32)


@st.composite
def cases(draw: Any) -> dict[str, Any]:
    dimensions = draw(st.integers(1, 4))
    vector = st.lists(numbers, min_size=dimensions, max_size=dimensions)
    items = draw(
        st.lists(
            st.fixed_dictionaries(
                {
                    "tenant": st.sampled_from(TENANTS),
                    "category": st.none() | st.sampled_from(CATEGORIES),
                    "emb": st.none() | vector,
                    "note": st.text(max_size=3),
                }
            ),
            max_size=25,
        )
    )
    return {
        "dimensions": dimensions,
        "distance": draw(st.sampled_from(("COSINE", "EUCLIDEAN", "DOT_PRODUCT"))),
        "items": items,
        "query": draw(vector),
        "top_k": draw(st.integers(1, 12)),
        "tenant": draw(st.sampled_from(TENANTS)),
        "category": draw(st.none() | st.sampled_from(CATEGORIES)),
        "projection": draw(st.none() | st.lists(st.sampled_from(ATTRIBUTES), min_size=1, unique=True)),
    }


def av(numbers: list[float]) -> dict[str, Any]:
    return {"L": [{"N": repr(n)} for n in numbers]}


def create_docs(engine: Engine, dimensions: int, distance: str) -> None:
    """The table both properties search: key ``pk``, vectors in ``emb`` indexed as ``by_emb`` (every attribute
    projected), partitioned by ``tenant`` and filtered by ``category``."""
    engine.create_table(
        TableName="docs",
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "tenant", "AttributeType": "S"},
            {"AttributeName": "category", "AttributeType": "S"},
        ],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
        VectorIndexes=[
            {
                "IndexName": "by_emb",
                "VectorAttribute": {"AttributeName": "emb"},
                "Dimensions": dimensions,
                "DistanceFunction": distance,
                "Projection": {"ProjectionType": "ALL"},
                "SearchSchema": [
                    {"AttributeName": "tenant", "SearchSchemaElementType": "HASH"},
                    {"AttributeName": "category", "SearchSchemaElementType": "INLINE_FILTER"},
                ],
            }
        ],
    )


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_search_vectors_equals_brute_force(case: dict[str, Any]) -> None:
    engine = Engine(":memory:")
    try:
        create_docs(engine, case["dimensions"], case["distance"])
        stored: dict[str, dict[str, Any]] = {}
        for number, fields in enumerate(case["items"]):
            pk = f"i{number:02d}"
            item: dict[str, Any] = {
                "pk": {"S": pk},
                "tenant": {"S": fields["tenant"]},
                "note": {"S": fields["note"]},
            }
            if fields["category"] is not None:
                item["category"] = {"S": fields["category"]}
            if fields["emb"] is not None:
                item["emb"] = av(fields["emb"])
            engine.put_item(TableName="docs", Item=item)
            stored[pk] = item

        condition = "tenant = :t"
        values = {":t": {"S": case["tenant"]}}
        if case["category"] is not None:
            condition += " AND category = :c"
            values[":c"] = {"S": case["category"]}
        request: dict[str, Any] = {
            "TableName": "docs",
            "IndexName": "by_emb",
            "SearchVector": [{"N": repr(n)} for n in case["query"]],
            "TopK": case["top_k"],
            "SearchConditionExpression": condition,
            "ExpressionAttributeValues": values,
        }
        if case["projection"] is not None:
            request["ProjectionExpression"] = ", ".join(case["projection"])
        results = engine.search_vectors(**request)["SearchResults"]

        # The brute force.
        query = [f32(q) for q in case["query"]]
        candidates = []
        for pk, item in stored.items():
            if "emb" not in item or item["tenant"]["S"] != case["tenant"]:
                continue
            if case["category"] is not None and item.get("category", {}).get("S") != case["category"]:
                continue
            vector = [f32(float(v["N"])) for v in item["emb"]["L"]]
            candidates.append((score(case["distance"], vector, query), pk, vector))
        largest_first = case["distance"] == "DOT_PRODUCT"
        candidates.sort(key=lambda c: (-c[0] if largest_first else c[0], c[1]))
        expected = candidates[: case["top_k"]]

        assert len(results) == len(expected)
        for result, (want, _pk, _vector) in zip(results, expected, strict=True):
            assert math.isclose(result["Score"], want, rel_tol=1e-5, abs_tol=1e-5)
        for position, (want, pk, vector) in enumerate(expected):
            neighbours = [other for other in candidates if other[1] != pk]
            if any(abs(other[0] - want) <= 1e-4 * max(1.0, abs(want)) for other in neighbours):
                continue  # a near tie: float32 may order these either way
            shown = dict(stored[pk])
            shown["emb"] = vector
            if case["projection"] is None:
                shown.pop("emb")
            else:
                shown = {name: value for name, value in shown.items() if name in case["projection"]}
            got = dict(results[position]["Item"])
            if "emb" in got:
                got["emb"] = [f32(float(v["N"])) for v in got["emb"]["L"]]  # shortest float32 text
            assert got == shown
    finally:
        engine.close()


TOKENS = [
    "tenant",
    "category",
    "#t",
    "#c",
    ":t",
    ":c",
    "=",
    "<",
    "<>",
    "AND",
    "OR",
    "NOT",
    "(",
    ")",
    ",",
    "IN",
    "BETWEEN",
    "begins_with",
    "size",
    ".x",
    "[0]",
    "emb",
    "pk",
    "  ",
]


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    condition=st.lists(st.sampled_from(TOKENS), max_size=8).map(" ".join),
    names=st.dictionaries(st.sampled_from(["#t", "#c", "#x"]), st.sampled_from(["tenant", "category", "x"])),
    values=st.dictionaries(
        st.sampled_from([":t", ":c", ":x"]),
        st.sampled_from([{"S": "t1"}, {"S": ""}, {"N": "1"}, {"B": b"x"}, {"L": []}, {"BOOL": True}]),
    ),
    vector=st.lists(
        st.sampled_from([{"N": "1"}, {"N": "1e39"}, {"S": "1"}, {"L": [{"N": "1"}]}]), max_size=3
    ),
    top_k=st.integers(-2, 120),
)
def test_hostile_searches_are_answered_or_refused_as_validation(
    condition: str, names: dict[str, str], values: dict[str, Any], vector: list[Any], top_k: int
) -> None:
    engine = Engine(":memory:")
    try:
        create_docs(engine, 2, "COSINE")
        engine.put_item(
            TableName="docs",
            Item={"pk": {"S": "a"}, "tenant": {"S": "t1"}, "category": {"S": "t1"}, "emb": av([1.0, 0.0])},
        )
        request: dict[str, Any] = {
            "TableName": "docs",
            "IndexName": "by_emb",
            "SearchVector": vector,
            "TopK": top_k,
        }
        if condition.strip():
            request["SearchConditionExpression"] = condition
        if names:
            request["ExpressionAttributeNames"] = names
        if values:
            request["ExpressionAttributeValues"] = values
        try:
            response = engine.search_vectors(**request)
        except DynamoDBError as error:
            assert error.code == "ValidationException", error
            assert error.message
        else:
            assert len(response["SearchResults"]) <= 1
    finally:
        engine.close()
