"""Without a browser the browser tests skip, saying why -- or fail when the reference is required (CI)."""

from __future__ import annotations

import pytest

import browser


def test_without_chromium_the_browser_tests_skip_or_fail_when_required(monkeypatch):
    monkeypatch.setattr(browser, "CHROMIUM", "/nonexistent/chromium")
    monkeypatch.delenv("SINGLETABLE_REQUIRE_REFERENCE", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no Chromium at /nonexistent/chromium"):
        next(browser.launched())
    monkeypatch.setenv("SINGLETABLE_REQUIRE_REFERENCE", "1")
    with pytest.raises(pytest.fail.Exception, match=r"a browser is required .* no Chromium at /nonexistent"):
        next(browser.launched())
