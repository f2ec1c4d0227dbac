"""A database file the engine cannot open (not SQLite, or written by a newer singletable) is one line on
stderr and exit 1 for every command that takes a TARGET, never a traceback; the library raises
``DatabaseFileError``, an OSError naming the file and why."""

from __future__ import annotations

import subprocess
import sys

import pytest
from tests.data.look_support import run

from singletable.data import DatabaseFileError, open_target

COMMANDS = [
    ("tables", "{db}"),
    ("describe", "{db}", "T"),
    ("scan", "{db}", "T"),
    ("export", "{db}", "T", "{dir}/out.jsonl"),
    ("import", "{db}", "T", "{dir}/in.jsonl"),
    ("copy", "{db}", "{dir}/copy.db"),
    ("copy", "{dir}/source.db", "{db}"),
]


@pytest.fixture
def garbage(tmp_path):
    path = tmp_path / "garbage.db"
    path.write_bytes(b"this is not a SQLite database, whatever its name says\n" * 100)
    (tmp_path / "in.jsonl").write_text('{"Item": {"PK": {"S": "a"}}}\n')
    return path


def test_the_library_names_the_file_and_why(garbage):
    with pytest.raises(DatabaseFileError) as raised:
        open_target(str(garbage))
    assert str(raised.value) == f"cannot open database {garbage}: file is not a database"
    assert isinstance(raised.value, OSError)


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:1] + c[2:3]))
def test_each_command_fails_in_one_line(garbage, tmp_path, command):
    open_target(str(tmp_path / "source.db")).close()  # copy's readable source
    args = [part.format(db=garbage, dir=tmp_path) for part in command]
    result = run(*args)
    assert result.exit_code == 1, result.output
    assert result.stderr == f"Error: cannot open database {garbage}: file is not a database\n"


def test_a_real_process_prints_no_traceback(garbage, tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "singletable", "export", str(garbage), "T", str(tmp_path / "out.jsonl")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr == f"Error: cannot open database {garbage}: file is not a database\n"
    assert "Traceback" not in done.stdout + done.stderr


def test_diff_cannot_compare_with_it(garbage):
    result = run("diff", "singletable.examples.wavyblog.design", str(garbage))
    assert result.exit_code == 2, result.output  # diff: 2 is "cannot compare" (docs/design-tools.md)
    assert result.stderr == f"Error: cannot open database {garbage}: file is not a database\n"


def test_the_console_does_not_start_on_it(garbage):
    result = run("ui", str(garbage), "--port", "1")
    assert result.exit_code == 1, result.output
    assert result.stderr == f"Error: cannot open database {garbage}: file is not a database\n"
