"""Legacy reads on every backend: KeyConditions, QueryFilter, ScanFilter, AttributesToGet; and the rules on
mixing legacy with expression parameters, for every operation.

Texts and results were measured on DynamoDB Local 1.25.1.
"""

from __future__ import annotations

import pytest
from tables import create, n, s

INVALID = "One or more parameter values were invalid: "
ONLY = "ExpressionAttributeValues can only be specified when using expressions: "
KEY = {"PK": {"S": "k"}, "SK": {"S": "1"}}
ITEM = {**KEY, "n": {"N": "1"}}


def cond(op: str, *values: dict) -> dict:
    return {"ComparisonOperator": op, "AttributeValueList": list(values)}


def _make_table(ddb, name: str) -> None:
    create(ddb, name, gsi=True)
    for i in range(5):
        ddb.put_item(TableName=name, Item={"PK": s("a"), "SK": s(f"s{i}"), "n": n(str(i)), "x": s("y")})
    ddb.put_item(TableName=name, Item={"PK": s("b"), "SK": s("s0"), "G1PK": s("g"), "G1SK": n("1")})
    ddb.put_item(TableName=name, Item=ITEM)


@pytest.fixture
def table(ddb, module_tables):
    """Seven items, read by every test here and shared by them: each reads, or sends a request refused."""
    return module_tables.get(ddb, "items", _make_table)


HASH = {"PK": cond("EQ", s("a"))}


def sks(response: dict) -> list[str]:
    return [item["SK"]["S"] for item in response["Items"]]


@pytest.mark.parametrize(
    ("op", "values", "expected"),
    [
        ("EQ", [s("s1")], ["s1"]),
        ("LE", [s("s1")], ["s0", "s1"]),
        ("LT", [s("s1")], ["s0"]),
        ("GE", [s("s3")], ["s3", "s4"]),
        ("GT", [s("s3")], ["s4"]),
        ("BEGINS_WITH", [s("s")], ["s0", "s1", "s2", "s3", "s4"]),
        ("BETWEEN", [s("s1"), s("s3")], ["s1", "s2", "s3"]),
    ],
)
def test_key_conditions_range_operators(ddb, table, op, values, expected):
    response = ddb.query(TableName=table, KeyConditions={**HASH, "SK": cond(op, *values)})
    assert sks(response) == expected
    assert response["Count"] == len(expected)


def test_key_conditions_paging_order_and_index(ddb, table):
    page = ddb.query(
        TableName=table, KeyConditions={**HASH, "SK": cond("GT", s("s1"))}, ScanIndexForward=False, Limit=2
    )
    assert sks(page) == ["s4", "s3"]
    assert page["LastEvaluatedKey"] == {"PK": s("a"), "SK": s("s3")}
    rest = ddb.query(
        TableName=table,
        KeyConditions={**HASH, "SK": cond("GT", s("s1"))},
        ScanIndexForward=False,
        ExclusiveStartKey=page["LastEvaluatedKey"],
    )
    assert sks(rest) == ["s2"]
    indexed = ddb.query(
        TableName=table,
        IndexName="GSI1",
        KeyConditions={"G1PK": cond("EQ", s("g")), "G1SK": cond("LE", n("1"))},
    )
    assert sks(indexed) == ["s0"]


def test_key_conditions_combine_with_filter_and_projection_expressions(ddb, table):
    filtered = ddb.query(
        TableName=table,
        KeyConditions=HASH,
        FilterExpression="n > :v",
        ExpressionAttributeValues={":v": n("2")},
    )
    assert sks(filtered) == ["s3", "s4"]
    assert filtered["ScannedCount"] == 5
    projected = ddb.query(
        TableName=table, KeyConditions=HASH, ProjectionExpression="#n", ExpressionAttributeNames={"#n": "n"}
    )
    assert projected["Items"] == [{"n": n(str(i))} for i in range(5)]


