"""Storage's connection and locking: opening the database, its pragmas and WAL, the write transaction,
waiting out other processes' write locks, and the background checkpointer; and opening a file read-only.

Everything about *how* SQLite is talked to lives here; what is stored lives in the sibling modules
(``catalog``, ``items``, ``streams``), which :class:`singletable.engine._storage.Storage` assembles on top of
:class:`Connection`.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

# How long a write waits for another connection's write lock before giving up (seconds).
BUSY_TIMEOUT = 30.0
# The first retry after a busy write lock, doubled up to the cap: a PutItem holds the lock ~50 µs.
_FIRST_RETRY = 20e-6
_MAX_RETRY = 0.002
_BUSY_CODES = frozenset((5, 6))  # SQLITE_BUSY, SQLITE_LOCKED
_PASSIVE = "PRAGMA wal_checkpoint(PASSIVE)"
_RESTART = "PRAGMA wal_checkpoint(RESTART)"
# In a WAL file's 32-byte header, the two salts: SQLite changes them exactly when it starts the WAL over.
_WAL_SALTS = slice(16, 24)
_T = TypeVar("_T")


class BusyTimeout(sqlite3.OperationalError):
    """Another connection held the write lock for the whole of ``Storage.busy_timeout``."""


class ReadOnlyDatabase(sqlite3.OperationalError):
    """A write asked of a database opened read-only (``Storage(path, read_only=True)``); nothing was done."""


def is_busy(error: sqlite3.OperationalError) -> bool:
    """SQLITE_BUSY or SQLITE_LOCKED: another connection holds a lock we need; nothing was done."""
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in _BUSY_CODES
    text = str(error)
    return "locked" in text or "busy" in text


def retry_while_busy(
    attempt: Callable[[], _T], retryable: Callable[[sqlite3.OperationalError], bool], timeout: float
) -> _T:
    """Run ``attempt`` again after a pause -- 20 µs at first, doubling up to 2 ms -- for as long as it
    fails with an error ``retryable`` accepts, up to ``timeout`` seconds; then raise :class:`BusyTimeout`.

    Callers make their first attempt themselves, so the usual, uncontended path pays nothing for this.
    """
    deadline = time.monotonic() + timeout
    delay = _FIRST_RETRY
    while time.monotonic() < deadline:
        time.sleep(delay)
        try:
            return attempt()
        except sqlite3.OperationalError as error:
            if not retryable(error):
                raise
        delay = min(delay * 2, _MAX_RETRY)
    raise BusyTimeout("database is locked")


class WriteTransaction:
    """``Storage.write()``: take the lock, BEGIN IMMEDIATE, run ``on_begin``; COMMIT or ROLLBACK on exit.

    ``busy``, when given, makes the error raised when another connection holds the write lock past the busy
    timeout (or ``on_begin`` finds the database busy) ``busy()`` instead (see ``conflict_error`` on the write
    path). It keeps no state between ``__enter__`` and ``__exit__``, so :meth:`Connection.write` makes one
    per ``busy`` and reuses it.
    """

    __slots__ = ("busy", "storage")

    def __init__(self, storage: Connection, busy: Callable[[], BaseException] | None = None) -> None:
        self.storage = storage
        self.busy = busy

    def __enter__(self) -> None:
        storage = self.storage
        try:
            storage.lock.acquire()
            if storage.restart_wal:
                storage.checkpoint_backlog()
            try:
                try:
                    storage._cursor.execute("BEGIN IMMEDIATE")
                except sqlite3.OperationalError as error:
                    storage.wait_to_begin(error)
            except BaseException:
                storage.lock.release()
                raise
            on_begin = storage.on_begin
            if on_begin is not None:
                try:
                    on_begin()
                except BaseException:
                    self.__exit__(RuntimeError, None, None)
                    raise
        except sqlite3.OperationalError as error:
            if self.busy is not None and is_busy(error):
                raise self.busy() from None
            raise

    def __exit__(self, exc_type: type[BaseException] | None, exc: object, traceback: object) -> None:
        storage = self.storage
        try:
            if exc_type is not None:
                storage.vector_changes = []
                storage._cursor.execute("ROLLBACK")
            elif storage.vector_changes:
                _commit_with_vectors(storage)
            else:  # every write without a vector index: one test, then COMMIT
                storage._cursor.execute("COMMIT")
                storage.commits += 1
        finally:
            storage.lock.release()


def _commit_with_vectors(storage: Connection) -> None:
    """COMMIT a transaction that changed vector index entries: their versions are stamped inside it, and
    the in-memory vector matrices learn of the changes only once they are committed."""
    changes = storage.vector_changes
    try:
        storage.stamp_vector_versions()
    except BaseException:
        storage.vector_changes = []
        storage._cursor.execute("ROLLBACK")
        raise
    storage._cursor.execute("COMMIT")
    storage.commits += 1
    storage.vector_changes = []
    if storage.on_vector_commit is not None:
        storage.on_vector_commit(changes)


class Connection:
    """One SQLite connection shared by the engine's threads under a lock.

    ``synchronous=NORMAL`` in WAL mode keeps every committed transaction across a killed process (the WAL
    is written before COMMIT returns); ``durable=True`` selects FULL, which also survives power loss at the
    cost of an fsync per write.

    Waiting for a lock held by another process is ours, not SQLite's: SQLite's busy handler sleeps 1 ms,
    then 2, 5, 10 ms... which, with several server workers sharing a file, made every collision between two
    ~50 µs writes cost a millisecond or more. The connection's ``busy_timeout`` is 0 once the database is
    open (see :meth:`finish_opening`); a write retries ``BEGIN IMMEDIATE`` from 20 µs on (see
    :func:`retry_while_busy`) for ``busy_timeout`` seconds, then raises :class:`BusyTimeout`; a read that
    finds the database busy (only while another process recovers the WAL index) is retried by
    ``Engine.execute``.
    """

    def __init__(self, path: str, *, durable: bool = False, read_only: bool = False) -> None:
        self.path = path
        self.lock = threading.RLock()
        # Read-only (see ReadOnlyOpening): SQLite's mode=ro, no pragma that writes, no checkpointer, and
        # write() refuses. ``_opening`` stays for close(), which tidies the side files it may have made.
        self.read_only = read_only
        self._opening: ReadOnlyOpening | None = ReadOnlyOpening(path) if read_only else None
        if self._opening is not None:
            self._conn = self._opening.connect()
        else:
            create_private(path)
            self._conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30.0)
        # SQLite's own busy handler only while opening, when another process may be recovering the WAL.
        self._conn.execute("PRAGMA busy_timeout = 30000")
        self.busy_timeout = BUSY_TIMEOUT
        # Committed write transactions: lets Engine.execute tell whether retrying a busy request is safe.
        self.commits = 0
        # One cursor for the write path's statements: conn.execute() would build a cursor per statement.
        # Only statements whose rows are consumed at once run on it (a primary-key lookup steps to its end,
        # which resets the statement, so it never keeps a read transaction open).
        self._cursor = self._conn.cursor()
        # Called inside every write transaction right after BEGIN IMMEDIATE, when set: the engine checks
        # there, for free, whether another process changed the catalog (see Engine.execute).
        self.on_begin: Callable[[], None] | None = None
        # Vector index changes of the write transaction under way (see ``vectors``), and who is told of them
        # once they are committed (the engine's in-memory search matrices).
        self.vector_changes: list[Any] = []
        self.on_vector_commit: Callable[[list[Any]], None] | None = None
        # Set by the checkpointer when the WAL has grown: the next write checkpoints first (see write()),
        # with the statement it chose (see _want_wal_restart).
        self.restart_wal = False
        self._backlog_checkpoint = _PASSIVE
        # The WriteTransaction for each ``busy`` given to write(), made on first use (see write()).
        self._writes: dict[Callable[[], BaseException] | None, WriteTransaction] = {}
        self._checkpointer: Checkpointer | None = None
        if read_only:
            return
        if path != ":memory:":
            self._conn.execute("PRAGMA journal_mode = WAL")
            # Commits only append to the WAL; copying it back into the database (and the fsync that goes
            # with it) happens on a background thread, off every request's path.
            self._conn.execute("PRAGMA wal_autocheckpoint = 0")
            self._checkpointer = Checkpointer(path, self._want_wal_restart)
        self._conn.execute(f"PRAGMA synchronous = {'FULL' if durable else 'NORMAL'}")

    def backup_to(self, target: Connection) -> None:
        """Copy this database, whole, over ``target``'s (SQLite's online backup; callers hold both locks)."""
        self._conn.backup(target._conn)

    def finish_opening(self) -> None:
        """From now on busy waits are ours (:func:`retry_while_busy`), not SQLite's busy handler."""
        self._conn.execute("PRAGMA busy_timeout = 0")

    def close(self) -> None:
        with self.lock:
            if self._checkpointer is not None:
                self._checkpointer.stop()
            self._conn.close()
            if self._opening is not None:
                self._opening.tidy()

    def _want_wal_restart(self, held_up: bool) -> None:
        """The checkpointer's ask (see :class:`Checkpointer`): restart the WAL at the next write. ``held_up``:
        the last ask did not restart it, so this time the backlog is checkpointed with RESTART."""
        self._backlog_checkpoint = _RESTART if held_up else _PASSIVE
        self.restart_wal = True

    def checkpoint_backlog(self) -> None:
        """Checkpoint what the background rounds left (only frames written since the last one), under the
        lock, so the write about to begin finds the WAL fully checkpointed and starts it over. It costs that
        write ~0.5 ms after single-item writes, 2-8 ms in a bulk load: once per checkpointer round, and only
        while writes are sustained enough to keep the WAL over the checkpointer's threshold.

        A PASSIVE checkpoint is enough while this process is the only one writing: it leaves the WAL fully
        checkpointed, and our write, beginning next, starts it over. Another process writing meanwhile --
        its commits landing while the checkpoint copies, its readers holding on to frames of the moment they
        began -- leaves it never fully checkpointed at an instant no reader is using it, and only then can
        SQLite start it over: with two ``serve`` workers under sustained writes it grew by ~35 MB a second,
        to ~900 MB in 30 s. So once an ask has not restarted the WAL, the next one checkpoints with RESTART,
        which holds other writers off while it copies the backlog and, when no reader is left on the WAL,
        leaves it to be started over by the next write -- ours, beginning at once. With ``busy_timeout`` 0
        it never waits: a writer or reader in the way makes it a PASSIVE checkpoint, and the checkpointer
        asks again."""
        self.restart_wal = False
        try:
            self._cursor.execute(self._backlog_checkpoint).fetchall()
        except sqlite3.Error:
            pass  # another checkpoint is running: the checkpointer will ask again

    # -- transactions -------------------------------------------------------------------------------------

    def stamp_vector_versions(self) -> None:
        """Bump the versions of the vector indexes ``vector_changes`` touched (``vectors`` implements it)."""

    def wait_to_begin(self, error: sqlite3.OperationalError) -> None:
        """After ``BEGIN IMMEDIATE`` failed with ``error`` (see ``WriteTransaction``): if another connection
        held the write lock, retry it for up to ``busy_timeout`` (see :func:`retry_while_busy`); any other
        error is raised."""
        if not is_busy(error):
            raise error
        retry_while_busy(lambda: self._cursor.execute("BEGIN IMMEDIATE"), is_busy, self.busy_timeout)

    def write(self, busy: Callable[[], BaseException] | None = None) -> WriteTransaction:
        """One atomic write: everything inside commits together or not at all.

        ``with storage.write():``. A class rather than a generator context manager: it runs for every write
        request, and the generator machinery cost more than the BEGIN it wraps. ``busy``: see
        :class:`WriteTransaction`; it must be a module-level function, not a fresh lambda per call, because
        the transaction made for it is kept and reused (building one cost as much as a Python call's
        ~1,800 instructions more, on every item write).
        """
        transaction = self._writes.get(busy)
        if transaction is None:
            if self.read_only:  # never cached for a read-only database: every write arrives here
                raise ReadOnlyDatabase(f"{self.path} is opened read-only: nothing can be written to it")
            transaction = self._writes[busy] = WriteTransaction(self, busy)
        return transaction

    @contextmanager
    def read(self) -> Iterator[None]:
        """A consistent snapshot across several statements."""
        with self.lock:
            conn = self._conn
            conn.execute("BEGIN")
            try:
                yield
            finally:
                conn.execute("COMMIT")

    def data_version(self) -> int:
        """Changes whenever another connection commits: our cue to re-read the catalog.

        Outside a transaction this opens a read transaction (WAL lock calls); inside one it is free.
        """
        return self._cursor.execute("PRAGMA data_version").fetchone()[0]


