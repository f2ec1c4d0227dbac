"""singletable.data's look functions called as a library: paging, parallel segments, keys, JSON both ways."""

from __future__ import annotations

import base64
import json
from decimal import Decimal

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from pk_sk_table import pk_sk_table
from singletable import data
from singletable.data import (
    Expression,
    KeySchema,
    TargetError,
    item_from_json,
    item_to_json,
    key_condition,
    key_from_arguments,
    key_schema,
    open_target,
    parse_item,
    render_item,
)

SCHEMA = KeySchema(("PK", "S"), ("SK", "N"))


@pytest.fixture
def target(tmp_path):
    with open_target(str(tmp_path / "lib.db")) as opened:
        opened.call("CreateTable", **pk_sk_table("Many", "N"))
        padding = "x" * 20_000  # 60 items of 20 KB: more than one 1 MB page
        for i in range(60):
            data.put(opened, "Many", {"PK": {"S": f"P{i % 3}"}, "SK": {"N": str(i)}, "pad": {"S": padding}})
        yield opened


def test_scan_and_query_follow_last_evaluated_key(target):
    assert len(list(data.scan(target, "Many"))) == 60
    assert data.count(target, "Many") == 60
    assert len(list(data.scan(target, "Many", segments=4))) == 60
    condition = key_condition(["PK=P1", "SK>=30"], SCHEMA)
    found = list(data.query(target, "Many", condition, newest_first=True))
    assert [int(item["SK"]["N"]) for item in found] == list(range(58, 29, -3))
    assert data.count(target, "Many", key_condition=condition) == 10
    assert len(list(data.query(target, "Many", condition, limit=3))) == 3


def test_tables_pages_through_list_tables(tmp_path):
    with open_target(str(tmp_path / "names.db")) as opened:
        for i in range(105):  # ListTables answers at most 100 names a page
            opened.call(
                "CreateTable",
                TableName=f"t{i:03}",
                KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
                BillingMode="PAY_PER_REQUEST",
            )
        assert list(data.tables(opened)) == [f"t{i:03}" for i in range(105)]


def test_a_segment_that_fails_fails_the_parallel_scan(target):
    with pytest.raises(TargetError) as caught:
        list(data.scan(target, "Missing", segments=3))
    assert caught.value.code == "ResourceNotFoundException"


def test_put_and_delete_return_the_old_item(target):
    key = {"PK": {"S": "new"}, "SK": {"N": "1"}}
    assert data.put(target, "Many", {**key, "v": {"S": "a"}}) is None
    assert data.put(target, "Many", {**key, "v": {"S": "b"}}) == {**key, "v": {"S": "a"}}
    assert data.get(target, "Many", key, consistent=True) == {**key, "v": {"S": "b"}}
    assert data.delete(target, "Many", key) == {**key, "v": {"S": "b"}}
    assert data.delete(target, "Many", key) is None
    assert data.get(target, "Many", key) is None


def test_a_filter_may_not_reuse_the_key_conditions_placeholders(target):
    clash = Expression("#k0 = :k0", {"#k0": "pad"}, {":k0": {"S": "x"}})
    with pytest.raises(ValueError, match="the filter reuses the key condition's placeholder #k0; rename it"):
        list(data.query(target, "Many", key_condition(["PK=P1"], SCHEMA), filter=clash))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"limit": 0}, "limit must be at least 1"),
        ({"segments": 0}, "segments must be at least 1"),
        ({"segments": 2, "segment": 5}, "segment 5 is not one of 0..1"),
    ],
)
def test_scan_arguments_are_checked(target, kwargs, message):
    with pytest.raises(ValueError, match=message):
        list(data.scan(target, "Many", **kwargs))


def test_key_schema_of_a_table_and_its_indexes():
    description = {
        "TableName": "T",
        "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
        "AttributeDefinitions": [
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "b", "AttributeType": "B"},
            {"AttributeName": "n", "AttributeType": "N"},
        ],
        "GlobalSecondaryIndexes": [
            {
                "IndexName": "g",
                "KeySchema": [
                    {"AttributeName": "b", "KeyType": "HASH"},
                    {"AttributeName": "n", "KeyType": "RANGE"},
                ],
            }
        ],
    }
    assert key_schema(description) == KeySchema(("PK", "S"), None)
    assert key_schema(description, "g") == KeySchema(("b", "B"), ("n", "N"))
    with pytest.raises(ValueError, match=r"^table T has no index x \(its indexes: g\)$"):
        key_schema(description, "x")


def test_keys_are_typed_by_the_schema():
    assert key_from_arguments(["SK=10", "PK=a=b"], SCHEMA) == {"PK": {"S": "a=b"}, "SK": {"N": "10"}}
    binary = KeySchema(("B", "B"), None)
    assert key_from_arguments(["B=AP8="], binary) == {"B": {"B": b"\x00\xff"}}
    with pytest.raises(ValueError, match=r"^B is a Binary key: give its value in base64, not '\?\?'$"):
        key_from_arguments(["B=??"], binary)


