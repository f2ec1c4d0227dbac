"""An ASGI app served by a real uvicorn in a thread of the test's own process, on a free loopback port: for
tests that need the server's objects (its engine, a fault injected into it) in reach, which a ``singletable
serve`` subprocess (serving.py) keeps out of reach."""

from __future__ import annotations

import threading
import time
from typing import Any

import uvicorn

from reference import free_port


class AppThread:
    """``app`` served on ``self.url``, ready on return; ``what`` names it in the error if it does not start
    within 20 seconds. ``config`` goes to ``uvicorn.Config`` (an ``http`` protocol class, say)."""

    def __init__(self, app: Any, what: str, **config: Any) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="error", lifespan="on", **config)
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError(f"{what} did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
