"""The ``singletable`` command line run inside the test process, shared by every test package that runs it.

A ``python -m singletable`` subprocess costs most of a second of CPU before it does anything (the imports,
with no bytecode cache); click's ``CliRunner`` runs the same command group in this process.
:func:`run_in_process` answers as :func:`serving.run_cli` (the real process) does -- ``returncode``,
``stdout``, ``stderr`` -- so a test reads the same either way. What only a real process shows (its exit
status, a signal, Ctrl-C, a kill, output through real pipes) keeps :func:`serving.run_cli` or its own
``subprocess`` run: each command keeps at least one such run in the suite.

An exception the command group does not word (a bug) ends a real process with its traceback on stderr and
exit code 1; here too, so a test asserting "never a traceback" means the same in-process.
"""

from __future__ import annotations

import traceback
from typing import NamedTuple

from click.testing import CliRunner

from singletable._cli import main


class CliRun(NamedTuple):
    """How one command ended: the attributes of ``subprocess.CompletedProcess`` that tests read."""

    returncode: int
    stdout: str
    stderr: str


def run_in_process(*args: str, env: dict[str, str] | None = None, input: str | None = None) -> CliRun:
    """``singletable ARGS`` in this process, to its end: stdout and stderr apart, neither a terminal.
    ``env`` sets environment variables for the run only (as the subprocess's environment would)."""
    result = CliRunner().invoke(main, list(args), prog_name="singletable", env=env, input=input)
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(result.exception))
    return CliRun(result.exit_code, result.stdout, stderr)
