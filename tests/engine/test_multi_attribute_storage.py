"""Multi-attribute index keys in storage: every write path keeps the entries equal to what the items make
them (the bulk load, TTL deletes, streams and the backfill included), the stored key bytes sort as DynamoDB
sorts the parts, and a Query equals a filter and sort of the table's items, for random items and conditions.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_index_entries import assert_entries_agree

from draws import examples
from singletable.engine import DynamoDBError, Engine
from singletable.engine._bulk_load import bulk_put
from singletable.engine._keys import encode_key, join_key_parts, parts_end


def S(value: str) -> dict[str, str]:
    return {"S": value}


def _gsi(
    name: str, hash_names: list[str], range_names: list[str], projection: dict[str, Any]
) -> dict[str, Any]:
    schema = [{"AttributeName": n, "KeyType": "HASH"} for n in hash_names]
    schema += [{"AttributeName": n, "KeyType": "RANGE"} for n in range_names]
    return {"IndexName": name, "KeySchema": schema, "Projection": projection}


def test_every_kind_of_write_keeps_multi_attribute_entries_in_step(tmp_path: Path, monkeypatch) -> None:
    from singletable.engine import _backfill as backfill

    monkeypatch.setattr(backfill, "AUTO_START", False)
    clock = [1_800_000_000.0]
    path = str(tmp_path / "db.sqlite3")
    with Engine(path, clock=lambda: clock[0], ttl_sweep_interval=3600) as engine:
        engine.create_table(
            TableName="tbl",
            BillingMode="PAY_PER_REQUEST",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[
                {"AttributeName": n, "AttributeType": t}
                for n, t in (("pk", "S"), ("t", "S"), ("r", "S"), ("n", "N"), ("b", "B"))
            ],
            GlobalSecondaryIndexes=[
                _gsi("all", ["t", "r"], ["n", "b"], {"ProjectionType": "ALL"}),
                _gsi("inc", ["t"], ["n", "r"], {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["x"]}),
            ],
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
        )
        engine.update_time_to_live(
            TableName="tbl", TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"}
        )

        def item(pk: str, n: int, **extra: Any) -> dict[str, Any]:
            return {
                "pk": S(pk),
                "t": S("t"),
                "r": S("r\x00" + pk),
                "n": {"N": str(n)},
                "b": {"B": b"\x00"},
                **extra,
            }

        for n in range(6):
            engine.put_item(TableName="tbl", Item=item(str(n), -n, x=S("x")))
        engine.update_item(
            TableName="tbl",
            Key={"pk": S("1")},
            UpdateExpression="SET n = :n, x = :x",
            ExpressionAttributeValues={":n": {"N": "100"}, ":x": S("y")},
        )
        engine.update_item(TableName="tbl", Key={"pk": S("2")}, UpdateExpression="REMOVE b")
        engine.delete_item(TableName="tbl", Key={"pk": S("3")})
        engine.batch_write_item(
            RequestItems={
                "tbl": [{"PutRequest": {"Item": item("7", 7)}}, {"DeleteRequest": {"Key": {"pk": S("4")}}}]
            }
        )
        engine.transact_write_items(
            TransactItems=[
                {
                    "Update": {
                        "TableName": "tbl",
                        "Key": {"pk": S("5")},
                        "UpdateExpression": "SET r = :r",
                        "ExpressionAttributeValues": {":r": S("other")},
                    }
                },
                {"Put": {"TableName": "tbl", "Item": item("8", 8)}},
            ]
        )
        engine.execute_statement(Statement="UPDATE \"tbl\" SET n = 3 WHERE pk = '0'")
        assert bulk_put(engine, "tbl", [item(f"b{n}", n) for n in range(40)]).written == 40
        engine.put_item(TableName="tbl", Item=item("e", 1, exp={"N": str(int(clock[0]) - 5)}))
        assert_entries_agree(path)
        assert engine.expire_items() == 1
        engine.update_table(
            TableName="tbl",
            GlobalSecondaryIndexUpdates=[
                {"Create": _gsi("late", ["r", "t"], ["b", "n", "pk"], {"ProjectionType": "KEYS_ONLY"})}
            ],
        )
        engine.put_item(TableName="tbl", Item=item("during", 9))  # indexed while the backfill runs
        engine.background.run_backfills()
        got = engine.query(
            TableName="tbl",
            IndexName="late",
            KeyConditionExpression="r = :r AND t = :t",
            ExpressionAttributeValues={":r": S("r\x00during"), ":t": S("t")},
        )["Items"]
        assert [i["pk"] for i in got] == [S("during")]
        assert assert_entries_agree(path) > 100
        stream_arn = engine.describe_table(TableName="tbl")["Table"]["LatestStreamArn"]
        shard = engine.describe_stream(StreamArn=stream_arn)["StreamDescription"]["Shards"][0]["ShardId"]
        iterator = engine.get_shard_iterator(
            StreamArn=stream_arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON"
        )
        records = engine.get_records(ShardIterator=iterator["ShardIterator"], Limit=1000)["Records"]
        removed = [r for r in records if r["eventName"] == "REMOVE"]
        assert removed[-1]["userIdentity"]["principalId"] == "dynamodb.amazonaws.com"  # the TTL delete


# -- the stored bytes sort as DynamoDB sorts the parts -----------------------------------------------------

numbers = st.decimals(
    min_value=Decimal("-1E+9"), max_value=Decimal("1E+9"), allow_nan=False, allow_infinity=False, places=3
).map(lambda d: format(d.normalize(), "f"))
strings = st.text(
    alphabet=st.sampled_from(["a", "b", "\x00", "é", "\uffff", "\U0001d11e"]), min_size=1, max_size=4
)
binaries = st.binary(min_size=1, max_size=4).map(
    lambda b: b.replace(b"\x01", b"\x00")
)  # zeros are the hard case
KINDS = ("N", "S", "B")
VALUES = {"N": numbers, "S": strings, "B": binaries}


def dynamodb_order(kind: str, value: Any) -> Any:
    if kind == "N":
        return Decimal(value)
    if kind == "S":
        return value.encode("utf-8")
    return bytes(value)


def wire(kind: str, value: Any) -> dict[str, Any]:
    return {kind: value}


@settings(max_examples=examples(200), deadline=None)
@given(
    data=st.data(), kinds=st.lists(st.sampled_from(KINDS), min_size=2, max_size=4), prefix=st.integers(0, 3)
)
def test_joined_keys_sort_and_prefix_as_their_parts(data, kinds: list[str], prefix: int) -> None:
    parts = st.tuples(*(VALUES[k] for k in kinds))
    left, right = data.draw(parts), data.draw(parts)

    def joined(values: tuple[Any, ...]) -> bytes:
        return join_key_parts([encode_key(wire(k, v), k) for k, v in zip(kinds, values, strict=True)])

    model_left = tuple(dynamodb_order(k, v) for k, v in zip(kinds, left, strict=True))
    model_right = tuple(dynamodb_order(k, v) for k, v in zip(kinds, right, strict=True))
    assert (joined(left) < joined(right)) == (model_left < model_right)
    assert (joined(left) == joined(right)) == (model_left == model_right)
    n = min(prefix + 1, len(kinds))
    head = join_key_parts([encode_key(wire(k, v), k) for k, v in zip(kinds[:n], right[:n], strict=True)])
    inside = head <= joined(left) < parts_end(head)
    assert inside == (model_left[:n] == model_right[:n])


# -- Query equals a filter and sort of the items -------------------------------------------------------------

RANGE_KINDS = ("N", "S", "B")  # the index: HASH h (S), RANGE r0 (N), r1 (S), r2 (B)
OPS = ["=", "<", "<=", ">", ">=", "BETWEEN", "begins_with"]
_tables = iter(range(10**9))


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory):
    with Engine(str(Path(tmp_path_factory.mktemp("multi")) / "db.sqlite3")) as engine:
        yield engine


def _matches(op: str, value: Any, operands: list[Any]) -> bool:
    if op == "=":
        return value == operands[0]
    if op == "<":
        return value < operands[0]
    if op == "<=":
        return value <= operands[0]
    if op == ">":
        return value > operands[0]
    if op == ">=":
        return value >= operands[0]
    if op == "BETWEEN":
        return operands[0] <= value <= operands[1]
    return value[: len(operands[0])] == operands[0]


@settings(
    max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data(), forward=st.booleans(), limit=st.integers(1, 6), equal=st.integers(0, 3))
def test_query_equals_a_filter_and_sort_of_the_items(
    engine: Engine, data, forward: bool, limit: int, equal: int
) -> None:
    table = f"multi{next(_tables)}"
    engine.create_table(
        TableName=table,
        BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "h", "AttributeType": "S"},
        ]
        + [{"AttributeName": f"r{i}", "AttributeType": k} for i, k in enumerate(RANGE_KINDS)],
        GlobalSecondaryIndexes=[_gsi("gsi", ["h"], ["r0", "r1", "r2"], {"ProjectionType": "ALL"})],
    )
    small = {
        "N": st.sampled_from(["-2", "-1.5", "0", "1", "10", "100"]),
        "S": st.sampled_from(["a", "a\x00", "ab", "b", "é"]),
    }
    small["B"] = st.sampled_from([b"\x00", b"\x00\x00", b"\x00\xff", b"\xff", b"a"])
    items = []
    for n in range(data.draw(st.integers(0, 14))):
        item: dict[str, Any] = {"pk": S(f"p{n}"), "h": S(data.draw(st.sampled_from(["x", "y"])))}
        for i, kind in enumerate(RANGE_KINDS):
            if data.draw(st.integers(0, 9)) > 0:  # now and then a key attribute is missing: not indexed
                item[f"r{i}"] = {kind: data.draw(small[kind])}
        engine.put_item(TableName=table, Item=item)
        items.append(item)

    # Equalities on the first ``equal`` RANGE attributes, then perhaps one test on the next.
    conditions = ["h = :h"]
    values: dict[str, Any] = {":h": S("x")}
    tests: list[tuple[int, str, list[dict[str, Any]]]] = []
    for i in range(equal):
        values[f":e{i}"] = {RANGE_KINDS[i]: data.draw(small[RANGE_KINDS[i]])}
        conditions.append(f"r{i} = :e{i}")
        tests.append((i, "=", [values[f":e{i}"]]))
    if equal < 3 and data.draw(st.booleans()):
        kind = RANGE_KINDS[equal]
        ops = OPS if kind != "N" else OPS[:-1]
        op = data.draw(st.sampled_from(ops))
        operands = [{kind: data.draw(small[kind])} for _ in range(2 if op == "BETWEEN" else 1)]
        if op == "BETWEEN":
            operands.sort(key=lambda av: dynamodb_order(kind, av[kind]))
        for j, av in enumerate(operands):
            values[f":t{j}"] = av
        placeholders = [f":t{j}" for j in range(len(operands))]
        if op == "BETWEEN":
            conditions.append(f"r{equal} BETWEEN :t0 AND :t1")
        elif op == "begins_with":
            conditions.append(f"begins_with(r{equal}, :t0)")
        else:
            conditions.append(f"r{equal} {op} {placeholders[0]}")
        tests.append((equal, op, operands))

    def in_model(item: dict[str, Any]) -> bool:
        if item["h"] != S("x") or any(f"r{i}" not in item for i in range(3)):
            return False
        for i, op, operands in tests:
            kind = RANGE_KINDS[i]
            value = dynamodb_order(kind, item[f"r{i}"][kind])
            if not _matches(op, value, [dynamodb_order(kind, av[kind]) for av in operands]):
                return False
        return True

    def index_key(item: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(dynamodb_order(k, item[f"r{i}"][k]) for i, k in enumerate(RANGE_KINDS))

    expected = sorted((i for i in items if in_model(i)), key=index_key, reverse=not forward)
    got: list[dict[str, Any]] = []
    start: dict[str, Any] | None = None
    while True:
        page = engine.query(
            TableName=table,
            IndexName="gsi",
            KeyConditionExpression=" AND ".join(conditions),
            ExpressionAttributeValues=values,
            ScanIndexForward=forward,
            Limit=limit,
            **({"ExclusiveStartKey": start} if start else {}),
        )
        got += page["Items"]
        start = page.get("LastEvaluatedKey")
        if start is None:
            break
        assert set(start) == {"pk", "h", "r0", "r1", "r2"}
    assert [index_key(i) for i in got] == [index_key(i) for i in expected]
    assert sorted(i["pk"]["S"] for i in got) == sorted(i["pk"]["S"] for i in expected)
    engine.delete_table(TableName=table)


# -- hostile items: each write refused in DynamoDB's words, or indexed exactly when it should be ---------

hostile_values = st.one_of(
    st.none(),  # the attribute is missing
    st.just({"S": ""}),
    st.just({"B": b""}),
    st.just({"BOOL": True}),
    st.just({"NULL": True}),
    st.just({"SS": ["a"]}),
    st.sampled_from(["a", "\x00", "é"]).map(lambda s: {"S": s}),
    st.sampled_from(["0", "-1", "1e10"]).map(lambda n: {"N": n}),
    st.binary(min_size=1, max_size=3).map(lambda b: {"B": b}),
    st.just({"S": "x" * 2049}),
)
KEY_TYPES = {"h1": "S", "h2": "N", "r1": "B", "r2": "S"}


def _refusal_of(name: str, value: dict[str, Any]) -> str:
    """DynamoDB's text for a bad value of index key attribute ``name`` of index ``gsi``."""
    expected = KEY_TYPES[name]
    actual = next(iter(value))
    if actual != expected:
        return (
            f"One or more parameter values were invalid: Type mismatch for Index Key {name} "
            f"Expected: {expected} Actual: {actual} IndexName: gsi"
        )
    if value[actual] in ("", b""):
        kind = "string" if actual == "S" else "binary"
        return (
            "One or more parameter values are not valid. A value specified for a secondary index key is not "
            f"supported. The AttributeValue for a key attribute cannot contain an empty {kind} value. "
            f"IndexName: gsi, IndexKey: {name}"
        )
    limit = 2048 if name.startswith("h") else 1024
    return (
        f"One or more parameter values were invalid: Size limit exceeded for Index Key {name} Actual Size: "
        f"{len(value[actual])} bytes Max Size: {limit} bytes IndexName: gsi"
    )


@settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rows=st.lists(st.fixed_dictionaries({name: hostile_values for name in KEY_TYPES}), max_size=8))
def test_hostile_key_values_are_refused_or_indexed_exactly(engine: Engine, rows) -> None:
    table = f"hostile{next(_tables)}"
    engine.create_table(
        TableName=table,
        BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}]
        + [{"AttributeName": n, "AttributeType": t} for n, t in KEY_TYPES.items()],
        GlobalSecondaryIndexes=[_gsi("gsi", ["h1", "h2"], ["r1", "r2"], {"ProjectionType": "KEYS_ONLY"})],
    )
    indexed = set()
    for n, row in enumerate(rows):
        item = {"pk": S(str(n)), **{k: v for k, v in row.items() if v is not None}}
        present = [(k, v) for k, v in row.items() if v is not None]
        bad = [
            (k, v)
            for k, v in present
            if list(v) != [KEY_TYPES[k]]
            or v[KEY_TYPES[k]] in ("", b"")
            or len(v[KEY_TYPES[k]]) > (2048 if k.startswith("h") else 1024)
        ]
        try:
            engine.put_item(TableName=table, Item=item)
        except DynamoDBError as error:
            assert error.code == "ValidationException", error
            assert any(_refusal_of(name, value) == error.message for name, value in bad), error.message
            continue
        assert not bad, f"accepted {bad}"
        if len(present) == len(KEY_TYPES):
            indexed.add(str(n))
    got = {i["pk"]["S"] for i in engine.scan(TableName=table, IndexName="gsi")["Items"]}
    assert got == indexed
    engine.delete_table(TableName=table)
