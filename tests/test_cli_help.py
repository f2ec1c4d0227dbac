"""Every command's ``--help`` renders, as plain text.

click prints a command's docstring and its options' ``help=`` strings as they are written, so reStructuredText
markup in them (``double backticks``) reaches the terminal verbatim. The walk covers every command and
subcommand of the group, so a command added later is held to the same rule.
"""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from singletable._cli import main


def _command_paths(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """The argument path to every command under ``group`` (the group itself first)."""
    paths = [prefix]
    ctx = click.Context(group, info_name="singletable")
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        if isinstance(command, click.Group):
            paths += _command_paths(command, (*prefix, name))
        else:
            paths.append((*prefix, name))
    return paths


COMMAND_PATHS = _command_paths(main)


def test_the_walk_finds_the_commands() -> None:
    names = {path[-1] for path in COMMAND_PATHS if path}
    assert {"serve", "demo", "check", "scan", "import", "ui"} <= names


@pytest.mark.parametrize("path", COMMAND_PATHS, ids=lambda path: " ".join(path) or "singletable")
def test_help_renders_as_plain_text(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(main, [*path, "--help"], prog_name="singletable")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Usage: singletable")
    assert "``" not in result.output, result.output
    assert ":class:" not in result.output and ":func:" not in result.output, result.output
