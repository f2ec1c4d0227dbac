"""Engine.copy(): a new engine on its own copy of the database -- what gives each test its own tables."""

from __future__ import annotations

from table_support import g_indexed_table

from singletable.engine import Engine


def make(engine: Engine) -> None:
    engine.create_table(
        **g_indexed_table(
            "orders", StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}
        )
    )
    engine.put_item(TableName="orders", Item={"pk": {"S": "a"}, "g": {"S": "x"}})


def test_a_copy_has_everything_and_is_independent():
    source = Engine(":memory:")
    make(source)
    copy = source.copy()
    assert copy.table_names() == ["orders"]
    query = {"TableName": "orders", "IndexName": "byG", "KeyConditionExpression": "g = :g"}
    values = {":g": {"S": "x"}}
    assert copy.query(**query, ExpressionAttributeValues=values)["Count"] == 1
    copy.put_item(TableName="orders", Item={"pk": {"S": "b"}, "g": {"S": "x"}})
    assert copy.query(**query, ExpressionAttributeValues=values)["Count"] == 2
    assert source.query(**query, ExpressionAttributeValues=values)["Count"] == 1
    source.put_item(TableName="orders", Item={"pk": {"S": "c"}, "g": {"S": "x"}})
    assert copy.get_item(TableName="orders", Key={"pk": {"S": "c"}}).get("Item") is None
    copy.create_table(
        TableName="other",
        BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
    )
    assert source.table_names() == ["orders"]
    copy.close()
    source.close()


def test_a_copy_to_a_file_keeps_the_clock(tmp_path):
    source = Engine(":memory:", clock=lambda: 1_000.0)
    make(source)
    path = tmp_path / "copy.db"
    copy = source.copy(str(path))
    assert copy.clock() == 1_000.0
    copy.close()
    reopened = Engine(str(path))
    assert reopened.scan(TableName="orders")["Count"] == 1
    assert reopened.describe_table(TableName="orders")["Table"]["LatestStreamArn"]
    reopened.close()
