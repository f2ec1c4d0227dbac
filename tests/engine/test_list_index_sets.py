"""SETs past the end of a list append; several of them append in index order, not in written order."""

from __future__ import annotations

from typing import Any

import pytest

from backends import Backend

KEY = {"pk": {"S": "a"}}


def n(value: int) -> dict[str, str]:
    return {"N": str(value)}


def updated(ddb: Backend, table: str, start: list[Any], expression: str, values: dict[str, Any]) -> Any:
    ddb.put_item(TableName=table, Item={**KEY, "a": {"L": start}, "m": {"M": {"l": {"L": start}}}})
    used = {name: value for name, value in values.items() if name in expression}
    extra = {"ExpressionAttributeValues": used} if used else {}
    ddb.update_item(TableName=table, Key=KEY, UpdateExpression=expression, **extra)
    return ddb.get_item(TableName=table, Key=KEY, ConsistentRead=True)["Item"]


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("SET a[7] = :a3, a[5] = :a2, a[9] = :a4", [0, 2, 3, 4]),
        ("SET a[9] = :a4, a[7] = :a3, a[5] = :a2", [0, 2, 3, 4]),
        ("SET a[5] = :a2, a[0] = :a4, a[3] = :a3", [4, 3, 2]),
        ("SET a[1] = :a3, a[100] = :a2", [0, 3, 2]),
    ],
)
def test_out_of_range_sets_append_in_index_order(
    ddb: Backend, table: str, expression: str, expected: list[int]
) -> None:
    values = {":a2": n(2), ":a3": n(3), ":a4": n(4)}
    item = updated(ddb, table, [n(0)], expression, values)
    assert item["a"] == {"L": [n(v) for v in expected]}


def test_nested_list_and_other_attributes_in_the_same_update(ddb: Backend, table: str) -> None:
    values = {":a2": n(2), ":a3": n(3), ":x": {"S": "x"}}
    item = updated(
        ddb, table, [n(0)], "SET z = :x, m.l[8] = :a3, a[4] = :a2, m.l[6] = :a2, a[2] = :a3", values
    )
    assert item["a"] == {"L": [n(0), n(3), n(2)]}
    assert item["m"] == {"M": {"l": {"L": [n(0), n(2), n(3)]}}}
    assert item["z"] == {"S": "x"}


def test_sets_read_the_item_before_any_append(ddb: Backend, table: str) -> None:
    item = updated(ddb, table, [n(0), n(1)], "SET a[5] = a[1], a[3] = a[0]", {})
    assert item["a"] == {"L": [n(0), n(1), n(0), n(1)]}
