"""What the console's tests share: a real uvicorn serving the console on a free loopback port (in a thread),
a cookie-keeping HTTP client (urllib, no redirects followed unless asked), the seeded data, and the TARGET
of each kind -- a database file, the session's ``singletable serve``, DynamoDB Local."""

from __future__ import annotations

import html
import http.cookiejar
import re
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

from app_thread import AppThread

TARGETS = ["file", "serve", "reference"]
ORDERS = 30
# A string attribute of an item near DynamoDB's 400 KB limit: its page must show it collapsed.
LARGE = 390_000
EVIL = '<script>alert("x")</script> \' " & <b>bold</b>'


class ConsoleServer(AppThread):
    """``console_app`` served by uvicorn in a thread of this process, ready on return."""

    def __init__(self, app: Any) -> None:
        super().__init__(app, "the console")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


@dataclass
class Reply:
    status: int
    headers: Any
    text: str

    @property
    def location(self) -> str:
        return self.headers.get("location", "")


class Client:
    """A browser's HTTP side: one cookie jar (one session), forms posted URL-encoded."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), _NoRedirect())

    def _open(self, request: urllib.request.Request) -> Reply:
        try:
            with self.opener.open(request, timeout=30) as response:
                return Reply(response.status, response.headers, response.read().decode())
        except urllib.error.HTTPError as error:
            return Reply(error.code, error.headers, error.read().decode())

    def get(self, path: str, **params: str) -> Reply:
        query = "?" + urllib.parse.urlencode(params) if params else ""
        return self._open(urllib.request.Request(self.base + path + query))

    def post(self, path: str, fields: dict[str, str]) -> Reply:
        body = urllib.parse.urlencode(fields).encode()
        return self._open(urllib.request.Request(self.base + path, data=body, method="POST"))

    def follow(self, reply: Reply) -> Reply:
        assert reply.status == 303, (reply.status, reply.text[:2000])
        return self._open(urllib.request.Request(self.base + reply.location))

    def form(self, path: str, form_id: str, **params: str) -> dict[str, str]:
        """The fields of the form ``#form_id`` on the page at ``path`` as the browser would send them
        unchanged: hidden and text inputs, checked boxes, selected options, textareas."""
        page = self.get(path, **params)
        assert page.status == 200, (page.status, page.text[:2000])
        return form_fields(page.text, form_id)

    def csrf(self, path: str) -> str:
        """The session's CSRF token, from the hidden field of a form on the page at ``path``."""
        page = self.get(path)
        found = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert found, page.text[:1000]
        return found[1]


class _Forms(HTMLParser):
    """Collects one form's fields from a page."""

    def __init__(self, form_id: str) -> None:
        super().__init__(convert_charrefs=True)
        self.form_id = form_id
        self.inside = False
        self.fields: dict[str, str] = {}
        self.textarea: str | None = None
        self.select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        if tag == "form":
            self.inside = found.get("id") == self.form_id
        if not self.inside:
            return
        if tag == "input" and "name" in found:
            kind = found.get("type", "text")
            if kind not in ("checkbox", "radio") or "checked" in found:
                self.fields[found["name"]] = found.get("value", "")
        elif tag == "textarea":
            self.textarea = found["name"]
            self.fields[self.textarea] = ""
        elif tag == "select":
            self.select = found["name"]
        elif tag == "option" and self.select and ("selected" in found or self.select not in self.fields):
            self.fields[self.select] = found.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.inside = False
        elif tag == "textarea":
            self.textarea = None
        elif tag == "select":
            self.select = None

    def handle_data(self, data: str) -> None:
        if self.inside and self.textarea is not None:
            self.fields[self.textarea] += data


def form_fields(text: str, form_id: str) -> dict[str, str]:
    """The fields of the form ``#form_id`` in a page's HTML (its textarea's text as the browser sends it:
    the one newline right after the tag dropped)."""
    parser = _Forms(form_id)
    parser.feed(text)
    assert parser.fields, f"no form #{form_id} with fields on the page"
    fields = parser.fields
    for name, value in fields.items():
        if value.startswith("\n") and f'<textarea name="{name}"' in text:
            fields[name] = value[1:]
    return fields


def links(text: str, rel: str) -> list[str]:
    """The hrefs of a page's links with ``rel`` (next, prev, first), unescaped."""
    return [html.unescape(m) for m in re.findall(rf'<a href="([^"]+)" rel="{rel}">', text)]


def key_param(**key: str) -> str:
    import json

    return json.dumps({name: {"S": value} for name, value in key.items()}, separators=(",", ":"))


def seed(db: Any, target: Any, table: str) -> None:
    """Two users (one with hostile text), ORDERS orders of user 42, and a raw item near 400 KB."""
    import console_design as design

    db.create(design.User(user_id="42", name="Ada", email="ada@example.com"))
    db.create(design.User(user_id="7", name=EVIL, email="evil@example.com"))
    for number in range(ORDERS):
        db.create(design.Order(user_id="42", order_id=number, status="open" if number % 3 else "done"))
    target.call(
        "PutItem",
        TableName=table,
        Item={"PK": {"S": "BLOB#1"}, "SK": {"S": "DATA"}, "data": {"S": "x" * LARGE}, "note": {"S": EVIL}},
    )


def opened_console(site: Any, **options: Any) -> ConsoleServer:
    """Another console on a site's target (read-only, another table...); the caller stops it."""
    from singletable.ui import console_app

    return ConsoleServer(console_app(site.target, design="console_design", **options))