@pytest.mark.parametrize(
    ("conditions", "message"),
    [
        ({}, "Conditions can be of length 1 or 2 only"),
        (
            {**HASH, "SK": cond("EQ", s("s1")), "n": cond("EQ", n("1"))},
            "Conditions can be of length 1 or 2 only",
        ),
        ({"SK": cond("EQ", s("s1"))}, "Query condition missed key schema element"),
        ({**HASH, "n": cond("EQ", n("1"))}, "Query condition missed key schema element"),
        ({"SK": cond("IN", s("a"))}, "Query condition missed key schema element"),
        ({"PK": cond("LE", s("a"))}, "Query key condition not supported"),
        ({"PK": cond("BEGINS_WITH", s("a"))}, "Query key condition not supported"),
        ({"PK": cond("IN", s("a")), "SK": cond("EQ", n("1"))}, "Query key condition not supported"),
        ({"PK": cond("NULL")}, "Only scalar types can be used as Hash Key values"),
        ({"PK": cond("NOT_NULL")}, "Only scalar types can be used as Hash Key values"),
        ({**HASH, "SK": cond("NULL")}, "Only scalar types can be used as Range Key values"),
        (
            {**HASH, "SK": cond("IN", s("s1"), s("s2"))},
            "Attempted conditional constraint is not an indexable operation",
        ),
        (
            {**HASH, "SK": cond("CONTAINS", s("s"))},
            "Attempted conditional constraint is not an indexable operation",
        ),
        (
            {**HASH, "SK": cond("NOT_CONTAINS", s("s"))},
            "Attempted conditional constraint is not an indexable operation",
        ),
        ({"PK": cond("EQ", n("1"))}, INVALID + "Condition parameter type does not match schema type"),
        ({"PK": cond("EQ", {"SS": ["a"]})}, INVALID + "Condition parameter type does not match schema type"),
        ({**HASH, "SK": cond("EQ", n("1"))}, INVALID + "Condition parameter type does not match schema type"),
        (
            {"PK": cond("EQ", n("1")), "n": cond("EQ", n("1"))},
            INVALID + "Condition parameter type does not match schema type",
        ),
        (
            {"PK": cond("EQ", n("1")), "SK": cond("NULL")},
            INVALID + "Condition parameter type does not match schema type",
        ),
        (
            {"PK": cond("EQ", s("a"), s("b"))},
            INVALID + "Invalid number of argument(s) for the EQ ComparisonOperator",
        ),
        ({"PK": cond("EQ")}, INVALID + "Invalid number of argument(s) for the EQ ComparisonOperator"),
        (
            {**HASH, "SK": cond("LT", {"BOOL": True})},
            INVALID + "ComparisonOperator LT is not valid for BOOL AttributeValue type",
        ),
        (
            {**HASH, "SK": cond("BEGINS_WITH", n("1"))},
            INVALID + "ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type",
        ),
        (
            {**HASH, "SK": cond("BETWEEN", s("s3"), n("1"))},
            INVALID + "AttributeValues inside AttributeValueList must be of same type",
        ),
        (
            {**HASH, "n": cond("BETWEEN", s("b"), s("a"))},
            "The BETWEEN condition was provided a range where the lower bound is greater than the upper "
            "bound",
        ),
        # AWS's wording; DynamoDB Local says "A value provided cannot be converted into a number".
        ({"PK": cond("EQ", {"N": "x"})}, "The parameter cannot be converted to a numeric value: x"),
        (
            {"PK": cond("EQ", s(""))},
            "One or more parameter values are not valid. The AttributeValue for a key attribute "
            "cannot contain an empty string value. Key: PK",
        ),
        (
            {**HASH, "SK": cond("GT", s(""))},
            "One or more parameter values are not valid. The AttributeValue for a key "
            "attribute cannot contain an empty string value. Key: SK",
        ),
    ],
)
def test_key_conditions_errors(ddb, table, conditions, message):
    local = "A value provided cannot be converted into a number" if "numeric value" in message else None
    with ddb.error("ValidationException", message, local=local):
        ddb.query(TableName=table, KeyConditions=conditions)


def test_query_filter(ddb, table):
    both = {"n": cond("GE", n("3")), "x": cond("NOT_NULL")}
    assert sks(ddb.query(TableName=table, KeyConditions=HASH, QueryFilter=both)) == ["s3", "s4"]
    either = {"n": cond("EQ", n("1")), "SK": cond("EQ", s("s4"))}
    with ddb.error(
        "ValidationException",
        "QueryFilter can only contain non-primary key attributes: Primary key attribute: SK",
    ):
        ddb.query(TableName=table, KeyConditions=HASH, QueryFilter=either, ConditionalOperator="OR")
    either = {"n": cond("EQ", n("1")), "x": cond("NULL")}
    assert sks(
        ddb.query(TableName=table, KeyConditions=HASH, QueryFilter=either, ConditionalOperator="OR")
    ) == ["s1"]
    counted = ddb.query(
        TableName=table, KeyConditions=HASH, QueryFilter={"n": cond("LT", n("2"))}, Select="COUNT"
    )
    assert (counted["Count"], counted["ScannedCount"], "Items" in counted) == (2, 5, False)
    assert len(ddb.query(TableName=table, KeyConditions=HASH, QueryFilter={})["Items"]) == 5


