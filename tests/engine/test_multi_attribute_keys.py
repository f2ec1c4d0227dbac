"""Global secondary indexes with multi-attribute keys: up to four HASH and four RANGE attributes, each its
own typed attribute.

The behaviour tests run on the engine, the in-process client and HTTP; DynamoDB Local 1.25.1 predates the
feature (it refuses the key schema), so its parametrization skips. The expected answers and texts are AWS's
(the rebuilt Parity Suite's multi-attribute tests, validated against AWS, pin the same ones).
"""

from __future__ import annotations

from typing import Any

import pytest

from backends import Backend, SharedTables, expect_error

LOCAL_LACKS = "DynamoDB Local 1.25.1 lacks multi-attribute GSI keys (AWS, November 2025)"
INVALID = "One or more parameter values were invalid: "


@pytest.fixture
def ddb(ddb: Backend) -> Backend:
    if ddb.is_reference:
        pytest.skip(LOCAL_LACKS)
    return ddb


def S(value: str) -> dict[str, str]:
    return {"S": value}


def keys(hash_names: list[str], range_names: list[str]) -> list[dict[str, str]]:
    return [{"AttributeName": n, "KeyType": "HASH"} for n in hash_names] + [
        {"AttributeName": n, "KeyType": "RANGE"} for n in range_names
    ]


def create(
    ddb: Backend,
    name: str,
    hash_names: list[str],
    range_names: list[str],
    *,
    types: dict[str, str] | None = None,
    projection: dict[str, Any] | None = None,
    **extra: Any,
) -> None:
    """Table ``pk`` with one GSI ``gsi`` on the given HASH and RANGE attributes (strings unless typed)."""
    names = ["pk", *hash_names, *[n for n in range_names if n not in hash_names]]
    ddb.create_table(
        TableName=name,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[
            {"AttributeName": n, "AttributeType": (types or {}).get(n, "S")} for n in dict.fromkeys(names)
        ],
        KeySchema=keys(["pk"], []),
        GlobalSecondaryIndexes=[
            {
                "IndexName": "gsi",
                "KeySchema": keys(hash_names, range_names),
                "Projection": projection or {"ProjectionType": "ALL"},
            }
        ],
        **extra,
    )


# The Parity Suite's fixture: one HASH attribute and four RANGE attributes; p6 lacks c, so is not indexed.
ROWS = [
    {"pk": "p1", "a": "T", "b": "live", "c": "b", "d": "r1"},
    {"pk": "p2", "a": "T", "b": "live", "c": "a", "d": "r2"},
    {"pk": "p3", "a": "T", "b": "live", "c": "a", "d": "r1"},
    {"pk": "p4", "a": "T", "b": "draft", "c": "c", "d": "r1"},
    {"pk": "p5", "a": "F", "b": "live", "c": "a", "d": "r0"},
    {"pk": "p6", "a": "T", "b": "live", "d": "r1"},
]
VALUES = {":h": S("o1"), ":a": S("T"), ":b": S("live"), ":c": S("a"), ":d": S("r"), ":x": S("r1")}


def _make_four(ddb: Backend, name: str) -> None:
    create(ddb, name, ["h"], ["a", "b", "c", "d"])
    for row in ROWS:
        ddb.put_item(TableName=name, Item={"h": S("o1"), **{k: S(v) for k, v in row.items()}})


@pytest.fixture
def four(ddb: Backend, module_tables: SharedTables) -> str:
    """ROWS under one HASH and four RANGE attributes, shared by the module's tests: each only reads it."""
    return module_tables.get(ddb, "four", _make_four)


def query(ddb: Backend, table: str, condition: str, **extra: Any) -> dict[str, Any]:
    used = {k: v for k, v in VALUES.items() if k in condition}
    return ddb.query(
        TableName=table,
        IndexName="gsi",
        KeyConditionExpression=condition,
        ExpressionAttributeValues=used,
        **extra,
    )


