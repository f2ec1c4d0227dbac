"""Vector indexes and SearchVectors on every backend: creating, describing, writing, searching.

DynamoDB Local has no vector search (it answers UnknownOperation and drops VectorIndexes), so the reference
backend is skipped here; the exact messages come from AWS (its developer guide and the Parity Suite's
captures against real DynamoDB).
"""

from __future__ import annotations

from typing import Any

import pytest
from vector_tables import create, vddb, vec, vector_index

from backends import Backend
from singletable.engine import DynamoDBError

__all__ = ["vddb"]  # the fixture, imported for pytest

FIXTURE = {"a": (1, 0, 0), "b": (0, 1, 0), "c": (-1, 0, 0), "d": (0.6, 0.8, 0)}


def fill(ddb: Backend, table: str) -> None:
    for pk, numbers in FIXTURE.items():
        ddb.put_item(
            TableName=table,
            Item={"pk": {"S": pk}, "label": {"S": f"item-{pk}"}, "embedding": {"L": vec(*numbers)}},
        )


def scores(ddb: Backend, table: str, index: str, **extra: Any) -> dict[str, float]:
    response = ddb.search_vectors(
        TableName=table, IndexName=index, SearchVector=vec(1, 0, 0), TopK=10, **extra
    )
    return {r["Item"]["pk"]["S"]: r["Score"] for r in response["SearchResults"]}


def test_create_describe_and_search_each_distance(vddb: Backend, table_name: str) -> None:
    created = create(
        vddb,
        table_name,
        [
            vector_index("cosine"),
            vector_index("euclidean", DistanceFunction="EUCLIDEAN"),
            vector_index("dot", DistanceFunction="DOT_PRODUCT"),
        ],
    )
    described = created["TableDescription"]["VectorIndexes"][0]
    assert described["IndexName"] == "cosine"
    assert described["Dimensions"] == 3
    assert described["IndexArn"].endswith(f"table/{table_name}/index/cosine")
    fill(vddb, table_name)
    table = vddb.describe_table(TableName=table_name)["Table"]
    by_name = {index["IndexName"]: index for index in table["VectorIndexes"]}
    assert by_name["dot"]["IndexStatus"] == "ACTIVE"
    assert by_name["dot"]["ItemCount"] == 4
    assert "Backfilling" not in by_name["dot"]

    cosine = scores(vddb, table_name, "cosine")
    assert list(cosine) == ["a", "d", "b", "c"]
    assert cosine["a"] == 0 and cosine["b"] == 1 and cosine["c"] == 2
    assert cosine["d"] == pytest.approx(0.4, abs=1e-6)
    euclidean = scores(vddb, table_name, "euclidean")
    assert list(euclidean) == ["a", "d", "b", "c"]
    assert euclidean["d"] == pytest.approx(0.8**0.5, abs=1e-6)
    assert euclidean["b"] == pytest.approx(2**0.5, abs=1e-6) and euclidean["c"] == 2
    dot = scores(vddb, table_name, "dot")
    assert list(dot) == ["a", "d", "b", "c"]
    assert dot == {"a": 1, "d": pytest.approx(0.6, abs=1e-6), "b": 0, "c": -1}


def test_results_omit_the_vector_unless_projected(vddb: Backend, table_name: str) -> None:
    create(vddb, table_name, [vector_index()])
    fill(vddb, table_name)
    plain = vddb.search_vectors(TableName=table_name, IndexName="vix", SearchVector=vec(1, 0, 0), TopK=1)
    assert plain["SearchResults"] == [{"Item": {"pk": {"S": "a"}, "label": {"S": "item-a"}}, "Score": 0.0}]
    projected = vddb.search_vectors(
        TableName=table_name,
        IndexName="vix",
        SearchVector=vec(1, 0, 0),
        TopK=1,
        ProjectionExpression="pk, #e",
        ExpressionAttributeNames={"#e": "embedding"},
    )
    assert projected["SearchResults"][0]["Item"] == {"pk": {"S": "a"}, "embedding": {"L": vec(1, 0, 0)}}