def test_query_filter_errors(ddb, table):
    with ddb.error(
        "ValidationException", INVALID + "ComparisonOperator LT is not valid for BOOL AttributeValue type"
    ):
        ddb.query(TableName=table, KeyConditions=HASH, QueryFilter={"PK": cond("LT", {"BOOL": True})})
    with ddb.error(
        "ValidationException", INVALID + "Invalid number of argument(s) for the EQ ComparisonOperator"
    ):
        ddb.query(TableName=table, KeyConditions=HASH, QueryFilter={"n": {"ComparisonOperator": "EQ"}})
    with ddb.error("ValidationException", "ConditionalOperator cannot be used without Filter or Expected"):
        ddb.query(
            TableName=table, KeyConditions={**HASH, "SK": cond("EQ", s("s1"))}, ConditionalOperator="OR"
        )
    # KeyConditions are checked before the filter.
    with ddb.error("ValidationException", "Query key condition not supported"):
        ddb.query(
            TableName=table,
            KeyConditions={"PK": cond("IN", s("a"))},
            QueryFilter={"n": cond("LT", {"BOOL": True})},
        )
    with ddb.error(
        "ValidationException",
        "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.",
    ):
        ddb.query(TableName=table, QueryFilter={"n": cond("NULL")})


def test_scan_filter(ddb, table):
    items = ddb.scan(
        TableName=table, ScanFilter={"n": cond("BETWEEN", n("1"), n("2")), "PK": cond("EQ", s("a"))}
    )["Items"]
    assert sorted(item["SK"]["S"] for item in items) == ["s1", "s2"]
    items = ddb.scan(
        TableName=table,
        ScanFilter={"n": cond("IN", n("4")), "G1PK": cond("NOT_NULL")},
        ConditionalOperator="OR",
    )["Items"]
    assert sorted(item["SK"]["S"] for item in items) == ["s0", "s4"]
    with ddb.error("ValidationException", "Empty attribute name"):
        ddb.scan(TableName=table, ScanFilter={"": cond("NULL")})


@pytest.mark.parametrize("operation", ["get_item", "query", "scan"])
def test_attributes_to_get(ddb, table, operation):
    params = {"get_item": {"Key": KEY}, "query": {"KeyConditions": {"PK": cond("EQ", s("k"))}}, "scan": {}}[
        operation
    ]
    response = ddb.call(operation, TableName=table, AttributesToGet=["n", "zz", "SK", "n.x"], **params)
    items = [response["Item"]] if operation == "get_item" else response["Items"]
    assert {"SK": s("1"), "n": n("1")} in items
    assert all(set(item) <= {"SK", "n"} for item in items)
    with ddb.error("ValidationException", "Cannot have two attributes with the same name"):
        ddb.call(operation, TableName=table, AttributesToGet=["n", "n"], **params)
    with ddb.error("ValidationException", "Empty attribute name"):
        ddb.call(operation, TableName=table, AttributesToGet=[""], **params)
    with ddb.error(
        "ValidationException", "ExpressionAttributeNames can only be specified when using expressions"
    ):
        ddb.call(
            operation, TableName=table, AttributesToGet=["n"], ExpressionAttributeNames={"#n": "n"}, **params
        )


def test_attributes_to_get_is_checked_before_the_key(ddb, table):
    with ddb.error("ValidationException", "Cannot have two attributes with the same name"):
        ddb.get_item(TableName=table, Key={"PK": s("k")}, AttributesToGet=["n", "n"])


@pytest.mark.parametrize("operation", ["query", "scan"])
def test_attributes_to_get_and_select(ddb, table, operation):
    params = {"KeyConditions": HASH} if operation == "query" else {}
    got = ddb.call(operation, TableName=table, AttributesToGet=["n"], Select="SPECIFIC_ATTRIBUTES", **params)
    assert all(set(item) <= {"n"} for item in got["Items"])
    with ddb.error(
        "ValidationException", "Cannot specify the AttributesToGet when choosing to get only the Count"
    ):
        ddb.call(operation, TableName=table, AttributesToGet=["n"], Select="COUNT", **params)
    with ddb.error(
        "ValidationException", "Cannot specify the AttributesToGet when choosing to get ALL_ATTRIBUTES"
    ):
        ddb.call(operation, TableName=table, AttributesToGet=["n"], Select="ALL_ATTRIBUTES", **params)
    with ddb.error(
        "ValidationException",
        "Cannot specify the AttributesToGet when choosing to get ALL_PROJECTED_ATTRIBUTES",
    ):
        ddb.call(
            operation,
            TableName=table,
            IndexName="GSI1",
            AttributesToGet=["n"],
            Select="ALL_PROJECTED_ATTRIBUTES",
            **({"KeyConditions": {"G1PK": cond("EQ", s("g"))}} if operation == "query" else {}),
        )


# -- mixing legacy and expression parameters ---------------------------------------------------------------

