"""Import and copy when the checkpoint or the reject file cannot be written: real faults, not mocks.

A file that cannot grow is a file size limit on the importing process alone (``RLIMIT_FSIZE``: a write past
it fails with EFBIG, as on a full disk; the destination is a real ``singletable serve`` in another process, so
only the checkpoint and the reject file meet the limit). A read-only directory is an immutable one
(``chattr +i``, which holds even for root). Each stops the transfer with one line naming the file and the
system's reason, counts what was committed, never a traceback; a resume (or a new run) then ends with every
line stored once and every rejected line recorded once.
"""

from __future__ import annotations

import json
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from transfer_support import SPEC, contents, create, table_name

from cli_runs import run_in_process
from serving import ServerProcess
from singletable.data import TransferError, import_table, open_target

SCHEMA = {"Table": SPEC}


def _line(i: int) -> str:
    return json.dumps({"PK": {"S": f"k{i}"}, "SK": {"N": str(i)}, "v": {"S": "x" * 40}}) + "\n"


def _bad(i: int) -> str:
    return f"not json {i} " + "y" * 400 + "\n"


def _limited(limit: int):
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def _limited_process(*args: str, limit: int) -> subprocess.CompletedProcess:
    """``python -m singletable ARGS`` in a process of its own that cannot write a file past ``limit`` bytes
    (the limit holds for that process alone). A run without a limit runs in this process (cli_runs.py)."""
    return subprocess.run(
        [sys.executable, "-m", "singletable", *args],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_limited(limit),
    )


def _chattr(flag: str, path: Path) -> None:
    subprocess.run(["chattr", flag, str(path)], check=True, capture_output=True)


@pytest.fixture
def lockable(tmp_path: Path) -> Path:
    """A directory that can be made read-only (immutable) while a transfer runs."""
    if shutil.which("chattr") is None:
        pytest.skip("chattr is not available")
    directory = tmp_path / "locked"
    directory.mkdir()
    try:
        _chattr("+i", directory)
        _chattr("-i", directory)
    except subprocess.CalledProcessError:
        pytest.skip("this file system or user cannot make a directory immutable")
    yield directory
    subprocess.run(["chattr", "-i", str(directory)], capture_output=True)


def _stored_keys(endpoint: str, table: str) -> list[str]:
    return sorted(key[0] for key in contents(endpoint, table))


def test_a_checkpoint_that_cannot_grow_stops_the_import_in_one_line_counting_what_was_committed(
    http_server, tmp_path: Path
):
    source = tmp_path / "items.jsonl"
    source.write_text("".join(_line(i) for i in range(30)))
    name, point = table_name(), tmp_path / "cp.json"
    with open_target(http_server.endpoint) as target:
        create(target, name)
    args = (
        "import",
        http_server.endpoint,
        name,
        str(source),
        "--checkpoint",
        str(point),
        "--chunk-size",
        "10",
    )
    stopped = _limited_process(*args, limit=100)  # the checkpoint's JSON is longer than 100 bytes
    assert stopped.returncode == 1 and stopped.stdout == ""
    assert stopped.stderr == (
        f"Error: checkpoint {point} cannot be written (File too large) (10 items committed to {name})\n"
    )
    assert _stored_keys(http_server.endpoint, name) == sorted(f"k{i}" for i in range(10))
    assert list(tmp_path.glob("cp.json*")) == []  # no half-written checkpoint or temporary file left
    again = run_in_process(*args)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("imported 30 lines into")
    assert _stored_keys(http_server.endpoint, name) == sorted(f"k{i}" for i in range(30))


