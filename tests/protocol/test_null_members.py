"""JSON ``null`` anywhere in a request -- a list member, a structure member, a map value -- gets a 400 with
DynamoDB's error document, never a 500: generated over valid requests of every kind, each with one place
turned to ``null`` (or a ``null`` added to one of its lists), through the same dispatcher ``serve`` uses."""

from __future__ import annotations

import copy
from typing import Any

import orjson
import pytest

from singletable._protocol import Dispatcher
from singletable.engine import Engine

TABLE = "nulls"
KEY = {"pk": {"S": "a"}, "sk": {"S": "b"}}
ITEM = {**KEY, "g": {"S": "x"}, "n": {"N": "1"}, "l": {"L": [{"S": "e"}]}, "m": {"M": {"k": {"S": "v"}}}}

REQUESTS: dict[str, dict[str, Any]] = {
    "CreateTable": {
        "TableName": "other",
        "KeySchema": [
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
            {"AttributeName": "g", "AttributeType": "S"},
        ],
        "GlobalSecondaryIndexes": [
            {
                "IndexName": "byG",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["n"]},
            }
        ],
        "LocalSecondaryIndexes": [
            {
                "IndexName": "byPkG",
                "KeySchema": [
                    {"AttributeName": "pk", "KeyType": "HASH"},
                    {"AttributeName": "g", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            }
        ],
        "BillingMode": "PAY_PER_REQUEST",
        "Tags": [{"Key": "team", "Value": "a"}],
    },
    "UpdateTable": {
        "TableName": TABLE,
        "AttributeDefinitions": [{"AttributeName": "n", "AttributeType": "N"}],
        "GlobalSecondaryIndexUpdates": [
            {
                "Create": {
                    "IndexName": "byN",
                    "KeySchema": [{"AttributeName": "n", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"},
                }
            }
        ],
    },
    "PutItem": {
        "TableName": TABLE,
        "Item": ITEM,
        "ConditionExpression": "attribute_not_exists(#p) OR #n < :v",
        "ExpressionAttributeNames": {"#p": "pk", "#n": "n"},
        "ExpressionAttributeValues": {":v": {"N": "5"}},
    },
    "UpdateItem": {
        "TableName": TABLE,
        "Key": KEY,
        "UpdateExpression": "SET #l = list_append(#l, :l) ADD #n :one",
        "ExpressionAttributeNames": {"#l": "l", "#n": "n"},
        "ExpressionAttributeValues": {":l": {"L": [{"S": "f"}]}, ":one": {"N": "1"}},
        "ReturnValues": "ALL_NEW",
    },
    "DeleteItem": {"TableName": TABLE, "Key": KEY, "Expected": {"g": {"Value": {"S": "x"}}}},
    "GetItem": {"TableName": TABLE, "Key": KEY, "AttributesToGet": ["pk", "n"]},
    "Query": {
        "TableName": TABLE,
        "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "a"}]}},
        "QueryFilter": {"n": {"ComparisonOperator": "IN", "AttributeValueList": [{"N": "1"}, {"N": "2"}]}},
        "ExclusiveStartKey": KEY,
    },
    "Scan": {
        "TableName": TABLE,
        "ScanFilter": {"g": {"ComparisonOperator": "NOT_NULL"}},
        "Segment": 0,
        "TotalSegments": 2,
    },
    "BatchWriteItem": {
        "RequestItems": {
            TABLE: [
                {"PutRequest": {"Item": ITEM}},
                {"DeleteRequest": {"Key": {"pk": {"S": "q"}, "sk": {"S": "q"}}}},
            ]
        }
    },
    "BatchGetItem": {"RequestItems": {TABLE: {"Keys": [KEY], "ProjectionExpression": "pk, n"}}},
    "TransactWriteItems": {
        "TransactItems": [
            {"Put": {"TableName": TABLE, "Item": ITEM}},
            {
                "ConditionCheck": {
                    "TableName": TABLE,
                    "Key": {"pk": {"S": "z"}, "sk": {"S": "z"}},
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            },
        ]
    },
    "TransactGetItems": {"TransactItems": [{"Get": {"TableName": TABLE, "Key": KEY}}]},
    "ExecuteStatement": {"Statement": f'SELECT * FROM "{TABLE}" WHERE pk = ?', "Parameters": [{"S": "a"}]},
    "BatchExecuteStatement": {
        "Statements": [
            {
                "Statement": f'SELECT * FROM "{TABLE}" WHERE pk = ? AND sk = ?',
                "Parameters": [{"S": "a"}, {"S": "b"}],
            }
        ]
    },
    "ExecuteTransaction": {
        "TransactStatements": [
            {
                "Statement": f'SELECT * FROM "{TABLE}" WHERE pk = ? AND sk = ?',
                "Parameters": [{"S": "a"}, {"S": "b"}],
            }
        ]
    },
    "TagResource": {
        "ResourceArn": "set to the table's ARN by the fixture",
        "Tags": [{"Key": "k", "Value": "v"}],
    },
    "UpdateTimeToLive": {
        "TableName": TABLE,
        "TimeToLiveSpecification": {"Enabled": True, "AttributeName": "expires"},
    },
}


def _places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path inside a request: each member, each list element, each map value."""
    found = [path] if path else []
    if isinstance(value, dict):
        for key, member in value.items():
            found += _places(member, (*path, key))
    elif isinstance(value, list):
        found.append((*path, len(value)))  # one past the end: a null appended
        for index, member in enumerate(value):
            found += _places(member, (*path, index))
    return found


def _with_null(request: dict[str, Any], path: tuple[Any, ...]) -> dict[str, Any]:
    changed = copy.deepcopy(request)
    parent: Any = changed
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    if isinstance(parent, list) and last == len(parent):
        parent.append(None)
    else:
        parent[last] = None
    return changed


CASES = [(operation, place) for operation, request in REQUESTS.items() for place in _places(request)]


@pytest.fixture(scope="module")
def dispatcher() -> Dispatcher:
    engine = Engine(":memory:")
    engine.execute(
        "CreateTable",
        {
            "TableName": TABLE,
            "KeySchema": [
                {"AttributeName": "pk", "KeyType": "HASH"},
                {"AttributeName": "sk", "KeyType": "RANGE"},
            ],
            "AttributeDefinitions": [
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "sk", "AttributeType": "S"},
            ],
            "BillingMode": "PAY_PER_REQUEST",
        },
    )
    arn = engine.execute("DescribeTable", {"TableName": TABLE})["Table"]["TableArn"]
    REQUESTS["TagResource"]["ResourceArn"] = arn  # the engine's own account and region
    return Dispatcher(engine)


def _answer(dispatcher: Dispatcher, operation: str, request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    status, _, payload = dispatcher.handle(f"DynamoDB_20120810.{operation}", orjson.dumps(request))
    return status, orjson.loads(payload) if payload else {}


def test_every_template_is_a_valid_request(dispatcher: Dispatcher) -> None:
    """The generated cases start from requests that work (else a null would hide behind another error)."""
    for operation in (
        "PutItem",
        *[o for o in REQUESTS if o not in ("PutItem", "CreateTable", "UpdateTable")],
    ):
        status, body = _answer(dispatcher, operation, REQUESTS[operation])
        assert status == 200, (operation, body)


def test_a_null_anywhere_is_a_client_error_never_a_500(dispatcher: Dispatcher) -> None:
    """Every place of every request, in turn (a few hundred requests: all of them, not a sample)."""
    wrong = []
    for operation, place in CASES:
        status, body = _answer(dispatcher, operation, _with_null(REQUESTS[operation], place))
        # a refusal is a 400 with DynamoDB's error type and a message (TransactionCanceled spells it Message)
        refused = status == 400 and "InternalServerError" not in body["__type"]
        if status != 200 and not (refused and (body.get("message") or body.get("Message"))):
            wrong.append((operation, place, status, body))
    assert wrong == []


@pytest.mark.parametrize(
    ("operation", "request_", "message"),
    [
        (
            "TransactWriteItems",
            {"TransactItems": [None]},
            "Value null at 'transactItems' failed to satisfy constraint: Member must not be null",
        ),
        (
            "TransactGetItems",
            {"TransactItems": [None]},
            "Value null at 'transactItems' failed to satisfy constraint: Member must not be null",
        ),
        (
            "BatchWriteItem",
            {"RequestItems": {TABLE: [None]}},
            "The batch write request list for a table cannot be null or empty",
        ),
        (
            "BatchGetItem",
            {"RequestItems": {TABLE: {"Keys": [None]}}},
            "The list of keys in RequestItems for BatchGetItem may not contain null or empty values: "
            f"{TABLE} has one or more empty keys",
        ),
    ],
)
def test_a_null_list_member_gets_dynamodbs_words(
    dispatcher: Dispatcher, operation: str, request_: dict[str, Any], message: str
) -> None:
    status, body = _answer(dispatcher, operation, request_)
    assert (status, body["__type"].rsplit("#", 1)[1], body["message"]) == (
        400,
        "ValidationException",
        message,
    )