def pks(response: dict[str, Any]) -> list[str]:
    return [item["pk"]["S"] for item in response["Items"]]


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ("h = :h", ["p5", "p4", "p3", "p2", "p1"]),
        ("h = :h AND a = :a", ["p4", "p3", "p2", "p1"]),
        ("h = :h AND a = :a AND b = :b", ["p3", "p2", "p1"]),
        ("h = :h AND a = :a AND b = :b AND c = :c", ["p3", "p2"]),
        ("h = :h AND a = :a AND b = :b AND c > :c", ["p1"]),
        ("h = :h AND a = :a AND b = :b AND c >= :c", ["p3", "p2", "p1"]),
        ("h = :h AND a = :a AND b = :b AND c <= :c", ["p3", "p2"]),
        ("h = :h AND a = :a AND b < :b", ["p4"]),
        ("h = :h AND a = :a AND b = :b AND c = :c AND begins_with(d, :d)", ["p3", "p2"]),
        ("h = :h AND a = :a AND b = :b AND c = :c AND d BETWEEN :x AND :x", ["p3"]),
        ("h = :h AND a = :a AND b = :b AND c = :c AND d = :x", ["p3"]),
        ("b = :b AND h = :h AND a = :a", ["p3", "p2", "p1"]),
        (":a <= a AND h = :h", ["p4", "p3", "p2", "p1"]),
    ],
)
def test_query_sorts_by_the_range_attributes_in_order(
    ddb: Backend, four: str, condition: str, expected: list[str]
) -> None:
    assert pks(query(ddb, four, condition)) == expected
    assert pks(query(ddb, four, condition, ScanIndexForward=False)) == expected[::-1]


def test_describe_table_keeps_the_key_schema_as_given(ddb: Backend, table_name: str) -> None:
    create(ddb, table_name, ["h1", "h2"], ["r1", "r2"], types={"h2": "N", "r2": "B"})
    index = ddb.describe_table(TableName=table_name)["Table"]["GlobalSecondaryIndexes"][0]
    assert index["KeySchema"] == keys(["h1", "h2"], ["r1", "r2"])
    assert index["IndexStatus"] == "ACTIVE"


def test_pages_carry_every_key_attribute_and_resume(ddb: Backend, four: str) -> None:
    first = query(ddb, four, "h = :h AND a = :a", Limit=2)
    assert pks(first) == ["p4", "p3"]
    assert first["LastEvaluatedKey"] == {"pk": S("p3"), "h": S("o1"), "a": S("T"), "b": S("live")} | {
        "c": S("a"),
        "d": S("r1"),
    }
    rest = query(ddb, four, "h = :h AND a = :a", ExclusiveStartKey=first["LastEvaluatedKey"])
    assert pks(rest) == ["p2", "p1"]
    back = query(
        ddb, four, "h = :h AND a = :a", ScanIndexForward=False, ExclusiveStartKey=first["LastEvaluatedKey"]
    )
    assert pks(back) == ["p4"]


def test_an_exclusive_start_key_must_name_every_key_attribute_and_fit_the_condition(
    ddb: Backend, four: str
) -> None:
    start = {"pk": S("p3"), "h": S("o1"), "a": S("T"), "b": S("live"), "c": S("a"), "d": S("r1")}
    with expect_error("ValidationException", "The provided starting key is invalid"):  # a key attribute short
        query(ddb, four, "h = :h", ExclusiveStartKey={k: v for k, v in start.items() if k != "d"})
    with expect_error("ValidationException", "The provided starting key is invalid"):
        query(
            ddb,
            four,
            "h = :h",
            ExclusiveStartKey={**{k: v for k, v in start.items() if k != "d"}, "e": S("")},
        )
    with expect_error(
        "ValidationException", "The provided starting key does not match the range key predicate"
    ):
        query(ddb, four, "h = :h AND a = :a", ExclusiveStartKey={**start, "a": S("F")})
    with expect_error(
        "ValidationException", "The provided starting key does not match the range key predicate"
    ):
        query(ddb, four, "h = :h", ExclusiveStartKey={**start, "h": S("o2")})


RANGE_RULE = (
    "RANGE key attributes {} must have equality conditions specified in the query because a condition is "
    "present on key attribute {}"
)


