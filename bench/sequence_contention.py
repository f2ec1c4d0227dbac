"""Benchmark: numbering new items under contention -- a gapless ``Sequence`` against a plain atomic counter.

    python3 bench/sequence_contention.py [--threads 16] [--items 640] [--fail 0.05] [--target engine,http]

Each of ``--threads`` writers creates its share of ``--items`` issues in one project, all numbered from the
project's counter. ``gapless``: ``Sequence.create`` (read the counter, then ONE TransactWriteItems of the
counter's conditional update and the item's create, retried when another writer took the number). ``atomic``:
``db.update(Project.key(...), Project.f.next_issue_number.add(1), upsert=True)`` (one UpdateItem ADD returning
the new value), then ``db.create(issue)``. A fraction ``--fail`` of the creates is made to fail (a slug
that is already taken: UniqueViolation) to show what each does with the number it took. Targets: the embedded
engine on a file, and boto3 over HTTP to a ``singletable serve`` subprocess.
Reports items/s, retries and gaps.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from singletable.model import Entity, Keys, Sequence, Table, UniqueViolation, connect  # noqa: E402

tracker = Table(name="tracker")


class Project(Entity, table=tracker, type="PROJECT"):
    id: str
    next_issue_number: int = 0
    keys = Keys(PK="PROJECT#{id}", SK="PROJECT")


class Issue(Entity, table=tracker, type="ISSUE", unique={"slug": "SLUG#{slug}"}):
    project: str
    number: int
    slug: str
    keys = Keys(PK="PROJECT#{project}", SK="ISSUE#{number}")


def run(db: Any, mode: str, threads: int, items: int, fail: float) -> dict[str, float]:
    """Create ``items`` issues from ``threads`` writers; items/s, retries, failed creates and gaps."""
    db.create(Issue(project="p", number=0, slug="taken"))
    seq = Sequence(Project.key(id="p"), Project.f.next_issue_number, attempts=1000)
    failed = [0]
    lock = threading.Lock()
    start = threading.Barrier(threads + 1)
    rng = random.Random(7)
    plan = [[rng.random() < fail for _ in range(items // threads)] for _ in range(threads)]

    def writer(w: int) -> None:
        start.wait()
        for i, fails in enumerate(plan[w]):
            slug = "taken" if fails else f"w{w}-{i}"
            try:
                if mode == "gapless":
                    seq.create(db, lambda n, slug=slug: Issue(project="p", number=n, slug=slug))
                else:
                    n = db.update(Project.key(id="p"), Project.f.next_issue_number.add(1), upsert=True)
                    db.create(Issue(project="p", number=n.next_issue_number, slug=slug))
            except UniqueViolation:
                with lock:
                    failed[0] += 1

    pool = [threading.Thread(target=writer, args=(w,)) for w in range(threads)]
    for thread in pool:
        thread.start()
    start.wait()
    began = time.perf_counter()
    for thread in pool:
        thread.join()
    seconds = time.perf_counter() - began
    created = sum(len(p) for p in plan) - failed[0]
    top = db.get(Project, id="p", consistent=True).next_issue_number
    return {
        "items_per_s": created / seconds,
        "retries": seq.retries,
        "failed": failed[0],
        "created": created,
        "gaps": top - created,
    }


def open_db(target: str, tmp: str, name: str) -> tuple[Any, Any]:
    """The design on ``target`` (engine on a file, or http to a fresh ``singletable serve``); and a closer."""
    if target == "engine":
        from singletable.engine import Engine

        engine = Engine(str(Path(tmp) / f"{name}.sqlite3"))
        db = connect(tracker, engine, name=name)
        db.create_table()
        return db, engine.close
    from serving import ServerProcess

    server = ServerProcess(Path(tmp) / f"{name}.sqlite3")
    db = connect(tracker, server.client(max_pool_connections=32), name=name)
    db.create_table()
    return db, server.stop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--items", type=int, default=640)
    parser.add_argument("--fail", type=float, default=0.05)
    parser.add_argument("--target", default="engine,http")
    parser.add_argument("--rounds", type=int, default=2, help="alternating runs of each mode (noisy machine)")
    args = parser.parse_args()
    print(f"{args.threads} threads, {args.items} creates, {args.fail:.0%} of them failing (UniqueViolation)")
    with tempfile.TemporaryDirectory() as tmp:
        for target in args.target.split(","):
            for r in range(args.rounds):
                for mode in ("gapless", "atomic"):
                    db, close = open_db(target, tmp, f"{target}_{mode}{r}")
                    try:
                        result = run(db, mode, args.threads, args.items, args.fail)
                    finally:
                        close()
                    print(
                        f"{target:6} {mode:7} round {r}: {result['items_per_s']:7.0f} items/s  "
                        f"retries {result['retries']:5}  failed {result['failed']:3}  gaps {result['gaps']:3}"
                    )


if __name__ == "__main__":
    main()