def create_private(path: str) -> None:
    """Create a database file that does not exist yet as 0600, whatever the umask: it holds item values.
    SQLite gives the file's ``-wal`` and ``-shm`` the file's own mode. An existing file keeps its mode (its
    owner chose it); a path that cannot be created is left to SQLite, whose error says why."""
    if path in ("", ":memory:") or path.startswith("file:"):
        return
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError:
        pass


class ReadOnlyOpening:
    """Opening an existing database file so that reading it changes nothing: not one byte, not its mtime.

    The connection is SQLite's ``mode=ro``: SQLite itself refuses every write, and no pragma that writes is
    sent (the journal mode is the file's own; a read-only connection never checkpoints). A missing file is
    ``FileNotFoundError``, never a new empty database.

    A database in WAL mode is read with its ``-wal`` and ``-shm`` side files, which SQLite's readers share
    with the file's writers; a read-only reader creates them (empty) where they are missing. So:

    - when neither existed before opening and the ``-wal`` is still empty at close, :meth:`tidy` lets
      SQLite remove them the way it always does -- the last connection to close deletes them, and only
      when no other connection uses them -- by opening and closing a ``query_only`` connection. Where the
      file cannot be written (read-only permissions, an immutable file) SQLite cannot remove them, and the
      empty files stay;
    - where they cannot be created (a read-only directory, an immutable directory) SQLite cannot open the
      file ``mode=ro``. Then, if there is no ``-wal`` holding changes, the file is opened ``immutable=1``:
      no writer can be using it (a writer needs to create the ``-wal``), so reading it without locks is
      safe. A ``-wal`` that holds changes but cannot be shared is an error naming it, never a stale read.
    """

    def __init__(self, path: str) -> None:
        if path == ":memory:" or path.startswith("file:"):
            raise ValueError(f"a read-only engine reads an existing database file, not {path!r}")
        if not os.path.exists(path):
            raise FileNotFoundError(errno.ENOENT, "no such database file", path)
        if os.path.isdir(path):
            raise IsADirectoryError(errno.EISDIR, "a directory, not a database file", path)
        self.path = path
        self.wal = path + "-wal"
        self._had_side_files = os.path.exists(self.wal) or os.path.exists(path + "-shm")
        self.immutable = False

    def _uri(self, immutable: bool) -> str:
        location = urllib.parse.quote(os.path.abspath(self.path))
        return f"file:{location}?mode=ro" + ("&immutable=1" if immutable else "")

    def connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self._uri(False), uri=True, isolation_level=None, check_same_thread=False, timeout=30.0
        )
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # opens the WAL, if any
            return conn
        except sqlite3.OperationalError as error:
            conn.close()
            if getattr(error, "sqlite_errorname", "") != "SQLITE_CANTOPEN":
                raise
        if self._wal_size() > 0:
            raise sqlite3.OperationalError(
                f"its write-ahead log {self.wal} holds changes not yet in the file, and SQLite cannot share "
                "it read-only here (a read-only directory?): open it once where it can be written"
            )
        self.immutable = True
        conn = sqlite3.connect(
            self._uri(True), uri=True, isolation_level=None, check_same_thread=False, timeout=30.0
        )
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn

    def _wal_size(self) -> int:
        try:
            return os.path.getsize(self.wal)
        except OSError:
            return 0

    def tidy(self) -> None:
        """Remove the empty side files opening made, the way SQLite does (see the class docstring)."""
        if self.immutable or self._had_side_files or not os.path.exists(self.wal) or self._wal_size() > 0:
            return
        if not os.access(self.path, os.W_OK):
            return  # SQLite would open it read-only, and could not remove them either
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, timeout=0)
            try:
                conn.execute("PRAGMA query_only = 1")
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            finally:
                conn.close()
        except sqlite3.Error:
            pass  # another connection holds the file: the side files are its to remove


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
    (see ``Connection.write``); that write then restarts the WAL. Writers in other processes are not held;
    if they write meanwhile, a later round asks again -- saying it is asking again (``held_up``: the WAL's
    salts, which change exactly when it starts over, are those of the last ask), so that the write uses the
    checkpoint that holds them off (``Connection.checkpoint_backlog``).
    """

    def __init__(
        self,
        path: str,
        on_large_wal: Callable[[bool], None] | None = None,
        interval: float = 0.2,
        restart_frames: int = 1000,
    ) -> None:
        self.path = path
        self.on_large_wal = on_large_wal
        self.interval = interval
        self.restart_frames = restart_frames
        self._salts_when_asked: bytes | None = None
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="singletable-checkpoint", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        _yield_to_foreground()
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=30.0)
        try:
            while not self.stopping.wait(self.interval):
                self.round(conn)
            try:
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            except sqlite3.Error:
                pass  # another connection is still using the WAL; it will checkpoint later
        finally:
            conn.close()

    def round(self, conn: sqlite3.Connection) -> None:
        """One round on ``conn``: checkpoint what it can; if the WAL is still large, ask for a restart."""
        try:
            frames = conn.execute(_PASSIVE).fetchone()[1]
        except sqlite3.Error:
            return  # busy or locked: the next round catches up
        if frames > self.restart_frames and self.on_large_wal is not None:
            self._converge(conn)
            salts = self._wal_salts()
            self.on_large_wal(salts is not None and salts == self._salts_when_asked)
            self._salts_when_asked = salts

    def _converge(self, conn: sqlite3.Connection) -> None:
        """A few more rounds at once, each copying only what was written during the one before, so that
        the backlog left to the next write (which it checkpoints holding up its request) is small."""
        for _ in range(3):
            try:
                conn.execute(_PASSIVE).fetchall()
            except sqlite3.Error:
                return

    def _wal_salts(self) -> bytes | None:
        """The WAL header's salts, read off the file (SQLite keeps no other record of a restart that its
        pragmas show); None if it cannot be read."""
        try:
            with open(self.path + "-wal", "rb") as wal:
                return wal.read(32)[_WAL_SALTS]
        except OSError:
            return None

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join()


def _yield_to_foreground() -> None:
    """Run the calling thread (the checkpointer) only on CPU time nothing else wants, where the OS allows it.

    A checkpoint round is a few milliseconds of copying pages; at normal priority it took a core from
    whatever woke next -- the request thread, or the clients it answers on the same machine -- and that
    wait was in the tail of every latency measured over HTTP (docs/performance.md, "The HTTP floor, and
    what a p99 is made of"). Linux's
    ``SCHED_IDLE`` (for this thread only) leaves it the time no other thread wants, which a one-worker
    server leaves on a second core. Durability is unchanged: the same checkpoints and fsyncs, later at
    worst; a WAL left behind meanwhile is checkpointed by the next write (``Connection.checkpoint_backlog``).
    """
    policy = getattr(os, "SCHED_IDLE", None)
    if policy is None:
        return  # not Linux: normal priority, as before
    try:
        os.sched_setscheduler(0, policy, os.sched_param(0))
    except OSError:
        pass  # refused (a locked-down container): normal priority, as before
