"""A vector index is SQLite's to keep: searches agree with it across a restart, a killed process, another
engine writing the same file, TTL deletes and bulk loads; and without numpy vector search fails with one line.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from singletable.engine import Engine
from singletable.engine.shared import bulk_put


def vec(*numbers: float) -> dict[str, Any]:
    return {"L": [{"N": str(n)} for n in numbers]}


def docs_table(
    name: str = "docs", *, distance: str = "EUCLIDEAN", projection: str = "KEYS_ONLY"
) -> dict[str, Any]:
    """CreateTable's parameters for these tests' table: a string key ``pk`` and a vector index ``vix`` of
    two numbers in ``emb``. The child processes are handed them as JSON, so both sides make the same table."""
    return {
        "TableName": name,
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "BillingMode": "PAY_PER_REQUEST",
        "VectorIndexes": [
            {
                "IndexName": "vix",
                "VectorAttribute": {"AttributeName": "emb"},
                "Dimensions": 2,
                "DistanceFunction": distance,
                "Projection": {"ProjectionType": projection},
            }
        ],
    }


def make_table(engine: Engine, name: str = "docs", ttl: bool = False) -> None:
    engine.create_table(**docs_table(name))
    if ttl:
        engine.update_time_to_live(
            TableName=name, TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"}
        )


# What the child processes start with: an engine on argv[1], creating the table when argv[2] is "create";
# argv[3] is docs_table() as JSON.
CHILD_SETUP = textwrap.dedent(
    """
    import json, sys, time
    from singletable.engine import Engine

    def vector(*numbers):
        return {"L": [{"N": str(n)} for n in numbers]}

    def create(engine, name):
        engine.create_table(**{**json.loads(sys.argv[3]), "TableName": name})

    engine = Engine(sys.argv[1])
    if sys.argv[2] == "create":
        create(engine, "docs")
    """
)
CHILD_TABLE = json.dumps(docs_table())


def found(engine: Engine, name: str = "docs") -> list[str]:
    response = engine.search_vectors(TableName=name, IndexName="vix", SearchVector=vec(0, 0)["L"], TopK=100)
    return [result["Item"]["pk"]["S"] for result in response["SearchResults"]]


def test_restart_rebuilds_the_index_from_sqlite(tmp_path: Path) -> None:
    path = str(tmp_path / "v.db")
    engine = Engine(path)
    make_table(engine)
    for i in range(5):
        engine.put_item(TableName="docs", Item={"pk": {"S": f"k{i}"}, "emb": vec(i, 0)})
    assert found(engine) == ["k0", "k1", "k2", "k3", "k4"]
    engine.delete_item(TableName="docs", Key={"pk": {"S": "k0"}})
    engine.close()
    reopened = Engine(path)
    assert found(reopened) == ["k1", "k2", "k3", "k4"]
    reopened.close()


def test_a_killed_process_loses_no_acknowledged_vector(tmp_path: Path) -> None:
    path = str(tmp_path / "v.db")
    program = CHILD_SETUP + textwrap.dedent(
        """
        engine.search_vectors(TableName="docs", IndexName="vix", SearchVector=vector(0, 0)["L"], TopK=1)
        for i in range(20):
            engine.put_item(TableName="docs", Item={"pk": {"S": f"k{i:02d}"}, "emb": vector(i, 0)})
        print("written", flush=True)
        time.sleep(60)
        """
    )
    child = subprocess.Popen(
        [sys.executable, "-c", program, path, "create", CHILD_TABLE], stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "written"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    engine = Engine(path)
    assert found(engine) == [f"k{i:02d}" for i in range(20)]
    engine.close()


def test_another_engine_on_the_file_sees_every_write(tmp_path: Path) -> None:
    path = str(tmp_path / "v.db")
    first, second = Engine(path), Engine(path)
    make_table(first)
    first.put_item(TableName="docs", Item={"pk": {"S": "a"}, "emb": vec(1, 0)})
    assert found(second) == ["a"]  # built from SQLite
    first.put_item(TableName="docs", Item={"pk": {"S": "b"}, "emb": vec(2, 0)})
    second.put_item(TableName="docs", Item={"pk": {"S": "c"}, "emb": vec(3, 0)})
    assert found(second) == ["a", "b", "c"]  # another engine's write: rebuilt
    assert found(first) == ["a", "b", "c"]
    second.delete_table(TableName="docs")
    assert not second.vectors.indexes  # a dropped table's matrices are let go
    make_table(second)
    assert found(first) == []  # a new table: nothing of the old one's index is left
    first.close()
    second.close()


def test_ttl_deletes_and_bulk_loads_keep_the_index_in_step(tmp_path: Path) -> None:
    now = [1_000_000.0]
    engine = Engine(str(tmp_path / "v.db"), clock=lambda: now[0], ttl_sweep_interval=3600)
    make_table(engine, ttl=True)
    result = bulk_put(
        engine,
        "docs",
        [
            {"pk": {"S": "a"}, "emb": vec(1, 0), "expires": {"N": "1000100"}},
            {"pk": {"S": "b"}, "emb": vec(2, 0)},
            {"pk": {"S": "bad"}, "emb": vec(1)},
        ],
    )
    assert result.written == 2 and [refused.position for refused in result.errors] == [2]
    assert found(engine) == ["a", "b"]
    now[0] = 1_000_200.0
    engine.expire_items()
    assert found(engine) == ["b"]
    engine.close()


def test_streams_carry_vector_writes(tmp_path: Path) -> None:
    engine = Engine(str(tmp_path / "v.db"))
    make_table(engine)
    engine.update_table(
        TableName="docs", StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}
    )
    engine.put_item(TableName="docs", Item={"pk": {"S": "a"}, "emb": vec(1, 0)})
    arn = engine.describe_table(TableName="docs")["Table"]["LatestStreamArn"]
    shard = engine.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = engine.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
    records = engine.get_records(ShardIterator=iterator["ShardIterator"])["Records"]
    assert records[0]["dynamodb"]["NewImage"]["emb"] == vec(1, 0)
    engine.close()


def test_vector_search_without_numpy_fails_with_one_line(tmp_path: Path) -> None:
    path = str(tmp_path / "v.db")
    engine = Engine(path)
    make_table(engine)
    engine.put_item(TableName="docs", Item={"pk": {"S": "a"}, "emb": vec(1, 0)})
    engine.close()
    program = (
        "import sys; sys.modules['numpy'] = None\n"
        + CHILD_SETUP
        + textwrap.dedent(
            """
        engine.put_item(TableName="docs", Item={"pk": {"S": "b"}, "emb": vector(2, 0)})
        print("write ok")
        for call in (
            lambda: engine.search_vectors(
                TableName="docs", IndexName="vix", SearchVector=vector(0, 0)["L"], TopK=1
            ),
            lambda: create(engine, "more"),
        ):
            try:
                call()
            except ImportError as error:
                print(type(error).__name__, error, "|", error.__cause__)
        print("tables", engine.list_tables()["TableNames"])
        import singletable
        from botocore.exceptions import ClientError
        client = singletable.client(engine)
        try:
            client.search_vectors(TableName="docs", IndexName="vix", SearchVector=vector(0, 0)["L"], TopK=1)
        except ClientError as error:
            print(error.response["Error"]["Code"], error.response["Error"]["Message"])
        """
        )
    )
    result = subprocess.run(
        [sys.executable, "-c", program, path, "open", CHILD_TABLE],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    line = "MissingExtra Vector search needs the 'vector' extra: pip install 'singletable[vector]' | None"
    wire = "ValidationException Vector search needs the 'vector' extra: pip install 'singletable[vector]'"
    assert result.stdout.splitlines() == ["write ok", line, line, "tables ['docs']", wire]


@pytest.mark.parametrize("distance", ["COSINE", "DOT_PRODUCT"])
def test_zero_vectors(tmp_path: Path, distance: str) -> None:
    engine = Engine(str(tmp_path / "v.db"))
    engine.create_table(**docs_table(distance=distance, projection="ALL"))
    engine.put_item(TableName="docs", Item={"pk": {"S": "z"}, "emb": vec(0, 0)})
    hit = engine.search_vectors(TableName="docs", IndexName="vix", SearchVector=vec(1, 0)["L"], TopK=1)
    assert hit["SearchResults"][0]["Score"] == (1.0 if distance == "COSINE" else 0.0)
    engine.close()


def test_a_read_only_engine_searches_without_writing(tmp_path: Path) -> None:
    path = str(tmp_path / "v.db")
    engine = Engine(path)
    make_table(engine)
    engine.put_item(TableName="docs", Item={"pk": {"S": "a"}, "emb": vec(1, 0)})
    engine.close()
    before = Path(path).read_bytes()
    reader = Engine(path, read_only=True)
    assert found(reader) == ["a"]
    reader.close()
    assert Path(path).read_bytes() == before
