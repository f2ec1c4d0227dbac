"""SearchVectors' exact search: p50 per search at 10,000 and 100,000 vectors of 768 dimensions, and what
opening a file costs the first search (the in-memory matrix rebuilt from SQLite).

    python3 bench/vector_search.py [--sizes 10000 100000] [--dims 768] [--searches 50] [--through-engine]

Each size gets its own file in a temporary directory: a table with one COSINE vector index (KEYS_ONLY), its
items holding random unit vectors. By default the rows are written through the storage layer exactly as the
write path stores them (the item's JSON, its vector entry packed as float32) -- the write path's own
validation of 76.8 million numbers would take ~20 minutes on a 2-core machine, and it is not what this
measures; ``--through-engine`` loads the same items with ``bulk_put`` instead. Then, per size:

- ``open+rebuild``: a fresh ``Engine`` on the file and its first search (which builds the index's matrix from
  SQLite: what a restart or a killed process costs the first search after it), and the build alone;
- ``search p50``: the median wall time of ``--searches`` SearchVectors calls (TopK 10, random query
  vectors) on the warm engine, each ending with the ten items read and shaped as results.

Wall-clock times on a shared machine are noisy: report the median of several runs with the machine's load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy

from singletable.engine import Engine
from singletable.engine.shared import bulk_put

TABLE = "docs"


def create(engine: Engine, dims: int) -> None:
    engine.create_table(
        TableName=TABLE,
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
        VectorIndexes=[
            {
                "IndexName": "by_embedding",
                "VectorAttribute": {"AttributeName": "embedding"},
                "Dimensions": dims,
                "DistanceFunction": "COSINE",
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            }
        ],
    )


def vectors(count: int, dims: int, seed: int) -> Any:
    rng = numpy.random.default_rng(seed)
    block = rng.standard_normal((count, dims)).astype(numpy.float32)
    return block / numpy.linalg.norm(block, axis=1, keepdims=True)


def item(number: int, vector: Any) -> dict[str, Any]:
    return {"pk": {"S": f"doc{number:07d}"}, "embedding": {"L": [{"N": f"{x:.6g}"} for x in vector.tolist()]}}


def fill(engine: Engine, count: int, dims: int, through_engine: bool) -> None:
    """``count`` items with random unit vectors, a chunk (one transaction) at a time."""
    from singletable.engine import _attribute_values as codec  # bench only: the storage layer's own format
    from singletable.engine._vector_entries import vector_entry

    schema = engine.table(TABLE)
    vindex = schema.vector_indexes["by_embedding"]
    storage = engine.storage
    chunk = 2000
    for start in range(0, count, chunk):
        block = vectors(min(chunk, count - start), dims, seed=start)
        items = [item(start + offset, vector) for offset, vector in enumerate(block)]
        if through_engine:
            bulk_put(engine, TABLE, items)
            continue
        with storage.write():
            for stored in items:
                pk = stored["pk"]["S"].encode()
                data = codec.dumps_item(stored)
                storage.put_item_rows(schema.table_id, pk, b"", data, len(data), [])
                entry = vector_entry(schema, vindex, stored)
                assert entry is not None
                storage.put_vector_entry(schema.table_id, vindex.index_id, pk, b"", entry)


def search(engine: Engine, query: Any) -> dict[str, Any]:
    return engine.search_vectors(
        TableName=TABLE,
        IndexName="by_embedding",
        SearchVector=[{"N": f"{x:.6g}"} for x in query.tolist()],
        TopK=10,
    )


def measure(directory: Path, count: int, dims: int, searches: int, through_engine: bool) -> dict[str, float]:
    path = str(directory / f"vectors-{count}.db")
    engine = Engine(path)
    create(engine, dims)
    started = time.perf_counter()
    fill(engine, count, dims, through_engine)
    loaded = time.perf_counter() - started
    engine.close()

    queries = vectors(searches, dims, seed=10**9)
    started = time.perf_counter()
    engine = Engine(path)
    first = search(engine, queries[0])
    reopened = time.perf_counter() - started
    build = engine.vectors.last_build_seconds
    assert len(first["SearchResults"]) == 10
    samples = []
    for query in queries:
        t0 = time.perf_counter()
        search(engine, query)
        samples.append(time.perf_counter() - t0)
    engine.close()
    return {
        "load_s": loaded,
        "open_and_first_search_s": reopened,
        "rebuild_s": build,
        "search_p50_ms": statistics.median(samples) * 1000,
        "search_min_ms": min(samples) * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--dims", type=int, default=768)
    parser.add_argument("--searches", type=int, default=50)
    parser.add_argument("--through-engine", action="store_true")
    args = parser.parse_args()
    print(f"numpy {numpy.__version__}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as directory:
        for count in args.sizes:
            result = measure(Path(directory), count, args.dims, args.searches, args.through_engine)
            print(
                f"{count:>7} x {args.dims}: search p50 {result['search_p50_ms']:.1f} ms "
                f"(min {result['search_min_ms']:.1f}), "
                f"open+first search {result['open_and_first_search_s']:.2f} s "
                f"(rebuild {result['rebuild_s']:.2f} s), load {result['load_s']:.0f} s",
                flush=True,
            )
    sys.exit(0)


if __name__ == "__main__":
    main()
