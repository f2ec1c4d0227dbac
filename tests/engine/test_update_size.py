"""UpdateItem measures what its expression writes against the 400 KB limit, not only the finished item.

AWS (the Parity Suite's bisections in eu-west-2): UpdateItem refuses unless both the finished item and the
attributes its expression writes plus a cost per action (3 for the update, 19 per SET or ADD, one more
through a list index, 2 per REMOVE or DELETE) fit in 409,600 bytes. So at a short key it refuses a finished
item a little under the limit. A transacted Update, a PartiQL UPDATE and every put measure the finished
item alone. DynamoDB Local measures the finished item everywhere.
"""

from __future__ import annotations

from typing import Any

import pytest
from tables import create_keyed

from backends import Backend, expect_error

LIMIT = 409_600
TOO_LARGE = "Item size to update has exceeded the maximum allowed size"
LOCAL = "DynamoDB Local measures only the finished item (docs/compatibility.md)"


@pytest.fixture
def table(ddb: Backend, table_name: str) -> str:
    if ddb.is_reference:
        pytest.skip(LOCAL)
    create_keyed(ddb, table_name)
    return table_name


def key(value: str) -> dict[str, Any]:
    return {"pk": {"S": value}}  # 2 bytes of name + the value's


def pad(finished: int, *, other: int = 0) -> dict[str, Any]:
    """The value of ``b`` making the item (``pk`` of 1 byte, ``b``, ``other`` bytes) exactly ``finished``."""
    return {"S": "x" * (finished - 3 - 1 - other)}


def set_b(ddb: Backend, table: str, at: str, value: dict[str, Any], extra: str = "", **values: Any) -> None:
    ddb.update_item(
        TableName=table,
        Key=key(at),
        UpdateExpression=f"SET b = :pad{extra}",
        ExpressionAttributeValues={":pad": value, **values},
    )


def size_of(ddb: Backend, table: str, at: str) -> int:
    item = ddb.get_item(TableName=table, Key=key(at))["Item"]
    return sum(len(name) + len(value.get("S", "")) for name, value in item.items())


def test_one_set_at_a_one_byte_key(ddb: Backend, table: str) -> None:
    ceiling = LIMIT + 3 - (3 + 19)  # the key is not written; one SET costs 22
    set_b(ddb, table, "K", pad(ceiling))
    assert size_of(ddb, table, "K") == ceiling
    with expect_error("ValidationException", TOO_LARGE):
        set_b(ddb, table, "L", pad(ceiling + 1))
    assert "Item" not in ddb.get_item(TableName=table, Key=key("L"))


def test_each_action_costs_and_untouched_attributes_are_free(ddb: Backend, table: str) -> None:
    two_sets = LIMIT + 3 - (3 + 19 * 2)  # c, which the second SET writes, counts in both halves
    set_b(ddb, table, "A", pad(two_sets, other=2), ", c = :c", **{":c": {"S": "y"}})
    with expect_error("ValidationException", TOO_LARGE):
        set_b(ddb, table, "B", pad(two_sets + 1, other=2), ", c = :c", **{":c": {"S": "y"}})
    ddb.put_item(TableName=table, Item={**key("C"), "u": {"S": "y" * 10}, "r": {"S": "z"}})
    with_remove = LIMIT + 3 + 11 - (3 + 19 + 2)  # u is left alone; r is removed
    set_b(ddb, table, "C", pad(with_remove, other=11), " REMOVE r")
    assert size_of(ddb, table, "C") == with_remove
    ddb.put_item(TableName=table, Item={**key("D"), "u": {"S": "y" * 10}, "r": {"S": "z"}})
    with expect_error("ValidationException", TOO_LARGE):
        set_b(ddb, table, "D", pad(with_remove + 1, other=11), " REMOVE r")


def test_transactions_and_partiql_measure_the_finished_item(ddb: Backend, table: str) -> None:
    ddb.transact_write_items(
        TransactItems=[
            {
                "Update": {
                    "TableName": table,
                    "Key": key("T"),
                    "UpdateExpression": "SET b = :pad",
                    "ExpressionAttributeValues": {":pad": pad(LIMIT)},
                }
            }
        ]
    )
    assert size_of(ddb, table, "T") == LIMIT
    ddb.put_item(TableName=table, Item=key("P"))
    ddb.execute_statement(
        Statement=f'UPDATE "{table}" SET b = ? WHERE pk = ?', Parameters=[pad(LIMIT), {"S": "P"}]
    )
    assert size_of(ddb, table, "P") == LIMIT
    with expect_error("ValidationException", TOO_LARGE):
        set_b(ddb, table, "Q", pad(LIMIT))
