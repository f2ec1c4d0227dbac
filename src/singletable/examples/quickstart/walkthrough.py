"""The quick start's walk-through (``singletable demo``): every call goes to the embedded engine, and each
step prints the request's title, what came back and the capacity DynamoDB would have charged.

The table is created afresh (deleted first if the file already has it), the sample loaded, then the steps
run in order: a refused duplicate, a GetItem, a Query newest first, an UpdateItem that moves an order to
another index partition, a Query on that index, and a filtered Scan.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from singletable.engine import DynamoDBError, Engine
from singletable.examples import EngineExample
from singletable.examples.quickstart.design import CREATE_TABLE, TABLE
from singletable.examples.quickstart.sample import CUSTOMER, load

Echo = Callable[[str], None]


def _show(echo: Echo, title: str, response: dict[str, Any]) -> None:
    echo(f"\n== {title}")
    for item in response.get("Items", [response["Item"]] if "Item" in response else []):
        echo("   " + ", ".join(f"{k}={_plain(v)}" for k, v in sorted(item.items())))
    if "Count" in response:
        echo(f"   Count={response['Count']} ScannedCount={response['ScannedCount']}")
    if "LastEvaluatedKey" in response:
        echo(f"   LastEvaluatedKey={ {k: _plain(v) for k, v in response['LastEvaluatedKey'].items()} }")
    if "ConsumedCapacity" in response:
        echo(f"   ConsumedCapacity={response['ConsumedCapacity']['CapacityUnits']}")


def _plain(av: dict[str, Any]) -> Any:
    ((_, value),) = av.items()
    return value


def _recreate_table(ddb: Engine) -> None:
    if TABLE in ddb.list_tables()["TableNames"]:
        ddb.delete_table(TableName=TABLE)
    ddb.create_table(**CREATE_TABLE)


def _refuse_duplicate_profile(ddb: Engine, echo: Echo) -> None:
    try:
        ddb.put_item(
            TableName=TABLE,
            Item={"PK": {"S": CUSTOMER}, "SK": {"S": "PROFILE"}},
            ConditionExpression="attribute_not_exists(PK)",
        )
    except DynamoDBError as error:
        echo(f"\n== creating the profile again is refused: {error.code}: {error.message}")


def _get_profile(ddb: Engine, echo: Echo) -> None:
    key = {"PK": {"S": CUSTOMER}, "SK": {"S": "PROFILE"}}
    _show(
        echo,
        "get the customer profile",
        ddb.get_item(TableName=TABLE, Key=key, ReturnConsumedCapacity="TOTAL"),
    )


def _newest_orders(ddb: Engine, echo: Echo) -> None:
    response = ddb.query(
        TableName=TABLE,
        KeyConditionExpression="PK = :pk AND begins_with(SK, :order)",
        ExpressionAttributeValues={":pk": {"S": CUSTOMER}, ":order": {"S": "ORDER#"}},
        ScanIndexForward=False,
        Limit=2,
        ReturnConsumedCapacity="TOTAL",
    )
    _show(echo, "newest two orders of the customer", response)


def _ship_order_2(ddb: Engine, echo: Echo) -> None:
    """Ship order 2 (its GSI1PK moves it to the SHIPPED partition), then list the shipped orders."""
    ddb.update_item(
        TableName=TABLE,
        Key={"PK": {"S": CUSTOMER}, "SK": {"S": "ORDER#2026-11-02"}},
        UpdateExpression="SET #s = :shipped, GSI1PK = :key ADD amount :fee",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={
            ":shipped": {"S": "SHIPPED"},
            ":key": {"S": "STATUS#SHIPPED"},
            ":fee": {"N": "2.50"},
        },
    )
    response = ddb.query(
        TableName=TABLE,
        IndexName="GSI1",
        KeyConditionExpression="GSI1PK = :s",
        ExpressionAttributeValues={":s": {"S": "STATUS#SHIPPED"}},
        ReturnConsumedCapacity="INDEXES",
    )
    _show(echo, "shipped orders (GSI1), after shipping order 2", response)


def _orders_over_25(ddb: Engine, echo: Echo) -> None:
    response = ddb.scan(
        TableName=TABLE,
        FilterExpression="amount > :min",
        ExpressionAttributeValues={":min": {"N": "25"}},
        ReturnConsumedCapacity="TOTAL",
    )
    _show(echo, "orders over 25 (filtered scan)", response)


STEPS: tuple[Callable[[Engine, Echo], None], ...] = (
    _refuse_duplicate_profile,
    _get_profile,
    _newest_orders,
    _ship_order_2,
    _orders_over_25,
)


def run_quickstart(path: str = ":memory:", echo: Echo = print) -> None:
    """Create the quick start's table in the engine at ``path``, load the sample, run and print every step."""
    with Engine(path) as ddb:
        _recreate_table(ddb)
        echo(f"created table {TABLE} in {path}")
        load(ddb)
        for step in STEPS:
            step(ddb, echo)


EXAMPLE = EngineExample(name="quickstart", run=run_quickstart)
