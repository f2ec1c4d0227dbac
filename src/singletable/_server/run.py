"""Process management for ``singletable serve``: configure uvicorn, start workers, stop cleanly.

The server is uvicorn (httptools + uvloop): it measured fastest for this workload and starts quickest, and
its httptools protocol lets plain API calls skip ASGI (``direct``; numbers in ``docs/performance.md``, where
granian, once selectable, measured half its throughput). Configuration reaches worker processes through
environment variables, since multi-worker servers re-import the app by name in each process. Every engine
write commits before its response is sent, and the server finishes in-flight requests on SIGTERM/SIGINT
before the lifespan shutdown closes the database, so an acknowledged write is never lost on a clean stop.
"""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass
from typing import Any

from singletable._access import AccessPolicy
from singletable._server.app import ENV_ACCESS, ENV_CREDENTIALS, ENV_DB, ENV_RECORD, DynamoDBApp
from singletable._server.console import ENV_CONSOLE, ConsoleOptions, MountedConsole

APP_FACTORY = "singletable._server.app:create_app"


@dataclass
class ServeOptions:
    db: str = ":memory:"
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    credentials: str | None = None
    log_level: str = "warning"
    record: str | None = None  # --record FILE
    console: ConsoleOptions | None = None  # serve --ui: the web console under /ui/
    access: AccessPolicy | None = None  # --allow-host, --cors-origin and --host; None: loopback only


def _prepare_environment(options: ServeOptions) -> None:
    os.environ[ENV_DB] = options.db
    if options.access is not None:
        os.environ[ENV_ACCESS] = options.access.to_json()
    else:
        os.environ.pop(ENV_ACCESS, None)
    if options.console is not None:
        options.console.export()
    else:
        os.environ.pop(ENV_CONSOLE, None)
    if options.credentials:
        os.environ[ENV_CREDENTIALS] = options.credentials
    else:
        os.environ.pop(ENV_CREDENTIALS, None)
    if options.record:
        os.environ[ENV_RECORD] = os.path.abspath(options.record)
    else:
        os.environ.pop(ENV_RECORD, None)


def _fast_loop() -> str:
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return "asyncio"
    return "uvloop"


def _fast_http() -> str:
    try:
        import httptools  # noqa: F401
    except ImportError:
        return "h11"
    return "httptools"


def _http_protocol() -> Any:
    """httptools when installed (API calls answered without ASGI, see ``direct``; one send per response,
    see ``coalesce``), else h11. A uvicorn whose httptools protocol lacks what ``direct`` overrides gets its
    own protocol, with one send per response still."""
    if _fast_http() == "h11":
        return "h11"
    from singletable._server.coalesce import CoalescingHttpToolsProtocol

    try:
        from singletable._server.direct import DirectApiProtocol, fits_uvicorn
    except ImportError:  # a uvicorn without the names direct imports from it
        return CoalescingHttpToolsProtocol
    return DirectApiProtocol if fits_uvicorn() else CoalescingHttpToolsProtocol


def serve_uvicorn(options: ServeOptions) -> None:
    import uvicorn

    common = dict(
        host=options.host,
        port=options.port,
        loop=_fast_loop(),
        http=_http_protocol(),
        lifespan="on",
        log_level=options.log_level,
        access_log=False,
        server_header=False,
        proxy_headers=False,  # the client's address is never used: skip a middleware on every request
        timeout_graceful_shutdown=30,
    )
    if options.workers == 1:
        from singletable._server.sigv4 import load_verifier

        console = MountedConsole(options.console) if options.console is not None else None
        app = DynamoDBApp(
            options.db,
            verifier=load_verifier(options.credentials),
            own_process=True,
            record=options.record,
            console=console,
            access=options.access,
        )
        # uvicorn re-raises the stop signal after its graceful shutdown; with these no-op handlers in place
        # beforehand, a clean stop exits 0 instead of dying by SIGTERM or printing a KeyboardInterrupt.
        for stop_signal in (signal.SIGTERM, signal.SIGINT):
            signal.signal(stop_signal, lambda *_: None)
        uvicorn.Server(uvicorn.Config(app, **common)).run()
    else:
        uvicorn.run(APP_FACTORY, factory=True, workers=options.workers, **common)


def serve(options: ServeOptions) -> None:
    """Run until SIGTERM/SIGINT."""
    _prepare_environment(options)
    serve_uvicorn(options)