MIXED = "Can not use both expression and non-expression parameters in the same request: "
MIXES = [
    (
        "put_item",
        {
            "Expected": {"x": {"Exists": False}},
            "ConditionalOperator": "AND",
            "ConditionExpression": "attribute_not_exists(x)",
        },
        "{Expected, ConditionalOperator}",
        "{ConditionExpression}",
    ),
    (
        "delete_item",
        {"Expected": {"x": {"Exists": False}}, "ConditionExpression": "attribute_not_exists(x)"},
        "{Expected}",
        "{ConditionExpression}",
    ),
    (
        "update_item",
        {"AttributeUpdates": {"x": {"Action": "DELETE"}}, "ConditionExpression": "attribute_exists(x)"},
        "{AttributeUpdates}",
        "{ConditionExpression}",
    ),
    (
        "update_item",
        {
            "AttributeUpdates": {"x": {"Action": "DELETE"}},
            "Expected": {"x": {"Exists": False}},
            "ConditionalOperator": "AND",
            "UpdateExpression": "REMOVE x",
            "ConditionExpression": "attribute_exists(x)",
        },
        "{AttributeUpdates, Expected, ConditionalOperator}",
        "{UpdateExpression, ConditionExpression}",
    ),
    (
        "get_item",
        {"AttributesToGet": ["x"], "ProjectionExpression": "x"},
        "{AttributesToGet}",
        "{ProjectionExpression}",
    ),
    (
        "scan",
        {
            "ScanFilter": {"x": cond("NULL")},
            "AttributesToGet": ["x"],
            "ConditionalOperator": "AND",
            "FilterExpression": "attribute_not_exists(x)",
            "ProjectionExpression": "x",
        },
        "{AttributesToGet, ScanFilter, ConditionalOperator}",
        "{ProjectionExpression, FilterExpression}",
    ),
    (
        "query",
        {
            "KeyConditions": {"PK": cond("EQ", s("k"))},
            "QueryFilter": {"x": cond("NULL")},
            "AttributesToGet": ["x"],
            "ConditionalOperator": "AND",
            "KeyConditionExpression": "PK = :k",
            "FilterExpression": "attribute_not_exists(x)",
            "ProjectionExpression": "x",
            "ExpressionAttributeValues": {":k": s("k")},
        },
        "{AttributesToGet, QueryFilter, ConditionalOperator, KeyConditions}",
        "{ProjectionExpression, FilterExpression, KeyConditionExpression}",
    ),
    # KeyConditions only clashes with KeyConditionExpression.
    (
        "query",
        {
            "KeyConditions": {"PK": cond("EQ", s("k"))},
            "QueryFilter": {"x": cond("NULL")},
            "FilterExpression": "attribute_not_exists(x)",
        },
        "{QueryFilter}",
        "{FilterExpression}",
    ),
]


@pytest.mark.parametrize(("operation", "params", "legacy", "modern"), MIXES)
def test_mixing_is_refused(ddb, table, operation, params, legacy, modern):
    target = {"put_item": {"Item": ITEM}, "query": {}, "scan": {}}.get(operation, {"Key": KEY})
    with ddb.error(
        "ValidationException", f"{MIXED}Non-expression parameters: {legacy} Expression parameters: {modern}"
    ):
        ddb.call(operation, TableName=table, **params, **target)


@pytest.mark.parametrize(
    ("operation", "params", "message"),
    [
        (
            "put_item",
            {"Item": ITEM, "Expected": {"n": {"Value": n("5")}}, "ExpressionAttributeValues": {":a": n("1")}},
            ONLY + "ConditionExpression is null",
        ),
        (
            "delete_item",
            {"Key": KEY, "Expected": {"n": {"Value": n("5")}}, "ExpressionAttributeNames": {"#a": "n"}},
            "ExpressionAttributeNames can only be specified when using expressions",
        ),
        (
            "update_item",
            {
                "Key": KEY,
                "AttributeUpdates": {"n": {"Action": "DELETE"}},
                "ExpressionAttributeValues": {":a": n("1")},
            },
            ONLY + "UpdateExpression and ConditionExpression are null",
        ),
        (
            "scan",
            {"ScanFilter": {"n": cond("NULL")}, "ExpressionAttributeValues": {":a": n("1")}},
            ONLY + "FilterExpression is null",
        ),
        (
            "scan",
            {"ProjectionExpression": "n", "ExpressionAttributeValues": {":a": n("1")}},
            ONLY + "FilterExpression is null",
        ),
        (
            "query",
            {"KeyConditions": {"PK": cond("EQ", s("k"))}, "ExpressionAttributeValues": {":a": n("1")}},
            ONLY + "FilterExpression and KeyConditionExpression are null",
        ),
        (
            "query",
            {"KeyConditions": {"PK": cond("EQ", s("k"))}, "ExpressionAttributeNames": {"#a": "n"}},
            "ExpressionAttributeNames can only be specified when using expressions",
        ),
    ],
)
def test_expression_attributes_without_expressions(ddb, table, operation, params, message):
    with ddb.error("ValidationException", message):
        ddb.call(operation, TableName=table, **params)
