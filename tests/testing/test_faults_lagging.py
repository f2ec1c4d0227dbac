"""FaultPlan.lagging_index: a GSI read answers as if the table's last N item writes had not happened.

Checked against a reference model (the table's state after each write, kept by the test) for sequences of
puts, updates, deletes, conditional writes, batches, transactions and PartiQL statements drawn by
hypothesis; the table's own reads stay strongly consistent throughout.
"""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError
from fault_support import INDEX, TABLE, ThreadServer, create_orders, in_process
from hypothesis import given, settings
from hypothesis import strategies as st

from draws import examples
from singletable.engine import Engine
from singletable.testing import FaultPlan


def order(pk: str, customer: str | None = "ann", **extra: str) -> dict[str, Any]:
    found = {"pk": {"S": pk}, "sk": {"S": "order"}, **{k: {"S": v} for k, v in extra.items()}}
    if customer is not None:
        found["customer"] = {"S": customer}
    return found


def key(pk: str) -> dict[str, Any]:
    return {"pk": {"S": pk}, "sk": {"S": "order"}}


def by_customer(client: Any, customer: str = "ann", **options: Any) -> list[str]:
    items = client.query(
        TableName=TABLE,
        IndexName=INDEX,
        KeyConditionExpression="customer = :c",
        ExpressionAttributeValues={":c": {"S": customer}},
        **options,
    )["Items"]
    return sorted(i["pk"]["S"] + i.get("v", {}).get("S", "") for i in items)


def test_the_index_misses_the_last_n_writes_and_the_table_sees_them(engine, faults):
    client = in_process(engine, attempts=1)
    faults.lagging_index(TABLE, INDEX, writes=2)
    for pk in ("a", "b", "c", "d"):
        client.put_item(TableName=TABLE, Item=order(pk))
    assert by_customer(client) == ["a", "b"]
    assert sorted(i["pk"]["S"] for i in client.scan(TableName=TABLE)["Items"]) == ["a", "b", "c", "d"]
    assert "Item" in client.get_item(TableName=TABLE, Key=key("d"))
    client.delete_item(TableName=TABLE, Key=key("a"))
    assert by_customer(client) == ["a", "b", "c"]  # c caught up; a's delete not yet seen
    assert [a.fault for a in faults.attempts("Query")] == ["LaggingIndex", "LaggingIndex"]
    faults.catch_up(TABLE, INDEX)
    assert by_customer(client) == ["b", "c", "d"]


def test_an_item_changed_several_times_shows_its_state_before_the_earliest(engine, faults):
    client = in_process(engine, attempts=1)
    client.put_item(TableName=TABLE, Item=order("a", v="1"))
    faults.lagging_index(TABLE, INDEX, writes=3)
    client.put_item(TableName=TABLE, Item=order("a", v="2"))
    client.put_item(TableName=TABLE, Item=order("a", customer="bob", v="3"))  # moves to another partition
    assert by_customer(client, "ann") == ["a1"] and by_customer(client, "bob") == []
    client.put_item(TableName=TABLE, Item=order("x"))
    client.put_item(TableName=TABLE, Item=order("y"))
    assert by_customer(client, "ann") == ["a2"] and by_customer(client, "bob") == []  # one write in
    client.put_item(TableName=TABLE, Item=order("z"))
    assert by_customer(client, "ann") == [] and by_customer(client, "bob") == ["a3"]


def test_a_lagging_index_pages_consistently_and_keeps_its_errors(engine, faults):
    client = in_process(engine, attempts=1)
    for pk in "abcdef":
        client.put_item(TableName=TABLE, Item=order(pk))
    faults.lagging_index(TABLE, INDEX, writes=2)
    client.delete_item(TableName=TABLE, Key=key("b"))
    client.put_item(TableName=TABLE, Item=order("g"))
    seen, start = [], None
    while True:
        page = client.query(
            TableName=TABLE,
            IndexName=INDEX,
            KeyConditionExpression="customer = :c",
            ExpressionAttributeValues={":c": {"S": "ann"}},
            Limit=2,
            **({"ExclusiveStartKey": start} if start else {}),
        )
        seen += [i["pk"]["S"] for i in page["Items"]]
        start = page.get("LastEvaluatedKey")
        if not start:
            break
    assert seen == list("abcdef")
    scanned = client.scan(TableName=TABLE, IndexName=INDEX, Select="COUNT")
    assert scanned["Count"] == 6
    with pytest.raises(ClientError, match="Consistent reads are not supported on global secondary indexes"):
        by_customer(client, ConsistentRead=True)


def test_the_lag_holds_over_http_and_for_partiql_writes(engine, faults):
    server = ThreadServer(engine)
    try:
        client = server.client(attempts=1)
        faults.lagging_index(TABLE, INDEX, writes=1)
        client.put_item(TableName=TABLE, Item=order("a"))
        client.execute_statement(
            Statement=f"INSERT INTO \"{TABLE}\" VALUE {{'pk': 'b', 'sk': 'order', 'customer': 'ann'}}"
        )
        assert by_customer(client) == ["a"]
        client.execute_statement(Statement=f"DELETE FROM \"{TABLE}\" WHERE pk = 'a' AND sk = 'order'")
        assert by_customer(client) == ["a", "b"]
    finally:
        server.stop()


# -- the rule, against a reference model ------------------------------------------------------------------

PKS = ("a", "b", "c")
CUSTOMERS = ("ann", "bob", None)

