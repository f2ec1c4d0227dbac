"""A malformed value (a number DynamoDB cannot read, a set with a repeated member) is worded by the operation.

AWS checks values in one of two layers, and which one an operation runs decides the wording (the Parity
Suite's captures in four regions): PutItem, UpdateItem and DeleteItem answer the newer wording inside the
"1 validation error detected: " envelope wherever the value sits; GetItem, BatchGetItem and Query answer it
bare; BatchWriteItem, TransactWriteItems, TransactGetItems and Scan answer the older wording, an expression
value's problem wrapped as "ExpressionAttributeValues contains invalid value: ... for key :v". DynamoDB Local
1.25.1 has only its own older wording ("A value provided cannot be converted into a number"), so the reference
backend skips (docs/compatibility.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tables import create_keyed

from backends import Backend, SharedTables, expect_error
from draws import examples

LOCAL_WORDS = "DynamoDB Local words a malformed value in its older layer only (docs/compatibility.md)"
OVERFLOW = "Number overflow. Attempting to store a number with magnitude larger than supported range"
UNDERFLOW = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
NOT_NUMERIC = "The parameter cannot be converted to a numeric value"
ONE = "1 validation error detected: "
INVALID = "One or more parameter values were invalid: "

# (the number as sent, the newer layer's answer, the older layer's)
SHAPES = [
    ("abc", f"{NOT_NUMERIC}: abc", f"{NOT_NUMERIC}: abc"),
    ("", f"{NOT_NUMERIC}: ", NOT_NUMERIC),
    ("1e126", OVERFLOW, OVERFLOW),
    ("1e2147483647", OVERFLOW, UNDERFLOW),
    ("1e99999999999", OVERFLOW, f"{NOT_NUMERIC}: 1e99999999999"),
    ("1e-2147483648", UNDERFLOW, f"{NOT_NUMERIC}: 1e-2147483648"),
    ("0e126", OVERFLOW, OVERFLOW),
    ("0e-131", UNDERFLOW, UNDERFLOW),
    (
        "1e9223372036854775808",
        f"{NOT_NUMERIC}: 1e9223372036854775808",
        f"{NOT_NUMERIC}: 1e9223372036854775808",
    ),
]
# (the set as sent, the newer layer's answer, the older layer's)
DUPLICATES = [
    (
        {"SS": ["b", "a", "b"]},
        f'{INVALID}Input collection ["a", "b", "b"] contains duplicates.',
        f"{INVALID}Input collection [b, a, b] contains duplicates.",
    ),
    (
        {"BS": [b"\xff", b"\x00", b"\x00"]},
        f'{INVALID}Input collection ["AA==","/w==","AA=="]of type BS contains duplicates.',
        f"{INVALID}Input collection [/w==, AA==, AA==]of type BS contains duplicates.",
    ),
    (
        {"NS": ["2", "1", "2"]},
        f"{INVALID}Input collection contains duplicates.",
        "Input collection contains duplicates",
    ),
]


@pytest.fixture
def table(ddb: Backend, module_tables: SharedTables) -> str:
    """An empty ``pk`` (S) table, shared by the module's tests: each sends requests it refuses."""
    if ddb.is_reference:
        pytest.skip(LOCAL_WORDS)
    return module_tables.get(ddb, "keyed", create_keyed)


@pytest.fixture
def number_table(ddb: Backend, module_tables: SharedTables) -> str:
    """An empty ``pk`` (N) table, shared as ``table`` is."""
    if ddb.is_reference:
        pytest.skip(LOCAL_WORDS)
    return module_tables.get(ddb, "number", lambda backend, name: create_keyed(backend, name, "N"))


def eav(message: str) -> str:
    return f"ExpressionAttributeValues contains invalid value: {message} for key :v"


def refused(message: str) -> Any:
    return expect_error("ValidationException", message)


@pytest.mark.parametrize(("text", "current", "older"), SHAPES)
def test_numbers_in_single_item_writes_are_enveloped(
    ddb: Backend, table: str, text: str, current: str, older: str
) -> None:
    bad = {"N": text}
    with refused(ONE + current):
        ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "n": bad})
    with refused(ONE + current):
        ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "n": {"M": {"x": {"L": [bad]}}}})
    with refused(ONE + current):  # a condition value: enveloped, with no ExpressionAttributeValues wrapper
        ddb.put_item(
            TableName=table,
            Item={"pk": {"S": "a"}},
            ConditionExpression="attribute_not_exists(pk) OR n = :v",
            ExpressionAttributeValues={":v": bad},
        )
    with refused(ONE + current):
        ddb.update_item(
            TableName=table,
            Key={"pk": {"S": "a"}},
            UpdateExpression="SET n = :v",
            ExpressionAttributeValues={":v": bad},
        )
    with refused(ONE + current):
        ddb.update_item(TableName=table, Key={"pk": {"S": "a"}}, AttributeUpdates={"n": {"Value": bad}})
    with refused(ONE + current):
        ddb.delete_item(
            TableName=table,
            Key={"pk": {"S": "a"}},
            ConditionExpression="n = :v",
            ExpressionAttributeValues={":v": bad},
        )
    assert ddb.scan(TableName=table)["Items"] == []