@pytest.mark.parametrize(
    ("condition", "message"),
    [
        ("h = :h AND a = :a AND c = :c", RANGE_RULE.format("b", "c")),
        ("h = :h AND a = :a AND b > :b AND c = :c", RANGE_RULE.format("b", "c")),
        ("h = :h AND b = :b", RANGE_RULE.format("a", "b")),
        ("h = :h AND begins_with(a, :a) AND d = :x", RANGE_RULE.format("a", "d")),
        ("a = :a", "Query condition missed key schema element: h"),
        ("h > :h", "Query key condition not supported"),
        ("h = :h AND pk = :a", "Query key condition not supported"),
    ],
)
def test_query_refuses_what_aws_refuses(ddb: Backend, four: str, condition: str, message: str) -> None:
    with expect_error("ValidationException", message):
        query(ddb, four, condition)


def test_every_hash_attribute_by_equality_and_the_types_checked(ddb: Backend, table_name: str) -> None:
    create(ddb, table_name, ["h1", "h2"], ["r"], types={"h2": "N"})
    ddb.put_item(TableName=table_name, Item={"pk": S("1"), "h1": S("x"), "h2": {"N": "2"}, "r": S("z")})

    def run(condition: str, values: dict[str, Any]) -> list[str]:
        response = ddb.query(
            TableName=table_name,
            IndexName="gsi",
            KeyConditionExpression=condition,
            ExpressionAttributeValues=values,
        )
        return pks(response)

    assert run("h1 = :a AND h2 = :b", {":a": S("x"), ":b": {"N": "2.0"}}) == ["1"]
    assert run("h1 = :a AND h2 = :b AND r = :c", {":a": S("x"), ":b": {"N": "2"}, ":c": S("z")}) == ["1"]
    assert run("h1 = :a AND h2 = :b", {":a": S("x"), ":b": {"N": "3"}}) == []
    with expect_error("ValidationException", "Query condition missed key schema element: h2"):
        run("h1 = :a", {":a": S("x")})
    with expect_error("ValidationException", "Query condition missed key schema element: h1"):
        run("h2 = :b AND r = :c", {":b": {"N": "2"}, ":c": S("z")})
    with expect_error("ValidationException", INVALID + "Condition parameter type does not match schema type"):
        run("h1 = :a AND h2 = :b", {":a": S("x"), ":b": S("2")})


def test_legacy_key_conditions(ddb: Backend, four: str) -> None:
    def run(conditions: dict[str, Any]) -> list[str]:
        return pks(ddb.query(TableName=four, IndexName="gsi", KeyConditions=conditions))

    def eq(value: str) -> dict[str, Any]:
        return {"ComparisonOperator": "EQ", "AttributeValueList": [S(value)]}

    assert run(
        {"h": eq("o1"), "a": eq("T"), "b": {"ComparisonOperator": "LT", "AttributeValueList": [S("live")]}}
    ) == ["p4"]
    with expect_error("ValidationException", RANGE_RULE.format("a", "b")):
        run({"h": eq("o1"), "b": eq("live")})
    with expect_error("ValidationException", "Query condition missed key schema element"):
        run({"a": eq("T")})


def test_numbers_and_binaries_sort_as_their_types(ddb: Backend, table_name: str) -> None:
    create(ddb, table_name, ["h"], ["n", "b"], types={"n": "N", "b": "B"})
    rows = [
        ("1", "10", b"\x00\x01"),
        ("2", "-1.5", b"\xff"),
        ("3", "10", b"\x00"),
        ("4", "9", b""),
        ("5", "1e2", b"a"),
    ]
    for pk, number, binary in rows:
        item = {"pk": S(pk), "h": S("h"), "n": {"N": number}}
        if binary:
            item["b"] = {"B": binary}
        ddb.put_item(TableName=table_name, Item=item)
    response = ddb.query(
        TableName=table_name,
        IndexName="gsi",
        KeyConditionExpression="h = :h AND n = :n AND b > :b",
        ExpressionAttributeValues={":h": S("h"), ":n": {"N": "10"}, ":b": {"B": b"\x00"}},
    )
    assert pks(response) == ["1"]
    everything = ddb.query(
        TableName=table_name,
        IndexName="gsi",
        KeyConditionExpression="h = :h",
        ExpressionAttributeValues={":h": S("h")},
    )
    assert pks(everything) == ["2", "3", "1", "5"]  # "4" has no b (an empty binary is refused: left out)


