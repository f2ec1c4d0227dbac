"""Every refusal of the vector surface, with DynamoDB's code and message, on every backend that has it.

Messages are AWS's (captured against real DynamoDB by the Parity Suite, or quoted by AWS's developer
guide); DynamoDB Local has no vector search, so the reference backend is skipped.
"""

from __future__ import annotations

from typing import Any

import pytest
from vector_tables import create, vddb, vec, vector_index

from backends import Backend, expect_error

__all__ = ["vddb"]

INVALID = "One or more parameter values were invalid: "
SCHEMA = [
    {"AttributeName": "tenant", "SearchSchemaElementType": "HASH"},
    {"AttributeName": "category", "SearchSchemaElementType": "INLINE_FILTER"},
]


def base(name: str) -> dict[str, Any]:
    return {
        "TableName": name,
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "BillingMode": "PAY_PER_REQUEST",
    }


CREATE_CASES = {
    "provisioned table": (
        {
            "BillingMode": "PROVISIONED",
            "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
            "VectorIndexes": [vector_index()],
        },
        "ValidationException",
        INVALID + "Vector indexes are only supported for PAY_PER_REQUEST tables",
    ),
    "SearchSchema attribute not defined": (
        {"VectorIndexes": [vector_index(SearchSchema=SCHEMA[:1])]},
        "ValidationException",
        INVALID + "One element in SearchSchema is not defined in attribute definitions",
    ),
    "too many dimensions": (
        {"VectorIndexes": [vector_index(Dimensions=4097)]},
        "ValidationException",
        INVALID + "Number of dimensions must be between 1 and 4096 inclusive.",
    ),
    "six indexes": (
        {"VectorIndexes": [vector_index(f"vix-{i}") for i in range(6)]},
        "ValidationException",
        INVALID + "VectorIndex count exceeds the per-table limit of 5",
    ),
    "one attribute, two dimensions": (
        {"VectorIndexes": [vector_index(), vector_index("vix2", Dimensions=4)]},
        "ValidationException",
        INVALID + "Conflicting attribute definition for 'embedding'. All VectorIndexes on the same vector "
        "attribute must use the same dimensions.",
    ),
    "duplicate index name": (
        {"VectorIndexes": [vector_index(), vector_index()]},
        "ValidationException",
        INVALID + "Duplicate index name: vix",
    ),
    "zero dimensions": (
        {"VectorIndexes": [vector_index(Dimensions=0)]},
        "ValidationException",
        "1 validation error detected: Value '0' at 'vectorIndexes.1.member.dimensions' failed to satisfy "
        "constraint: Member must have value greater than or equal to 1",
    ),
    "short index name": (
        {"VectorIndexes": [vector_index("ab")]},
        "ValidationException",
        "1 validation error detected: Value 'ab' at 'vectorIndexes.1.member.indexName' failed to satisfy "
        "constraint: Member must have length greater than or equal to 3",
    ),
}


@pytest.mark.parametrize("case", list(CREATE_CASES))
def test_create_table_refusals(vddb: Backend, table_name: str, case: str) -> None:
    change, code, message = CREATE_CASES[case]
    params = {**base(table_name), **change}
    if "ProvisionedThroughput" in change:
        params.pop("BillingMode")
    with expect_error(code, message):
        vddb.create_table(**params)
    with expect_error("ResourceNotFoundException"):
        vddb.describe_table(TableName=table_name)


@pytest.fixture
def table(vddb: Backend, table_name: str) -> str:
    create(
        vddb,
        table_name,
        [vector_index("plain"), vector_index("schema", SearchSchema=SCHEMA)],
        ("tenant", "category"),
    )
    return table_name


WRITE_CASES = {
    "wrong length": (
        {"tenant": {"S": "t1"}, "embedding": {"L": vec(1, 0)}},
        "One or more parameter values were invalid. Invalid size for parameter embedding, Expected: 3, "
        "Actual: 2 IndexName: plain",
    ),
    "element not a number": (
        {"embedding": {"L": [{"N": "1"}, {"S": "oops"}, {"N": "0"}]}},
        "One or more parameter values were invalid. Invalid type for parameter embedding[1], Expected: "
        "32-bit floating point number, Actual: S. IndexName: plain",
    ),
    "not a list": (
        {"embedding": {"S": "not-a-vector"}},
        "One or more parameter values were invalid. Invalid type for parameter embedding, Expected: 32-bit "
        "floating point number list IndexName: plain",
    ),
    "beyond float32": (
        {"embedding": {"L": vec(1, 4e38, 0)}},
        "One or more parameter values were invalid. Invalid value for parameter embedding[1], Value: "
        "400000000000000000000000000000000000000 is outside valid range [-3.4028235E38, 3.4028235E38]. "
        "IndexName: plain",
    ),
    "empty HASH value": (
        {"tenant": {"S": ""}, "embedding": {"L": vec(0, 0, 1)}},
        "One or more parameter values are not valid. A value specified for a secondary index key is not "
        "supported. The AttributeValue for a key attribute cannot contain an empty string value. "
        "IndexName: schema, IndexKey: tenant",
    ),
    "filter of the wrong type": (
        {"tenant": {"S": "t"}, "category": {"N": "1"}, "embedding": {"L": vec(0, 0, 1)}},
        "One or more parameter values were invalid. Attribute 'category' type mismatch. Expected: S, "
        "Actual: N. IndexName: schema",
    ),
}


