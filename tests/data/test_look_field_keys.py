"""``singletable query`` and the data library on an index keyed on several attributes (a multi-attribute GSI
key), on a database file and a real ``singletable serve``: every partition attribute by ``NAME=VALUE``, sort
attributes from the left, a range on the last one given, each value typed by DescribeTable; the mistakes
a usage error naming the attributes. DynamoDB Local 1.25.1 cannot create the table: skipped there, saying
so."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator

import pytest
from look_support import TARGETS, Place, lines, ok, place_for, run

from singletable.data import KeySchema, key_condition, key_schema, open_target

_names = itertools.count()
TICKETS = [("t1", "open", 5, "a"), ("t1", "open", 10, "b"), ("t1", "open", 9, "c"), ("t1", "done", 1, "d")]
TICKETS += [("t2", "open", 1, "e"), ("t1", "open", 10, "f")]


@pytest.fixture(scope="module", params=TARGETS)
def place(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Place]:
    """The tickets' table on each TARGET, shared by the module's tests (they only read it)."""
    found = place_for(
        request.param, request, tmp_path_factory.mktemp("tickets"), f"fk{os.getpid()}_{next(_names)}"
    )
    with open_target(found.url) as target:
        try:
            target.call(
                "CreateTable",
                TableName=found.table,
                BillingMode="PAY_PER_REQUEST",
                KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
                AttributeDefinitions=[
                    {"AttributeName": a, "AttributeType": t}
                    for a, t in (
                        ("PK", "S"),
                        ("tenant", "S"),
                        ("status", "S"),
                        ("priority", "N"),
                        ("id", "S"),
                    )
                ],
                GlobalSecondaryIndexes=[
                    {
                        "IndexName": "byTenantStatus",
                        "KeySchema": [
                            {"AttributeName": "tenant", "KeyType": "HASH"},
                            {"AttributeName": "status", "KeyType": "HASH"},
                            {"AttributeName": "priority", "KeyType": "RANGE"},
                            {"AttributeName": "id", "KeyType": "RANGE"},
                        ],
                        "Projection": {"ProjectionType": "ALL"},
                    }
                ],
            )
        except Exception as error:
            if request.param == "reference" and "Key Schema too big" in str(error):
                pytest.skip(f"DynamoDB Local 1.25.1 has no multi-attribute GSI keys ({error})")
            raise
        for tenant, status, priority, id in TICKETS:
            item = {"PK": {"S": f"T#{id}"}, "tenant": {"S": tenant}, "status": {"S": status}}
            target.call(
                "PutItem",
                TableName=found.table,
                Item={**item, "priority": {"N": str(priority)}, "id": {"S": id}},
            )
        yield found
        target.call("DeleteTable", TableName=found.table)


def _ids(text: str) -> list[str]:
    return [item["id"]["S"] for item in lines(text)]


def test_every_partition_attribute_then_sort_attributes_from_the_left(place: Place) -> None:
    query = ("query", place.url, place.table, "-i", "byTenantStatus", "tenant=t1", "status=open")
    assert _ids(ok(*query, "--jsonl")) == ["a", "c", "b", "f"]  # priority as a number, then id
    assert _ids(ok(*query, "priority>=9", "--jsonl")) == ["c", "b", "f"]
    assert _ids(ok(*query, "priority>=6", "priority<=9", "--jsonl")) == ["c"]
    assert _ids(ok(*query, "priority=10", "id>b", "--jsonl")) == ["f"]
    assert _ids(ok(*query, "priority=10", "id^=b", "-r", "--jsonl")) == ["b"]
    table = ok(*query, "priority=10")
    assert "b" in table and "f" in table and "2 items" in table


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (("tenant=t1",), "a query needs every partition key attribute (tenant, status): give status=VALUE"),
        (
            ("tenant=t1", "status=open", "id=a"),
            "sort key attributes are given from the left (priority, id): id needs priority first",
        ),
        (
            ("tenant=t1", "status=open", "priority>1", "id=a"),
            "priority is followed by id, so it takes one NAME=VALUE (a range goes on the last sort key "
            "attribute given)",
        ),
        (("tenant=t1", "status<open"), "the partition key status takes one NAME=VALUE, not 'status<open'"),
    ],
)
def test_key_conditions_such_an_index_refuses(place: Place, arguments: tuple[str, ...], message: str) -> None:
    result = run("query", place.url, place.table, "-i", "byTenantStatus", *arguments)
    assert result.exit_code == 2, result.output
    assert message in result.stderr


def test_the_key_schema_keeps_every_attribute(place: Place) -> None:
    with open_target(place.url) as target:
        description = target.call("DescribeTable", TableName=place.table)["Table"]
    schema = key_schema(description, "byTenantStatus")
    assert schema.partition == (("tenant", "S"), ("status", "S"))
    assert schema.sort == (("priority", "N"), ("id", "S"))
    assert schema.names == ["tenant", "status", "priority", "id"]
    assert key_schema(description) == KeySchema(("PK", "S"), None)  # one attribute: the short form, as before
    expression = key_condition(["tenant=t1", "status=open", "priority>=2"], schema)
    assert expression.text == "#k0 = :k0 AND #k1 = :k1 AND #k2 >= :k2"
    assert expression.values[":k2"] == {"N": "2"}
