"""Which bad actions fail a transaction as a whole and which cancel it with a reason (AWS's rule).

AWS (the Parity Suite's captures in eu-west-2 and three more regions): a key attribute given a value of the
wrong type, or a non-scalar, in a Put item (table or index key) or in an Update/Delete/ConditionCheck Key,
cancels the transaction with a ``ValidationError`` reason for that action; an empty string or binary key
value, or an update setting an index key to one, fails the whole request with a ValidationException before
anything runs. A TransactGetItems Get with a projection that matches nothing of its item answers no Item.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backends import Backend, expect_error
from draws import examples

LOCAL_SURFACE = (
    "DynamoDB Local fails the whole request where AWS cancels with a reason (docs/compatibility.md)"
)
CANCELLED = "Transaction cancelled, please refer cancellation reasons for specific reasons [{codes}]"
SCHEMA_MISMATCH = "The provided key element does not match the schema"


@pytest.fixture
def table(ddb: Backend, table_name: str) -> str:
    ddb.create_table(
        TableName=table_name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
            {"AttributeName": "gk", "AttributeType": "S"},
            {"AttributeName": "bk", "AttributeType": "B"},
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "byG",
                "KeySchema": [{"AttributeName": "gk", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
            },
            {
                "IndexName": "byB",
                "KeySchema": [{"AttributeName": "bk", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            },
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    return table_name


def key(pk: Any = None, sk: Any = None) -> dict[str, Any]:
    return {"pk": pk or {"S": "p"}, "sk": sk or {"S": "s"}}


def cancelled_with(ddb: Backend, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    with expect_error("TransactionCanceledException") as info:
        ddb.transact_write_items(TransactItems=items)
    reasons = info.value.extra["CancellationReasons"]
    codes = ", ".join(reason["Code"] for reason in reasons)
    assert info.value.message == CANCELLED.format(codes=codes)
    return [{k: v for k, v in reason.items() if k in ("Code", "Message")} for reason in reasons]


WRONG = [{"N": "5"}, {"L": [{"S": "x"}]}]


@pytest.mark.parametrize("wrong", WRONG, ids=["number", "list"])
def test_wrong_typed_put_keys_cancel_with_a_reason(ddb: Backend, table: str, wrong: dict[str, Any]) -> None:
    if ddb.is_reference:
        pytest.skip(LOCAL_SURFACE)
    actual = next(iter(wrong))
    ok = {"Put": {"TableName": table, "Item": key({"S": "ok"})}}
    reasons = cancelled_with(ddb, [ok, {"Put": {"TableName": table, "Item": key(wrong)}}])
    assert reasons == [
        {"Code": "None"},
        {
            "Code": "ValidationError",
            "Message": f"One or more parameter values were invalid: Type mismatch for key pk expected: S "
            f"actual: {actual}",
        },
    ]
    reasons = cancelled_with(ddb, [{"Put": {"TableName": table, "Item": {**key(), "gk": wrong}}}])
    assert reasons == [
        {
            "Code": "ValidationError",
            "Message": "One or more parameter values were invalid: Type mismatch for Index Key gk "
            f"Expected: S Actual: {actual} IndexName: byG",
        }
    ]
    assert ddb.scan(TableName=table)["Items"] == []


@pytest.mark.parametrize("wrong", WRONG, ids=["number", "list"])
@pytest.mark.parametrize("action", ["Update", "Delete", "ConditionCheck"])
def test_wrong_typed_keys_of_other_actions_cancel_with_the_schema_mismatch(
    ddb: Backend, table: str, action: str, wrong: dict[str, Any]
) -> None:
    if ddb.is_reference:
        pytest.skip(LOCAL_SURFACE)
    body: dict[str, Any] = {"TableName": table, "Key": key(None, wrong)}
    if action == "Update":
        body.update(UpdateExpression="SET a = :v", ExpressionAttributeValues={":v": {"S": "x"}})
    if action == "ConditionCheck":
        body["ConditionExpression"] = "attribute_not_exists(pk)"
    reasons = cancelled_with(ddb, [{action: body}])
    assert reasons == [{"Code": "ValidationError", "Message": SCHEMA_MISMATCH}]


def test_other_up_front_errors_still_win_over_a_wrong_typed_key(ddb: Backend, table: str) -> None:
    if ddb.is_reference:
        pytest.skip(LOCAL_SURFACE)
    with expect_error("ValidationException", "Invalid ConditionExpression: The expression can not be empty;"):
        ddb.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": table, "Item": key({"N": "1"})}},
                {"Put": {"TableName": table, "Item": key({"S": "b"}), "ConditionExpression": ""}},
            ]
        )


@pytest.mark.parametrize(
    ("attribute", "empty", "kind"), [("gk", {"S": ""}, "string"), ("bk", {"B": b""}, "binary")]
)
def test_an_update_emptying_an_index_key_fails_the_request(
    ddb: Backend, table: str, attribute: str, empty: dict[str, Any], kind: str
) -> None:
    ddb.put_item(TableName=table, Item={**key(), attribute: {"S": "g"} if kind == "string" else {"B": b"g"}})
    update = {
        "Update": {
            "TableName": table,
            "Key": key(),
            "UpdateExpression": f"SET {attribute} = :v",
            "ExpressionAttributeValues": {":v": empty},
        }
    }
    message = (
        "One or more parameter values are not valid. The update expression attempted to update a secondary "
        f"index key to a value that is not supported. The AttributeValue for a key attribute cannot contain "
        f"an empty {kind} value."
    )
    with expect_error("ValidationException", message):
        ddb.transact_write_items(TransactItems=[update])
    with expect_error("ValidationException", message):
        ddb.update_item(**update["Update"])


def test_empty_put_keys_fail_the_request(ddb: Backend, table: str) -> None:
    with expect_error(
        "ValidationException",
        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain "
        "an empty string value. Key: pk",
    ):
        ddb.transact_write_items(TransactItems=[{"Put": {"TableName": table, "Item": key({"S": ""})}}])


def test_transact_get_projection_matching_nothing_answers_no_item(ddb: Backend, table: str) -> None:
    ddb.put_item(TableName=table, Item={**key(), "a": {"S": "x"}})
    ddb.put_item(TableName=table, Item={**key({"S": "q"}), "a": {"S": "y"}})
    response = ddb.transact_get_items(
        TransactItems=[
            {"Get": {"TableName": table, "Key": key(), "ProjectionExpression": "nothere"}},
            {"Get": {"TableName": table, "Key": key({"S": "q"}), "ProjectionExpression": "a"}},
        ]
    )
    if ddb.is_reference and response["Responses"][0] == {"Item": {}}:
        pytest.skip("DynamoDB Local answers an empty Item where AWS answers none (docs/compatibility.md)")
    assert response["Responses"] == [{}, {"Item": {"a": {"S": "y"}}}]


@settings(
    max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.sampled_from(["ok", "wrong", "list"]), min_size=1, max_size=5))
def test_reasons_are_positional_and_nothing_is_written(ddb: Backend, table: str, shapes: list[str]) -> None:
    if ddb.is_reference:
        pytest.skip(LOCAL_SURFACE)
    values = {"ok": None, "wrong": {"N": "1"}, "list": {"L": []}}
    items = [
        {"Put": {"TableName": table, "Item": key({"S": f"h{i}"}, values[shape] or {"S": "s"})}}
        for i, shape in enumerate(shapes)
    ]
    if all(shape == "ok" for shape in shapes):
        return
    reasons = cancelled_with(ddb, items)
    assert [reason["Code"] for reason in reasons] == [
        "None" if s == "ok" else "ValidationError" for s in shapes
    ]
    assert ddb.scan(TableName=table, Select="COUNT")["Count"] == 0
