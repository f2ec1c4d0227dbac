"""A string that is not Unicode text (a lone surrogate) anywhere in a request is a DynamoDBError, never a
``UnicodeEncodeError``, and nothing of the request is written: no UTF-8 encodes it, so DynamoDB, whose wire
is UTF-8 JSON, never sees it (over HTTP the request does not parse: ``SerializationException``)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tables import create_keyed

from draws import examples
from singletable.engine import DynamoDBError, Engine

TABLE = "surrogates"
SURROGATE = st.integers(0xD800, 0xDFFF).map(chr)
# Text with at least one lone surrogate somewhere in it.
BROKEN = st.tuples(st.text(max_size=5), SURROGATE, st.text(max_size=5)).map("".join)


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory):
    with Engine(str(tmp_path_factory.mktemp("surrogates") / "db.sqlite3")) as engine:
        create_keyed(engine, TABLE)
        yield engine


def _requests(text: str) -> list[tuple[str, dict[str, Any]]]:
    item = {"pk": {"S": "k"}, "a": {"S": text}}
    return [
        ("PutItem", {"TableName": TABLE, "Item": item}),
        ("PutItem", {"TableName": TABLE, "Item": {"pk": {"S": text}}}),
        ("PutItem", {"TableName": TABLE, "Item": {"pk": {"S": "k"}, text: {"S": "v"}}}),
        ("PutItem", {"TableName": TABLE, "Item": {"pk": {"S": "k"}, "l": {"L": [{"SS": ["x", text]}]}}}),
        (
            "UpdateItem",
            {
                "TableName": TABLE,
                "Key": {"pk": {"S": "k"}},
                "UpdateExpression": "SET a = :v",
                "ExpressionAttributeValues": {":v": {"S": text}},
            },
        ),
        (
            "BatchWriteItem",
            {
                "RequestItems": {
                    TABLE: [{"PutRequest": {"Item": {"pk": {"S": "b"}}}}, {"PutRequest": {"Item": item}}]
                }
            },
        ),
        (
            "TransactWriteItems",
            {
                "TransactItems": [
                    {"Put": {"TableName": TABLE, "Item": {"pk": {"S": "t"}}}},
                    {"Put": {"TableName": TABLE, "Item": item}},
                ]
            },
        ),
        ("GetItem", {"TableName": TABLE, "Key": {"pk": {"S": text}}}),
    ]


@settings(max_examples=examples(25))
@given(text=BROKEN)
def test_a_lone_surrogate_is_a_dynamodb_error_and_writes_nothing(engine: Engine, text: str) -> None:
    for operation, params in _requests(text):
        with pytest.raises(DynamoDBError) as caught:
            engine.execute(operation, params)
        assert caught.value.code in ("SerializationException", "ValidationException"), (
            operation,
            caught.value,
        )
    assert engine.scan(TableName=TABLE)["Count"] == 0


def test_the_message_names_the_character(engine: Engine) -> None:
    with pytest.raises(DynamoDBError) as caught:
        engine.put_item(TableName=TABLE, Item={"pk": {"S": "a\ud800b"}})
    assert caught.value.code == "SerializationException"
    assert caught.value.message == (
        "A string in the request is not valid Unicode: '\\ud800' (a lone surrogate) has no UTF-8 form"
    )
