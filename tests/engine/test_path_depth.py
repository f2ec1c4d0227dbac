"""Document paths deeper than DynamoDB's 32 nesting levels are refused by every expression kind."""

from __future__ import annotations

from typing import Any

import pytest

from backends import Backend

KEY = {"pk": {"S": "a"}}


@pytest.fixture
def table(ddb: Backend, table: str) -> str:
    """The engine tests' ``pk`` table (tests/engine/conftest.py), holding one item."""
    ddb.put_item(TableName=table, Item=KEY)
    return table


def deep(levels: int, style: str) -> str:
    """A path of ``levels`` elements: ``a.b.b...``, ``a[0][0]...`` or alternating ``a.b[0].b[0]...``."""
    steps = {"names": ".b", "indexes": "[0]"}
    if style == "mixed":
        return "a" + "".join(".b" if n % 2 == 0 else "[0]" for n in range(levels - 1))
    return "a" + steps[style] * (levels - 1)


def too_deep(kind: str, levels: int) -> str:
    return f"Invalid {kind}: The document path has too many nesting levels; nesting levels: {levels}"


@pytest.mark.parametrize("style", ["names", "indexes", "mixed"])
def test_projection_path_depth_limit(ddb: Backend, table: str, style: str) -> None:
    assert ddb.get_item(TableName=table, Key=KEY, ProjectionExpression=deep(32, style)) == {"Item": {}}
    with ddb.error("ValidationException", too_deep("ProjectionExpression", 33)):
        ddb.get_item(TableName=table, Key=KEY, ProjectionExpression=deep(33, style))
    with ddb.error("ValidationException", too_deep("ProjectionExpression", 40)):
        ddb.scan(TableName=table, ProjectionExpression="pk, " + deep(40, style))


def test_name_placeholders_count_as_levels(ddb: Backend, table: str) -> None:
    path = "#a" + ".#a" * 32
    with ddb.error("ValidationException", too_deep("ProjectionExpression", 33)):
        ddb.get_item(
            TableName=table, Key=KEY, ProjectionExpression=path, ExpressionAttributeNames={"#a": "a"}
        )


@pytest.mark.parametrize(
    ("kind", "params"),
    [
        ("ConditionExpression", lambda path: {"ConditionExpression": f"attribute_exists({path})"}),
        (
            "UpdateExpression",
            lambda path: {
                "UpdateExpression": f"SET {path} = :v",
                "ExpressionAttributeValues": {":v": {"N": "1"}},
            },
        ),
        ("UpdateExpression", lambda path: {"UpdateExpression": f"REMOVE {path}"}),
    ],
)
def test_condition_and_update_path_depth_limit(ddb: Backend, table: str, kind: str, params: Any) -> None:
    with ddb.error("ValidationException", too_deep(kind, 33)):
        ddb.update_item(TableName=table, Key=KEY, **params(deep(33, "names")))
