"""Instructions per call of the embedded engine's hot operations, counted by valgrind (repeatable under load).

    python3 bench/instructions.py [--ops PutItem,GetItem,Query,ModelPut,floor] [--backends file,memory]
                                  [--n1 200] [--n2 1200]

Wall-clock figures on a shared 2-core machine move by ±15% between runs; instruction counts move by well
under 1%, so a before/after pair of an engine change is best measured with this. Each
figure runs this script twice under ``valgrind --tool=callgrind`` (``PYTHONHASHSEED=0``): a child warms an
Engine up with 500 PutItems on ``bench/run.py``'s table (one ALL GSI) and items, then makes N more calls of
one operation; instructions per call = (Ir(N2) - Ir(N1)) / (N2 - N1), which cancels the interpreter's start,
the imports and the warm-up. Every request is built before the calls (as bench/floor.py builds its rows),
so the figure is the engine's alone. ``ModelPut`` is ``db.put(entity)`` through ``singletable.model`` on
bench/model_overhead.py's entity (the modeling layer and the engine's PutItem under it). ``floor`` is
bench/floor.py's SQL-only PutItem transaction, counted the same way. A file-backed figure includes the
background checkpointer's work (on its own thread).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

WARM_UP = 500
# floor: bench/floor.py's SQL-only PutItem transaction; minimum: its engine minimum (the SQL plus the checks,
# capacity and response every PutItem needs); shape, validate: those two checks of a PutItem alone.
OPERATIONS = ("PutItem", "GetItem", "Query", "ModelPut", "floor", "minimum", "shape", "validate")
IN_PROCESS = ("floor", "minimum", "shape", "validate")


def _engine_calls(operation: str, backend: str, n: int, n_max: int, directory: str) -> None:
    """The child's work: warm up, then ``n`` calls of ``operation`` (inputs for ``n_max`` built anyway)."""
    from run import TABLE, TABLE_SPEC, item
    from singletable.engine import Engine

    engine = Engine(":memory:" if backend == "memory" else os.path.join(directory, "i.sqlite3"))
    engine.create_table(**TABLE_SPEC)
    # A Query reads 40 items of a partition: bench/run.py's items fill its 50 partitions 40 deep at 2,000.
    for i in range(2000 if operation == "Query" else WARM_UP):
        engine.put_item(TableName=TABLE, Item=item(i))
    call: Any
    if operation == "PutItem":
        requests = [{"TableName": TABLE, "Item": item(WARM_UP + i)} for i in range(n_max)]
        call = engine.put_item
    elif operation == "GetItem":
        requests = [
            {"TableName": TABLE, "Key": {"PK": item(i)["PK"], "SK": item(i)["SK"]}}
            for i in (j % WARM_UP for j in range(n_max))
        ]
        call = engine.get_item
    else:
        requests = [
            {
                "TableName": TABLE,
                "KeyConditionExpression": "PK = :p",
                "ExpressionAttributeValues": {":p": {"S": f"USER#{i % 50}"}},
                "Limit": 40,
            }
            for i in range(n_max)
        ]
        call = engine.query
    for request in requests[:n]:
        call(**request)
    engine.close()


def _model_calls(backend: str, n: int, n_max: int, directory: str) -> None:
    """The child's work for ``ModelPut``: warm up, then ``n`` entity puts (``n_max`` entities built)."""
    from model_overhead import order, table
    from singletable.engine import Engine
    from singletable.model import connect

    engine = Engine(":memory:" if backend == "memory" else os.path.join(directory, "i.sqlite3"))
    db = connect(table, engine)
    db.create_table()
    for i in range(WARM_UP):
        db.put(order(i))
    entities = [order(WARM_UP + i) for i in range(n_max)]
    put = db.put
    for entity in entities[:n]:
        put(entity)
    engine.close()


def _floor_calls(operation: str, n: int, n_max: int, directory: str) -> None:
    """bench/floor.py's PutItem transaction or engine minimum, or a PutItem's checks alone, ``n`` times
    (inputs for ``n_max`` built either way)."""
    import floor
    from run import TABLE, item
    from singletable.engine import _attribute_values as codec
    from singletable.engine._validation import SHAPES, check_input

    if operation != "floor":
        requests = [{"TableName": TABLE, "Item": item(i)} for i in range(n_max)]
        conn = floor._connect(os.path.join(directory, "floor.sqlite3"))
        cursor = conn.cursor()
        for request in requests[:n]:
            if operation == "minimum":
                floor.engine_minimum_put(cursor, request)
            elif operation == "shape":
                check_input(SHAPES, "PutItemInput", request)
            else:
                codec.validate_item_sized(request["Item"])
        conn.close()
        return
    rows = [floor.put_rows(item(i)) for i in range(n_max)]
    conn = floor._connect(os.path.join(directory, "floor.sqlite3"))
    cursor = conn.cursor()
    for row, entry in rows[:n]:
        floor.put_transaction(cursor, row, entry)
    conn.close()


_NAMES = {
    "floor": "SQL-only PutItem (bench/floor.py)",
    "minimum": "PutItem engine minimum (floor.py)",
    "shape": "PutItem's shape check alone",
    "validate": "PutItem's item validation alone",
}


def _child(operation: str, backend: str, n: int, n_max: int) -> None:
    with tempfile.TemporaryDirectory() as directory:
        if operation in IN_PROCESS:
            _floor_calls(operation, n, n_max, directory)
        elif operation == "ModelPut":
            _model_calls(backend, n, n_max, directory)
        else:
            _engine_calls(operation, backend, n, n_max, directory)


def count(operation: str, backend: str, n: int, n_max: int) -> int:
    """Instructions (Ir) of one child run under callgrind."""
    return callgrind(__file__, ["--child", operation, backend, str(n), str(n_max)])


def callgrind(script: str, arguments: list[str]) -> int:
    """Instructions (Ir) of ``python script *arguments`` under callgrind (``PYTHONHASHSEED=0``); also
    bench/model_instructions.py's."""
    with tempfile.TemporaryDirectory() as out:
        command = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={os.path.join(out, 'cg.out')}",
            sys.executable,
            script,
            *arguments,
        ]
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count in valgrind's output:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def per_call(operation: str, backend: str, n1: int, n2: int) -> float:
    return (count(operation, backend, n2, n2) - count(operation, backend, n1, n2)) / (n2 - n1)


def main(argv: list[str] | None = None) -> dict[tuple[str, str], float]:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ops", default="PutItem,GetItem,Query,floor,minimum")
    parser.add_argument("--backends", default="file,memory")
    parser.add_argument("--n1", type=int, default=200)
    parser.add_argument("--n2", type=int, default=1200)
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        operation, backend, n, n_max = args.child
        _child(operation, backend, int(n), int(n_max))
        return {}
    results = {}
    for operation in args.ops.split(","):
        if operation not in OPERATIONS:
            parser.error(f"unknown operation {operation!r}; one of {', '.join(OPERATIONS)}")
        for backend in ("file",) if operation in IN_PROCESS else args.backends.split(","):
            results[operation, backend] = figure = per_call(operation, backend, args.n1, args.n2)
            name = _NAMES.get(operation) or f"{operation} ({backend})"
            print(f"  {name:<36} {figure:>12,.0f} instructions per call", flush=True)
    return results


if __name__ == "__main__":
    main()
