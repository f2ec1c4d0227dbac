"""singletable.mcp over an AsyncDB and over a DB: calls awaited on the event loop or run on worker threads,
and two calls in flight at once over streamable HTTP (each waits, at its Query, until the other has reached
its own: a server that answered one call at a time would never let the second start)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_seeds import design_table
from mcp_wire import seed_file

from mcp import Client
from reference import free_port
from singletable.mcp import DesignTools, Policy, ToolError, mcp_server, serve_http_async
from singletable.model import Adapter, AsyncAdapter, connect, connect_async

MEETING_TIMEOUT = 10.0


class AsyncMeeting(AsyncAdapter):
    """An AsyncDB's adapter that holds each Query until a second one has arrived, then sends both."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.arrived = 0
        self.both = anyio.Event()

    async def call(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        if operation == "Query":
            self.arrived += 1
            if self.arrived >= 2:
                self.both.set()
            with anyio.fail_after(MEETING_TIMEOUT):
                await self.both.wait()
        return await self.inner.call(operation, params)

    def supports(self, operation: str) -> bool:
        return self.inner.supports(operation)

    async def close(self) -> None:
        await self.inner.close()


class ThreadMeeting(Adapter):
    """The same for a DB, whose requests come from worker threads."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.barrier = threading.Barrier(2, timeout=MEETING_TIMEOUT)

    def call(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        if operation == "Query":
            self.barrier.wait()
        return self.inner.call(operation, params)

    def supports(self, operation: str) -> bool:
        return self.inner.supports(operation)

    def close(self) -> None:
        self.inner.close()


async def wait_for_port(port: int) -> None:
    with anyio.fail_after(30):
        while True:
            try:
                stream = await anyio.connect_tcp("127.0.0.1", port)
            except OSError:
                await anyio.sleep(0.05)
                continue
            await stream.aclose()
            return


async def two_calls_at_once(tools: DesignTools) -> list[Any]:
    """Serve ``tools`` over streamable HTTP in this event loop and make two calls from one SDK client at
    once; their results."""
    port = free_port()
    results: list[Any] = [None, None]
    async with anyio.create_task_group() as server:
        server.start_soon(lambda: serve_http_async(mcp_server(tools), port))
        await wait_for_port(port)
        async with Client(f"http://127.0.0.1:{port}/mcp", read_timeout_seconds=60) as client:

            async def call(number: int, author: str) -> None:
                results[number] = await client.call_tool("post_by_user", {"author_id": author})

            with anyio.fail_after(MEETING_TIMEOUT * 3):
                async with anyio.create_task_group() as calls:
                    calls.start_soon(call, 0, "john_doe")
                    calls.start_soon(call, 1, "jane_smith")
        server.cancel_scope.cancel()
    return results


def check_both(results: list[Any]) -> None:
    john, jane = results
    assert john.is_error is False, john.content[0].text
    assert jane.is_error is False, jane.content[0].text
    assert {p["author_id"] for p in john.structured_content["items"]} == {"john_doe"}
    assert {p["author_id"] for p in jane.structured_content["items"]} == {"jane_smith"}


def test_two_calls_in_flight_over_http_on_an_async_db(tmp_path: Path) -> None:
    path = seed_file("wavyblog", tmp_path / "blog.db")

    async def main() -> list[Any]:
        engine = await connect_async(design_table("wavyblog"), str(path))
        db = await connect_async(design_table("wavyblog"), AsyncMeeting(engine.adapter))
        try:
            return await two_calls_at_once(DesignTools(db))
        finally:
            await db.close()

    check_both(anyio.run(main))


def test_two_calls_in_flight_over_http_on_a_db(tmp_path: Path) -> None:
    path = seed_file("wavyblog", tmp_path / "blog.db")
    engine = connect(design_table("wavyblog"), str(path))
    db = connect(design_table("wavyblog"), ThreadMeeting(engine.adapter))
    try:
        check_both(anyio.run(two_calls_at_once, DesignTools(db)))
    finally:
        db.close()


def test_the_meeting_fails_when_calls_run_one_at_a_time(tmp_path: Path) -> None:
    """The check above can fail: one call alone waits for a partner that never comes."""
    path = seed_file("wavyblog", tmp_path / "blog.db")
    engine = connect(design_table("wavyblog"), str(path))
    meeting = ThreadMeeting(engine.adapter)
    meeting.barrier = threading.Barrier(2, timeout=0.2)
    tools = DesignTools(connect(design_table("wavyblog"), meeting))
    with pytest.raises(ToolError, match="post_by_user: internal error"):
        tools.call("post_by_user", {"author_id": "john_doe"})
    engine.close()


@pytest.mark.parametrize("seed", ["wavyblog", "places"])
def test_an_async_db_answers_as_a_db_does(seed: str, tmp_path: Path) -> None:
    path = seed_file(seed, tmp_path / "seed.db")
    secret = "same"
    sync_db = connect(design_table(seed), str(path), cursor_secret=secret)
    policy = Policy(allow_writes=True, confirm=True, raw_tables=frozenset({sync_db.table_name}))
    sync_tools = DesignTools(sync_db, policy, cursor_secret=secret)
    readers = [
        n
        for n, s in sync_tools.tools.items()
        if s.kind in ("pattern", "collection") and not s.input_schema.get("required")
    ]
    table = sync_tools.db.table_name
    calls = [
        ("describe_design", {}),
        *((name, {"limit": 2}) for name in readers),
        *(("count", {"pattern": name}) for name in readers),
        ("scan_raw", {"table": table, "limit": 3}),
        ("query_raw", {"table": table, "key": {"partition": {"attribute": "PK", "value": 1}}}),
    ]

    async def main() -> list[Any]:
        db = await connect_async(design_table(seed), str(path), cursor_secret=secret)
        tools = DesignTools(db, policy, cursor_secret=secret)
        with pytest.raises(TypeError, match=r"await tools.call_async\(name, arguments\)"):
            tools.call("describe_design", {})
        try:
            answers = []
            for name, arguments in calls:
                try:
                    answers.append(await tools.call_async(name, arguments))
                except ToolError as error:
                    answers.append(str(error))
            return answers
        finally:
            await db.close()

    expected = []
    for name, arguments in calls:
        try:
            expected.append(sync_tools.call(name, arguments))
        except ToolError as error:
            expected.append(str(error))
    assert anyio.run(main) == expected
    sync_db.close()
