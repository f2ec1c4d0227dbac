"""Attribute names take at most 65,535 bytes (UTF-8), at the top level and as map keys, on every write."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from backends import Backend

TOO_LARGE = "Attribute name is too large, must be less than 65536 bytes"
LONGEST = "x" * 65535
KEY = {"pk": {"S": "a"}}


def items(name: str) -> list[dict[str, Any]]:
    """Items holding ``name`` as an attribute name: top level, map key, map key inside a list."""
    value = {"S": "v"}
    return [
        {**KEY, name: value},
        {**KEY, "m": {"M": {name: value}}},
        {**KEY, "l": {"L": [{"N": "1"}, {"M": {"inner": {"M": {name: value}}}}]}},
    ]


WRITES: dict[str, Callable[[Backend, str, dict[str, Any]], Any]] = {
    "put_item": lambda ddb, table, item: ddb.put_item(TableName=table, Item=item),
    "batch_write_item": lambda ddb, table, item: ddb.batch_write_item(
        RequestItems={table: [{"PutRequest": {"Item": item}}]}
    ),
    "transact_write_items": lambda ddb, table, item: ddb.transact_write_items(
        TransactItems=[{"Put": {"TableName": table, "Item": item}}]
    ),
}


@pytest.mark.parametrize("write", sorted(WRITES))
@pytest.mark.parametrize("where", [0, 1, 2])
@pytest.mark.parametrize("name", ["x" * 65536, "\u00e9" * 32768, "\U0001f600" * 16384])
def test_attribute_name_over_65535_bytes_is_refused(
    ddb: Backend, shared: str, write: str, where: int, name: str
) -> None:
    with ddb.error("ValidationException", TOO_LARGE):
        WRITES[write](ddb, shared, items(name)[where])
    assert ddb.scan(TableName=shared)["Count"] == 0


@pytest.mark.parametrize("where", [0, 1, 2])
def test_attribute_name_of_65535_bytes_is_accepted(ddb: Backend, table: str, where: int) -> None:
    item = items(LONGEST)[where]
    ddb.put_item(TableName=table, Item=item)
    assert ddb.get_item(TableName=table, Key=KEY, ConsistentRead=True)["Item"] == item


def test_update_value_with_a_long_map_key_is_refused(ddb: Backend, shared: str) -> None:
    with ddb.error(
        "ValidationException", f"ExpressionAttributeValues contains invalid value: {TOO_LARGE} for key :v"
    ):
        ddb.update_item(
            TableName=shared,
            Key=KEY,
            UpdateExpression="SET m = :v",
            ExpressionAttributeValues={":v": {"M": {"x" * 65536: {"S": "v"}}}},
        )
    assert ddb.scan(TableName=shared)["Count"] == 0
