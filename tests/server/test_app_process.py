"""The ASGI app pins start-up objects out of the garbage collector only in a process of its own."""

from __future__ import annotations

import asyncio
import gc

from singletable._server.app import DynamoDBApp


def _start_and_stop(app: DynamoDBApp) -> None:
    async def run() -> None:
        messages = iter([{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}])
        sent: list[str] = []

        async def receive() -> dict:
            return next(messages)

        async def send(message: dict) -> None:
            sent.append(message["type"])

        await app({"type": "lifespan"}, receive, send)
        assert sent == ["lifespan.startup.complete", "lifespan.shutdown.complete"]

    asyncio.run(run())


def test_an_app_embedded_in_someone_elses_process_leaves_the_collector_alone():
    gc.unfreeze()
    _start_and_stop(DynamoDBApp(":memory:"))
    assert gc.get_freeze_count() == 0


def test_singletable_serve_freezes_what_start_up_built():
    gc.unfreeze()
    try:
        _start_and_stop(DynamoDBApp(":memory:", own_process=True))
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