def test_index_holds_float32_and_the_item_keeps_its_numbers(vddb: Backend, table_name: str) -> None:
    create(vddb, table_name, [vector_index()])
    precise = ["0.1", "16777217", "1.000000059604644775390625"]
    vddb.put_item(
        TableName=table_name, Item={"pk": {"S": "f"}, "embedding": {"L": [{"N": n} for n in precise]}}
    )
    item = vddb.get_item(TableName=table_name, Key={"pk": {"S": "f"}})["Item"]
    assert [v["N"] for v in item["embedding"]["L"]] == precise
    hit = vddb.search_vectors(
        TableName=table_name,
        IndexName="vix",
        SearchVector=[{"N": n} for n in precise],
        TopK=1,
        ProjectionExpression="embedding",
    )["SearchResults"][0]
    assert [float(v["N"]) for v in hit["Item"]["embedding"]["L"]] == [
        0.1,
        16777216.0,
        1.0,
    ]  # ties round to even


def test_writes_keep_the_index_in_step(vddb: Backend, table_name: str) -> None:
    create(vddb, table_name, [vector_index(DistanceFunction="EUCLIDEAN")])
    fill(vddb, table_name)
    vddb.update_item(TableName=table_name, Key={"pk": {"S": "b"}}, UpdateExpression="REMOVE embedding")
    vddb.delete_item(TableName=table_name, Key={"pk": {"S": "c"}})
    vddb.update_item(
        TableName=table_name,
        Key={"pk": {"S": "d"}},
        UpdateExpression="SET embedding = :v",
        ExpressionAttributeValues={":v": {"L": vec(1, 0, 0.5)}},
    )
    vddb.batch_write_item(
        RequestItems={
            table_name: [{"PutRequest": {"Item": {"pk": {"S": "e"}, "embedding": {"L": vec(0, 0, 1)}}}}]
        }
    )
    vddb.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": table_name, "Item": {"pk": {"S": "g"}, "embedding": {"L": vec(2, 0, 0)}}}}
        ]
    )
    vddb.execute_statement(
        Statement=f"INSERT INTO \"{table_name}\" VALUE {{'pk': 'h', 'embedding': [0, 2, 0]}}"
    )
    found = scores(vddb, table_name, "vix")
    assert list(found) == ["a", "d", "g", "e", "h"]
    assert found["d"] == 0.5


def test_a_failed_transaction_leaves_the_index_alone(vddb: Backend, table_name: str) -> None:
    create(vddb, table_name, [vector_index()])
    fill(vddb, table_name)
    before = scores(vddb, table_name, "vix")
    with pytest.raises(DynamoDBError) as caught:
        vddb.transact_write_items(
            TransactItems=[
                {
                    "Put": {
                        "TableName": table_name,
                        "Item": {"pk": {"S": "n"}, "embedding": {"L": vec(1, 0, 0)}},
                    }
                },
                {"Delete": {"TableName": table_name, "Key": {"pk": {"S": "a"}}}},
                {
                    "ConditionCheck": {
                        "TableName": table_name,
                        "Key": {"pk": {"S": "b"}},
                        "ConditionExpression": "attribute_not_exists(pk)",
                    }
                },
            ]
        )
    assert caught.value.code == "TransactionCanceledException"
    assert scores(vddb, table_name, "vix") == before


