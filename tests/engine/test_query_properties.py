"""Property tests: Query on the engine agrees with a plain Python model of DynamoDB's ordering."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from draws import examples
from pk_sk_table import pk_sk_table
from singletable.engine import Engine

numbers = st.decimals(
    min_value=Decimal("-1E+20"), max_value=Decimal("1E+20"), allow_nan=False, allow_infinity=False, places=6
).map(lambda d: format(d.normalize(), "f"))
strings = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), min_codepoint=1), min_size=1, max_size=6
)
binaries = st.binary(min_size=1, max_size=6)
OPS = ["=", "<", "<=", ">", ">=", "BETWEEN", "BEGINS_WITH"]


def sort_value(kind: str, value):
    if kind == "N":
        return Decimal(value)
    if kind == "S":
        return value.encode("utf-8")
    return bytes(value)


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory):
    path = Path(tmp_path_factory.mktemp("props")) / "db.sqlite3"
    with Engine(str(path)) as engine:
        for kind in ("N", "S", "B"):
            engine.create_table(**pk_sk_table(f"props_{kind}", kind))
        yield engine


_partition = iter(range(10**9))


@settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data(), kind=st.sampled_from(["N", "S", "B"]), forward=st.booleans(), limit=st.integers(1, 7))
def test_query_matches_model(engine: Engine, data, kind: str, forward: bool, limit: int):
    values_strategy = {"N": numbers, "S": strings, "B": binaries}[kind]
    values = data.draw(
        st.lists(values_strategy, min_size=0, max_size=15, unique_by=lambda v: sort_value(kind, v))
    )
    table = f"props_{kind}"
    partition = f"p{next(_partition)}"
    for value in values:
        engine.put_item(TableName=table, Item={"PK": {"S": partition}, "SK": {kind: value}})
    ops = OPS if kind != "N" else OPS[:-1]
    op = data.draw(st.sampled_from(ops))
    a = data.draw(values_strategy)
    b = data.draw(values_strategy)
    if op == "BETWEEN" and sort_value(kind, a) > sort_value(kind, b):
        a, b = b, a
    condition = {
        "=": "SK = :a",
        "<": "SK < :a",
        "<=": "SK <= :a",
        ">": "SK > :a",
        ">=": "SK >= :a",
        "BETWEEN": "SK BETWEEN :a AND :b",
        "BEGINS_WITH": "begins_with(SK, :a)",
    }[op]
    names = {":p": {"S": partition}, ":a": {kind: a}}
    if op == "BETWEEN":
        names[":b"] = {kind: b}

    def keep(value) -> bool:
        v, lo = sort_value(kind, value), sort_value(kind, a)
        if op == "=":
            return v == lo
        if op == "<":
            return v < lo
        if op == "<=":
            return v <= lo
        if op == ">":
            return v > lo
        if op == ">=":
            return v >= lo
        if op == "BETWEEN":
            return lo <= v <= sort_value(kind, b)
        return v.startswith(lo)

    expected = sorted((v for v in values if keep(v)), key=lambda v: sort_value(kind, v), reverse=not forward)
    got = []
    params = dict(
        TableName=table,
        KeyConditionExpression=f"PK = :p AND {condition}",
        ExpressionAttributeValues=names,
        ScanIndexForward=forward,
        Limit=limit,
    )
    while True:
        page = engine.query(**params)
        assert page["Count"] <= limit
        got += [item["SK"][kind] for item in page["Items"]]
        if "LastEvaluatedKey" not in page:
            break
        params["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    assert [sort_value(kind, v) for v in got] == [sort_value(kind, v) for v in expected]
