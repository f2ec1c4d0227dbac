"""Request errors worded exactly as AWS words them, on every backend.

Each text here was measured on AWS (the Parity Suite, nubo-db/dynamodb-conformance, records them). DynamoDB
Local answers several of them in its own words; those cases skip the reference backend with the reason, and
docs/compatibility.md records each difference.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tables import create, create_keyed, s

from backends import Backend, expect_error
from draws import examples

LOCAL_WORDS = "DynamoDB Local words this error differently (docs/compatibility.md)"
MIN_ONE = "failed to satisfy constraint: Member must have value greater than or equal to 1"


def aws_only(ddb: Backend) -> None:
    if ddb.is_reference:
        pytest.skip(LOCAL_WORDS)


@pytest.fixture
def hash_table(ddb: Backend, table_name: str) -> str:
    create_keyed(ddb, table_name)
    return table_name


# -- 1. parallel scan segments -------------------------------------------------------------------------


def test_segment_without_total_segments(ddb: Backend, hash_table: str) -> None:
    aws_only(ddb)
    with expect_error(
        "ValidationException",
        "The TotalSegments parameter is required but was not present in the request when Segment "
        "parameter is present",
    ):
        ddb.scan(TableName=hash_table, Segment=0)


def test_total_segments_without_segment(ddb: Backend, hash_table: str) -> None:
    aws_only(ddb)
    with expect_error(
        "ValidationException",
        "The Segment parameter is required but was not present in the request when parameter "
        "TotalSegments is present",
    ):
        ddb.scan(TableName=hash_table, TotalSegments=4)


@pytest.mark.parametrize(("segment", "total"), [(5, 5), (7, 3), (1, 1)])
def test_segment_must_be_less_than_total_segments(
    ddb: Backend, hash_table: str, segment: int, total: int
) -> None:
    """An off-by-one segment is an error, never an empty page that silently loses that slice's items."""
    aws_only(ddb)
    with expect_error(
        "ValidationException",
        "The Segment parameter is zero-based and must be less than parameter TotalSegments: "
        f"Segment: {segment} is not less than TotalSegments: {total}",
    ):
        ddb.scan(TableName=hash_table, Segment=segment, TotalSegments=total)


def test_segment_errors_come_before_the_table_lookup(ddb: Backend) -> None:
    aws_only(ddb)
    with expect_error("ValidationException", startswith="The Segment parameter is zero-based"):
        ddb.scan(TableName="no_such_table_anywhere", Segment=2, TotalSegments=2)


def test_exclusive_start_key_must_lie_within_the_segment(ddb: Backend, hash_table: str) -> None:
    for i in range(40):
        ddb.put_item(TableName=hash_table, Item={"pk": s(f"k{i}")})
    # Which segment of 4 holds each key: scan each segment fully.
    owner: dict[str, int] = {}
    for segment in range(4):
        for item in ddb.scan(TableName=hash_table, Segment=segment, TotalSegments=4)["Items"]:
            owner[item["pk"]["S"]] = segment
    assert len(owner) == 40
    key, home = next(iter(owner.items()))
    # Resuming inside its own segment works; from any other segment it is refused.
    ddb.scan(TableName=hash_table, Segment=home, TotalSegments=4, ExclusiveStartKey={"pk": s(key)})
    for segment in set(range(4)) - {home}:
        with expect_error("ValidationException", "Exclusive start key must lie within the segment"):
            ddb.scan(TableName=hash_table, Segment=segment, TotalSegments=4, ExclusiveStartKey={"pk": s(key)})


# -- 2. shape errors ---------------------------------------------------------------------------------------


def test_query_limit_zero_names_limit_without_echo(ddb: Backend, hash_table: str) -> None:
    aws_only(ddb)
    base = dict(
        TableName=hash_table, KeyConditionExpression="pk = :v", ExpressionAttributeValues={":v": s("x")}
    )
    for limit in (0, -3):
        with expect_error("ValidationException", f"1 validation error detected: Value at 'Limit' {MIN_ONE}"):
            ddb.query(**base, Limit=limit)


def test_scan_limit_zero_keeps_the_echo(ddb: Backend, hash_table: str) -> None:
    aws_only(ddb)
    with expect_error("ValidationException", f"1 validation error detected: Value '0' at 'limit' {MIN_ONE}"):
        ddb.scan(TableName=hash_table, Limit=0)


