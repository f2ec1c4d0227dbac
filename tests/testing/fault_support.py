"""What the fault and clock tests share: a table with a GSI, ``serve``'s app on a real uvicorn in a thread
(on the same engine as the test's in-process clients), raw wire calls to either transport, and AWS's
documented error documents, written out here independently of ``singletable.testing.faults``."""

from __future__ import annotations

import http.client
from typing import Any

import orjson
from botocore.config import Config

import singletable
from app_thread import AppThread
from reference import local_client
from singletable._protocol import Dispatcher
from singletable._server.app import DynamoDBApp
from singletable._server.run import _http_protocol
from singletable.engine import Engine

TABLE = "orders"
INDEX = "by_customer"
ARN = f"arn:aws:dynamodb:us-east-1:123456789012:table/{TABLE}"
PREFIX = "com.amazonaws.dynamodb.v20120810#"
CONTENT_TYPE = "application/x-amz-json-1.0"

# AWS's documented answers (Programming.Errors; the TransactionCanceledException and ThrottlingReason API
# references; the messages AWS sends, as quoted in users' reports).
PROVISIONED_MESSAGE = (
    "The level of configured provisioned throughput for the table was exceeded. Consider increasing your "
    "provisioning level with the UpdateTable API."
)
ON_DEMAND_MESSAGE = (
    "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your "
    "table or index so please try again shortly. If exceptions persist, check if you have a hot key: "
    "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html"
)


def create_orders(engine: Engine, *, billing: str = "PAY_PER_REQUEST", projection: str = "ALL") -> None:
    """``orders``: key ``pk`` (S) + ``sk`` (S), GSI ``by_customer`` on ``customer`` (sparse) + ``sk``."""
    throughput = {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}
    index: dict[str, Any] = {
        "IndexName": INDEX,
        "KeySchema": [
            {"AttributeName": "customer", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        "Projection": {"ProjectionType": projection},
    }
    params: dict[str, Any] = {
        "TableName": TABLE,
        "AttributeDefinitions": [
            {"AttributeName": name, "AttributeType": "S"} for name in ("pk", "sk", "customer")
        ],
        "KeySchema": [
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        "GlobalSecondaryIndexes": [index],
        "BillingMode": billing,
    }
    if billing == "PROVISIONED":
        params["ProvisionedThroughput"] = throughput
        index["ProvisionedThroughput"] = throughput
    engine.execute("CreateTable", params)


def in_process(engine: Engine, mode: str = "standard", attempts: int = 4) -> Any:
    """A real boto3 client on ``engine`` (in-process), retrying as ``mode`` does."""
    return singletable.client(engine, config=Config(retries={"mode": mode, "total_max_attempts": attempts}))


class ThreadServer(AppThread):
    """``singletable serve``'s app on ``engine``, served by uvicorn (with serve's own HTTP protocol, so API
    calls take the direct path) in a thread of the test's process, on a free loopback port."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(DynamoDBApp(engine=engine), "serve's app", http=_http_protocol())
        self.endpoint = self.url

    def client(self, mode: str = "standard", attempts: int = 4) -> Any:
        """A boto3 client on this server, retrying as ``mode`` does, validating its requests as boto3 does."""
        return local_client(
            self.endpoint,
            retries={"mode": mode, "total_max_attempts": attempts},
            parameter_validation=True,
        )

    def post(self, operation: str, body: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        """One raw API call: (status, headers by lower-case name, body bytes)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            connection.request(
                "POST",
                "/",
                orjson.dumps(body),
                {"X-Amz-Target": f"DynamoDB_20120810.{operation}", "Content-Type": CONTENT_TYPE},
            )
            response = connection.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            connection.close()


def dispatch(engine: Engine, operation: str, body: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
    """One raw API call through the dispatcher the in-process client sends every request to."""
    status, headers, payload = Dispatcher(engine).handle(f"DynamoDB_20120810.{operation}", orjson.dumps(body))
    return status, dict(headers), payload