@pytest.mark.parametrize("case", list(WRITE_CASES))
def test_write_refusals(vddb: Backend, table: str, case: str) -> None:
    attributes, message = WRITE_CASES[case]
    item = {"pk": {"S": "bad"}, **attributes}
    with expect_error("ValidationException", message):
        vddb.put_item(TableName=table, Item=item)
    if case != "empty HASH value":  # an update's empty key value is worded otherwise (below)
        with expect_error("ValidationException", message):
            vddb.update_item(
                TableName=table,
                Key={"pk": {"S": "bad"}},
                UpdateExpression="SET " + ", ".join(f"#{n} = :{n}" for n in attributes),
                ExpressionAttributeNames={f"#{n}": n for n in attributes},
                ExpressionAttributeValues={f":{n}": v for n, v in attributes.items()},
            )
    # As for an index key: a value the request alone shows invalid fails the transaction before it starts.
    with expect_error("ValidationException", message):
        vddb.transact_write_items(TransactItems=[{"Put": {"TableName": table, "Item": item}}])
    assert "Item" not in vddb.get_item(TableName=table, Key={"pk": {"S": "bad"}})


def test_update_emptying_the_hash_value(vddb: Backend, table: str) -> None:
    vddb.put_item(
        TableName=table, Item={"pk": {"S": "k"}, "tenant": {"S": "t"}, "embedding": {"L": vec(1, 0, 0)}}
    )
    with expect_error(
        "ValidationException",
        "One or more parameter values are not valid. The update expression attempted to update a secondary "
        "index key to a value that is not supported. The AttributeValue for a key attribute cannot contain "
        "an empty string value.",
    ):
        vddb.update_item(
            TableName=table,
            Key={"pk": {"S": "k"}},
            UpdateExpression="SET tenant = :e",
            ExpressionAttributeValues={":e": {"S": ""}},
        )


def search(vddb: Backend, table: str, **params: Any) -> Any:
    request = {"TableName": table, "IndexName": "plain", "SearchVector": vec(1, 0, 0), "TopK": 1}
    request.update(params)
    return vddb.search_vectors(**request)


T1 = {":t": {"S": "t1"}}
SEARCH_CASES = {
    "TopK above 100": (
        {"TopK": 101},
        "Provided TopK value '101' is out of valid range. The value must be between 1 and 100 inclusive",
    ),
    "TopK 0": (
        {"TopK": 0},
        "1 validation error detected: Value '0' at 'topK' failed to satisfy constraint: "
        "Member must have value greater than or equal to 1",
    ),
    "no condition on a HASH index": (
        {"IndexName": "schema"},
        "SearchConditionExpression must be provided when SearchSchema has a HASH key",
    ),
    "condition without the HASH attribute": (
        {
            "IndexName": "schema",
            "SearchConditionExpression": "category = :c",
            "ExpressionAttributeValues": {":c": {"S": "c"}},
        },
        "SearchConditionExpression must have all HASH attributes in configured SearchSchema",
    ),
    "range comparator on the HASH": (
        {"IndexName": "schema", "SearchConditionExpression": "tenant < :t", "ExpressionAttributeValues": T1},
        "Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression",
    ),
    "range comparator on a filter": (
        {
            "IndexName": "schema",
            "SearchConditionExpression": "tenant = :t AND category < :c",
            "ExpressionAttributeValues": {**T1, ":c": {"S": "c"}},
        },
        "Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression",
    ),
    "OR": (
        {
            "IndexName": "schema",
            "SearchConditionExpression": "tenant = :t OR category = :c",
            "ExpressionAttributeValues": {**T1, ":c": {"S": "c"}},
        },
        "Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression",
    ),
    "a function": (
        {
            "IndexName": "schema",
            "SearchConditionExpression": "tenant = :t AND attribute_exists(category)",
            "ExpressionAttributeValues": T1,
        },
        "Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression",
    ),
    "wrong length": (
        {"SearchVector": vec(1, 0)},
        "Input search vector dimension 2 does not match vector index dimension 3",
    ),
    "attribute outside the SearchSchema": (
        {"SearchConditionExpression": "tenant = :t", "ExpressionAttributeValues": T1},
        "SearchConditionExpression must not contain any attributes that is not in SearchSchema. "
        "Invalid attribute: tenant",
    ),
    "nested attribute": (
        {
            "IndexName": "schema",
            "SearchConditionExpression": "tenant.x = :t",
            "ExpressionAttributeValues": T1,
        },
        "Invalid SearchConditionExpression: SearchConditionExpression cannot have conditions on nested "
        "attributes",
    ),
    "two conditions on one attribute": (
        {
            "IndexName": "schema",
            "SearchConditionExpression": "tenant = :t AND tenant = :t",
            "ExpressionAttributeValues": T1,
        },
        "Invalid SearchConditionExpression: SearchConditionExpression must only contain one condition per "
        "attribute",
    ),
    "HASH value of another type": (
        {
            "IndexName": "schema",
            "SearchConditionExpression": "tenant = :t",
            "ExpressionAttributeValues": {":t": {"N": "1"}},
        },
        "Type of 'tenant' attribute in SearchConditionExpression (N) does not match type in search "
        "schema (S)",
    ),
    "empty HASH value": (
        {
            "IndexName": "schema",
            "SearchConditionExpression": "tenant = :t",
            "ExpressionAttributeValues": {":t": {"S": ""}},
        },
        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot "
        "contain an empty string value. Key: tenant",
    ),
    "L-wrapped vector": (
        {"SearchVector": [{"L": vec(1, 0, 0)}]},
        "Search vector contains invalid values. All values in the search vector must be a 32-bit "
        "floating-point number attribute",
    ),
    "value beyond float32": (
        {"SearchVector": vec(1, 1e39, 0)},
        "Search vector contains invalid values. All values in the search vector must be a 32-bit "
        "floating-point number attribute",
    ),
    "unknown index": (
        {"IndexName": "no-such-index"},
        "The table does not have the specified index: no-such-index",
    ),
    "undefined value": (
        {"IndexName": "schema", "SearchConditionExpression": "tenant = :t"},
        "Invalid SearchConditionExpression: An expression attribute value used in expression is not defined; "
        "attribute value: :t",
    ),
    "unused value": (
        {"ExpressionAttributeValues": T1, "ProjectionExpression": "pk"},
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {:t}",
    ),
    "unused name": (
        {"ExpressionAttributeNames": {"#x": "x"}, "ProjectionExpression": "pk"},
        "Value provided in ExpressionAttributeNames unused in expressions: keys: {#x}",
    ),
}


