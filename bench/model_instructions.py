"""Instructions per call of the model's hot operations on the native engine, counted by valgrind.

    python3 bench/model_instructions.py [--ops put,get,query,update] [--n1 200] [--n2 1200]

The model's share of a call is small beside the engine's, and wall-clock figures on a shared machine move by
±15%; instruction counts move by well under 1%, so whether a model change costs the hot path anything is
best seen here. Each figure runs this script twice under ``valgrind --tool=callgrind`` (``PYTHONHASHSEED=0``):
a child connects bench/model_overhead.py's design (PK/SK and one GSI, ~200-byte orders) to an in-memory
engine, writes 500 orders, then makes N more calls of one operation; instructions per call =
(Ir(N2) - Ir(N1)) / (N2 - N1), which cancels the start, the imports and the warm-up. Every entity and key is
built before the calls. Run it with ``PYTHONPATH`` pointing at two trees to compare them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from instructions import callgrind  # noqa: E402  (bench/ is put on the path above)

WARM_UP = 500
OPERATIONS = ("put", "get", "query", "update")


def _child(operation: str, n: int, n_max: int) -> None:
    from model_overhead import Order, order, table
    from singletable.model import connect

    db = connect(table, ":memory:")
    db.create_table()
    for i in range(WARM_UP):
        db.put(order(i))
    if operation == "put":
        entities = [order(WARM_UP + i) for i in range(n_max)]
        for entity in entities[:n]:
            db.put(entity)
    elif operation == "get":
        keys = [{"user": i % 50, "order": i % WARM_UP} for i in range(n_max)]
        for key in keys[:n]:
            db.get(Order, **key)
    elif operation == "query":
        queries = [Order.of_user(user=i % 50) for i in range(n_max)]
        for query in queries[:n]:
            list(db.query(query, limit=40))
    else:
        refs = [Order.key(user=i % 50, order=i % WARM_UP) for i in range(n_max)]
        for ref in refs[:n]:
            db.update(ref, note="y" * 80)
    db.close()


def count(operation: str, n: int, n_max: int) -> int:
    """Instructions (Ir) of one child run under callgrind."""
    return callgrind(__file__, ["--child", operation, str(n), str(n_max)])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ops", default=",".join(OPERATIONS))
    parser.add_argument("--n1", type=int, default=200)
    parser.add_argument("--n2", type=int, default=1200)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        operation, n, n_max = args.child
        _child(operation, int(n), int(n_max))
        return
    for operation in args.ops.split(","):
        if operation not in OPERATIONS:
            parser.error(f"unknown operation {operation!r}; one of {', '.join(OPERATIONS)}")
        low, high = count(operation, args.n1, args.n2), count(operation, args.n2, args.n2)
        print(f"{operation:>8}: {(high - low) / (args.n2 - args.n1):,.0f} instructions per call", flush=True)


if __name__ == "__main__":
    main()
