"""Query and Scan on every backend: order, paging, filters, projections, Select, capacity, errors."""

from __future__ import annotations

import pytest
from tables import create, n, s

from backends import expect_error

NUMBERS = ["-1E+10", "-100", "-2.5", "-0.001", "0", "1E-5", "0.5", "1", "2", "10", "99.99", "1E+20"]
STRINGS = ["", "A", "B", "a", "aa", "ab", "b", "é", "中", "\U0001f600"]
BINARIES = [b"\x00", b"\x00\x00", b"\x01", b"\x7f", b"\x80", b"\xff", b"\xff\x00"]


def query_all(ddb, **params) -> list[dict]:
    """Every page of a query, following LastEvaluatedKey."""
    items: list[dict] = []
    while True:
        page = ddb.query(**params)
        items += page["Items"]
        if "LastEvaluatedKey" not in page:
            return items
        params["ExclusiveStartKey"] = page["LastEvaluatedKey"]


@pytest.mark.parametrize(
    ("sk_type", "values"),
    [
        ("N", NUMBERS),
        ("S", [v for v in STRINGS if v]),
        ("B", BINARIES),
    ],
)
@pytest.mark.parametrize("forward", [True, False])
def test_sort_order_across_pages(ddb, module_tables, sk_type, values, forward):
    def make(backend, name: str) -> None:
        create(backend, name, sk_type=sk_type)
        for value in reversed(values):
            backend.put_item(TableName=name, Item={"PK": s("p"), "SK": {sk_type: value}})

    table = module_tables.get(ddb, f"sorted {sk_type}", make)  # read both ways
    items = query_all(
        ddb,
        TableName=table,
        KeyConditionExpression="PK = :p",
        ExpressionAttributeValues={":p": s("p")},
        ScanIndexForward=forward,
        Limit=3,
    )
    got = [item["SK"][sk_type] for item in items]
    expected = list(values) if forward else list(reversed(values))
    if sk_type == "N":
        expected = [ddb_number(v) for v in expected]
    assert got == expected


def ddb_number(text: str) -> str:
    from decimal import Decimal

    value = Decimal(text)
    normalized = format(value.normalize(), "f")
    return "0" if normalized in ("0", "-0") else normalized


@pytest.fixture
def orders(ddb, table_name):
    create(ddb, table_name, sk_type="N", gsi=True)
    for i in range(10):
        item = {
            "PK": s("cust"),
            "SK": n(str(i)),
            "amount": n(str(i * 10)),
            "status": s("open" if i % 2 else "done"),
        }
        if i % 3 == 0:  # sparse: only some orders are in the GSIs
            item["G1PK"] = s("g")
            item["G1SK"] = n(str(100 - i))
            item["G2PK"] = s(f"h{i}")
        ddb.put_item(TableName=table_name, Item=item)
    return table_name


def test_key_conditions(ddb, orders):
    def sks(expression: str, **values) -> list[str]:
        items = ddb.query(
            TableName=orders,
            KeyConditionExpression=expression,
            ExpressionAttributeValues={":p": s("cust"), **{f":{k}": n(v) for k, v in values.items()}},
        )["Items"]
        return [item["SK"]["N"] for item in items]

    assert sks("PK = :p AND SK = :a", a="3") == ["3"]
    assert sks("PK = :p AND SK < :a", a="3") == ["0", "1", "2"]
    assert sks("PK = :p AND SK <= :a", a="3") == ["0", "1", "2", "3"]
    assert sks("PK = :p AND SK > :a", a="7") == ["8", "9"]
    assert sks("SK >= :a AND PK = :p", a="7") == ["7", "8", "9"]
    assert sks("PK = :p AND SK BETWEEN :a AND :b", a="2", b="4") == ["2", "3", "4"]
    assert sks("PK = :p") == [str(i) for i in range(10)]


