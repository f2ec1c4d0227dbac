"""Reads answered for the wire pass stored items through undecoded, and the wire cannot tell.

The dispatcher runs GetItem, Query and Scan with ``for_wire=True``: an item returned whole goes to the codec
as ``orjson.Fragment`` of its stored JSON. These tests hold the dispatcher's response bytes to the codec's
encoding of the Python API's response (plain dicts, decoded) for every attribute type, pages that stop early,
indexes, segments, filters, projections, COUNT and PartiQL -- and check that the Python API still gets dicts.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tables import create

from draws import examples
from singletable import Engine
from singletable._protocol import Dispatcher
from singletable._protocol import wire_json as wire

TABLE = "pass_through"
PREFIX = "DynamoDB_20120810."
KEY_NAMES = ("PK", "SK", "G1PK", "G1SK", "G2PK", "L1SK")


@pytest.fixture(scope="module", params=[":memory:", "file"])
def engine(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    path = request.param if request.param == ":memory:" else str(tmp_path_factory.mktemp("wire") / "t.db")
    with Engine(path) as engine:
        create(engine, TABLE, gsi=True, lsi=True)
        yield engine


def _wire_bytes(dispatcher: Dispatcher, operation: str, params: dict[str, Any]) -> bytes:
    status, _, body = dispatcher.handle(PREFIX + operation, wire.encode_response(params))
    assert status == 200, body
    return body


def _same_on_the_wire(engine: Engine, operation: str, params: dict[str, Any]) -> dict[str, Any]:
    """The dispatcher's response bytes equal the codec's encoding of the Python API's response."""
    python = engine.execute(operation, dict(params))
    assert _wire_bytes(Dispatcher(engine), operation, params) == wire.encode_response(python)
    return python


# -------------------------------------------------------------------------------- generated items

text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=6)
numbers = st.one_of(
    st.integers(-(10**30), 10**30).map(str),
    st.tuples(st.integers(-999, 999), st.integers(0, 999)).map(lambda t: f"{t[0]}.{t[1]:03d}"),
    st.sampled_from(["0.000", "1e5", "-2.50E-3", "12345678901234567890123456789012345678"]),
)
scalars = st.one_of(
    text.map(lambda s: {"S": s}),
    numbers.map(lambda n: {"N": n}),
    st.binary(max_size=6).map(lambda b: {"B": b}),
    st.booleans().map(lambda b: {"BOOL": b}),
    st.just({"NULL": True}),
    st.sets(text, min_size=1, max_size=3).map(lambda s: {"SS": sorted(s)}),
    st.sets(st.integers(-(10**6), 10**6), min_size=1, max_size=3).map(lambda s: {"NS": [str(n) for n in s]}),
    st.sets(st.binary(min_size=1, max_size=4), min_size=1, max_size=3).map(lambda s: {"BS": sorted(s)}),
)
values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=3).map(lambda xs: {"L": xs}),
        st.dictionaries(text.filter(bool), children, max_size=3).map(lambda m: {"M": m}),
    ),
    max_leaves=8,
)
attributes = st.dictionaries(
    st.text(alphabet="abcxyz_#", min_size=1, max_size=3).filter(lambda n: n not in KEY_NAMES),
    values,
    max_size=4,
)
index_keys = st.fixed_dictionaries(
    {},
    optional={
        "G1PK": st.sampled_from(["g1", "g2"]).map(lambda s: {"S": s}),
        "G1SK": st.integers(-5, 5).map(lambda n: {"N": str(n)}),
        "G2PK": st.sampled_from(["g1", "g2"]).map(lambda s: {"S": s}),
        "L1SK": text.filter(bool).map(lambda s: {"S": s}),
    },
)
partitions = st.lists(st.tuples(attributes, index_keys), min_size=1, max_size=6)
_partition_numbers = itertools.count()


def _put_partition(engine: Engine, partition: list[tuple[dict, dict]]) -> str:
    pk = f"p{next(_partition_numbers)}"
    for position, (attrs, keys) in enumerate(partition):
        item = {**attrs, **keys, "PK": {"S": pk}, "SK": {"S": f"s{position}"}}
        if "G1SK" in item and "G1PK" not in item:
            item["G1PK"] = {"S": "g1"}
        engine.put_item(TableName=TABLE, Item=item)
    return pk


def _delete_partition(engine: Engine, pk: str, size: int) -> None:
    for position in range(size):
        engine.delete_item(TableName=TABLE, Key={"PK": {"S": pk}, "SK": {"S": f"s{position}"}})


