"""An import into a new table stopped at its most awkward moments: Ctrl-C as the table is created, as a
transaction begins, as the build commits, while the readers fork, in a reader; the importing process killed
as its reader starts.

Each moment is hit on purpose, not by luck: a real SIGINT sent from a fork hook of the importing process
(the fork's own moment), to a reader observed in /proc, or a KeyboardInterrupt raised exactly where Python
raises Ctrl-C's (as the call running then returns). What each must end in: exit 130 (TransferInterrupted),
the table removed and "nothing was imported" said -- or, once the build has committed, the table kept and
said complete; for a reader alone, nothing at all (the importer decides); and never a reader left behind.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from test_import_new_table import (
    PARAMS,
    ROOT,
    SCHEMA,
    TABLE,
    _a_reader_is_reading,
    _group_alive,
    _many_lines,
    _status,
)

from singletable.data import TransferInterrupted, import_table
from singletable.data._import_reader import BATCH_ITEMS, QUEUED
from singletable.engine import Engine
from singletable.engine.shared import ImportCatalog, abandon_import, begin_import, staged_rows

NOTHING = "nothing was imported: the import removed the table it was creating"
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src")}


@contextmanager
def ctrl_c_as_returning(name: str, caller: str | None = None) -> Iterator[None]:
    """Raise KeyboardInterrupt once, as the first call of ``name`` (from ``caller``, when given; always
    for a C function) returns: where Python raises it for a Ctrl-C that lands while that call runs (for
    ``execute``: while SQLite runs the statement)."""

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "c_return":
            hit = arg.__name__ == name and frame.f_code.co_name == caller
        elif event == "return":
            hit = frame.f_code.co_name == name and caller in (None, frame.f_back.f_code.co_name)
        else:
            return
        if hit:
            sys.setprofile(None)
            raise KeyboardInterrupt

    sys.setprofile(profile)
    try:
        yield
    finally:
        sys.setprofile(None)


@pytest.mark.parametrize("moment", ["staging", "a write"])
def test_ctrl_c_as_a_transaction_begins_still_removes_the_table(tmp_path: Path, moment: str) -> None:
    """A Ctrl-C raised as a BEGIN returns (staging a batch, or any write) leaves a transaction open that no
    ``try`` rolls back: dropping the table must still work, and the connection go on as usual."""
    db = tmp_path / "t.db"
    with Engine(str(db)) as importer:
        description, _ = begin_import(importer, dict(PARAMS))
        item, entries = staged_rows(ImportCatalog(description), 0, {"PK": {"S": "a"}, "SK": {"S": "1"}})
        with pytest.raises(KeyboardInterrupt):
            if moment == "staging":
                with ctrl_c_as_returning("execute", "stage_import_rows"):
                    importer.storage.stage_import_rows([item], entries)
            else:
                with ctrl_c_as_returning("execute", "__enter__"), importer.storage.write():
                    pass
        abandon_import(importer, TABLE)
        assert importer.list_tables()["TableNames"] == []
        importer.create_table(**PARAMS)  # the connection writes as usual
    with Engine(str(db)) as other:
        assert other.list_tables()["TableNames"] == [TABLE]


@pytest.mark.parametrize(
    "moment",
    [("begin_import", None), ("execute", "stage_import_rows")],
    ids=["as the table is created", "as staging a batch begins"],
)
def test_ctrl_c_in_an_import_says_nothing_was_imported(tmp_path: Path, moment: tuple[str, Any]) -> None:
    """Those moments in a whole import, through the Python API: it raises TransferInterrupted saying nothing
    was imported, and the table is gone."""
    source = _many_lines(tmp_path / "s.jsonl", 3 * BATCH_ITEMS, sort_key_number=False)
    db = tmp_path / "t.db"
    with pytest.raises(TransferInterrupted) as raised, ctrl_c_as_returning(*moment):
        import_table(str(db), TABLE, source, format="jsonl", schema=SCHEMA)
    assert str(raised.value) == f"interrupted: {NOTHING}"
    assert (raised.value.summary.items, raised.value.summary.read) == (0, 0)
    assert _status(db) is None


@contextmanager
def sigint_as_calling(name: str) -> Iterator[None]:
    """Send this process a real SIGINT once, as Python function ``name`` is called."""

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_name == name:
            sys.setprofile(None)
            signal.raise_signal(signal.SIGINT)

    sys.setprofile(profile)
    try:
        yield
    finally:
        sys.setprofile(None)


TTL_SCHEMA = {**SCHEMA, "TimeToLiveDescription": {"TimeToLiveStatus": "ENABLED", "AttributeName": "exp"}}


@pytest.mark.parametrize(
    "moment",
    [
        lambda: ctrl_c_as_returning("finish_import"),
        lambda: ctrl_c_as_returning("_build"),
        lambda: sigint_as_calling("apply_ttl"),
    ],
    ids=["as the build commits", "as the build returns", "as the time to live is set"],
)
def test_ctrl_c_after_the_build_says_the_table_is_complete(tmp_path: Path, moment: Any) -> None:
    """The build has committed: the table is ACTIVE with every item. The import finishes what follows
    (the table's time to live), says it was interrupted and what it imported, and leaves the table."""
    count = 3 * BATCH_ITEMS
    source = _many_lines(tmp_path / "s.jsonl", count, sort_key_number=False)
    db = tmp_path / "t.db"
    with pytest.raises(TransferInterrupted) as raised, moment():
        import_table(str(db), TABLE, source, format="jsonl", schema=TTL_SCHEMA)
    assert str(raised.value) == "interrupted as the import ended: the table is complete"
    assert (raised.value.summary.items, raised.value.summary.read) == (count, count)
    with Engine(str(db)) as engine:
        table = engine.describe_table(TableName=TABLE)["Table"]
        assert (table["TableStatus"], table["ItemCount"]) == ("ACTIVE", count)
        ttl = engine.describe_time_to_live(TableName=TABLE)["TimeToLiveDescription"]
        assert ttl == {"TimeToLiveStatus": "ENABLED", "AttributeName": "exp"}


# -- real processes: the CLI, signals ----------------------------------------------------------------------


def _command(tmp_path: Path, count: int) -> list[str]:
    source = _many_lines(tmp_path / "s.jsonl", count, sort_key_number=False)
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    db = tmp_path / "t.db"
    return ["import", str(db), TABLE, str(source), "--schema", str(tmp_path / "schema.json")]


# The CLI, with a fork hook that presses Ctrl-C (SIGINT to the whole process group, as a terminal sends it)
# at the first fork's own moment: between the at-fork hooks, where a KeyboardInterrupt would be swallowed.
_CTRL_C_IN_FORK = textwrap.dedent(
    """
    import os, runpy, signal, sys
    pressed = []
    def press():
        if not pressed:
            pressed.append(True)
            os.killpg(0, signal.SIGINT)
    os.register_at_fork(before=press)
    sys.argv = ["singletable", *sys.argv[1:]]
    runpy.run_module("singletable", run_name="__main__")
    """
)


def test_ctrl_c_while_the_readers_fork_stops_the_import(tmp_path: Path) -> None:
    arguments = _command(tmp_path, 3 * BATCH_ITEMS)
    process = subprocess.run(
        [sys.executable, "-c", _CTRL_C_IN_FORK, *arguments],
        env=ENV,
        start_new_session=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert process.returncode == 130, process.stderr
    assert process.stderr.strip().splitlines()[-1].endswith(NOTHING)
    assert "Traceback" not in process.stderr and "Exception ignored" not in process.stderr
    assert _status(tmp_path / "t.db") is None


def _readers(pid: int) -> list[int]:
    """The processes ``pid`` forked: an import's readers."""
    with open(f"/proc/{pid}/task/{pid}/children") as children:
        return [int(child) for child in children.read().split()]


def test_ctrl_c_sent_to_a_reader_alone_is_the_importers_to_decide(tmp_path: Path) -> None:
    """SIGINT reaches a reader (a terminal sends it to the whole group): the reader ignores it, and the
    import, not interrupted itself, finishes."""
    count = (QUEUED + 4) * BATCH_ITEMS
    command = [sys.executable, "-m", "singletable", *_command(tmp_path, count)]
    process = subprocess.Popen(command, env=ENV, start_new_session=True, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not _a_reader_is_reading(process.pid):
            assert time.monotonic() < deadline and process.poll() is None, "the import's reader never read"
            time.sleep(0.01)
        for reader in _readers(process.pid):
            os.kill(reader, signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
    finally:
        if _group_alive(process.pid):
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 0, stderr
    with Engine(str(tmp_path / "t.db")) as engine:
        assert engine.describe_table(TableName=TABLE)["Table"]["ItemCount"] == count


class Pressed(NamedTuple):
    """How an import the test pressed Ctrl-C in ended."""

    code: int
    stdout: str
    stderr: str


def _ctrl_c_at(tmp_path: Path, wait: float) -> Pressed:
    """Run the CLI's import, press Ctrl-C ``wait`` seconds after the table shows CREATING; how it ended."""
    command = [sys.executable, "-m", "singletable", *_command(tmp_path, 60_000)]
    process = subprocess.Popen(
        command,
        env=ENV,
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while _status(tmp_path / "t.db") != "CREATING":
            assert time.monotonic() < deadline and process.poll() is None, "the import never showed CREATING"
            time.sleep(0.002)
        time.sleep(wait)
        os.killpg(process.pid, signal.SIGINT)
        stdout, stderr = process.communicate(timeout=60)
    finally:
        if _group_alive(process.pid):
            os.killpg(process.pid, signal.SIGKILL)
    return Pressed(process.returncode, stdout, stderr)


@pytest.mark.slow
def test_ctrl_c_at_any_moment_of_an_import_removes_the_table(tmp_path: Path) -> None:
    """Ctrl-C at twenty moments spread over the import's start, reading and staging (every 30 ms from the
    table's creation on): each one stops it the same way. On a fast machine the last moments may come once
    the import has said it is done: its table is then whole, whatever the exiting process does with the
    signal; most moments must still land within the import."""
    interrupted = 0
    for attempt in range(20):
        run = tmp_path / str(attempt)
        run.mkdir()
        pressed = _ctrl_c_at(run, attempt * 0.03)
        assert "Traceback" not in pressed.stderr
        if pressed.stdout.startswith("imported 60,000 lines"):  # done before the Ctrl-C came
            with Engine(str(run / "t.db")) as engine:
                table = engine.describe_table(TableName=TABLE)["Table"]
            assert (table["TableStatus"], table["ItemCount"]) == ("ACTIVE", 60_000)
            continue
        interrupted += 1
        assert pressed.code == 130, pressed
        assert pressed.stderr.strip().splitlines()[-1].endswith(NOTHING), pressed
        assert _status(run / "t.db") is None
    assert interrupted >= 15


# -- the importing process killed as its reader starts -----------------------------------------------------

# The Python API's import, with a fork hook run in each reader right after the fork: it kills the importing
# process at once and waits until the reader belongs to another parent, before the reader's own code runs.
_KILLED_AT_FORK = textwrap.dedent(
    """
    import json, os, signal, sys, time
    from pathlib import Path
    from singletable.data import import_table
    db, source, schema, readers = sys.argv[1:5]
    def kill_importer():
        importer = os.getppid()
        os.kill(importer, signal.SIGKILL)
        while os.getppid() == importer:
            time.sleep(0.001)
        Path(readers, str(os.getpid())).touch()
    os.register_at_fork(after_in_child=kill_importer)
    import_table(db, "orders", source, format="jsonl", schema={"Table": json.loads(schema)})
    """
)


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (not gone, not a zombie waiting for its new parent to reap it)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_reader_whose_importer_dies_as_it_forks_stops(tmp_path: Path) -> None:
    """The importer dies before its reader has run a line of its own: the reader, with more to send than
    its queue holds, notices and stops instead of waiting on the full queue for ever."""
    source = _many_lines(tmp_path / "s.jsonl", (QUEUED + 2) * BATCH_ITEMS, sort_key_number=False)
    readers = tmp_path / "readers"
    readers.mkdir()
    table = json.dumps(SCHEMA["Table"])
    script = [sys.executable, "-c", _KILLED_AT_FORK, str(tmp_path / "t.db"), str(source), table, str(readers)]
    process = subprocess.Popen(script, env=ENV, start_new_session=True)
    try:
        assert process.wait(timeout=60) == -signal.SIGKILL
        deadline = time.monotonic() + 60
        while not any(readers.iterdir()):
            assert time.monotonic() < deadline, "no reader started"
            time.sleep(0.01)
        pids = [int(path.name) for path in readers.iterdir()]
        deadline = time.monotonic() + 20
        while any(_running(pid) for pid in pids):
            assert time.monotonic() < deadline, "a reader outlived its killed import"
            time.sleep(0.05)
    finally:
        if _group_alive(process.pid):
            os.killpg(process.pid, signal.SIGKILL)
    assert _status(tmp_path / "t.db") == "CREATING"