def test_enum_sets_in_aws_order(ddb: Backend, hash_table: str, table_name: str) -> None:
    aws_only(ddb)
    with expect_error(
        "ValidationException",
        "1 validation error detected: Value 'INVALID_VALUE' at 'select' failed to satisfy constraint: Member "
        "must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]",
    ):
        ddb.query(
            TableName=hash_table,
            KeyConditionExpression="pk = :v",
            ExpressionAttributeValues={":v": s("x")},
            Select="INVALID_VALUE",
        )
    with expect_error(
        "ValidationException",
        "1 validation error detected: Value 'INVALID' at 'attributeDefinitions.1.member.attributeType' "
        "failed to satisfy constraint: Member must satisfy enum value set: [B, N, S]",
    ):
        ddb.create_table(
            TableName=table_name + "x",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "INVALID"}],
            BillingMode="PAY_PER_REQUEST",
        )


def test_create_table_without_table_name(ddb: Backend) -> None:
    aws_only(ddb)
    with expect_error(
        "ValidationException", "The parameter 'TableName' is required but was not present in the request"
    ):
        ddb.create_table(
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )


def test_put_item_without_table_name_is_the_null_member_error(ddb: Backend) -> None:
    aws_only(ddb)
    with expect_error(
        "ValidationException",
        "1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must "
        "not be null",
    ):
        ddb.put_item(Item={"pk": s("x")})


def test_empty_table_name_reports_only_its_length(ddb: Backend) -> None:
    aws_only(ddb)
    with expect_error(
        "ValidationException",
        "1 validation error detected: Value '' at 'tableName' failed to satisfy constraint: Member must "
        "have length greater than or equal to 1",
    ):
        ddb.put_item(TableName="", Item={"pk": s("x")})


def test_too_many_key_schema_elements_echo_the_elements(ddb: Backend, table_name: str) -> None:
    aws_only(ddb)
    with expect_error(
        "ValidationException",
        "1 validation error detected: Value '[KeySchemaElement(attributeName=pk, keyType=HASH), "
        "KeySchemaElement(attributeName=sk, keyType=RANGE), KeySchemaElement(attributeName=extra, "
        "keyType=RANGE)]' at 'keySchema' failed to satisfy constraint: Member must have length less than or "
        "equal to 2",
    ):
        ddb.create_table(
            TableName=table_name,
            KeySchema=[
                {"AttributeName": "pk", "KeyType": "HASH"},
                {"AttributeName": "sk", "KeyType": "RANGE"},
                {"AttributeName": "extra", "KeyType": "RANGE"},
            ],
            AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk", "extra")],
            BillingMode="PAY_PER_REQUEST",
        )


@pytest.mark.parametrize(
    ("operation", "name"), [("batch_get_item", "BatchGetItem"), ("batch_write_item", "BatchWriteItem")]
)
def test_empty_request_items(ddb: Backend, operation: str, name: str) -> None:
    aws_only(ddb)
    # boto3 itself fails on a request with no RequestItems at all, so that case is sent to the engine only.
    for params in ({"RequestItems": {}}, {}) if not ddb.is_boto3 else ({"RequestItems": {}},):
        with expect_error("ValidationException", f"The requestItems parameter is required for {name}"):
            getattr(ddb, operation)(**params)


def test_batch_get_over_100_keys_names_the_keys_member(ddb: Backend, hash_table: str) -> None:
    aws_only(ddb)
    keys = [{"pk": s(f"k{i}")} for i in range(101)]
    with expect_error(
        "ValidationException",
        f"1 validation error detected: Value at 'RequestItems.{hash_table}.member.Keys' failed to satisfy "
        "constraint: Member must have length less than or equal to 100",
    ):
        ddb.batch_get_item(RequestItems={hash_table: {"Keys": keys}})


def test_batch_write_over_25_requests_is_a_map_value_error(ddb: Backend, hash_table: str) -> None:
    aws_only(ddb)
    writes = [{"PutRequest": {"Item": {"pk": s(f"k{i}")}}} for i in range(26)]
    with expect_error("ValidationException") as info:
        ddb.batch_write_item(RequestItems={hash_table: writes})
    pattern = (
        rf"1 validation error detected: Value '\{{{hash_table}=\[WriteRequest\(putRequest=PutRequest\(item="
        r"\{pk=AttributeValue\(s=k0, .+\]\}' at 'requestItems' failed to satisfy constraint: Map value must "
        r"satisfy constraint: \[Member must have length less than or equal to 25, Member must have length "
        r"greater than or equal to 1\]"
    )
    assert re.fullmatch(pattern, info.value.message, re.S), info.value.message


