"""Other web pages against the console, in a real browser (headless Chromium), on a database file.

DNS rebinding is played for real: the session's Chromium resolves ``evil.example`` to 127.0.0.1
(``--host-resolver-rules``, see tests/browser.py), as a rebound name would, so a page of that name reaches
the console's port with the browser's same-origin trust -- and the console, seeing ``Host: evil.example``,
shows it nothing. A page on another local port (``localhost:OTHER``: same site, so the strict session
cookie goes with it) posts a form to the console and is refused for its origin; nothing is written either
way.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from browser import REBOUND as EVIL
from reference import free_port
from singletable import data

pytestmark = pytest.mark.parametrize("site", ["file"], indirect=True)


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context()
    yield context.new_page()
    context.close()


class AttackerSite:
    """A page of another origin on this machine, which posts a form to the console as soon as it loads."""

    def __init__(self, action: str, fields: dict[str, str]) -> None:
        inputs = "".join(f"<input name='{name}' value='{value}'>" for name, value in fields.items())
        body = (
            f"<!doctype html><form id=f method=post action='{action}'>{inputs}</form>"
            "<script>document.getElementById('f').submit()</script>"
        ).encode()

        class Page(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/html")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.port = free_port()
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Page)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_a_rebound_name_is_shown_nothing(site, page):
    port = site.url.rsplit(":", 1)[1]
    answer = page.goto(f"http://{EVIL}:{port}/tables/{site.table}/new")
    assert answer.status == 400
    text = page.inner_text("body")
    assert "is not served: this server answers only loopback names" in text and f"--allow-host {EVIL}" in text
    assert 'name="csrf"' not in page.content() and site.table not in text
    for path in ("/", f"/tables/{site.table}/items", "/static/console.css", "/no/such/page"):
        assert page.goto(f"http://{EVIL}:{port}{path}").status == 400


def test_a_form_from_another_local_origin_writes_nothing(site, page):
    port = site.url.rsplit(":", 1)[1]
    page.goto(f"http://localhost:{port}/tables/{site.table}/new")  # the victim has a session
    body = '{"PK": "ATTACK#1", "SK": "X"}'
    attacker = AttackerSite(
        f"http://localhost:{port}/tables/{site.table}/items",
        {"csrf": "guessed", "format": "plain", "body": body},
    )
    try:
        with page.expect_navigation(url=f"http://localhost:{port}/**"):
            page.goto(f"http://localhost:{attacker.port}/")
    finally:
        attacker.stop()
    assert "comes from another site" in page.inner_text("body")
    assert data.get(site.target, site.table, {"PK": {"S": "ATTACK#1"}, "SK": {"S": "X"}}) is None
