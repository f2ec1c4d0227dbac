"""The parser's error texts against a live DynamoDB Local (skipped when the reference is unavailable)."""

from __future__ import annotations

import random
import re

import pytest
from oracle_cases import ORACLE_CASES

from singletable.engine._errors import DynamoDBError
from singletable.engine._expressions.parser import parse_condition, parse_projection, parse_update

pytestmark = pytest.mark.reference

# Messages about values, types and items come from later stages, not from parsing.
_LATER_STAGES = (
    "Incorrect number of operands",
    "Incorrect operand type",
    "Invalid attribute type name",
    "Two document paths",
    "The document path provided",
    "refers to an attribute that does not exist",
    "The conditional request failed",
    "The first operand must be distinct",
    "incorrect data type",
)
_KEY = {"pk": {"S": "a"}, "sk": {"S": "b"}}


@pytest.fixture(scope="module")
def table(reference_client):
    name = "parser_reference"
    reference_client.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    yield reference_client, name
    reference_client.delete_table(TableName=name)


def oracle(table, kind: str, text: str) -> str | None:
    """DynamoDB's message for ``text``, with every placeholder it mentions supplied; None if accepted."""
    client, name = table
    names = {n: "x" for n in re.findall(r"#[A-Za-z0-9_]+", text)}
    values = {v: {"S": "x"} for v in re.findall(r":[A-Za-z0-9_]+", text)}
    extra = {}
    if names:
        extra["ExpressionAttributeNames"] = names
    if values and kind != "ProjectionExpression":
        extra["ExpressionAttributeValues"] = values
    try:
        if kind == "ConditionExpression":
            client.put_item(TableName=name, Item=_KEY, ConditionExpression=text, **extra)
        elif kind == "FilterExpression":
            client.scan(TableName=name, FilterExpression=text, **extra)
        elif kind == "KeyConditionExpression":
            client.query(TableName=name, KeyConditionExpression=text, **extra)
        elif kind == "UpdateExpression":
            client.update_item(TableName=name, Key=_KEY, UpdateExpression=text, **extra)
        else:
            client.get_item(TableName=name, Key=_KEY, ProjectionExpression=text, **extra)
    except client.exceptions.ClientError as error:
        return error.response["Error"]["Message"]
    return None


def ours(kind: str, text: str) -> str | None:
    try:
        if kind == "UpdateExpression":
            parse_update(text)
        elif kind == "ProjectionExpression":
            parse_projection(text)
        else:
            parse_condition(text, kind)
    except DynamoDBError as error:
        return error.message
    return None


@pytest.mark.parametrize(("kind", "text", "expected"), ORACLE_CASES)
def test_recorded_cases_still_match(table, kind, text, expected):
    assert oracle(table, kind, text) == expected


FRAGMENTS = {
    "ConditionExpression": [
        "a",
        "b.c",
        "x[1]",
        "#n",
        ":v",
        "(",
        ")",
        "((",
        "))",
        "=",
        "<",
        "AND",
        "OR",
        "NOT",
        "BETWEEN",
        "IN",
        ",",
        "size(",
        "attribute_exists(",
        "foo(",
        "name",
        "1",
        "$",
    ],
    "UpdateExpression": [
        "SET",
        "REMOVE",
        "ADD",
        "DELETE",
        "a",
        "b.c",
        "#n",
        ":v",
        "=",
        "+",
        "-",
        "(",
        ")",
        "((",
        "))",
        ",",
        "if_not_exists(",
        "list_append(",
        "size(",
        "name",
        "AND",
    ],
}


@pytest.mark.parametrize("kind", sorted(FRAGMENTS))
def test_random_token_soups_match(table, kind):
    rng = random.Random(20240611)
    prefixes = ["", "a = :v AND ", "((a) = :v) OR ", "NOT "]
    if kind == "UpdateExpression":
        prefixes = ["", "SET a = "]
    mismatches = []
    for _ in range(150):
        text = rng.choice(prefixes) + " ".join(rng.choice(FRAGMENTS[kind]) for _ in range(rng.randint(1, 10)))
        expected = oracle(table, kind, text)
        if expected is None or any(stage in expected for stage in _LATER_STAGES):
            expected = None
        if ours(kind, text) != expected:
            mismatches.append((text, expected, ours(kind, text)))
    assert mismatches == []