def test_an_item_is_indexed_only_with_every_key_attribute_of_its_type(ddb: Backend, table_name: str) -> None:
    create(ddb, table_name, ["h1", "h2"], ["r"], types={"r": "N"})
    ddb.put_item(TableName=table_name, Item={"pk": S("1"), "h1": S("x"), "h2": S("y")})
    ddb.put_item(TableName=table_name, Item={"pk": S("2"), "h1": S("x"), "r": {"N": "1"}})
    assert ddb.scan(TableName=table_name, IndexName="gsi")["Items"] == []
    message = INVALID + "Type mismatch for Index Key r Expected: N Actual: S IndexName: gsi"
    with expect_error("ValidationException", message):
        ddb.put_item(TableName=table_name, Item={"pk": S("3"), "h1": S("x"), "h2": S("y"), "r": S("1")})
    with expect_error(
        "ValidationException", startswith="One or more parameter values are not valid. A value"
    ):
        ddb.put_item(TableName=table_name, Item={"pk": S("3"), "h1": S(""), "h2": S("y"), "r": {"N": "1"}})


def test_every_write_keeps_the_index_right(ddb: Backend, table_name: str) -> None:
    create(ddb, table_name, ["h1", "h2"], ["r1", "r2"])

    def item(pk: str, **attrs: str) -> dict[str, Any]:
        return {"pk": S(pk), **{k: S(v) for k, v in attrs.items()}}

    def indexed() -> list[str]:
        response = ddb.query(
            TableName=table_name,
            IndexName="gsi",
            KeyConditionExpression="h1 = :a AND h2 = :b",
            ExpressionAttributeValues={":a": S("a"), ":b": S("b")},
        )
        return pks(response)

    ddb.put_item(TableName=table_name, Item=item("1", h1="a", h2="b", r1="m", r2="2"))
    ddb.put_item(TableName=table_name, Item=item("2", h1="a", h2="b", r1="m", r2="1"))
    assert indexed() == ["2", "1"]
    ddb.update_item(
        TableName=table_name,
        Key={"pk": S("2")},
        UpdateExpression="SET r1 = :z",
        ExpressionAttributeValues={":z": S("z")},
    )
    assert indexed() == ["1", "2"]
    ddb.update_item(TableName=table_name, Key={"pk": S("1")}, UpdateExpression="REMOVE r2")
    assert indexed() == ["2"]
    ddb.batch_write_item(
        RequestItems={
            table_name: [
                {"PutRequest": {"Item": item("3", h1="a", h2="b", r1="a", r2="a")}},
                {"DeleteRequest": {"Key": {"pk": S("2")}}},
            ]
        }
    )
    assert indexed() == ["3"]
    ddb.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": table_name, "Item": item("4", h1="a", h2="b", r1="b", r2="a")}},
            {
                "Update": {
                    "TableName": table_name,
                    "Key": {"pk": S("3")},
                    "UpdateExpression": "SET h2 = :c",
                    "ExpressionAttributeValues": {":c": S("c")},
                }
            },
        ]
    )
    assert indexed() == ["4"]
    values = "{'pk': '5', 'h1': 'a', 'h2': 'b', 'r1': 'a', 'r2': 'z'}"
    ddb.execute_statement(Statement=f'INSERT INTO "{table_name}" VALUE {values}')
    ddb.execute_statement(Statement=f"UPDATE \"{table_name}\" SET r1 = 'c' WHERE pk = '4'")
    assert indexed() == ["5", "4"]
    ddb.execute_statement(Statement=f"DELETE FROM \"{table_name}\" WHERE pk = '5'")
    assert indexed() == ["4"]


def test_scan_of_the_index_pages_through_every_entry(ddb: Backend, four: str) -> None:
    seen: list[str] = []
    start: dict[str, Any] | None = None
    while True:
        extra = {"ExclusiveStartKey": start} if start else {}
        page = ddb.scan(TableName=four, IndexName="gsi", Limit=2, **extra)
        seen += pks(page)
        start = page.get("LastEvaluatedKey")
        if start is None:
            break
        assert set(start) == {"pk", "h", "a", "b", "c", "d"}
    assert sorted(seen) == ["p1", "p2", "p3", "p4", "p5"]


