"""OnDemandThroughput: the maxima a CreateTable or UpdateTable sets are what DescribeTable shows.

AWS documents each maximum as at least 1, or -1 for none (which is also how one is removed); a member not
given keeps its value. The engine records the maxima; it does not throttle requests to them.
"""

from __future__ import annotations

from typing import Any

import pytest

from backends import Backend, expect_error

LOCAL = "DynamoDB Local 1.25.1 does not show OnDemandThroughput (docs/compatibility.md)"


def create(ddb: Backend, name: str, **extra: Any) -> None:
    ddb.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
        **extra,
    )


def shown(ddb: Backend, name: str) -> Any:
    return ddb.describe_table(TableName=name)["Table"].get("OnDemandThroughput")


def test_round_trip_through_create_and_update(ddb: Backend, table_name: str) -> None:
    create(ddb, table_name, OnDemandThroughput={"MaxReadRequestUnits": 10, "MaxWriteRequestUnits": 5})
    if ddb.is_reference and shown(ddb, table_name) is None:
        pytest.skip(LOCAL)
    assert shown(ddb, table_name) == {"MaxReadRequestUnits": 10, "MaxWriteRequestUnits": 5}
    ddb.update_table(
        TableName=table_name, OnDemandThroughput={"MaxReadRequestUnits": 20, "MaxWriteRequestUnits": 15}
    )
    assert shown(ddb, table_name) == {"MaxReadRequestUnits": 20, "MaxWriteRequestUnits": 15}
    ddb.update_table(TableName=table_name, OnDemandThroughput={"MaxWriteRequestUnits": -1})
    assert shown(ddb, table_name) == {"MaxReadRequestUnits": 20, "MaxWriteRequestUnits": -1}
    ddb.update_table(TableName=table_name, OnDemandThroughput={"MaxReadRequestUnits": -1})
    assert shown(ddb, table_name) is None


def test_one_maximum_leaves_the_other_unlimited(ddb: Backend, table_name: str) -> None:
    create(ddb, table_name, OnDemandThroughput={"MaxReadRequestUnits": 7})
    if ddb.is_reference and shown(ddb, table_name) is None:
        pytest.skip(LOCAL)
    assert shown(ddb, table_name) == {"MaxReadRequestUnits": 7, "MaxWriteRequestUnits": -1}
    create(ddb, f"{table_name}b", OnDemandThroughput={"MaxReadRequestUnits": -1, "MaxWriteRequestUnits": -1})
    assert shown(ddb, f"{table_name}b") is None


@pytest.mark.parametrize("value", [0, -2])
def test_a_maximum_below_one_is_refused(ddb: Backend, table_name: str, value: int) -> None:
    if ddb.is_reference:
        pytest.skip(LOCAL)
    message = (
        "One or more parameter values were invalid: OnDemandThroughput MaxReadRequestUnits must be greater "
        f"than or equal to 1, or -1 for no maximum: {value}"
    )
    with expect_error("ValidationException", message):
        create(ddb, table_name, OnDemandThroughput={"MaxReadRequestUnits": value})
    create(ddb, table_name)
    with expect_error("ValidationException", message):
        ddb.update_table(TableName=table_name, OnDemandThroughput={"MaxReadRequestUnits": value})
