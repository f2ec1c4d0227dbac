"""UpdateItem's legacy AttributeUpdates on every backend: PUT, ADD and DELETE with their old semantics.

Texts and results were measured on DynamoDB Local 1.25.1.
"""

from __future__ import annotations

import pytest
from tables import create, n, s

INVALID = "One or more parameter values were invalid: "
KEY = {"PK": {"S": "k"}, "SK": {"S": "1"}}


@pytest.fixture
def table(ddb, table_name):
    return create(ddb, table_name)


BASE = {**KEY, "n": n("1"), "s": s("x"), "ss": {"SS": ["a", "b"]}, "l": {"L": [n("1")]}}
UPDATES = [
    ({"n": {"Action": "PUT", "Value": n("5")}, "new": {"Value": s("v")}}, {"n": n("5"), "new": s("v")}, ()),
    ({"n": {"Action": "DELETE"}, "absent": {"Action": "DELETE"}}, {}, ("n",)),
    ({"ss": {"Action": "DELETE", "Value": {"SS": ["a", "q"]}}}, {"ss": {"SS": ["b"]}}, ()),
    ({"ss": {"Action": "DELETE", "Value": {"SS": ["a", "b"]}}}, {}, ("ss",)),
    ({"absent": {"Action": "DELETE", "Value": {"SS": ["a"]}}}, {}, ()),
    ({"n": {"Action": "ADD", "Value": n("2.5")}}, {"n": n("3.5")}, ()),
    ({"absent": {"Action": "ADD", "Value": n("-2")}}, {"absent": n("-2")}, ()),
    ({"ss": {"Action": "ADD", "Value": {"SS": ["c", "a"]}}}, {"ss": {"SS": ["a", "b", "c"]}}, ()),
    ({"absent": {"Action": "ADD", "Value": {"NS": ["3"]}}}, {"absent": {"NS": ["3"]}}, ()),
    ({"l": {"Action": "ADD", "Value": {"L": [s("2")]}}}, {"l": {"L": [n("1"), s("2")]}}, ()),
    ({"absent": {"Action": "ADD", "Value": {"L": [n("2")]}}}, {"absent": {"L": [n("2")]}}, ()),
    ({"a.b": {"Action": "PUT", "Value": s("")}}, {"a.b": s("")}, ()),
    ({}, {}, ()),
]


def _sets_sorted(item: dict) -> dict:
    return {k: {t: sorted(v) if t in ("SS", "NS") else v for t, v in av.items()} for k, av in item.items()}


@pytest.mark.parametrize(("updates", "changed", "removed"), UPDATES)
def test_attribute_updates(ddb, table, updates, changed, removed):
    ddb.put_item(TableName=table, Item=BASE)
    got = ddb.update_item(TableName=table, Key=KEY, AttributeUpdates=updates, ReturnValues="ALL_NEW")[
        "Attributes"
    ]
    want = {k: v for k, v in {**BASE, **changed}.items() if k not in removed}
    assert _sets_sorted(got) == _sets_sorted(want)


def test_attribute_updates_on_missing_item_and_updated_values(ddb, table):
    key = {"PK": s("fresh"), "SK": s("1")}
    got = ddb.update_item(
        TableName=table,
        Key=key,
        ReturnValues="ALL_NEW",
        AttributeUpdates={
            "a": {"Action": "ADD", "Value": n("3")},
            "d": {"Action": "DELETE"},
            "e": {"Action": "DELETE", "Value": {"SS": ["x"]}},
        },
    )
    assert got["Attributes"] == {**key, "a": n("3")}
    ddb.put_item(TableName=table, Item=BASE)
    changes = {
        "n": {"Action": "ADD", "Value": n("3")},
        "z": {"Action": "PUT", "Value": n("3")},
        "s": {"Action": "DELETE"},
    }
    old = ddb.update_item(TableName=table, Key=KEY, AttributeUpdates=changes, ReturnValues="UPDATED_OLD")
    assert old["Attributes"] == {"n": n("1"), "s": s("x")}
    ddb.put_item(TableName=table, Item=BASE)
    new = ddb.update_item(TableName=table, Key=KEY, AttributeUpdates=changes, ReturnValues="UPDATED_NEW")
    assert new["Attributes"] == {"n": n("4"), "z": n("3")}


