"""Sets come back in DynamoDB's order, not in write order: strings and binaries bytewise, numbers by value.

AWS returns a set's members in its own order whatever order they were written or ADDed in (the Parity
Suite's "ADD of an empty string member onto an existing set" reads ``["", "a"]`` back from ``["a"]`` plus
``[""]``, measured on AWS); DynamoDB Local sorts most of them too. Every way a set is written is checked:
PutItem, nested sets, UpdateItem SET / ADD / DELETE and their ReturnValues, the legacy AttributeUpdates,
PartiQL bags and ``set_add``, batches and transactions, and every read (GetItem, Query, Scan, BatchGetItem,
PartiQL).
"""

from __future__ import annotations

import base64
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tables import create_keyed

from backends import Backend
from draws import examples
from singletable.engine import Engine

KEY = {"pk": {"S": "k"}}
WRITTEN = {
    "ss": {"SS": ["b", "a", "B", "é", "", "aa", "10", "9"]},
    "ns": {"NS": ["10", "9", "-1", "1e2", "0.5", "-20", "-0.001"]},
    "bs": {"BS": [b"\x80", b"\x01", b"\x01\x00", b"", b"\xff", b"\x7f"]},
}
SORTED = {
    "ss": {"SS": ["", "10", "9", "B", "a", "aa", "b", "é"]},
    "ns": {"NS": ["-20", "-1", "-0.001", "0.5", "9", "10", "100"]},
    "bs": {"BS": [b"", b"\x01", b"\x01\x00", b"\x7f", b"\x80", b"\xff"]},
}


def stored(ddb: Backend, table: str) -> dict[str, Any]:
    return ddb.get_item(TableName=table, Key=KEY, ConsistentRead=True)["Item"]


def test_put_item_sets_read_back_sorted_on_every_read(ddb: Backend, table: str) -> None:
    ddb.put_item(TableName=table, Item={**KEY, **WRITTEN})
    expected = {**KEY, **SORTED}
    assert stored(ddb, table) == expected
    assert ddb.query(
        TableName=table, KeyConditionExpression="pk = :k", ExpressionAttributeValues={":k": KEY["pk"]}
    )["Items"] == [expected]
    assert ddb.scan(TableName=table)["Items"] == [expected]
    batch = ddb.batch_get_item(RequestItems={table: {"Keys": [KEY]}})
    assert batch["Responses"][table] == [expected]
    assert ddb.execute_statement(Statement=f"SELECT * FROM \"{table}\" WHERE pk = 'k'")["Items"] == [expected]
    projected = ddb.get_item(TableName=table, Key=KEY, ProjectionExpression="ns")["Item"]
    assert projected == {"ns": SORTED["ns"]}


def test_sets_nested_in_maps_and_lists_are_sorted(ddb: Backend, table: str) -> None:
    ddb.put_item(
        TableName=table,
        Item={**KEY, "m": {"M": {"s": {"SS": ["z", "y"]}, "l": {"L": [{"NS": ["3", "-3", "2"]}]}}}},
    )
    assert stored(ddb, table)["m"] == {"M": {"s": {"SS": ["y", "z"]}, "l": {"L": [{"NS": ["-3", "2", "3"]}]}}}


def test_add_merges_into_the_order(ddb: Backend, table: str) -> None:
    old = {"tags": {"SS": ["a"]}, "ns": {"NS": ["5"]}, "bs": {"BS": [b"\x02"]}}
    ddb.put_item(TableName=table, Item={**KEY, **old})
    response = ddb.update_item(
        TableName=table,
        Key=KEY,
        UpdateExpression="ADD tags :t, ns :n, bs :b",
        ExpressionAttributeValues={
            ":t": {"SS": ["", "c", "b"]},
            ":n": {"NS": ["10", "-1", "5"]},
            ":b": {"BS": [b"\x01", b"\x80"]},
        },
        ReturnValues="UPDATED_NEW",
    )
    expected = {
        "tags": {"SS": ["", "a", "b", "c"]},
        "ns": {"NS": ["-1", "5", "10"]},
        "bs": {"BS": [b"\x01", b"\x02", b"\x80"]},
    }
    assert response["Attributes"] == expected
    assert stored(ddb, table) == {**KEY, **expected}


def test_add_onto_a_missing_attribute_and_set_are_sorted(ddb: Backend, table: str) -> None:
    response = ddb.update_item(
        TableName=table,
        Key=KEY,
        UpdateExpression="ADD fresh :f SET nums = :c",
        ExpressionAttributeValues={":f": {"SS": ["q", "p"]}, ":c": {"NS": ["2", "1"]}},
        ReturnValues="ALL_NEW",
    )
    expected = {**KEY, "fresh": {"SS": ["p", "q"]}, "nums": {"NS": ["1", "2"]}}
    assert response["Attributes"] == expected
    assert stored(ddb, table) == expected


def test_delete_keeps_the_order(ddb: Backend, table: str) -> None:
    ddb.put_item(TableName=table, Item={**KEY, "tags": {"SS": ["d", "b", "c", "a"]}})
    response = ddb.update_item(
        TableName=table,
        Key=KEY,
        UpdateExpression="DELETE tags :t",
        ExpressionAttributeValues={":t": {"SS": ["c"]}},
        ReturnValues="ALL_OLD",
    )
    assert response["Attributes"]["tags"] == {"SS": ["a", "b", "c", "d"]}
    assert stored(ddb, table)["tags"] == {"SS": ["a", "b", "d"]}


