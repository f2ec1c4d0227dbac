"""How every command fails: a few words on stderr and an exit code fit for a shell, never a traceback.

The command group (``_cli/__init__.py``) runs each command and hands what it raised to :func:`failure`,
which words it once for every command:

- ``MissingExtra``: its line, naming the extra to install; exit 1.
- ``TargetError``: ``CODE: message``, DynamoDB's own words (or ``EndpointConnectionError: ...``); exit 1.
- ``FormatError``, and a data command's ``OSError``: its text (a source or destination that cannot be
  used); exit 1.
- ``TransferError``: one line with the reason and, once an import or a copy had begun writing, what it
  committed (``Error: ... (1,041 items committed to Orders)``; one that stops before writing, and an export,
  whose partial destination is removed, changed nothing); then, when a checkpoint holds where it stopped,
  how to resume; exit 1 (130 when interrupted).
- ``ValueError``: the library's word on an argument. For a command that reads its arguments into a request
  (the look commands) a usage error, exit 2; for export, import and copy its text, exit 1.

Anything else (a ValueError in ``demo``, say) is a bug and keeps its traceback. A closed pipe
(``singletable scan ... | head``) is not a failure: the reader has all it wants, and the command ends quietly
with 0 (:func:`quiet_stdout`).
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from singletable._extras import MissingExtra
from singletable._words import counted

if TYPE_CHECKING:
    from singletable.data import TransferError


class TransferStopped(click.ClickException):
    """A transfer that stopped: its reason, what was committed, and (with a checkpoint) how to resume."""

    def __init__(self, error: TransferError) -> None:
        from singletable.data import TransferInterrupted

        super().__init__(str(error))
        self.error = error
        self.exit_code = 130 if isinstance(error, TransferInterrupted) else 1

    def show(self, file: object = None) -> None:
        error = self.error
        summary = error.summary
        lines = [f"warning: {warning}" for warning in summary.warnings]
        checkpoint = error.checkpoint
        began = checkpoint is not None or summary.items or summary.rejected
        lines.append(f"Error: {error.message}{_committed(summary) if began else ''}")
        if checkpoint is not None and Path(checkpoint).exists():
            lines.append(f"checkpoint {checkpoint}: run the same command with --resume to continue")
        click.echo("\n".join(lines), err=True)


def _committed(summary: object) -> str:
    """`` (3 items committed to T, 1 line rejected)`` for an import or a copy; nothing for an export, whose
    destination a failure removes."""
    # An import's, copy's or export's summary: each has these attributes, under no common type.
    if summary.operation == "export":  # type: ignore[attr-defined]
        return ""
    # (the same summary)
    text = f"{counted(summary.items, 'item')} committed to {summary.table}"  # type: ignore[attr-defined]
    if summary.rejected:  # type: ignore[attr-defined]
        text += f", {counted(summary.rejected, 'line')} rejected"  # type: ignore[attr-defined]
    return f" ({text})"


def failure(
    error: Exception, usage: click.Context | None, *, data_command: bool
) -> click.ClickException | None:
    """``error`` as the click exception that shows it (see the module docstring), or None when it is not an
    expected failure. ``usage``: the command's context when its ValueErrors are usage errors;
    ``data_command``: a command over ``singletable.data``, whose ValueError and OSError are expected."""
    if isinstance(error, click.ClickException):
        return None  # click's own, shown by click
    if isinstance(error, MissingExtra):
        return click.ClickException(str(error))
    from singletable.data import FormatError, TargetError, TransferError

    if isinstance(error, TransferError):
        return TransferStopped(error)
    if isinstance(error, TargetError):
        return click.ClickException(f"{error.code}: {error.message}")
    if isinstance(error, ValueError) and usage is not None:
        return click.UsageError(str(error), ctx=usage)
    if isinstance(error, FormatError) or (data_command and isinstance(error, ValueError | OSError)):
        return click.ClickException(str(error))
    return None


def quiet_stdout() -> None:
    """After a closed pipe: send what is left to nowhere, so the interpreter's exit stays quiet."""
    with contextlib.suppress(OSError):
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 -- lives until the interpreter exits