def test_attribute_updates_with_expected(ddb, table):
    ddb.put_item(TableName=table, Item=BASE)
    add = {"n": {"Action": "ADD", "Value": n("3")}}
    with ddb.error("ConditionalCheckFailedException", "The conditional request failed"):
        ddb.update_item(TableName=table, Key=KEY, AttributeUpdates=add, Expected={"n": {"Value": n("2")}})
    got = ddb.update_item(
        TableName=table,
        Key=KEY,
        AttributeUpdates=add,
        Expected={"n": {"Value": n("1")}},
        ReturnValues="UPDATED_NEW",
    )
    assert got["Attributes"] == {"n": n("4")}


NOT_A_NUMBER_LOCAL = "A value provided cannot be converted into a number"
UPDATE_ERRORS = [
    (
        {"n": {"Action": "PUT"}},
        INVALID + "Only DELETE action is allowed when no attribute value is specified",
    ),
    ({"n": {}}, INVALID + "Only DELETE action is allowed when no attribute value is specified"),
    (
        {"n": {"Action": "ADD"}},
        INVALID + "Only DELETE action is allowed when no attribute value is specified",
    ),
    ({"s": {"Action": "ADD", "Value": s("1")}}, INVALID + "ADD action is not supported for the type STRING"),
    ({"x": {"Action": "ADD", "Value": {"M": {}}}}, INVALID + "ADD action is not supported for the type MAP"),
    (
        {"x": {"Action": "ADD", "Value": {"BOOL": True}}},
        INVALID + "ADD action is not supported for the type BOOLEAN",
    ),
    (
        {"x": {"Action": "ADD", "Value": {"NULL": True}}},
        INVALID + "ADD action is not supported for the type NULL",
    ),
    (
        {"x": {"Action": "ADD", "Value": {"B": b"1"}}},
        INVALID + "ADD action is not supported for the type BINARY",
    ),
    (
        {"n": {"Action": "DELETE", "Value": n("1")}},
        INVALID + "DELETE action with value is not supported for the type NUMBER",
    ),
    (
        {"l": {"Action": "DELETE", "Value": {"L": [n("1")]}}},
        INVALID + "DELETE action with value is not supported for the type LIST",
    ),
    (
        {"ss": {"Action": "DELETE", "Value": s("a")}},
        INVALID + "DELETE action with value is not supported for the type STRING",
    ),
    (
        {"PK": {"Action": "PUT", "Value": s("k")}},
        INVALID + "Cannot update attribute PK. This attribute is part of the key",
    ),
    ({"SK": {"Action": "DELETE"}}, INVALID + "Cannot update attribute SK. This attribute is part of the key"),
    (
        {"n": {"Action": "PUT"}, "PK": {"Action": "DELETE"}},
        INVALID + "Only DELETE action is allowed when no attribute value is specified",
    ),
    (
        {"PK": {"Action": "DELETE"}, "n": {"Action": "PUT"}},
        INVALID + "Cannot update attribute PK. This attribute is part of the key",
    ),
    ({"": {"Action": "PUT", "Value": n("1")}}, "Empty attribute name"),
    # AWS's wording (UpdateItem envelopes a malformed value); DynamoDB Local's is NOT_A_NUMBER_LOCAL.
    (
        {"n": {"Action": "PUT", "Value": {"N": "x"}}},
        "1 validation error detected: The parameter cannot be converted to a numeric value: x",
    ),
    # Item-dependent type errors keep the legacy text.
    ({"s": {"Action": "ADD", "Value": n("1")}}, "Type mismatch for attribute to update"),
    ({"ss": {"Action": "ADD", "Value": {"NS": ["3"]}}}, "Type mismatch for attribute to update"),
    ({"n": {"Action": "ADD", "Value": {"L": [n("2")]}}}, "Type mismatch for attribute to update"),
    ({"ss": {"Action": "DELETE", "Value": {"NS": ["1"]}}}, "Type mismatch for attribute to update"),
]


def _make_base_table(ddb, name: str) -> None:
    create(ddb, name)
    ddb.put_item(TableName=name, Item=BASE)


@pytest.fixture
def base_table(ddb, module_tables):
    """A table holding BASE, shared by the module's tests of refused updates."""
    return module_tables.get(ddb, "base", _make_base_table)


@pytest.mark.parametrize(("updates", "message"), UPDATE_ERRORS)
def test_attribute_updates_errors(ddb, base_table, updates, message):
    local = NOT_A_NUMBER_LOCAL if "numeric value" in message else None
    with ddb.error("ValidationException", message, local=local):
        ddb.update_item(TableName=base_table, Key=KEY, AttributeUpdates=updates)