def test_search_schema_partitions_and_filters(vddb: Backend, table_name: str) -> None:
    schema = [
        {"AttributeName": "tenant", "SearchSchemaElementType": "HASH"},
        {"AttributeName": "category", "SearchSchemaElementType": "INLINE_FILTER"},
    ]
    create(vddb, table_name, [vector_index(SearchSchema=schema)], ("tenant", "category"))
    rows = [("a", "t1", "c1", (1, 0, 0)), ("b", "t1", "c2", (0.9, 0.1, 0)), ("c", "t2", "c1", (1, 0, 0))]
    for pk, tenant, category, numbers in rows:
        vddb.put_item(
            TableName=table_name,
            Item={
                "pk": {"S": pk},
                "tenant": {"S": tenant},
                "category": {"S": category},
                "embedding": {"L": vec(*numbers)},
            },
        )
    vddb.put_item(TableName=table_name, Item={"pk": {"S": "x"}, "embedding": {"L": vec(1, 0, 0)}})
    t1 = scores(
        vddb,
        table_name,
        "vix",
        SearchConditionExpression="tenant = :t",
        ExpressionAttributeValues={":t": {"S": "t1"}},
    )
    assert list(t1) == ["a", "b"]
    filtered = scores(
        vddb,
        table_name,
        "vix",
        SearchConditionExpression="(#c = :c) AND tenant = :t",
        ExpressionAttributeNames={"#c": "category"},
        ExpressionAttributeValues={":t": {"S": "t1"}, ":c": {"S": "c2"}},
    )
    assert list(filtered) == ["b"]
    nothing = scores(
        vddb,
        table_name,
        "vix",
        SearchConditionExpression="tenant = :t AND category = :c",
        ExpressionAttributeValues={":t": {"S": "t1"}, ":c": {"S": "none"}},
    )
    assert nothing == {}
    # An update moving an item to another tenant moves it between partitions.
    vddb.update_item(
        TableName=table_name,
        Key={"pk": {"S": "c"}},
        UpdateExpression="SET tenant = :t",
        ExpressionAttributeValues={":t": {"S": "t1"}},
    )
    moved = scores(
        vddb,
        table_name,
        "vix",
        SearchConditionExpression="tenant = :t",
        ExpressionAttributeValues={":t": {"S": "t1"}},
    )
    assert set(moved) == {"a", "b", "c"}


def test_consumed_capacity(vddb: Backend, table_name: str) -> None:
    create(
        vddb, table_name, [vector_index(), vector_index("keys", Projection={"ProjectionType": "KEYS_ONLY"})]
    )
    first = vddb.put_item(
        TableName=table_name,
        Item={"pk": {"S": "a"}, "note": {"S": "x" * 1500}, "embedding": {"L": vec(1, 0, 0)}},
        ReturnConsumedCapacity="INDEXES",
    )["ConsumedCapacity"]
    assert first["CapacityUnits"] == 2 and first["Table"] == {"CapacityUnits": 2}
    # The projected entry, the vector counted as its name and 4 bytes a dimension, at least 1,024.
    entry = len("pk") + 1 + len("note") + 1500 + len("embedding") + 12
    assert first["VectorIndexes"] == {
        "vix": {"VectorWriteRequestBytes": entry},
        "keys": {"VectorWriteRequestBytes": 1024},
    }
    again = vddb.put_item(
        TableName=table_name,
        Item={"pk": {"S": "a"}, "note": {"S": "x" * 1500}, "embedding": {"L": vec(1, 0, 0)}},
        ReturnConsumedCapacity="INDEXES",
    )["ConsumedCapacity"]
    assert "VectorIndexes" not in again
    total = vddb.put_item(
        TableName=table_name,
        Item={"pk": {"S": "b"}, "embedding": {"L": vec(0, 1, 0)}},
        ReturnConsumedCapacity="TOTAL",
    )["ConsumedCapacity"]
    assert total == {"TableName": table_name, "CapacityUnits": 1.0}
    searched = [
        vddb.search_vectors(
            TableName=table_name,
            IndexName="vix",
            SearchVector=vec(1, 0, 0),
            TopK=2,
            ReturnConsumedCapacity=mode,
        )
        for mode in ("TOTAL", "INDEXES", "NONE")
    ]
    assert searched[0]["ConsumedCapacity"] == searched[1]["ConsumedCapacity"]
    assert set(searched[0]["ConsumedCapacity"]) == {"VectorSearchRequestBytes"}
    assert searched[0]["ConsumedCapacity"]["VectorSearchRequestBytes"] >= 1024
    assert "ConsumedCapacity" not in searched[2]


