"""What the export/import/copy tests share: tables, items of every attribute type, reading a table back,
and a throttling proxy in front of a real ``singletable serve``."""

from __future__ import annotations

import http.server
import json
import threading
import urllib.request
import uuid
from decimal import Decimal
from typing import Any

from singletable.data import Target, open_target

SPEC: dict[str, Any] = {
    "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
    "AttributeDefinitions": [
        {"AttributeName": "PK", "AttributeType": "S"},
        {"AttributeName": "SK", "AttributeType": "N"},
        {"AttributeName": "G1", "AttributeType": "S"},
        {"AttributeName": "G2", "AttributeType": "B"},
    ],
    "GlobalSecondaryIndexes": [
        {
            "IndexName": "byG1",
            "KeySchema": [
                {"AttributeName": "G1", "KeyType": "HASH"},
                {"AttributeName": "SK", "KeyType": "RANGE"},
            ],
            "Projection": {"ProjectionType": "ALL"},
        },
        {
            "IndexName": "byG2",
            "KeySchema": [{"AttributeName": "G2", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"},
        },
    ],
    "BillingMode": "PAY_PER_REQUEST",
}


def table_name(prefix: str = "t") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def create(target: Target, name: str) -> None:
    target.call("CreateTable", TableName=name, **SPEC)


def full_item(i: int) -> dict[str, Any]:
    """Every attribute type, binary and nesting included."""
    return {
        "PK": {"S": f"user#{i % 97}"},
        "SK": {"N": str(i)},
        "G1": {"S": f"day#{i % 13}"},
        "G2": {"B": bytes([i % 256, 0, 255])},
        "s": {"S": f"ünïcode {i}"},
        "n": {"N": f"-{i}.25"},
        "b": {"B": b"\x00\xff" + i.to_bytes(3, "big")},
        "t": {"BOOL": i % 2 == 0},
        "z": {"NULL": True},
        "l": {"L": [{"S": "x"}, {"N": "1e3"}, {"M": {"deep": {"L": [{"BOOL": False}]}}}]},
        "m": {"M": {"k": {"SS": ["b", "a"]}, "ns": {"NS": ["1", "2.5"]}, "bs": {"BS": [b"\x01", b"\x02"]}}},
    }


ONE_OF_EACH = (
    {"S": "text"},
    {"N": "-12.5"},
    {"B": b"\x00\xff"},
    {"BOOL": True},
    {"NULL": True},
    {"L": [{"S": "x"}, {"N": "1"}]},
    {"M": {"k": {"L": [{"B": b"\x01"}]}}},
    {"SS": ["b", "a"]},
    {"NS": ["1", "2.5"]},
    {"BS": [b"\x01", b"\x02"]},
)


def small_item(i: int) -> dict[str, Any]:
    """A key and one attribute whose type turns with ``i`` (ten in a row cover every type); every 1,000th
    item is a :func:`full_item`. Cheap enough for a 100,000-item round trip."""
    if i % 1000 == 0:
        return full_item(i)
    return {"PK": {"S": f"user#{i % 97}"}, "SK": {"N": str(i)}, "v": ONE_OF_EACH[i % 10]}


def load(target: Target, name: str, items: list[dict[str, Any]]) -> None:
    for start in range(0, len(items), 25):
        requests = [{"PutRequest": {"Item": item}} for item in items[start : start + 25]]
        target.call("BatchWriteItem", RequestItems={name: requests})


def normalized(value: Any) -> Any:
    """An AttributeValue with sets sorted and numbers canonical, so two backends' answers compare."""
    if isinstance(value, dict) and len(value) == 1:
        ((kind, inner),) = value.items()
        if kind in ("SS", "BS"):
            return {kind: sorted(inner)}
        if kind == "NS":
            return {kind: sorted(Decimal(n) for n in inner)}
        if kind == "N":
            return {kind: Decimal(inner)}
        if kind == "L":
            return {kind: [normalized(v) for v in inner]}
        if kind == "M":
            return {kind: {k: normalized(v) for k, v in inner.items()}}
        return value
    return value


def contents(target: Target | str, name: str) -> dict[tuple[str, str], dict[str, Any]]:
    """Every item of a table, by key, normalized."""
    opened = open_target(target) if isinstance(target, str) else target
    try:
        found: dict[tuple[str, str], dict[str, Any]] = {}
        params: dict[str, Any] = {"TableName": name}
        while True:
            page = opened.call("Scan", **params)
            for item in page["Items"]:
                found[(item["PK"]["S"], item["SK"]["N"])] = {k: normalized(v) for k, v in item.items()}
            if "LastEvaluatedKey" not in page:
                return found
            params["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    finally:
        if isinstance(target, str):
            opened.close()


class ThrottlingProxy:
    """An HTTP endpoint in front of a real server that answers every ``every``-th BatchWriteItem as DynamoDB
    does under throttling -- all its requests back in UnprocessedItems, nothing written -- or, with
    ``refuse`` set, every BatchWriteItem with that error code (HTTP 400). Everything else is forwarded."""

    def __init__(self, upstream: str, every: int = 2, refuse: str | None = None) -> None:
        self.upstream = upstream
        self.calls = 0
        self.throttled = 0
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                target = self.headers.get("X-Amz-Target", "")
                if target.endswith(".BatchWriteItem"):
                    proxy.calls += 1
                    if refuse is not None:
                        return self._answer(
                            400,
                            {
                                "__type": f"com.amazonaws.dynamodb.v20120810#{refuse}",
                                "message": "The level of configured provisioned throughput "
                                "for the table was exceeded",
                            },
                        )
                    if proxy.calls % every == 0:
                        proxy.throttled += 1
                        return self._answer(200, {"UnprocessedItems": json.loads(body)["RequestItems"]})
                request = urllib.request.Request(proxy.upstream, data=body, method="POST")
                for name in ("X-Amz-Target", "Content-Type", "Authorization", "X-Amz-Date"):
                    if self.headers.get(name):
                        request.add_header(name, self.headers[name])
                try:
                    with urllib.request.urlopen(request) as response:
                        status, data = response.status, response.read()
                except urllib.error.HTTPError as error:
                    status, data = error.code, error.read()
                self._send(status, data)

            def _answer(self, status: int, payload: dict[str, Any]) -> None:
                self._send(status, json.dumps(payload).encode())

            def _send(self, status: int, data: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/x-amz-json-1.0")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