writes = st.one_of(
    st.tuples(st.just("put"), st.sampled_from(PKS), st.sampled_from(CUSTOMERS), st.sampled_from("123")),
    st.tuples(st.just("put_new"), st.sampled_from(PKS), st.sampled_from(CUSTOMERS), st.sampled_from("123")),
    st.tuples(st.just("update"), st.sampled_from(PKS), st.sampled_from(CUSTOMERS), st.sampled_from("123")),
    st.tuples(st.just("delete"), st.sampled_from(PKS), st.none(), st.none()),
    st.tuples(
        st.just("batch"),
        st.lists(st.sampled_from(PKS), min_size=1, max_size=3, unique=True),
        st.none(),
        st.sampled_from("123"),
    ),
    st.tuples(
        st.just("transact"),
        st.lists(st.sampled_from(PKS), min_size=1, max_size=2, unique=True),
        st.sampled_from(CUSTOMERS),
        st.sampled_from("123"),
    ),
)


def apply(client: Any, state: dict[str, dict], history: list[dict[str, dict]], write: tuple) -> None:
    """Send ``write``; bring the model along: ``history`` gets the state after each item write made."""
    kind, target, customer, value = write

    def record(pk: str, new: dict | None) -> None:
        if new is None:
            state.pop(pk, None)
        else:
            state[pk] = new
        history.append(dict(state))

    if kind in ("put", "put_new"):
        new = {"customer": customer, "v": value}
        try:
            extra = {"ConditionExpression": "attribute_not_exists(pk)"} if kind == "put_new" else {}
            client.put_item(TableName=TABLE, Item=order(target, customer, v=value), **extra)
        except client.exceptions.ConditionalCheckFailedException:
            return  # refused: no write
        record(target, new)
    elif kind == "update":
        names = {"#v": "v"} | ({"#c": "customer"} if customer else {})
        expression = "SET #v = :v" + (", #c = :c" if customer else " REMOVE customer")
        values = {":v": {"S": value}} | ({":c": {"S": customer}} if customer else {})
        client.update_item(
            TableName=TABLE,
            Key=key(target),
            UpdateExpression=expression,
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
        )
        record(target, {"customer": customer, "v": value})
    elif kind == "delete":
        client.delete_item(TableName=TABLE, Key=key(target))
        record(target, None)
    elif kind == "batch":
        requests = [{"PutRequest": {"Item": order(pk, "ann", v=value)}} for pk in target]
        client.batch_write_item(RequestItems={TABLE: requests})
        for pk in target:
            record(pk, {"customer": "ann", "v": value})
    else:
        client.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": TABLE, "Item": order(pk, customer, v=value)}} for pk in target
            ]
        )
        for pk in target:
            record(pk, {"customer": customer, "v": value})


@settings(max_examples=examples(15))
@given(lag=st.integers(min_value=1, max_value=4), script=st.lists(writes, max_size=10))
def test_a_lagging_index_answers_the_state_of_n_writes_ago(lag, script):
    with Engine(":memory:") as engine, FaultPlan().attach(engine) as faults:
        create_orders(engine)
        faults.lagging_index(TABLE, INDEX, writes=lag)
        client = in_process(engine, attempts=1)
        state: dict[str, dict] = {}
        history: list[dict[str, dict]] = [{}]
        for write in script:
            apply(client, state, history, write)
            then = history[max(0, len(history) - 1 - lag)]
            for customer in ("ann", "bob"):
                want = sorted(pk + i["v"] for pk, i in then.items() if i["customer"] == customer)
                assert by_customer(client, customer) == want
            index_scan = client.scan(TableName=TABLE, IndexName=INDEX)["Items"]
            assert sorted(i["pk"]["S"] for i in index_scan) == sorted(
                pk for pk, i in then.items() if i["customer"]
            )
            table_scan = client.scan(TableName=TABLE, ConsistentRead=True)["Items"]
            assert sorted(i["pk"]["S"] + i["v"]["S"] for i in table_scan) == sorted(
                p + i["v"] for p, i in state.items()
            )


def test_a_keys_only_index_lags_with_its_projection(tmp_path):
    with Engine(str(tmp_path / "keys.sqlite3")) as engine, FaultPlan().attach(engine) as faults:
        create_orders(engine, projection="KEYS_ONLY")
        client = in_process(engine, attempts=1)
        client.put_item(TableName=TABLE, Item=order("a", v="1"))
        faults.lagging_index(TABLE, INDEX, writes=1)
        client.put_item(TableName=TABLE, Item=order("b", v="2"))
        items = client.query(
            TableName=TABLE,
            IndexName=INDEX,
            KeyConditionExpression="customer = :c",
            ExpressionAttributeValues={":c": {"S": "ann"}},
        )["Items"]
        assert items == [{"pk": {"S": "a"}, "sk": {"S": "order"}, "customer": {"S": "ann"}}]


def test_only_the_processed_part_of_a_batch_counts_as_writes(engine, faults):
    client = in_process(engine, attempts=1)
    faults.lagging_index(TABLE, INDEX, writes=1)
    faults.unprocessed("BatchWriteItem", items=2)
    requests = [{"PutRequest": {"Item": order(pk)}} for pk in "abcd"]
    assert len(client.batch_write_item(RequestItems={TABLE: requests})["UnprocessedItems"][TABLE]) == 2
    assert by_customer(client) == ["a"]  # a and b written, b not yet seen; c and d never written