# -- 3. semantic texts -------------------------------------------------------------------------------------


def test_same_attribute_as_hash_and_range(ddb: Backend, table_name: str) -> None:
    aws_only(ddb)
    with expect_error(
        "ValidationException", "Invalid KeySchema: Some index key attribute have no definition"
    ):
        ddb.create_table(
            TableName=table_name,
            KeySchema=[
                {"AttributeName": "pk", "KeyType": "HASH"},
                {"AttributeName": "pk", "KeyType": "RANGE"},
            ],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )


def test_duplicate_string_set_values(ddb: Backend, hash_table: str) -> None:
    aws_only(ddb)
    with expect_error(
        "ValidationException",
        "1 validation error detected: One or more parameter values were invalid: "
        'Input collection ["a", "a"] contains duplicates.',
    ):
        ddb.put_item(TableName=hash_table, Item={"pk": s("x"), "bad": {"SS": ["a", "a"]}})


def test_consistent_read_on_a_gsi(ddb: Backend, table_name: str) -> None:
    aws_only(ddb)
    create(ddb, table_name, gsi=True)
    message = "Consistent reads are not supported on global secondary indexes"
    with expect_error("ValidationException", message):
        ddb.query(
            TableName=table_name,
            IndexName="GSI1",
            KeyConditionExpression="G1PK = :v",
            ExpressionAttributeValues={":v": s("x")},
            ConsistentRead=True,
        )
    with expect_error("ValidationException", message):
        ddb.scan(TableName=table_name, IndexName="GSI1", ConsistentRead=True)


# -- 4. TransactGetItems: a bad Key cancels the transaction --------------------------------------------------


def test_transact_get_with_an_empty_key_is_cancelled(ddb: Backend, hash_table: str) -> None:
    aws_only(ddb)
    ddb.put_item(TableName=hash_table, Item={"pk": s("there")})
    with expect_error(
        "TransactionCanceledException",
        "Transaction cancelled, please refer cancellation reasons for specific reasons "
        "[None, ValidationError]",
    ) as info:
        ddb.transact_get_items(
            TransactItems=[
                {"Get": {"TableName": hash_table, "Key": {"pk": s("there")}}},
                {"Get": {"TableName": hash_table, "Key": {}}},
            ]
        )
    reasons = info.value.extra["CancellationReasons"]
    assert reasons == [
        {"Code": "None"},
        {"Code": "ValidationError", "Message": "The provided key element does not match the schema"},
    ]


# -- open-ended inputs (engine only: one engine per test, many requests) ----------------------------------


@pytest.fixture(scope="module")
def engine_table(tmp_path_factory: pytest.TempPathFactory):
    from singletable.engine import Engine

    engine = Engine(str(tmp_path_factory.mktemp("wording") / "db.sqlite3"))
    create_keyed(engine, "tbl")
    for i in range(30):
        engine.put_item(TableName="tbl", Item={"pk": s(f"k{i}")})
    yield engine
    engine.close()


@settings(
    max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(segment=st.integers(0, 999_999), total=st.integers(1, 1_000_000))
def test_any_segment_is_served_or_refused_never_empty_by_mistake(
    engine_table, segment: int, total: int
) -> None:
    if segment >= total:
        with expect_error(
            "ValidationException",
            "The Segment parameter is zero-based and must be less than parameter TotalSegments: "
            f"Segment: {segment} is not less than TotalSegments: {total}",
        ):
            engine_table.scan(TableName="tbl", Segment=segment, TotalSegments=total)
    else:
        page = engine_table.scan(TableName="tbl", Segment=segment, TotalSegments=total)
        assert page["Count"] == len(page["Items"])


@settings(
    max_examples=examples(50), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(total=st.integers(1, 12))
def test_segments_of_any_count_partition_the_table(engine_table, total: int) -> None:
    seen: list[str] = []
    for segment in range(total):
        seen += [
            item["pk"]["S"]
            for item in engine_table.scan(TableName="tbl", Segment=segment, TotalSegments=total)["Items"]
        ]
    assert sorted(seen) == sorted(f"k{i}" for i in range(30))


@settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(limit=st.integers(-(2**31), 0))
def test_any_query_limit_below_one_names_limit_without_echo(engine_table, limit: int) -> None:
    with expect_error("ValidationException", f"1 validation error detected: Value at 'Limit' {MIN_ONE}"):
        engine_table.query(
            TableName="tbl",
            KeyConditionExpression="pk = :v",
            ExpressionAttributeValues={":v": s("x")},
            Limit=limit,
        )