def test_projection_select_and_capacity(ddb: Backend, table_name: str) -> None:
    create(ddb, table_name, ["h1", "h2"], ["r1", "r2"], projection={"ProjectionType": "KEYS_ONLY"})
    put = ddb.put_item(
        TableName=table_name,
        Item={"pk": S("1"), "h1": S("a"), "h2": S("b"), "r1": S("c"), "r2": S("d"), "extra": S("e")},
        ReturnConsumedCapacity="INDEXES",
    )
    assert put["ConsumedCapacity"]["GlobalSecondaryIndexes"] == {"gsi": {"CapacityUnits": 1.0}}
    response = ddb.query(
        TableName=table_name,
        IndexName="gsi",
        KeyConditionExpression="h1 = :a AND h2 = :b AND r1 = :c",
        ExpressionAttributeValues={":a": S("a"), ":b": S("b"), ":c": S("c")},
        ReturnConsumedCapacity="INDEXES",
    )
    assert response["Items"] == [{"pk": S("1"), "h1": S("a"), "h2": S("b"), "r1": S("c"), "r2": S("d")}]
    assert response["ConsumedCapacity"]["GlobalSecondaryIndexes"] == {"gsi": {"CapacityUnits": 0.5}}
    with expect_error("ValidationException", INVALID + "Global secondary index gsi does not project [extra]"):
        ddb.query(
            TableName=table_name,
            IndexName="gsi",
            KeyConditionExpression="h1 = :a AND h2 = :b",
            ExpressionAttributeValues={":a": S("a"), ":b": S("b")},
            ProjectionExpression="extra",
        )
    count = ddb.query(
        TableName=table_name,
        IndexName="gsi",
        KeyConditionExpression="h1 = :a AND h2 = :b",
        ExpressionAttributeValues={":a": S("a"), ":b": S("b")},
        Select="COUNT",
    )
    assert count["Count"] == 1


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        (
            keys(["a", "b", "c", "d", "e"], []),
            INVALID + "The KeySchema exceeds the maximum allowed number of HASH key attributes",
        ),
        (
            keys(["a"], ["b", "c", "d", "e", "f"]),
            INVALID + "The KeySchema exceeds the maximum allowed number of RANGE key attributes",
        ),
        (
            keys(["a"], ["b"]) + keys(["c"], []),
            INVALID + "All HASH key attributes must precede RANGE key attributes in the KeySchema",
        ),
        (keys(["a", "b"], ["a"]), "The KeySchema contains multiple key attributes with the same name"),
        (keys(["a", "a"], []), "Two keys can not have the same name"),
        (keys([], ["a", "b"]), "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"),
    ],
)
def test_create_table_refuses_bad_multi_attribute_key_schemas(
    ddb: Backend, table_name: str, schema: list[dict[str, str]], message: str
) -> None:
    names = list(dict.fromkeys(["pk", *(k["AttributeName"] for k in schema)]))
    with expect_error("ValidationException", message):
        ddb.create_table(
            TableName=table_name,
            BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in names],
            KeySchema=keys(["pk"], []),
            GlobalSecondaryIndexes=[
                {"IndexName": "gsi", "KeySchema": schema, "Projection": {"ProjectionType": "ALL"}}
            ],
        )


def test_the_table_and_local_indexes_keep_one_hash_and_one_range(ddb: Backend, table_name: str) -> None:
    definitions = [{"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk", "a", "b")]
    with expect_error("ValidationException", startswith="1 validation error detected: Value '["):
        ddb.create_table(
            TableName=table_name,
            BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=definitions,
            KeySchema=keys(["pk", "a"], ["sk"]),
        )
    with expect_error("ValidationException") as info:
        ddb.create_table(
            TableName=table_name,
            BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=definitions,
            KeySchema=keys(["pk"], ["sk"]),
            LocalSecondaryIndexes=[
                {
                    "IndexName": "lsi",
                    "KeySchema": keys(["pk"], ["a", "b"]),
                    "Projection": {"ProjectionType": "ALL"},
                }
            ],
        )
    assert info.value.message.endswith(
        "at 'localSecondaryIndexes.1.member.keySchema' failed to satisfy constraint: "
        "Member must have length less than or equal to 2"
    )
    with expect_error(
        "ValidationException", "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type"
    ):
        ddb.create_table(
            TableName=table_name,
            BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=definitions[:2],
            KeySchema=keys(["pk", "sk"], []),
        )