def _all_pages(engine: Engine, operation: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Every page of a Query or Scan, each page's bytes compared."""
    pages = []
    while True:
        page = _same_on_the_wire(engine, operation, params)
        pages.append(page)
        if "LastEvaluatedKey" not in page:
            return pages
        params = {**params, "ExclusiveStartKey": page["LastEvaluatedKey"]}


limits = st.one_of(st.none(), st.integers(1, 4))


@settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(partition=partitions, limit=limits, forward=st.booleans(), capacity=st.sampled_from([None, "INDEXES"]))
def test_reads_are_byte_identical_on_the_wire(
    engine: Engine, partition: list, limit: int | None, forward: bool, capacity: str | None
) -> None:
    pk = _put_partition(engine, partition)
    try:
        common: dict[str, Any] = {"TableName": TABLE, "ScanIndexForward": forward}
        if limit is not None:
            common["Limit"] = limit
        if capacity is not None:
            common["ReturnConsumedCapacity"] = capacity
        key = {"KeyConditionExpression": "PK = :p", "ExpressionAttributeValues": {":p": {"S": pk}}}
        pages = _all_pages(engine, "Query", {**common, **key})
        assert sum(page["Count"] for page in pages) == len(partition)
        _all_pages(engine, "Query", {**common, **key, "IndexName": "LSI1"})
        _all_pages(engine, "Query", {**common, **key, "IndexName": "LSI1", "Select": "ALL_ATTRIBUTES"})
        for index, hash_name in (("GSI1", "G1PK"), ("GSI2", "G2PK")):
            by_hash = {
                "KeyConditionExpression": f"{hash_name} = :g",
                "ExpressionAttributeValues": {":g": {"S": "g1"}},
            }
            _all_pages(engine, "Query", {**common, **by_hash, "IndexName": index})
        scan = {k: v for k, v in common.items() if k != "ScanIndexForward"}
        for segment in range(2):
            _all_pages(engine, "Scan", {**scan, "Segment": segment, "TotalSegments": 2})
        _all_pages(engine, "Scan", {**scan, "IndexName": "GSI1"})
        for position in range(len(partition)):
            key_of = {"PK": {"S": pk}, "SK": {"S": f"s{position}"}}
            got = _same_on_the_wire(engine, "GetItem", {"TableName": TABLE, "Key": key_of})
            assert got["Item"]["SK"] == {"S": f"s{position}"}
        missing = {"PK": {"S": pk}, "SK": {"S": "none"}}
        assert _same_on_the_wire(engine, "GetItem", {"TableName": TABLE, "Key": missing}) == {}
    finally:
        _delete_partition(engine, pk, len(partition))


# -------------------------------------------------------------------------------- fixed cases

ITEMS = [
    {
        "PK": {"S": "fixed"},
        "SK": {"S": f"s{n}"},
        "a": {"N": str(n)},
        "bin": {"B": bytes([n, 0, 255])},
        "bins": {"BS": [b"\x00", bytes([n + 1])]},
        "nested": {"M": {"l": {"L": [{"S": 'é\n"x"'}, {"NS": ["1", "2.5"]}, {"NULL": True}]}}},
        "G1PK": {"S": "fixed"},
        "G1SK": {"N": str(n)},
        "G2PK": {"S": "fixed"},
        "L1SK": {"S": str(9 - n)},
    }
    for n in range(5)
]
FIXED_KEY = {"KeyConditionExpression": "PK = :p", "ExpressionAttributeValues": {":p": {"S": "fixed"}}}


@pytest.fixture(scope="module")
def fixed(engine: Engine) -> Engine:
    for item in ITEMS:
        engine.put_item(TableName=TABLE, Item=item)
    return engine


def _for_wire(engine: Engine, operation: str, params: dict[str, Any]) -> dict[str, Any]:
    return engine.execute(operation, params, for_wire=True)


def test_plain_reads_pass_items_through_and_the_python_api_gets_dicts(fixed: Engine) -> None:
    query = {"TableName": TABLE, **FIXED_KEY}
    assert all(type(item) is orjson.Fragment for item in _for_wire(fixed, "Query", dict(query))["Items"])
    assert type(_for_wire(fixed, "Scan", {"TableName": TABLE, "Limit": 2})["Items"][0]) is orjson.Fragment
    key = {"PK": {"S": "fixed"}, "SK": {"S": "s1"}}
    assert type(_for_wire(fixed, "GetItem", {"TableName": TABLE, "Key": key})["Item"]) is orjson.Fragment
    # The Python API, and execute without for_wire, decode: dicts, binary values as bytes.
    for response in (fixed.query(**query), fixed.execute("Query", dict(query)), fixed.scan(TableName=TABLE)):
        assert response["Items"] and all(type(item) is dict for item in response["Items"])
    assert fixed.query(**query)["Items"] == ITEMS
    assert fixed.get_item(TableName=TABLE, Key=key)["Item"] == ITEMS[1]
    assert fixed.get_item(TableName=TABLE, Key=key)["Item"]["bin"] == {"B": bytes([1, 0, 255])}


LEGACY_KEY = {"KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "fixed"}]}}}
A_ABOVE_1 = {":p": {"S": "fixed"}, ":n": {"N": "1"}}


@pytest.mark.parametrize(
    ("operation", "params"),
    [
        ("Query", {**FIXED_KEY, "FilterExpression": "a > :n", "ExpressionAttributeValues": A_ABOVE_1}),
        ("Query", {**FIXED_KEY, "ProjectionExpression": "SK, nested.l[1], bin"}),
        ("Query", {**LEGACY_KEY, "AttributesToGet": ["SK", "bins"]}),
        (
            "Query",
            {
                **LEGACY_KEY,
                "QueryFilter": {"a": {"ComparisonOperator": "GE", "AttributeValueList": [{"N": "3"}]}},
            },
        ),
        ("Query", {**FIXED_KEY, "Select": "COUNT"}),
        ("Query", {**FIXED_KEY, "Select": "SPECIFIC_ATTRIBUTES", "ProjectionExpression": "bin", "Limit": 2}),
        ("Scan", {"FilterExpression": "a < :n", "ExpressionAttributeValues": {":n": {"N": "2"}}}),
        ("Scan", {"ScanFilter": {"a": {"ComparisonOperator": "EQ", "AttributeValueList": [{"N": "4"}]}}}),
        ("Scan", {"ProjectionExpression": "#s", "ExpressionAttributeNames": {"#s": "bins"}, "Limit": 3}),
        ("Scan", {"Select": "COUNT"}),
        (
            "GetItem",
            {"Key": {"PK": {"S": "fixed"}, "SK": {"S": "s2"}}, "ProjectionExpression": "nested.l[0], bin"},
        ),
        ("GetItem", {"Key": {"PK": {"S": "fixed"}, "SK": {"S": "s2"}}, "AttributesToGet": ["bins"]}),
    ],
)
def test_filters_projections_and_count_still_decode_and_answer_alike(
    fixed: Engine, operation: str, params: dict[str, Any]
) -> None:
    request: dict[str, Any] = {"TableName": TABLE, **params}
    python = _same_on_the_wire(fixed, operation, request)
    answer = _for_wire(fixed, operation, dict(request))
    items = [answer["Item"]] if operation == "GetItem" else answer.get("Items", [])
    assert all(type(item) is dict for item in items)  # decoded: the engine evaluated them
    assert answer == python


@pytest.mark.parametrize(
    "statement",
    [
        f"SELECT * FROM {TABLE} WHERE PK = 'fixed'",
        f"SELECT SK, bin, nested FROM {TABLE} WHERE PK = 'fixed' AND SK > 's1'",
        f'SELECT * FROM "{TABLE}"."GSI1" WHERE G1PK = \'fixed\'',
        f"SELECT * FROM {TABLE} WHERE PK = 'fixed' AND SK = 's3'",
    ],
)
def test_partiql_select_runs_its_reads_on_dicts(fixed: Engine, statement: str) -> None:
    """PartiQL runs Query/Scan/GetItem through ``Engine.invoke``: the nested reads never get fragments, even
    when the statement itself is answered for the wire."""
    python = _same_on_the_wire(fixed, "ExecuteStatement", {"Statement": statement})
    assert python["Items"]
    answer = _for_wire(fixed, "ExecuteStatement", {"Statement": statement})
    assert all(type(item) is dict for item in answer["Items"])
    assert answer == python


BIG = "pass_through_big"


def test_a_page_stopped_by_its_size_decodes_only_for_its_last_key(engine: Engine) -> None:
    create(engine, BIG, sk_type="N")
    try:
        for n in range(6):  # ~300 KB each: a page stops after 4 items (1 MB)
            item = {"PK": {"S": "big"}, "SK": {"N": str(n)}, "bin": {"B": bytes([n]) * 300_000}}
            engine.put_item(TableName=BIG, Item=item)
        query = {"TableName": BIG, **FIXED_KEY, "ExpressionAttributeValues": {":p": {"S": "big"}}}
        for operation, params in (("Query", query), ("Scan", {"TableName": BIG})):
            pages = _all_pages(engine, operation, params)
            assert [page["Count"] for page in pages] == [4, 2]
            assert pages[0]["LastEvaluatedKey"] == {"PK": {"S": "big"}, "SK": {"N": "3"}}
            answer = _for_wire(engine, operation, dict(params))
            assert answer["LastEvaluatedKey"] == pages[0]["LastEvaluatedKey"]
            assert [type(item) for item in answer["Items"]] == [orjson.Fragment] * 4
    finally:
        engine.delete_table(TableName=BIG)


def test_the_in_process_client_reads_binary_items_back(tmp_path: Path) -> None:
    """A real boto3 client over the dispatcher parses the passed-through JSON like any other answer."""
    import singletable

    with Engine(str(tmp_path / "c.db")) as engine:
        create(engine, TABLE, gsi=True, lsi=True)
        client = singletable.client(engine)
        for item in ITEMS:
            client.put_item(TableName=TABLE, Item=item)
        got = client.query(TableName=TABLE, **FIXED_KEY)
        assert [{k: v for k, v in i.items()} for i in got["Items"]] == _as_boto3(ITEMS)
        one = client.get_item(TableName=TABLE, Key={"PK": {"S": "fixed"}, "SK": {"S": "s4"}})["Item"]
        assert one == _as_boto3(ITEMS)[4]


def _as_boto3(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """boto3 parses number sets and the like as they are; only the engine's canonical N text differs."""
    return [orjson.loads(wire.encode_response(item)) | _blobs(item) for item in items]


def _blobs(item: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in item.items() if "B" in value or "BS" in value}
