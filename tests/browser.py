"""A real browser for the tests (the web console's, the HTML docs'): Debian's ``chromium`` driven by
Playwright for Python.

Playwright's own browser downloads are not used (nor available here): it launches the system Chromium at
``/usr/bin/chromium`` (``SINGLETABLE_CHROMIUM`` to point elsewhere), headless, with no background traffic.
Without Chromium or Playwright the browser tests skip saying why -- unless ``SINGLETABLE_REQUIRE_REFERENCE``
is set (as ``.ci/run`` does, which installs the ``chromium`` package), when they fail instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
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
    when required) without one. One per test process: Playwright's synchronous API runs one at a time."""
    why = unavailable()
    if why is not None:
        if required():
            pytest.fail(f"a browser is required (SINGLETABLE_REQUIRE_REFERENCE) but: {why}")
        pytest.skip(why)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=[*ARGS, f"--host-resolver-rules=MAP {REBOUND} 127.0.0.1"]
        )
        try:
            yield browser
        finally:
            browser.close()
