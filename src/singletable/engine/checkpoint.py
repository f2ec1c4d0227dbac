"""The background WAL checkpointer: keeps checkpoints (and their fsyncs) off the request path.

Split from :mod:`storage`, which starts one per file-backed database.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable


class Checkpointer:
    """Moves committed WAL pages into the database file every ``interval`` seconds, on its own connection.

    SQLite's automatic checkpoint runs inside whichever COMMIT crosses the threshold, so one request in a
    thousand paid for copying and fsyncing everyone's pages. A PASSIVE checkpoint never blocks readers or
    writers; sqlite3 releases the GIL while it runs, so it uses the other core. The final checkpoint at
    close leaves a self-contained database file.

    The WAL only starts over from its beginning when a write finds it entirely checkpointed, which a
    background checkpoint racing a steady stream of writes never achieves: under sustained writes the WAL
    grew without bound (540 MB after 30,000 PutItems) and every COMMIT paid the filesystem for extending
    it. So when a round finds more than ``restart_frames`` frames in the WAL, it asks (``on_large_wal``)
    for the next write of this process to checkpoint the few frames written since, just before its BEGIN
    (see ``Storage.write``); that write then restarts the WAL. Writers in other processes are not held;
    if they write meanwhile, a later round asks again.
    """

    def __init__(
        self,
        path: str,
        on_large_wal: Callable[[], None] | None = None,
        interval: float = 0.2,
        restart_frames: int = 1000,
    ) -> None:
        self.path = path
        self.on_large_wal = on_large_wal
        self.interval = interval
        self.restart_frames = restart_frames
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="singletable-checkpoint", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=30.0)
        try:
            while not self.stopping.wait(self.interval):
                try:
                    frames = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1]
                except sqlite3.Error:
                    continue  # busy or locked: the next round catches up
                if frames > self.restart_frames and self.on_large_wal is not None:
                    self._converge(conn)
                    self.on_large_wal()
            try:
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            except sqlite3.Error:
                pass  # another connection is still using the WAL; it will checkpoint later
        finally:
            conn.close()

    def _converge(self, conn: sqlite3.Connection) -> None:
        """A few more rounds at once, each copying only what was written during the one before, so that
        the backlog left to the next write (which it checkpoints holding up its request) is small."""
        for _ in range(3):
            try:
                conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            except sqlite3.Error:
                return

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join()
