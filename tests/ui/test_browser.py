"""The console in a real browser (headless Chromium): tables listed, a collection browsed and paged, a
pattern run, an item created, edited and deleted, an error shown in place, the read-only mode refusing
writes. On a database file; the HTTP-level tests beside this one cover ``serve`` and DynamoDB Local."""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Iterator
from typing import Any

import pytest
from ui_support import opened_console

from singletable import data

pytestmark = pytest.mark.parametrize("site", ["file"], indirect=True)


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh browser context (its own session cookie); fails the test on any script error or other
    error the page logs, such as a Content-Security-Policy violation (a 4xx answer the test expects, a
    form shown again with its error, is not one)."""
    context = browser.new_context()
    opened = context.new_page()
    problems: list[str] = []
    opened.on(
        "console",
        lambda m: (
            problems.append(m.text)
            if m.type == "error" and not m.text.startswith("Failed to load resource: the server responded")
            else None
        ),
    )
    opened.on("pageerror", lambda error: problems.append(str(error)))
    yield opened
    context.close()
    assert problems == []


def test_tables_are_listed_and_a_collection_is_browsed_and_paged(site, page):
    page.goto(site.url + "/")
    page.click(f"#tables a:text-is('{site.table}')")
    assert page.locator("#indexes").inner_text().startswith("index")
    page.click("nav.tabs >> text=Item collections")
    page.fill("input[name=partition]", "USER#42")
    page.fill("input[name=limit]", "5")
    page.click("#browse button[type=submit]")
    assert page.locator("section.partition h3 code").all_inner_texts() == ["USER#42"]
    first = page.locator("td.keys").first.inner_text()
    assert "ORDER#00000" in first and "order_id=0" in first
    page.click("a[rel=next] >> nth=0")
    assert "page 2" in page.locator("nav.pager").first.inner_text()
    assert "ORDER#00005" in page.locator("td.keys").first.inner_text()
    page.click("a[rel=prev] >> nth=0")
    assert "ORDER#00000" in page.locator("td.keys").first.inner_text()


def test_a_pattern_runs_from_its_form(site, page):
    page.goto(f"{site.url}/tables/{site.table}/patterns")
    form = page.locator("#pattern-Order\\.of_user form")
    form.locator("input[name='f.user_id']").fill("42")
    form.locator("input[name=limit]").fill("3")
    form.locator("button[type=submit]").click()
    assert page.locator("#results span.label").all_inner_texts() == ["Order"] * 3
    assert '"order_id": 2' in page.locator("#results").inner_text()
    assert "ConsumedCapacity" in page.locator("dl.capacity").inner_text()
    assert "begins_with(SK, :v1)" in page.locator("details.request pre").inner_text()


def test_an_item_is_created_edited_and_deleted_and_an_error_is_shown(site, page):
    page.goto(f"{site.url}/tables/{site.table}/new")
    page.click("p.formats >> text=User")
    editor = page.locator("#create textarea[name=body]")
    editor.fill('{"user_id": "77", "name": "Eve", "email": "ada@example.com"}')
    page.click("#create button[type=submit]")
    alert = page.locator("p.error[role=alert]")
    assert "UniqueViolation" in alert.inner_text()  # the model's refusal, in place, the text kept
    assert "Eve" in page.locator("#create textarea[name=body]").input_value()
    page.locator("#create textarea[name=body]").fill(
        '{"user_id": "77", "name": "Eve", "email": "eve@example.com"}'
    )
    page.click("#create button[type=submit]")
    assert page.locator("p.done").inner_text() == "Item created."
    assert "user_id=77" in page.locator("#key").inner_text()

    editor = page.locator("#save textarea[name=body]")
    edited = json.loads(editor.input_value())
    assert edited == {"user_id": "77", "name": "Eve", "email": "eve@example.com"}
    editor.fill(json.dumps({**edited, "name": "Eve Two"}))
    page.click("#save button.format-json")  # our script re-indents it
    assert editor.input_value().startswith('{\n  "user_id"')
    page.click("#save button[type=submit]")
    assert page.locator("p.done").inner_text() == "Item saved."
    key = {"PK": {"S": "USER#77"}, "SK": {"S": "PROFILE"}}
    assert data.get(site.target, site.table, key)["name"] == {"S": "Eve Two"}

    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#delete button[type=submit]")
    assert page.locator("p.done").inner_text() == "Item deleted."
    assert data.get(site.target, site.table, key) is None


def test_a_read_only_console_offers_no_writes(site, page):
    console = opened_console(site, read_only=True)
    try:
        page.goto(f"{console.url}/tables/{site.table}/items?partition=USER%2342")
        assert page.locator("header .badge.ro").inner_text() == "read-only"
        assert page.locator("nav.tabs >> text=New item").count() == 0
        page.click("td.keys a >> nth=0")
        assert page.locator("form[method=post]").count() == 0
        page.goto(f"{console.url}/tables/{site.table}/new")
        assert page.locator("p.error").inner_text() == "This console is read-only."
        # a form posted anyway (say from a page opened before) is refused by the server
        status = page.evaluate(
            "async (url) => (await fetch(url, {method: 'POST', body: new URLSearchParams({csrf: 'x'})}))"
            ".status",
            f"{console.url}/tables/{site.table}/delete",
        )
        assert status == 403
    finally:
        console.stop()


def test_an_item_saved_unchanged_keeps_every_type_and_a_stale_save_shows_both(site, page):
    """The browser's own form submission: the plain-JSON editor's text as the page holds it, sent back."""
    key = {"PK": {"S": "TYPED#browser"}, "SK": {"S": "X"}}
    item = {
        **key,
        "tags": {"SS": ["b", "a"]},
        "sizes": {"NS": ["1.0000000000000000000000000000000000001", "1E+125"]},
        "blobs": {"BS": [b"\x00", b"\xff"]},
        "blob": {"B": b"\x00\x01"},
        "nested": {"M": {"S": {"S": "a map, not a string"}}},
        "empty": {"S": ""},
    }
    site.target.call("PutItem", TableName=site.table, Item=item)
    before = data.get(site.target, site.table, key, consistent=True)
    query = urllib.parse.urlencode({"key": json.dumps(key), "format": "plain"})
    address = f"{site.url}/tables/{site.table}/item?{query}"
    page.goto(address)
    page.click("#save button[type=submit]")
    assert page.locator("p.done").inner_text() == "Nothing changed: nothing was written."
    assert data.get(site.target, site.table, key, consistent=True) == before

    page.goto(address)  # this editor goes stale: someone else saves first
    site.target.call("PutItem", TableName=site.table, Item={**item, "empty": {"S": "someone else"}})
    editor = page.locator("#save textarea[name=body]")
    editor.fill(editor.input_value().replace('"empty": ""', '"empty": "mine"'))
    page.click("#save button[type=submit]")
    assert "This item was changed after you opened it" in page.locator("#conflict").inner_text()
    assert '"empty": "mine"' in page.locator("#yours pre").inner_text()
    assert '"empty": "someone else"' in page.locator("#stored pre").inner_text()
    stored = data.get(site.target, site.table, key, consistent=True)
    assert stored["empty"] == {"S": "someone else"}
    assert sorted(stored["tags"]["SS"]) == ["a", "b"]  # a set: returned in DynamoDB's order, not as written
    site.target.call("DeleteItem", TableName=site.table, Key=key)