def test_begins_with_on_strings(ddb, table_name):
    create(ddb, table_name)
    for sk in ["ORDER#1", "ORDER#2", "ORDERS", "PROFILE", "ORDER#\U0010ffff"]:
        ddb.put_item(TableName=table_name, Item={"PK": s("u"), "SK": s(sk)})
    items = ddb.query(
        TableName=table_name,
        KeyConditionExpression="PK = :p AND begins_with(SK, :o)",
        ExpressionAttributeValues={":p": s("u"), ":o": s("ORDER#")},
    )["Items"]
    assert [i["SK"]["S"] for i in items] == ["ORDER#1", "ORDER#2", "ORDER#\U0010ffff"]


def test_limit_counts_items_before_filter(ddb, orders):
    page = ddb.query(
        TableName=orders,
        KeyConditionExpression="PK = :p",
        FilterExpression="#s = :open",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":p": s("cust"), ":open": s("open")},
        Limit=4,
    )
    assert page["ScannedCount"] == 4
    assert page["Count"] == 2
    assert [i["SK"] for i in page["Items"]] == [n("1"), n("3")]
    assert page["LastEvaluatedKey"] == {"PK": s("cust"), "SK": n("3")}


def test_select_count_and_projection(ddb, orders):
    counted = ddb.query(
        TableName=orders,
        KeyConditionExpression="PK = :p",
        ExpressionAttributeValues={":p": s("cust")},
        Select="COUNT",
    )
    assert "Items" not in counted
    assert counted["Count"] == 10
    projected = ddb.query(
        TableName=orders,
        KeyConditionExpression="PK = :p AND SK < :two",
        ProjectionExpression="amount",
        ExpressionAttributeValues={":p": s("cust"), ":two": n("2")},
    )
    assert projected["Items"] == [{"amount": n("0")}, {"amount": n("10")}]


def test_query_gsi_sparse_and_paged(ddb, orders):
    params = dict(
        TableName=orders,
        IndexName="GSI1",
        KeyConditionExpression="G1PK = :g",
        ExpressionAttributeValues={":g": s("g")},
        Limit=2,
    )
    first = ddb.query(**params)
    assert [i["SK"] for i in first["Items"]] == [n("9"), n("6")]
    assert first["LastEvaluatedKey"] == {"PK": s("cust"), "SK": n("6"), "G1PK": s("g"), "G1SK": n("94")}
    items = query_all(ddb, **params)
    assert [i["SK"]["N"] for i in items] == ["9", "6", "3", "0"]


def test_query_keys_only_index_projects_keys(ddb, orders):
    items = ddb.query(
        TableName=orders,
        IndexName="GSI2",
        KeyConditionExpression="G2PK = :h",
        ExpressionAttributeValues={":h": s("h3")},
        ReturnConsumedCapacity="INDEXES",
    )
    assert items["Items"] == [{"PK": s("cust"), "SK": n("3"), "G2PK": s("h3")}]
    assert items["ConsumedCapacity"]["GlobalSecondaryIndexes"] == {"GSI2": {"CapacityUnits": 0.5}}


def test_query_capacity_sums_then_rounds(ddb, table_name):
    create(ddb, table_name)
    for i in range(4):
        ddb.put_item(TableName=table_name, Item={"PK": s("p"), "SK": s(str(i)), "blob": s("x" * 1500)})
    response = ddb.query(
        TableName=table_name,
        KeyConditionExpression="PK = :p",
        ExpressionAttributeValues={":p": s("p")},
        ReturnConsumedCapacity="TOTAL",
        ConsistentRead=True,
    )
    assert response["ConsumedCapacity"]["CapacityUnits"] == 2.0