@pytest.mark.parametrize(("text", "current", "older"), SHAPES)
def test_numbers_in_reads_are_bare(
    ddb: Backend, number_table: str, table: str, text: str, current: str, older: str
) -> None:
    bad = {"N": text}
    with refused(current):
        ddb.get_item(TableName=number_table, Key={"pk": bad})
    with refused(current):
        ddb.batch_get_item(RequestItems={number_table: {"Keys": [{"pk": bad}]}})
    with refused(current):
        ddb.query(
            TableName=table,
            KeyConditionExpression="pk = :p",
            FilterExpression="n = :v",
            ExpressionAttributeValues={":p": {"S": "a"}, ":v": bad},
        )
    with refused(ONE + current):
        ddb.delete_item(TableName=number_table, Key={"pk": bad})


@pytest.mark.parametrize(("text", "current", "older"), SHAPES)
def test_numbers_in_batch_writes_scans_and_transactions_keep_the_older_wording(
    ddb: Backend, number_table: str, table: str, text: str, current: str, older: str
) -> None:
    bad = {"N": text}
    with refused(older):
        ddb.batch_write_item(RequestItems={table: [{"PutRequest": {"Item": {"pk": {"S": "a"}, "n": bad}}}]})
    with refused(older):
        ddb.transact_write_items(
            TransactItems=[{"Put": {"TableName": table, "Item": {"pk": {"S": "a"}, "n": bad}}}]
        )
    with refused(eav(older)):
        ddb.transact_write_items(
            TransactItems=[
                {
                    "Update": {
                        "TableName": table,
                        "Key": {"pk": {"S": "a"}},
                        "UpdateExpression": "SET n = :v",
                        "ExpressionAttributeValues": {":v": bad},
                    }
                }
            ]
        )
    # A malformed key fails the whole TransactGetItems request (never a cancellation reason).
    with refused(older):
        ddb.transact_get_items(TransactItems=[{"Get": {"TableName": number_table, "Key": {"pk": bad}}}])
    with refused(eav(older)):
        ddb.scan(TableName=table, FilterExpression="n = :v", ExpressionAttributeValues={":v": bad})


@pytest.mark.parametrize(("value", "current", "older"), DUPLICATES)
def test_duplicate_set_members_by_operation(
    ddb: Backend, table: str, value: dict[str, Any], current: str, older: str
) -> None:
    with refused(ONE + current):
        ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "s": value})
    with refused(ONE + current):
        ddb.put_item(TableName=table, Item={"pk": {"S": "a"}}, Expected={"s": {"Value": value}})
    with refused(ONE + current):
        ddb.delete_item(TableName=table, Key={"pk": value})
    with refused(current):
        ddb.get_item(TableName=table, Key={"pk": value})
    with refused(current):
        ddb.query(TableName=table, KeyConditionExpression="pk = :v", ExpressionAttributeValues={":v": value})
    with refused(current):
        ddb.query(
            TableName=table,
            KeyConditionExpression="pk = :p",
            ExpressionAttributeValues={":p": {"S": "a"}},
            ExclusiveStartKey={"pk": value},
        )
    with refused(older):
        ddb.batch_write_item(RequestItems={table: [{"DeleteRequest": {"Key": {"pk": value}}}]})
    with refused(older):
        ddb.transact_get_items(TransactItems=[{"Get": {"TableName": table, "Key": {"pk": value}}}])
    with refused(eav(older)):
        ddb.transact_write_items(
            TransactItems=[
                {
                    "ConditionCheck": {
                        "TableName": table,
                        "Key": {"pk": {"S": "a"}},
                        "ConditionExpression": "attribute_not_exists(pk) OR s = :v",
                        "ExpressionAttributeValues": {":v": value},
                    }
                }
            ]
        )


def test_arithmetic_out_of_range_keeps_its_plain_message(ddb: Backend, table_name: str) -> None:
    """An ADD whose result overflows is the computation's error, not a malformed request value: the plain
    message on every operation (DynamoDB Local's too)."""
    table = table_name
    create_keyed(ddb, table)
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "n": {"N": "9e125"}})
    with refused(OVERFLOW):
        ddb.update_item(
            TableName=table,
            Key={"pk": {"S": "a"}},
            UpdateExpression="ADD n :v",
            ExpressionAttributeValues={":v": {"N": "9e125"}},
        )


@settings(
    max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.sampled_from(["a", "b", "c", "é", "z"]), min_size=2, max_size=6))
def test_string_set_duplicates_list_sorted_members_then_the_repeat(
    ddb: Backend, table: str, members: list[str]
) -> None:
    if len(set(members)) == len(members):
        members = [*members, members[0]]
    first = next(i for i, m in enumerate(members) if m in members[:i])
    shown = [*sorted(members[:first], key=lambda m: m.encode()), *members[first:]]
    listed = ", ".join(f'"{m}"' for m in shown)
    with refused(f"{INVALID}Input collection [{listed}] contains duplicates."):
        ddb.get_item(TableName=table, Key={"pk": {"SS": members}})
