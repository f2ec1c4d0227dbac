"""How large ``singletable serve``'s WAL grows under sustained writes: its size each second of a load run.

    python3 bench/wal_size.py [--workers 2] [--clients 8] [--seconds 30]

Starts ``singletable serve --workers N`` on a file in a temporary directory, preloads bench/server.py's
table and runs its load (40% GetItem / 40% PutItem / 20% Query) for ``--seconds``, sampling the size of the
database's ``-wal`` file once a second. The background checkpointer copies the WAL into the database; only
a write that finds it entirely copied, with no reader still on it, starts it over from its beginning, so a
WAL that keeps growing says the restarts are not happening. SQLite never shrinks the file by itself: each
sample is the largest the WAL has been so far. Prints requests/s, p50/p99 and the samples.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

import server  # noqa: E402 -- bench/server.py: the same load generator and table
from serving import ServerProcess  # noqa: E402


def wal_sizes_under_load(workers: int, clients: int, seconds: float) -> tuple[dict[str, float], list[int]]:
    """The load's figures, and the WAL's size in MiB once a second while it ran."""
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.sqlite3"
        process = ServerProcess(db, args=("--workers", str(workers)))
        try:
            server.preload(process.endpoint)
            sizes: list[int] = []
            done = threading.Event()

            def sample() -> None:
                while not done.wait(1.0):
                    try:
                        sizes.append(os.path.getsize(f"{db}-wal") >> 20)
                    except OSError:
                        sizes.append(0)  # no WAL at this instant

            sampler = threading.Thread(target=sample)
            sampler.start()
            try:
                result = server.load(process.port, clients, seconds)
            finally:
                done.set()
                sampler.join()
        finally:
            process.stop()
    return result, sizes


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args(argv)
    result, sizes = wal_sizes_under_load(args.workers, args.clients, args.seconds)
    print(
        f"serve --workers {args.workers}, {args.clients} clients, {args.seconds:g} s: "
        f"{result['rps']:,.0f} req/s, p50 {result['p50']:.2f} ms, p99 {result['p99']:.2f} ms, "
        f"{result['errors']} errors"
    )
    print(f"WAL size each second (MiB): {' '.join(map(str, sizes))}; largest {max(sizes, default=0)}")


if __name__ == "__main__":
    main()
