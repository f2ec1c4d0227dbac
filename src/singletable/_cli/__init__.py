"""The ``singletable`` command line (the ``singletable`` script and ``python -m singletable``).

One module per command family, each a thin click layer over a documented call (``demo`` runs a seed design,
``serve`` the HTTP server, ``look`` the commands that look at tables, ``transfer`` export, import and copy,
``synth`` a design as infrastructure code and ``import-workbench``, ``migrate`` a design's migrations);
this module holds the group and the list of commands. The group words every command's expected failures
the same way (``_failures.py``): a missing extra, a target that refuses, a database or port that ``serve``
cannot use, an unknown demo end with one line on stderr and exit code 1, never a traceback.
"""

from __future__ import annotations

import click

from singletable._cli._failures import failure, quiet_stdout
from singletable._cli.check import check
from singletable._cli.cost import cost
from singletable._cli.demo import demo
from singletable._cli.diff import diff
from singletable._cli.docs import docs
from singletable._cli.infer import infer
from singletable._cli.look import COMMANDS as LOOK_COMMANDS
from singletable._cli.mcp import mcp_command
from singletable._cli.migrate import migrate
from singletable._cli.migrate_finish import finish as migrate_finish
from singletable._cli.migrate_rehearse import rehearse
from singletable._cli.serve import serve
from singletable._cli.synth import COMMANDS as SYNTH_COMMANDS
from singletable._cli.transfer import COMMANDS as TRANSFER_COMMANDS
from singletable._cli.ui import ui

# Commands that read their arguments into a request: a ValueError from the library is a usage error (exit 2).
_READ_ARGUMENTS = frozenset(command.name for command in LOOK_COMMANDS)
# Commands over singletable.data: their ValueError or OSError is an expected failure, worded as one line.
_DATA_COMMANDS = _READ_ARGUMENTS | {command.name for command in TRANSFER_COMMANDS}
# synth's and import-workbench's ValueError (a design or a model it cannot read) is one line too
_DATA_COMMANDS |= {command.name for command in SYNTH_COMMANDS} | {"infer"}


class _Commands(click.Group):
    """The command group; every command's expected failures are worded by ``_failures.failure``."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:  # `singletable scan ... | head`: the reader has all it wants
            quiet_stdout()
            return None
        except Exception as error:
            data_command = ctx.invoked_subcommand in _DATA_COMMANDS
            shown = failure(error, self._usage_context(ctx, error), data_command=data_command)
            if shown is None:
                raise
            raise shown from None

    def _usage_context(self, ctx: click.Context, error: Exception) -> click.Context | None:
        """The failed command's context, for the usage line of a usage error (None when it is not one)."""
        name = ctx.invoked_subcommand
        if not isinstance(error, ValueError) or name is None or name not in _READ_ARGUMENTS:
            return None
        command = self.get_command(ctx, name)
        return command.make_context(name, [], parent=ctx, resilient_parsing=True) if command else None


@click.group(cls=_Commands)
@click.version_option(package_name="singletable")
def main() -> None:
    """singletable: DynamoDB single-table design on an embedded, DynamoDB-compatible engine."""


for _command in (demo, serve, *LOOK_COMMANDS, *TRANSFER_COMMANDS, ui):
    main.add_command(_command)
main.add_command(check)
main.add_command(docs)
main.add_command(cost)
for _command in SYNTH_COMMANDS:
    main.add_command(_command)
main.add_command(diff)
main.add_command(mcp_command)
main.add_command(infer)
migrate.add_command(migrate_finish)
migrate.add_command(rehearse)
main.add_command(migrate)
