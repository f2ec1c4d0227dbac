"""The engine's bulk load stores exactly what the same PutItems would: items, index entries, stream records;
refuses bad items with PutItem's own errors, by position; and commits a chunk all at once or not at all."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tables import create

from draws import examples
from singletable.engine import DynamoDBError, Engine
from singletable.engine._bulk_load import bulk_put

STREAM = {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}


def _engine(path: Path) -> Engine:
    engine = Engine(str(path))
    create(engine, "bulk", gsi=True)
    engine.update_table(TableName="bulk", StreamSpecification=STREAM)
    return engine


def _state(engine: Engine) -> dict[str, Any]:
    """Everything a write leaves behind: the table, both indexes, the stream's records."""
    scans = {
        index: engine.scan(TableName="bulk", **({"IndexName": index} if index else {}))["Items"]
        for index in (None, "GSI1", "GSI2")
    }
    arn = engine.describe_table(TableName="bulk")["Table"]["LatestStreamArn"]
    shard = engine.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = engine.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
    records = engine.get_records(ShardIterator=iterator["ShardIterator"])["Records"]
    changes = [
        (r["eventName"], r["dynamodb"].get("OldImage"), r["dynamodb"].get("NewImage")) for r in records
    ]
    return {"scans": scans, "changes": changes}


items = st.lists(
    st.builds(
        lambda pk, sk, g1, g2, v: {
            "PK": {"S": f"p{pk}"},
            "SK": {"S": f"s{sk}"},
            **({"G1PK": {"S": f"g{g1}"}, "G1SK": {"N": str(v)}} if g1 is not None else {}),
            **({"G2PK": {"S": f"h{g2}"}} if g2 is not None else {}),
            "v": {"N": str(v)},
        },
        st.integers(0, 3),
        st.integers(0, 3),
        st.one_of(st.none(), st.integers(0, 2)),
        st.one_of(st.none(), st.integers(0, 2)),
        st.integers(0, 99),
    ),
    max_size=30,
)


@settings(
    max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(first=items, second=items)
def test_bulk_load_leaves_what_the_same_put_items_leave(tmp_path_factory, first, second):
    directory = tmp_path_factory.mktemp("bulk")
    with _engine(directory / "bulk.db") as bulk, _engine(directory / "puts.db") as puts:
        for chunk in (first, second):  # the second chunk overwrites items of the first, and itself
            assert bulk_put(bulk, "bulk", chunk).written == len(chunk)
            for item in chunk:
                puts.put_item(TableName="bulk", Item=item)
        assert _state(bulk) == _state(puts)


def test_bad_items_come_back_by_position_with_put_items_errors(tmp_path):
    with _engine(tmp_path / "a.db") as engine:
        chunk = [
            {"PK": {"S": "a"}, "SK": {"S": "1"}},
            {"PK": {"S": "b"}},
            {"PK": {"S": "c"}, "SK": {"S": "3"}, "G1PK": {"N": "1"}},
            {"PK": {"S": "d"}, "SK": {"S": "4"}},
        ]
        result = bulk_put(engine, "bulk", chunk)
        assert result.written == 2
        assert [(p, e.code, e.message) for p, e in result.errors] == [
            (1, "ValidationException", "One of the required keys was not given a value"),
            (
                2,
                "ValidationException",
                "One or more parameter values were invalid: Type mismatch for Index Key G1PK Expected: S "
                "Actual: N IndexName: GSI1",
            ),
        ]
        assert sorted(i["PK"]["S"] for i in engine.scan(TableName="bulk")["Items"]) == ["a", "d"]


def test_stop_at_error_writes_nothing_after_the_first_bad_item(tmp_path):
    with _engine(tmp_path / "a.db") as engine:
        chunk = [
            {"PK": {"S": "a"}, "SK": {"S": "1"}},
            {"PK": {"S": "b"}},
            {"PK": {"S": "c"}, "SK": {"S": "3"}},
        ]
        result = bulk_put(engine, "bulk", chunk, stop_at_error=True)
        assert result.written == 1 and [p for p, _ in result.errors] == [1]
        assert [i["PK"]["S"] for i in engine.scan(TableName="bulk")["Items"]] == ["a"]


def test_a_missing_table_writes_nothing(tmp_path):
    with Engine(str(tmp_path / "a.db")) as engine, pytest.raises(DynamoDBError) as caught:
        bulk_put(engine, "absent", [{"PK": {"S": "a"}}])
    assert (caught.value.code, caught.value.message) == (
        "ResourceNotFoundException",
        "Requested resource not found",
    )


def test_a_chunk_is_one_transaction_and_another_writer_gets_a_conflict(tmp_path):
    path = tmp_path / "a.db"
    with _engine(path) as engine:
        engine.storage.busy_timeout = 0.05
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        try:
            with pytest.raises(DynamoDBError) as caught:
                bulk_put(engine, "bulk", [{"PK": {"S": str(i)}, "SK": {"S": "x"}} for i in range(100)])
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert caught.value.code == "TransactionConflictException"
        assert engine.scan(TableName="bulk")["Count"] == 0
        assert bulk_put(engine, "bulk", [{"PK": {"S": "a"}, "SK": {"S": "x"}}]).written == 1
