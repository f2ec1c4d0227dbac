"""The quick-start design: customers and their orders in one table, with a GSI for orders by status.

It is what ``singletable demo`` runs: every call goes to the embedded engine, and each step prints the
request it made, what came back and the capacity DynamoDB would have charged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from singletable.engine import DynamoDBError, Engine
from singletable.examples import EngineExample

TABLE = "quickstart"


def _show(echo: Callable[[str], None], title: str, response: dict[str, Any]) -> None:
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


def run_quickstart(path: str = ":memory:", echo: Callable[[str], None] = print) -> None:
    with Engine(path) as ddb:
        if TABLE in ddb.list_tables()["TableNames"]:
            ddb.delete_table(TableName=TABLE)
        ddb.create_table(
            TableName=TABLE,
            KeySchema=[
                {"AttributeName": "PK", "KeyType": "HASH"},
                {"AttributeName": "SK", "KeyType": "RANGE"},
            ],
            AttributeDefinitions=[
                {"AttributeName": "PK", "AttributeType": "S"},
                {"AttributeName": "SK", "AttributeType": "S"},
                {"AttributeName": "GSI1PK", "AttributeType": "S"},
                {"AttributeName": "GSI1SK", "AttributeType": "S"},
            ],
            GlobalSecondaryIndexes=[
                {
                    "IndexName": "GSI1",
                    "KeySchema": [
                        {"AttributeName": "GSI1PK", "KeyType": "HASH"},
                        {"AttributeName": "GSI1SK", "KeyType": "RANGE"},
                    ],
                    "Projection": {"ProjectionType": "ALL"},
                }
            ],
            BillingMode="PAY_PER_REQUEST",
        )
        echo(f"created table {TABLE} in {path}")
        ddb.put_item(
            TableName=TABLE,
            Item={"PK": {"S": "CUSTOMER#ada"}, "SK": {"S": "PROFILE"}, "name": {"S": "Ada Lovelace"}},
            ConditionExpression="attribute_not_exists(PK)",
        )
        statuses = ["SHIPPED", "PENDING", "SHIPPED", "PENDING", "SHIPPED"]
        for number, status in enumerate(statuses, start=1):
            ddb.put_item(
                TableName=TABLE,
                Item={
                    "PK": {"S": "CUSTOMER#ada"},
                    "SK": {"S": f"ORDER#2026-11-{number:02d}"},
                    "amount": {"N": str(10 * number)},
                    "status": {"S": status},
                    "GSI1PK": {"S": f"STATUS#{status}"},
                    "GSI1SK": {"S": f"2026-11-{number:02d}"},
                },
            )
        try:
            ddb.put_item(
                TableName=TABLE,
                Item={"PK": {"S": "CUSTOMER#ada"}, "SK": {"S": "PROFILE"}},
                ConditionExpression="attribute_not_exists(PK)",
            )
        except DynamoDBError as error:
            echo(f"\n== creating the profile again is refused: {error.code}: {error.message}")
        _show(
            echo,
            "get the customer profile",
            ddb.get_item(
                TableName=TABLE,
                Key={"PK": {"S": "CUSTOMER#ada"}, "SK": {"S": "PROFILE"}},
                ReturnConsumedCapacity="TOTAL",
            ),
        )
        _show(
            echo,
            "newest two orders of the customer",
            ddb.query(
                TableName=TABLE,
                KeyConditionExpression="PK = :pk AND begins_with(SK, :order)",
                ExpressionAttributeValues={":pk": {"S": "CUSTOMER#ada"}, ":order": {"S": "ORDER#"}},
                ScanIndexForward=False,
                Limit=2,
                ReturnConsumedCapacity="TOTAL",
            ),
        )
        ddb.update_item(
            TableName=TABLE,
            Key={"PK": {"S": "CUSTOMER#ada"}, "SK": {"S": "ORDER#2026-11-02"}},
            UpdateExpression="SET #s = :shipped, GSI1PK = :key ADD amount :fee",
            ExpressionAttributeNames={"#s": "status"},
            ExpressionAttributeValues={
                ":shipped": {"S": "SHIPPED"},
                ":key": {"S": "STATUS#SHIPPED"},
                ":fee": {"N": "2.50"},
            },
        )
        _show(
            echo,
            "shipped orders (GSI1), after shipping order 2",
            ddb.query(
                TableName=TABLE,
                IndexName="GSI1",
                KeyConditionExpression="GSI1PK = :s",
                ExpressionAttributeValues={":s": {"S": "STATUS#SHIPPED"}},
                ReturnConsumedCapacity="INDEXES",
            ),
        )
        _show(
            echo,
            "orders over 25 (filtered scan)",
            ddb.scan(
                TableName=TABLE,
                FilterExpression="amount > :min",
                ExpressionAttributeValues={":min": {"N": "25"}},
                ReturnConsumedCapacity="TOTAL",
            ),
        )


EXAMPLE = EngineExample(name="quickstart", run=run_quickstart)
