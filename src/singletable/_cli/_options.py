"""The arguments and options commands share, declared once so every command spells them alike.

A TARGET (a database file or an endpoint URL), ``--json``/``--jsonl`` output, ``--plain`` JSON, the
parallel-scan ``--segments`` and a transfer's ``--format``, ``--checkpoint`` and ``--resume``. Each takes the
help text the command words for itself (``--json`` prints items for ``scan``, a summary for ``export``);
:func:`output_options` turns ``--json``/``--jsonl``/``--plain``/``--pager`` into one :class:`Format`.

The servers (``serve``, ``ui``, ``mcp``) share ``--log-level``; ``serve`` and ``ui`` share ``--host`` and
``--allow-host``, and read them (with serve's ``--cors-origin``) into one
:class:`~singletable._access.AccessPolicy` by :func:`access_policy`, so a value is
accepted or refused in the same words by both.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from singletable._cli._output import Format

if TYPE_CHECKING:
    from singletable._access import AccessPolicy

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]
FORMATS = click.Choice(["dynamodb", "jsonl", "csv"])


def target_argument(name: str = "target") -> Decorator:
    """A TARGET: a database file or an http(s):// endpoint URL (``source``/``destination`` for copy)."""
    return click.argument(name)


def json_option(help: str) -> Decorator:
    return click.option("--json", "as_json", is_flag=True, help=help)


def jsonl_option(help: str) -> Decorator:
    return click.option("--jsonl", "as_jsonl", is_flag=True, help=help)


def plain_option(help: str) -> Decorator:
    return click.option("--plain", is_flag=True, help=help)


def segments_option(
    help: str = "Parallel-scan segments read at once.", show_default: bool = True
) -> Decorator:
    return click.option(
        "--segments", default=1, show_default=show_default, type=click.IntRange(1, 1000000), help=help
    )


def format_option(help: str, choices: click.Choice = FORMATS) -> Decorator:
    return click.option("--format", "format_", type=choices, help=help)


def checkpoint_options(operation: str, checkpoint_help: str) -> Decorator:
    """``--checkpoint FILE`` and ``--resume`` of an import or a copy."""

    def add(command: Callable[..., Any]) -> Callable[..., Any]:
        resume = f"Continue an interrupted {operation} from its checkpoint."
        command = click.option("--resume", is_flag=True, help=resume)(command)
        return click.option("--checkpoint", help=checkpoint_help)(command)

    return add


def output_options(
    json_help: str, jsonl_help: str, *, plain_help: str | None = None, pager: bool = False
) -> Decorator:
    """``--json``, ``--jsonl`` (and ``--plain``, ``--pager/--no-pager`` when asked), given to the command as
    one ``form`` (:class:`Format`)."""

    def add(command: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(command)
        def run(
            *args: Any, as_json: bool, as_jsonl: bool, plain: bool = False, pager: bool = True, **kwargs: Any
        ) -> Any:
            return command(*args, form=Format.of(as_json, as_jsonl, plain, pager), **kwargs)

        options = [json_option(json_help), jsonl_option(jsonl_help)]
        if plain_help is not None:
            options.append(plain_option(plain_help))
        if pager:
            options.append(
                click.option("--pager/--no-pager", default=True, help="Page a long table on a terminal.")
            )
        decorated: Callable[..., Any] = run
        for option in reversed(options):
            decorated = option(decorated)
        return decorated

    return add


HOST_HELP = "Interface to bind; loopback unless told. Also a Host name answered (see --allow-host)."
ALLOW_HOST_HELP = (
    "Also answer requests whose Host header names NAME, a host name or address alone (repeatable; '*': any, "
    "e.g. for a docker-compose service name). By default only loopback names and the --host address are "
    "answered: a guard against DNS rebinding."
)


def log_level_option() -> Decorator:
    """``--log-level`` of a server's own log (uvicorn's): warnings and worse unless asked."""
    return click.option(
        "--log-level",
        default="warning",
        show_default=True,
        type=click.Choice(["critical", "error", "warning", "info", "debug"]),
    )


def host_options(port: int) -> Decorator:
    """A server's ``--host``, ``--port`` (default ``port``) and ``--allow-host`` (as ``allow_hosts``)."""

    def add(command: Callable[..., Any]) -> Callable[..., Any]:
        command = click.option(
            "--allow-host", "allow_hosts", multiple=True, metavar="NAME", help=ALLOW_HOST_HELP
        )(command)
        command = click.option("--port", default=port, show_default=True, type=int)(command)
        return click.option("--host", default="127.0.0.1", show_default=True, help=HOST_HELP)(command)

    return add


def access_policy(
    host: str, allow_hosts: tuple[str, ...], cors_origins: tuple[str, ...] = ()
) -> AccessPolicy:
    """The Host names (and origins) a server answers; a malformed value is a usage error naming its flag."""
    from singletable._access import AccessPolicy, HostForm

    for flag, one in (
        ("--host", {"bound": host}),
        ("--allow-host", {"allow_hosts": allow_hosts}),
        ("--cors-origin", {"cors_origins": cors_origins}),
    ):
        try:
            AccessPolicy.build(**one)
        except HostForm as problem:
            raise click.BadParameter(str(problem), param_hint=flag) from None
    return AccessPolicy.build(bound=host, allow_hosts=allow_hosts, cors_origins=cors_origins)