def test_legacy_attribute_updates_add_is_sorted(ddb: Backend, table: str) -> None:
    if ddb.is_reference:
        pytest.skip("DynamoDB Local's legacy ADD appends the added members after the old ones, unsorted")
    ddb.put_item(TableName=table, Item={**KEY, "tags": {"SS": ["m"]}})
    ddb.update_item(
        TableName=table,
        Key=KEY,
        AttributeUpdates={"tags": {"Action": "ADD", "Value": {"SS": ["z", "a"]}}},
    )
    assert stored(ddb, table)["tags"] == {"SS": ["a", "m", "z"]}


def test_partiql_bags_and_set_add_are_sorted(ddb: Backend, table: str) -> None:
    if ddb.is_reference:
        pytest.skip("DynamoDB Local stores a PartiQL bag's members in written order")
    value = "{'pk': 'k', 's': <<'z', 'a'>>, 'n': <<3, 1>>}"
    ddb.execute_statement(Statement=f'INSERT INTO "{table}" VALUE {value}')
    assert stored(ddb, table)["s"] == {"SS": ["a", "z"]}
    assert stored(ddb, table)["n"] == {"NS": ["1", "3"]}
    ddb.execute_statement(Statement=f"UPDATE \"{table}\" SET s = set_add(s, <<'m', '0'>>) WHERE pk = 'k'")
    ddb.execute_statement(Statement=f"UPDATE \"{table}\" SET n = <<20, 2>> WHERE pk = 'k'")
    assert stored(ddb, table)["s"] == {"SS": ["0", "a", "m", "z"]}
    assert stored(ddb, table)["n"] == {"NS": ["2", "20"]}


def test_batch_and_transaction_writes_are_sorted(ddb: Backend, table: str) -> None:
    ddb.batch_write_item(RequestItems={table: [{"PutRequest": {"Item": {**KEY, "s": {"SS": ["y", "x"]}}}}]})
    assert stored(ddb, table)["s"] == {"SS": ["x", "y"]}
    ddb.transact_write_items(
        TransactItems=[
            {
                "Update": {
                    "TableName": table,
                    "Key": KEY,
                    "UpdateExpression": "ADD s :s",
                    "ExpressionAttributeValues": {":s": {"SS": ["w", "z"]}},
                }
            }
        ]
    )
    assert stored(ddb, table)["s"] == {"SS": ["w", "x", "y", "z"]}


def test_strings_order_by_utf8_bytes_on_put(ddb: Backend, table: str) -> None:
    """U+FF5A before U+1F600: UTF-8 (code point) order, not UTF-16 code units."""
    if ddb.is_reference:
        pytest.skip("DynamoDB Local's PutItem orders strings by UTF-16 code units (its ADD by code point)")
    ddb.put_item(TableName=table, Item={**KEY, "s": {"SS": ["\U0001f600", "\uff5a", "\u00e9"]}})
    assert stored(ddb, table)["s"] == {"SS": ["\u00e9", "\uff5a", "\U0001f600"]}


def test_strings_order_by_utf8_bytes_on_add(ddb: Backend, table: str) -> None:
    ddb.put_item(TableName=table, Item={**KEY, "s": {"SS": ["\uff5a"]}})
    ddb.update_item(
        TableName=table,
        Key=KEY,
        UpdateExpression="ADD s :s",
        ExpressionAttributeValues={":s": {"SS": ["\U0001f600", "\u00e9"]}},
    )
    assert stored(ddb, table)["s"] == {"SS": ["\u00e9", "\uff5a", "\U0001f600"]}


# -------------------------------------------------------------------------------- property (engine)

members = {
    "SS": st.text(max_size=4),
    "NS": st.decimals(allow_nan=False, allow_infinity=False, places=3, min_value=-(10**6), max_value=10**6),
    "BS": st.binary(max_size=3),
}


def _wire(tag: str, values: list[Any]) -> list[Any]:
    return [format(value.normalize(), "f") if tag == "NS" else value for value in values]


def _order(tag: str, values: list[Any]) -> list[Any]:
    """The order stated independently of the engine: UTF-8 bytes, unsigned bytes, numeric value."""
    if tag == "SS":
        return sorted(values, key=lambda text: text.encode("utf-8", "surrogatepass"))
    if tag == "NS":
        return sorted(values, key=Decimal)
    return sorted(values)


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Any:
    path: Path = tmp_path_factory.mktemp("sets") / "sets.sqlite3"
    with Engine(str(path)) as engine:
        create_keyed(engine, "sets")
        yield engine


@settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data(), tag=st.sampled_from(["SS", "NS", "BS"]))
def test_any_written_order_reads_back_in_one_order(engine: Engine, data: st.DataObject, tag: str) -> None:
    unique = st.lists(members[tag], min_size=1, max_size=6, unique_by=lambda v: v)
    first = _wire(tag, data.draw(unique))
    added = _wire(tag, data.draw(unique))
    key = {"pk": {"S": "p"}}
    engine.execute("PutItem", {"TableName": "sets", "Item": {**key, "v": {tag: first}}})
    got = engine.execute("GetItem", {"TableName": "sets", "Key": key})["Item"]["v"][tag]
    assert got == _order(tag, got)
    assert {_canonical(tag, v) for v in got} == {_canonical(tag, v) for v in first}
    new = engine.execute(
        "UpdateItem",
        {
            "TableName": "sets",
            "Key": key,
            "UpdateExpression": "ADD v :a",
            "ExpressionAttributeValues": {":a": {tag: added}},
            "ReturnValues": "UPDATED_NEW",
        },
    )["Attributes"]["v"][tag]
    assert new == _order(tag, new)
    assert {_canonical(tag, v) for v in new} == {_canonical(tag, v) for v in first + added}
    assert engine.execute("GetItem", {"TableName": "sets", "Key": key})["Item"]["v"][tag] == new


def _canonical(tag: str, value: Any) -> Any:
    if tag == "NS":
        return Decimal(value)
    if tag == "BS":
        return base64.b64encode(value)
    return value