def test_query_errors(ddb, orders):
    base = dict(
        TableName=orders, KeyConditionExpression="PK = :p", ExpressionAttributeValues={":p": s("cust")}
    )
    with expect_error("ValidationException", "The table does not have the specified index: nope"):
        ddb.query(**base, IndexName="nope")
    gsi_consistent = (
        "Consistent read cannot be true when querying a GSI"  # DynamoDB Local's words
        if ddb.is_reference
        else "Consistent reads are not supported on global secondary indexes"
    )
    with expect_error("ValidationException", gsi_consistent):
        ddb.query(
            TableName=orders,
            IndexName="GSI1",
            KeyConditionExpression="G1PK = :g",
            ExpressionAttributeValues={":g": s("g")},
            ConsistentRead=True,
        )
    with expect_error(
        "ValidationException",
        "Filter Expression can only contain non-primary key attributes: Primary key attribute: SK",
    ):
        ddb.query(
            **{**base, "ExpressionAttributeValues": {":p": s("cust"), ":v": n("1")}},
            FilterExpression="SK = :v",
        )
    with expect_error(
        "ValidationException", "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName"
    ):
        ddb.query(**base, Select="ALL_PROJECTED_ATTRIBUTES")
    with expect_error(
        "ValidationException",
        "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global "
        "secondary index GSI2 because its projection type is not ALL",
    ):
        ddb.query(
            TableName=orders,
            IndexName="GSI2",
            KeyConditionExpression="G2PK = :g",
            ExpressionAttributeValues={":g": s("g")},
            Select="ALL_ATTRIBUTES",
        )
    with expect_error(
        "ValidationException", "Cannot specify the ProjectionExpression when choosing to get only the Count"
    ):
        ddb.query(**base, Select="COUNT", ProjectionExpression="amount")
    with expect_error(
        "ValidationException",
        "Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES",
    ):
        ddb.query(**base, Select="SPECIFIC_ATTRIBUTES")
    # AWS's wording; DynamoDB Local says "Exclusive Start Key must have same size as table's key schema".
    with ddb.error(
        "ValidationException",
        "The provided starting key is invalid",
        local="Exclusive Start Key must have same size as table's key schema",
    ):
        ddb.query(**base, ExclusiveStartKey={"PK": s("cust")})
    with ddb.error("ValidationException", "The provided starting key is invalid"):
        ddb.query(**base, ExclusiveStartKey={"PK": s("cust"), "other": n("1")})
    with expect_error(
        "ValidationException", "The provided starting key does not match the range key predicate"
    ):
        ddb.query(**base, ExclusiveStartKey={"PK": s("other"), "SK": n("1")})


