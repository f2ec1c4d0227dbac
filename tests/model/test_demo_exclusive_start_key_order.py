"""The demo prints a Query's ExclusiveStartKey in one order, whatever order the backend returned it in.

DynamoDB Local and the engine return LastEvaluatedKey members in different orders; the model passes it
straight back as ExclusiveStartKey, so the printed request must not depend on that order.
"""

from __future__ import annotations

from singletable.examples._render import describe


def test_exclusive_start_key_is_printed_sorted() -> None:
    base = {"TableName": "t", "IndexName": "GSI2", "KeyConditionExpression": "GSI2PK = :p",
            "ExpressionAttributeValues": {":p": {"S": "LISTINGS"}}}  # fmt: skip
    key = {"SK": {"S": "METADATA"}, "PK": {"S": "LISTING#a"}, "GSI2PK": {"S": "LISTINGS"}}
    one = describe("Query", {**base, "ExclusiveStartKey": key})
    other = describe("Query", {**base, "ExclusiveStartKey": dict(reversed(list(key.items())))})
    assert one == other
    assert one[0].endswith('after(GSI2PK="LISTINGS", PK="LISTING#a", SK="METADATA")')