def test_a_reject_file_that_cannot_grow_stops_the_import_counting_only_what_it_holds(http_server, tmp_path):
    """Two bad lines per chunk of four, 3,000 bytes of reject file: the third chunk's rejects do not fit.
    Nothing is reported rejected that is not in the file, and the resume ends with each line recorded once."""
    source = tmp_path / "items.jsonl"
    lines = [_bad(i) if i % 2 else _line(i) for i in range(16)]
    source.write_text("".join(lines))
    name, rejects = table_name(), tmp_path / "rejects.jsonl"
    with open_target(http_server.endpoint) as target:
        create(target, name)
    args = (
        "import",
        http_server.endpoint,
        name,
        str(source),
        "--on-error",
        "reject",
        "--reject-file",
        str(rejects),
        "--chunk-size",
        "4",
    )
    stopped = _limited_process(*args, limit=3000)
    assert stopped.returncode == 1 and "Traceback" not in stopped.stderr
    first, *rest = stopped.stderr.splitlines()
    checkpoint = f"{source}.{name}.import-checkpoint.json"
    recorded = json.loads(Path(checkpoint).read_text())
    committed = len(_stored_keys(http_server.endpoint, name))
    assert first == (
        f"Error: reject file {rejects} cannot be written (File too large) ({committed} items committed to "
        f"{name}, {recorded['rejected']} lines rejected)"
    )
    assert rest == [f"checkpoint {checkpoint}: run the same command with --resume to continue"]
    assert recorded["rejected"] == 2 * (recorded["position"]["line"] // 4) and recorded["rejected"] >= 2
    resumed = run_in_process(*args, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert "imported 16 lines into" in resumed.stdout and ", 8 rejected (" in resumed.stdout
    written = [json.loads(line)["line"] for line in rejects.read_text().splitlines()]
    assert written == list(range(2, 17, 2))  # every bad line once, none lost, none twice
    assert _stored_keys(http_server.endpoint, name) == sorted(f"k{i}" for i in range(0, 16, 2))


def test_a_checkpoint_directory_made_read_only_mid_import_stops_it_and_the_resume_loses_nothing(
    tmp_path: Path, lockable: Path
):
    source = tmp_path / "items.jsonl"
    source.write_text("".join(_line(i) for i in range(100)))
    db, point = tmp_path / "t.db", lockable / "cp.json"

    def lock_after_two_chunks(items: int, size: int) -> None:
        if items == 20:
            _chattr("+i", lockable)

    with pytest.raises(TransferError) as stopped:
        import_table(
            str(db),
            "tbl",
            source,
            format="jsonl",
            schema=SCHEMA,
            checkpoint=point,
            chunk_size=10,
            progress=lock_after_two_chunks,
        )
    assert stopped.value.message == f"checkpoint {point} cannot be written (Operation not permitted)"
    assert stopped.value.summary.items == 30  # the third chunk is committed; its checkpoint is not
    assert json.loads(point.read_text())["items"] == 20  # the old checkpoint, whole
    _chattr("-i", lockable)
    summary = import_table(
        str(db), "tbl", source, format="jsonl", checkpoint=point, chunk_size=10, resume=True
    )
    assert (summary.read, summary.items, summary.rejected) == (100, 100, 0)
    assert sorted(key[0] for key in contents(str(db), "tbl")) == sorted(f"k{i}" for i in range(100))
    assert not point.exists()


def test_a_checkpoint_in_a_read_only_directory_is_refused_before_anything_is_written(
    tmp_path: Path, lockable: Path
):
    source = tmp_path / "items.jsonl"
    source.write_text(_line(1))
    _chattr("+i", lockable)
    point = lockable / "cp.json"
    for args in (
        ("import", str(tmp_path / "t.db"), "tbl", str(source), "--checkpoint", str(point)),
        (
            "copy",
            str(tmp_path / "t.db"),
            str(tmp_path / "u.db"),
            "--table",
            "tbl",
            "--checkpoint",
            str(point),
        ),
    ):
        if args[0] == "copy":
            import_table(str(tmp_path / "t.db"), "tbl", source, format="jsonl", schema=SCHEMA)
        else:
            Path(tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
            args = (*args, "--schema", str(tmp_path / "schema.json"))
        result = run_in_process(*args)
        assert (result.returncode, result.stdout) == (1, "")
        assert result.stderr == (
            f"Error: checkpoint {point} cannot be written (Operation not permitted): give --checkpoint a "
            "file in a directory that can be written to\n"
        )
    with open_target(str(tmp_path / "u.db"), read_only=True) as destination:
        assert destination.call("ListTables")["TableNames"] == []


def test_a_checkpoint_that_is_not_a_regular_file_is_refused(tmp_path: Path):
    """``--checkpoint /dev/full`` would have the checkpoint renamed over the device: refused, naming it."""
    source = tmp_path / "items.jsonl"
    source.write_text(_line(1))
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    for point in ("/dev/full", str(tmp_path)):
        result = run_in_process(
            "import", str(tmp_path / "t.db"), "tbl", str(source), "--schema", str(tmp_path / "schema.json"),
            "--checkpoint", point,
        )  # fmt: skip
        assert (result.returncode, result.stderr) == (
            1,
            f"Error: checkpoint {point} is not a regular file: give --checkpoint a file\n",
        )
    assert Path("/dev/full").is_char_device() or not Path("/dev/full").exists()


def test_a_copy_whose_checkpoint_cannot_grow_stops_in_one_line_and_a_new_run_completes(http_server, tmp_path):
    """Endpoint to endpoint: the copying process writes nothing but its checkpoint."""
    name, point = table_name(), tmp_path / "copy.json"
    data = tmp_path / "items.jsonl"
    data.write_text("".join(_line(i) for i in range(25)))
    server = ServerProcess(None)
    try:
        import_table(server.endpoint, name, data, format="jsonl", schema=SCHEMA)
        args = ("copy", server.endpoint, http_server.endpoint, "--table", name, "--checkpoint", str(point))
        stopped = _limited_process(*args, limit=100)
        again = run_in_process(*args)
    finally:
        server.stop()
    assert stopped.returncode == 1 and stopped.stdout == ""
    assert stopped.stderr == (
        f"Error: checkpoint {point} cannot be written (File too large) (25 items committed to {name})\n"
    )
    assert list(tmp_path.glob("copy.json*")) == []
    assert again.returncode == 0, again.stderr
    assert _stored_keys(http_server.endpoint, name) == sorted(f"k{i}" for i in range(25))


def test_a_reject_file_in_a_read_only_directory_is_refused_before_anything_is_written(
    tmp_path: Path, lockable: Path
):
    source = tmp_path / "items.jsonl"
    source.write_text(_line(1) + _bad(2))
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    _chattr("+i", lockable)
    rejects = lockable / "rejects.jsonl"
    result = run_in_process(
        "import", str(tmp_path / "t.db"), "tbl", str(source), "--schema", str(tmp_path / "schema.json"),
        "--on-error", "reject", "--reject-file", str(rejects),
    )  # fmt: skip
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        f"Error: reject file {rejects} cannot be written (Operation not permitted): give --reject-file a "
        "file in a directory that can be written to\n"
    )
    assert not (tmp_path / "t.db").exists()