def test_scan_pages_cover_table_once(ddb, orders):
    seen = []
    params: dict = dict(TableName=orders, Limit=3)
    while True:
        page = ddb.scan(**params)
        seen += [i["SK"]["N"] for i in page["Items"]]
        if "LastEvaluatedKey" not in page:
            break
        params["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    assert sorted(seen, key=int) == [str(i) for i in range(10)]


def test_scan_filter_and_index(ddb, orders):
    page = ddb.scan(
        TableName=orders,
        FilterExpression="amount >= :t",
        ExpressionAttributeValues={":t": n("70")},
        ReturnConsumedCapacity="TOTAL",
    )
    assert sorted(i["SK"]["N"] for i in page["Items"]) == ["7", "8", "9"]
    assert page["ScannedCount"] == 10
    index = ddb.scan(TableName=orders, IndexName="GSI1")
    assert sorted(i["SK"]["N"] for i in index["Items"]) == ["0", "3", "6", "9"]
    counted = ddb.scan(TableName=orders, Select="COUNT")
    assert counted["Count"] == 10 and "Items" not in counted


def test_scan_errors(ddb, orders):
    """AWS's texts on ours; DynamoDB Local's own words on the reference (docs/compatibility.md)."""
    with expect_error(
        "ValidationException",
        "If segment is specified, total segment must also be specified"
        if ddb.is_reference
        else "The TotalSegments parameter is required but was not present in the request when Segment "
        "parameter is present",
    ):
        ddb.scan(TableName=orders, Segment=1)
    with expect_error(
        "ValidationException",
        "Consistent read cannot be true when scanning a GSI"
        if ddb.is_reference
        else "Consistent reads are not supported on global secondary indexes",
    ):
        ddb.scan(TableName=orders, IndexName="GSI1", ConsistentRead=True)


def test_parallel_scan_segments_partition_the_table(ddb, table_name):
    create(ddb, table_name)
    for i in range(200):
        ddb.put_item(TableName=table_name, Item={"PK": s(f"p{i}"), "SK": s("x")})
    seen: list[str] = []
    for segment in range(7):
        params: dict = dict(TableName=table_name, Segment=segment, TotalSegments=7, Limit=11)
        while True:
            page = ddb.scan(**params)
            seen += [i["PK"]["S"] for i in page["Items"]]
            if "LastEvaluatedKey" not in page:
                break
            params["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    assert sorted(seen) == sorted(f"p{i}" for i in range(200))


def test_gsi_refuses_attributes_it_does_not_project(ddb, table_name):
    ddb.create_table(
        TableName=table_name,
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "S"},
            {"AttributeName": "G", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
        GlobalSecondaryIndexes=[
            {
                "IndexName": "inc",
                "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["A"]},
            }
        ],
    )
    base = dict(
        TableName=table_name,
        IndexName="inc",
        KeyConditionExpression="G = :g",
        ExpressionAttributeValues={":g": s("g")},
    )
    with expect_error(
        "ValidationException",
        "One or more parameter values were invalid: Secondary index inc does not project one or more filter "
        "attributes: [W, X]",
    ):
        ddb.query(**base, FilterExpression="X = :g AND W = :g AND A = :g", ProjectionExpression="Z")
    with expect_error(
        "ValidationException",
        "One or more parameter values were invalid: Global secondary index inc does not project [B, Z]",
    ):
        ddb.query(**base, ProjectionExpression="A, Z, B.c, PK")
    with expect_error(
        "ValidationException",
        "One or more parameter values were invalid: Global secondary index inc does not project [X]",
    ):
        ddb.scan(TableName=table_name, IndexName="inc", ProjectionExpression="X")
    # Scan filters are not checked against the projection; projected attributes and keys are fine.
    assert (
        ddb.scan(
            TableName=table_name,
            IndexName="inc",
            FilterExpression="X = :g",
            ExpressionAttributeValues={":g": s("g")},
        )["Count"]
        == 0
    )
    assert ddb.query(**base, ProjectionExpression="A.b, PK, SK, G")["Count"] == 0


def test_one_megabyte_page_counted_before_the_filter(ddb, table_name):
    create(ddb, table_name)
    blob = "x" * 100_000
    for i in range(14):  # 14 items of ~100 KB in one partition
        ddb.put_item(TableName=table_name, Item={"PK": s("big"), "SK": s(f"{i:02d}"), "payload": s(blob)})
    query = dict(
        TableName=table_name, KeyConditionExpression="PK = :p", ExpressionAttributeValues={":p": s("big")}
    )
    # The page ends with the item that takes the data read past 1 MB: the 11th.
    page = ddb.query(**query)
    assert (page["Count"], page["ScannedCount"]) == (11, 11)
    assert page["LastEvaluatedKey"] == {"PK": s("big"), "SK": s("10")}
    rest = ddb.query(**query, ExclusiveStartKey=page["LastEvaluatedKey"], Select="COUNT")
    assert (rest["ScannedCount"], "LastEvaluatedKey" in rest) == (3, False)
    filtered = ddb.query(**query, FilterExpression="attribute_not_exists(payload)")
    if ddb.is_reference:
        # DynamoDB Local applies the 1 MB limit after the filter (docs/compatibility.md).
        assert (filtered["Count"], filtered["ScannedCount"]) == (0, 14)
    else:
        # AWS: the limit applies to the data read, before any filter.
        assert (filtered["Count"], filtered["ScannedCount"]) == (0, 11)
        assert filtered["LastEvaluatedKey"] == {"PK": s("big"), "SK": s("10")}