@pytest.mark.parametrize("case", list(SEARCH_CASES))
def test_search_refusals(vddb: Backend, table: str, case: str) -> None:
    change, message = SEARCH_CASES[case]
    with expect_error("ValidationException", message):
        search(vddb, table, **change)


def test_search_of_a_missing_table(vddb: Backend, table_name: str) -> None:
    with expect_error("ResourceNotFoundException"):
        search(vddb, table_name)


def test_query_and_scan_cannot_read_a_vector_index(vddb: Backend, table: str) -> None:
    with expect_error("ValidationException", "Scan operation not supported on this index type"):
        vddb.scan(TableName=table, IndexName="plain")
    with expect_error("ValidationException", "Query operation not supported on this index type"):
        vddb.query(
            TableName=table,
            IndexName="plain",
            KeyConditionExpression="pk = :p",
            ExpressionAttributeValues={":p": {"S": "a"}},
        )
    with expect_error("ValidationException", "Scan operation not supported on this index type"):
        vddb.execute_statement(Statement=f'SELECT * FROM "{table}"."plain"')


UPDATE_CASES = {
    "index name taken": (
        {"Create": vector_index("plain")},
        "Attempting to create an index which already exists",
    ),
    "dimensions disagree": (
        {"Create": vector_index("other", Dimensions=4)},
        INVALID + "Conflicting attribute definition for 'embedding'. All VectorIndexes on the same vector "
        "attribute must use the same dimensions.",
    ),
    "SearchSchema attribute not defined": (
        {
            "Create": vector_index(
                "other", SearchSchema=[{"AttributeName": "zz", "SearchSchemaElementType": "HASH"}]
            )
        },
        INVALID + "One element in SearchSchema is not defined in attribute definitions",
    ),
}


@pytest.mark.parametrize("case", list(UPDATE_CASES))
def test_update_table_refusals(vddb: Backend, table: str, case: str) -> None:
    update, message = UPDATE_CASES[case]
    with expect_error("ValidationException", message):
        vddb.update_table(TableName=table, VectorIndexUpdates=[update])


def test_update_table_deleting_a_missing_index(vddb: Backend, table: str) -> None:
    with expect_error("ResourceNotFoundException", "Requested resource not found: Index: nope not found"):
        vddb.update_table(TableName=table, VectorIndexUpdates=[{"Delete": {"IndexName": "nope"}}])


def test_a_table_with_vector_indexes_stays_on_demand(vddb: Backend, table: str) -> None:
    with expect_error(
        "ValidationException", INVALID + "Vector indexes are only supported for PAY_PER_REQUEST tables"
    ):
        vddb.update_table(
            TableName=table,
            BillingMode="PROVISIONED",
            ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
        )