def test_key_conditions_become_expressions():
    assert key_condition(["PK=a", "SK^=1"], SCHEMA) == Expression(
        "#k0 = :k0 AND begins_with(#k1, :k1)",
        {"#k0": "PK", "#k1": "SK"},
        {":k0": {"S": "a"}, ":k1": {"N": "1"}},
    )
    assert key_condition(["SK<=9", "PK=a", "SK>=2"], SCHEMA).text == "#k0 = :k0 AND #k1 BETWEEN :k1 AND :k2"
    assert key_condition(["PK=a"], SCHEMA) == Expression("#k0 = :k0", {"#k0": "PK"}, {":k0": {"S": "a"}})


attribute_values = st.recursive(
    st.one_of(
        st.builds(lambda s: {"S": s}, st.text()),
        st.builds(lambda n: {"N": str(n)}, st.integers()),
        st.builds(lambda b: {"B": b}, st.binary()),
        st.builds(lambda b: {"BOOL": b}, st.booleans()),
        st.just({"NULL": True}),
        st.builds(lambda s: {"SS": sorted(s)}, st.sets(st.text(), min_size=1, max_size=3)),
        st.builds(lambda s: {"BS": sorted(s)}, st.sets(st.binary(), min_size=1, max_size=3)),
    ),
    lambda inner: st.one_of(
        st.builds(lambda v: {"L": v}, st.lists(inner, max_size=3)),
        st.builds(lambda v: {"M": v}, st.dictionaries(st.text(max_size=4), inner, max_size=3)),
    ),
    max_leaves=10,
)


@given(st.dictionaries(st.text(min_size=1, max_size=6), attribute_values, max_size=5))
def test_dynamodb_json_round_trips_through_text(item):
    assert parse_item(render_item(item)) == item
    assert item_from_json(json.loads(json.dumps(item_to_json(item)))) == item


def test_plain_json_keeps_every_digit():
    item = parse_item('{"n": 12345678901234567890.123456789, "i": 7}', plain=True)
    assert item == {"n": {"N": "12345678901234567890.123456789"}, "i": {"N": "7"}}
    assert render_item(item, plain=True) == '{"n":12345678901234567890.123456789,"i":7}'
    assert json.loads(render_item(item, plain=True), parse_float=Decimal)["n"] == Decimal(
        "12345678901234567890.123456789"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1]", "an item must be a JSON object, not array"),
        ('{"a": "x"}', "a: not DynamoDB JSON"),
        ('{"a": {"S": 1}}', "a: 'S' holding a number is not a DynamoDB JSON value"),
        (
            '{"a": {"M": {"b": {"L": [{"X": 1}]}}}}',
            "a.b[0]: 'X' holding a number is not a DynamoDB JSON value",
        ),
        ('{"a": {"B": "!!"}}', "a: binary values are base64 text, not '!!'"),
        ('{"a": {"SS": [1]}}', "a: 'SS' holding an array is not a DynamoDB JSON value"),
        ("{", "not JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
    ],
)
def test_malformed_dynamodb_json_is_named(text, message):
    with pytest.raises(ValueError) as caught:
        parse_item(text)
    assert str(caught.value).startswith(message)


def test_binary_in_dynamodb_json_is_base64():
    assert item_to_json({"b": {"BS": [b"\x00"]}}) == {"b": {"BS": [base64.b64encode(b"\x00").decode()]}}


class Recording(data.Target):
    """A file target that keeps every request it sends (to see what a limit asks DynamoDB for)."""

    def __init__(self, path: str) -> None:
        from singletable.engine import Engine

        super().__init__(path, engine=Engine(path))
        self.sent: list[dict] = []

    def call(self, operation: str, **params):
        self.sent.append({"operation": operation, **params})
        return super().call(operation, **params)


def test_a_limit_without_a_filter_reads_no_more_than_it_returns(target, tmp_path):
    path = target.name
    target.close()
    with Recording(path) as recording:
        assert len(list(data.scan(recording, "Many", limit=5))) == 5
        assert [request.get("Limit") for request in recording.sent] == [5]
        recording.sent.clear()
        everything = Expression("attribute_exists(#p)", {"#p": "pad"}, {})
        assert len(list(data.scan(recording, "Many", limit=5, filter=everything))) == 5
        assert "Limit" not in recording.sent[0]


@given(st.text(), st.sampled_from(["=", "<", "<=", ">", ">=", "^="]), st.text())
def test_any_value_text_survives_the_shorthand(pk, op, sk):
    # "SK<=" + "x" and "SK<" + "=x" are the same text: the longer operator is read, so skip that pair.
    assume(not (op in ("<", ">") and sk.startswith("=")))
    assert key_from_arguments([f"PK={pk}"], KeySchema(("PK", "S"), None)) == {"PK": {"S": pk}}
    condition = key_condition([f"PK={pk}", f"SK{op}{sk}"], KeySchema(("PK", "S"), ("SK", "S")))
    assert condition.values == {":k0": {"S": pk}, ":k1": {"S": sk}}
    expected = "begins_with(#k1, :k1)" if op == "^=" else f"#k1 {op} :k1"
    assert condition.text == f"#k0 = :k0 AND {expected}"
