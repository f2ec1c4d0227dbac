"""``singletable serve --ui``: the web console (singletable.ui) beside the API, under ``/ui/``, on one port.

The API keeps its path: :class:`~singletable._server.app.DynamoDBApp` hands a request to the console only when
one is mounted and the path is ``/ui`` or below it (one attribute check per request when none is). The
console is built on its first request, over the same engine as the API (no second database connection),
with ``root_path`` set so its links stay under ``/ui/``. Its options reach worker processes through the
environment, as the server's own do, and so does the secret its CSRF tokens and cursors use, so a form
served by one worker is accepted by another.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

PREFIX = "/ui"
ENV_CONSOLE = "SINGLETABLE_SERVE_UI"


@dataclass(frozen=True)
class ConsoleOptions:
    """What ``--ui``, ``--ui-design`` and ``--ui-read-only`` ask of the mounted console, and the Host names
    it answers to besides the loopback ones (``--host``, ``--allow-host``)."""

    design: str | None = None
    read_only: bool = False
    hosts: tuple[str, ...] = ()

    def export(self) -> None:
        """Into the environment, for worker processes; with one shared secret for the console's tokens."""
        import secrets

        from singletable.ui.shared import SECRET_ENV

        os.environ[ENV_CONSOLE] = json.dumps(
            {"design": self.design, "read_only": self.read_only, "hosts": list(self.hosts)}
        )
        os.environ.setdefault(SECRET_ENV, secrets.token_hex(32))

    @staticmethod
    def from_environment() -> ConsoleOptions | None:
        configured = os.environ.get(ENV_CONSOLE)
        if not configured:
            return None
        found = json.loads(configured)
        return ConsoleOptions(
            design=found.get("design"),
            read_only=bool(found.get("read_only")),
            hosts=tuple(found.get("hosts", ())),
        )


def is_console_path(path: str) -> bool:
    return path == PREFIX or path.startswith(PREFIX + "/")


class MountedConsole:
    """The console app for one engine, built on first use."""

    def __init__(self, options: ConsoleOptions) -> None:
        self.options = options
        self._app: Any = None

    def app(self, path: str, engine: Any) -> Any:
        if self._app is None:
            from singletable.data import Target
            from singletable.ui import console_app

            target = Target(path, engine=engine)  # the API's engine: never closed by the console
            self._app = console_app(
                target,
                design=self.options.design,
                read_only=self.options.read_only,
                allowed_hosts=self.options.hosts,
            )
        return self._app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any, path: str, engine: Any) -> None:
        if scope["path"] == PREFIX:  # /ui -> /ui/, where the pages' relative root is
            await send({"type": "http.response.start", "status": 308, "headers": [(b"location", b"/ui/")]})
            await send({"type": "http.response.body", "body": b""})
            return
        mounted = {**scope, "root_path": scope.get("root_path", "") + PREFIX}
        await self.app(path, engine)(mounted, receive, send)
