"""A real browser for the tests (the web console's, the HTML docs'): Debian's ``chromium`` driven by
Playwright for Python.

Playwright's own browser downloads are not used (nor available here): it launches the system Chromium at
``/usr/bin/chromium`` (``SINGLETABLE_CHROMIUM`` to point elsewhere), headless, with no background traffic.
Without Chromium or Playwright the browser tests skip saying why -- unless ``SINGLETABLE_REQUIRE_REFERENCE``
is set (as ``.ci/run`` does, which installs the ``chromium`` package), when they fail instead.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from reference import required

CHROMIUM = os.environ.get("SINGLETABLE_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# A name the browser resolves to 127.0.0.1, as a rebound DNS name would (test_browser_attacks.py plays DNS
# rebinding with it); no other test uses the name, so one browser serves every browser test.
REBOUND = "evil.example"


def unavailable() -> str | None:
    """Why no browser can run here, or None."""
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install 'singletable[test]')"
    return None


def launched() -> Iterator[Any]:
    """A headless Chromium (``REBOUND`` mapped to 127.0.0.1) for the duration of a fixture; skips (or fails
    when required) without one. Playwright runs in a thread of its own (``Driver``), so the tests' thread
    keeps no event loop of Playwright's and their own ``asyncio.run`` calls work beside it."""
    why = unavailable()
    if why is not None:
        if required():
            pytest.fail(f"a browser is required (SINGLETABLE_REQUIRE_REFERENCE) but: {why}")
        pytest.skip(why)
    driver = Driver()
    try:
        yield driver.browser
    finally:
        driver.stop()


class Driver:
    """Playwright's synchronous API and one Chromium in a thread of their own; every call runs there.

    Playwright's synchronous API runs its asyncio loop inside the calling thread and leaves it marked as that
    thread's running loop between calls, so a test that calls ``asyncio.run`` in the same thread fails
    ("cannot be called from a running event loop"). Kept in its own thread, one browser serves a whole
    test process, whatever else its tests run."""

    def __init__(self) -> None:
        self._calls: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]] | None] = queue.SimpleQueue()
        started: Future[Any] = Future()
        self._thread = threading.Thread(target=self._serve, args=(started,), name="playwright", daemon=True)
        self._thread.start()
        self.browser = Remote(self, started.result(timeout=120))

    def _serve(self, started: Future[Any]) -> None:
        from playwright.sync_api import sync_playwright

        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=CHROMIUM, args=[*ARGS, f"--host-resolver-rules=MAP {REBOUND} 127.0.0.1"]
                )
                started.set_result(browser)
                try:
                    while (job := self._calls.get()) is not None:
                        done, call = job
                        try:
                            done.set_result(call())
                        except BaseException as error:  # the caller's to see, as if it ran in its thread
                            done.set_exception(error)
                finally:
                    browser.close()
        except BaseException as error:
            if started.done():
                raise
            started.set_exception(error)

    def call(self, function: Callable[[], Any]) -> Any:
        """``function()`` run in Playwright's thread; its result, Playwright objects wrapped in ``Remote``."""
        done: Future[Any] = Future()
        self._calls.put((done, function))
        return self._wrapped(done.result())

    def stop(self) -> None:
        self._calls.put(None)
        self._thread.join(timeout=60)

    def _wrapped(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self._wrapped(item) for item in value]
        if type(value).__module__.startswith("playwright."):
            return Remote(self, value)
        return value


def _unwrapped(value: Any) -> Any:
    if isinstance(value, Remote):
        return value._target
    if isinstance(value, list | tuple):
        return type(value)(_unwrapped(item) for item in value)
    if isinstance(value, dict):
        return {key: _unwrapped(item) for key, item in value.items()}
    return value


class Remote:
    """A Playwright object (browser, context, page, locator...) that lives in the driver's thread: reading an
    attribute or calling a method runs there. Callbacks given to it (``page.on``) run there too, with
    Playwright's own objects, as Playwright calls them during a later call."""

    __slots__ = ("_driver", "_target")

    def __init__(self, driver: Driver, target: Any) -> None:
        self._driver = driver
        self._target = target

    def __getattr__(self, name: str) -> Any:
        driver, target = self._driver, self._target
        attribute = driver.call(lambda: getattr(target, name))
        if not callable(attribute):
            return attribute

        def call(*args: Any, **kwargs: Any) -> Any:
            return driver.call(lambda: attribute(*_unwrapped(args), **_unwrapped(kwargs)))

        return call

    def __enter__(self) -> Any:  # ``with page.expect_navigation(...)``: entered and left in its thread too
        return self._driver.call(self._target.__enter__)

    def __exit__(self, *raised: Any) -> Any:
        return self._driver.call(lambda: self._target.__exit__(*raised))

    def __repr__(self) -> str:
        return f"Remote({self._target!r})"
