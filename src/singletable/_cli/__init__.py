"""The ``singletable`` command line (the ``singletable`` script and ``python -m singletable``).

One module per command family, each a thin click layer over a documented call (``demo`` runs a seed design,
``serve`` the HTTP server, ``look`` the commands that look at tables); this module holds the group, the list
of commands, and how every command fails.
Expected failures -- a missing extra, a database or port that ``serve`` cannot use, an unknown demo -- end
with one line on stderr and exit code 1, never a traceback.
"""

from __future__ import annotations

import click

from singletable._cli.demo import demo
from singletable._cli.look import COMMANDS as LOOK_COMMANDS
from singletable._cli.serve import serve
from singletable._cli.transfer import copy, export, import_
from singletable._extras import MissingExtra


class _Commands(click.Group):
    """The command group; a missing optional dependency ends a command with its one-line message."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except MissingExtra as missing:
            raise click.ClickException(str(missing)) from None


@click.group(cls=_Commands)
@click.version_option(package_name="singletable")
def main() -> None:
    """singletable: DynamoDB single-table design on an embedded, DynamoDB-compatible engine."""


for _command in (demo, serve, *LOOK_COMMANDS, export, import_, copy):
    main.add_command(_command)