def test_documented_example_multi_tenant_search(vddb: Backend, table_name: str) -> None:
    """The developer guide's pattern: a Category partition key in the SearchSchema, every search naming
    one category (`Category = :cat`), an item without it silently left out of the index."""
    vddb.create_table(
        TableName=table_name,
        AttributeDefinitions=[
            {"AttributeName": "ProductId", "AttributeType": "S"},
            {"AttributeName": "Category", "AttributeType": "S"},
        ],
        KeySchema=[{"AttributeName": "ProductId", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
        VectorIndexes=[
            {
                "IndexName": "ProductEmbeddingIndex",
                "VectorAttribute": {"AttributeName": "Embedding"},
                "Dimensions": 4,
                "DistanceFunction": "COSINE",
                "Projection": {"ProjectionType": "ALL"},
                "SearchSchema": [{"AttributeName": "Category", "SearchSchemaElementType": "HASH"}],
            }
        ],
    )
    products = {
        "p1": ("shoes", (0.9, 0.1, 0, 0)),
        "p2": ("shoes", (0.1, 0.9, 0, 0)),
        "p3": ("hats", (0.9, 0.1, 0, 0)),
    }
    for product, (category, embedding) in products.items():
        vddb.put_item(
            TableName=table_name,
            Item={
                "ProductId": {"S": product},
                "Category": {"S": category},
                "Embedding": {"L": vec(*embedding)},
            },
        )
    vddb.put_item(TableName=table_name, Item={"ProductId": {"S": "p4"}, "Embedding": {"L": vec(1, 0, 0, 0)}})
    response = vddb.search_vectors(
        TableName=table_name,
        IndexName="ProductEmbeddingIndex",
        SearchVector=vec(1, 0, 0, 0),
        TopK=5,
        SearchConditionExpression="Category = :cat",
        ExpressionAttributeValues={":cat": {"S": "shoes"}},
    )
    assert [r["Item"]["ProductId"]["S"] for r in response["SearchResults"]] == ["p1", "p2"]
    described = vddb.describe_table(TableName=table_name)["Table"]["VectorIndexes"][0]
    assert described["ItemCount"] == 3  # p4 has no Category: not in the index


def test_update_table_adds_a_filled_index_and_deletes_it(vddb: Backend, table_name: str) -> None:
    vddb.create_table(
        TableName=table_name,
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )
    fill(vddb, table_name)
    vddb.put_item(TableName=table_name, Item={"pk": {"S": "short"}, "embedding": {"L": vec(1, 0)}})
    vddb.put_item(TableName=table_name, Item={"pk": {"S": "text"}, "embedding": {"S": "no"}})
    added = vddb.update_table(
        TableName=table_name,
        AttributeDefinitions=[{"AttributeName": "label", "AttributeType": "S"}],
        VectorIndexUpdates=[
            {
                "Create": vector_index(
                    SearchSchema=[{"AttributeName": "label", "SearchSchemaElementType": "INLINE_FILTER"}]
                )
            }
        ],
    )["TableDescription"]
    shown = added["VectorIndexes"][0]
    assert (shown["IndexStatus"], shown["Backfilling"]) == ("CREATING", True)
    assert {"AttributeName": "label", "AttributeType": "S"} in added["AttributeDefinitions"]
    described = vddb.describe_table(TableName=table_name)["Table"]["VectorIndexes"][0]
    assert (described["IndexStatus"], described["Backfilling"]) == ("ACTIVE", False)
    assert described["ItemCount"] == 4  # the malformed vectors written before the index are left out
    assert list(scores(vddb, table_name, "vix")) == ["a", "d", "b", "c"]
    filtered = scores(
        vddb,
        table_name,
        "vix",
        SearchConditionExpression="label = :l",
        ExpressionAttributeValues={":l": {"S": "item-b"}},
    )
    assert list(filtered) == ["b"]
    # Once the index exists, a malformed vector is refused.
    with pytest.raises(DynamoDBError) as refused:
        vddb.put_item(TableName=table_name, Item={"pk": {"S": "short"}, "embedding": {"L": vec(1, 0)}})
    assert refused.value.code == "ValidationException"

    deleted = vddb.update_table(TableName=table_name, VectorIndexUpdates=[{"Delete": {"IndexName": "vix"}}])
    assert deleted["TableDescription"]["VectorIndexes"][0]["IndexStatus"] == "DELETING"
    assert "VectorIndexes" not in vddb.describe_table(TableName=table_name)["Table"]
    with pytest.raises(DynamoDBError) as gone:
        scores(vddb, table_name, "vix")
    assert gone.value.message == "The table does not have the specified index: vix"
    vddb.put_item(TableName=table_name, Item={"pk": {"S": "short"}, "embedding": {"L": vec(1, 0)}})