def test_update_table_adds_a_multi_attribute_index_with_backfill_and_deletes_it(
    ddb: Backend, table_name: str
) -> None:
    from test_update_table import wait_active

    ddb.create_table(
        TableName=table_name,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=keys(["pk"], []),
    )
    for n in range(5):
        ddb.put_item(TableName=table_name, Item={"pk": S(str(n)), "t": S("x"), "n": {"N": str(-n)}})
    ddb.put_item(TableName=table_name, Item={"pk": S("odd"), "t": S("x")})
    ddb.update_table(
        TableName=table_name,
        AttributeDefinitions=[
            {"AttributeName": "t", "AttributeType": "S"},
            {"AttributeName": "n", "AttributeType": "N"},
        ],
        GlobalSecondaryIndexUpdates=[
            {
                "Create": {
                    "IndexName": "gsi",
                    "KeySchema": keys(["t"], ["n", "pk"]),
                    "Projection": {"ProjectionType": "ALL"},
                }
            }
        ],
    )
    index = wait_active(ddb, table_name, "gsi")
    assert index["KeySchema"] == keys(["t"], ["n", "pk"])
    response = ddb.query(
        TableName=table_name,
        IndexName="gsi",
        KeyConditionExpression="t = :t AND n < :n",
        ExpressionAttributeValues={":t": S("x"), ":n": {"N": "-1"}},
    )
    assert pks(response) == ["4", "3", "2"]
    ddb.update_table(TableName=table_name, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "gsi"}}])
    with expect_error(
        "ValidationException",
        INVALID + "The KeySchema exceeds the maximum allowed number of HASH key attributes",
    ):
        ddb.update_table(
            TableName=table_name,
            AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in "abcde"],
            GlobalSecondaryIndexUpdates=[
                {
                    "Create": {
                        "IndexName": "gsi2",
                        "KeySchema": keys(list("abcde"), []),
                        "Projection": {"ProjectionType": "ALL"},
                    }
                }
            ],
        )


MULTI_REFUSED = (
    "PartiQL statements cannot be executed on tables with multi-attribute HASH keys or multi-attribute "
    "RANGE keys."
)


def test_partiql_refuses_to_read_the_index_but_not_the_table(ddb: Backend, table_name: str) -> None:
    create(ddb, table_name, ["h1", "h2"], ["r1"])
    ddb.put_item(TableName=table_name, Item={"pk": S("1"), "h1": S("a"), "h2": S("b"), "r1": S("c")})
    for where in ("WHERE h1 = 'a'", "WHERE h1 = 'a' AND h2 = 'b' ORDER BY r1 DESC", "", "WHERE h1 = 5"):
        with expect_error("ValidationException", MULTI_REFUSED):
            ddb.execute_statement(Statement=f'SELECT * FROM "{table_name}"."gsi" {where}')
    assert (
        len(ddb.execute_statement(Statement=f"SELECT * FROM \"{table_name}\" WHERE pk = '1'")["Items"]) == 1
    )
    batch = ddb.batch_execute_statement(
        Statements=[
            {"Statement": f"SELECT * FROM \"{table_name}\".\"gsi\" WHERE h1 = 'a' AND h2 = 'b' AND r1 = 'c'"},
            {"Statement": f"SELECT * FROM \"{table_name}\" WHERE pk = '1'"},
        ]
    )["Responses"]
    assert batch[0]["Error"] == {"Code": "ValidationError", "Message": MULTI_REFUSED}
    assert batch[1]["Item"]["pk"] == S("1")


def test_the_refusal_comes_before_a_projection_that_is_no_path(ddb: Backend, table_name: str) -> None:
    """``SELECT COUNT(*)`` parses; on such an index the refusal comes first, elsewhere the projection's."""
    create(ddb, table_name, ["h1", "h2"], ["r1"])
    with expect_error("ValidationException", MULTI_REFUSED):
        ddb.execute_statement(Statement=f'SELECT COUNT(*) FROM "{table_name}"."gsi"')
    with expect_error("ValidationException", "Unexpected path component at 1:8:5"):
        ddb.execute_statement(Statement=f'SELECT COUNT(*) FROM "{table_name}"')
