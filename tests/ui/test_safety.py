"""Safe by default, on every TARGET kind: writes need the session's CSRF token, a read-only console writes
nothing, item text is always escaped (script tags, quotes, very long strings), a 400 KB item renders
collapsed, and a forged or misplaced page cursor is a clear error page, never a 500."""

from __future__ import annotations

import json

from ui_support import EVIL, LARGE, Client, key_param, links, opened_console

from singletable import data


def test_a_write_without_the_sessions_csrf_token_is_refused(site):
    client = Client(site.url)
    body = {"format": "plain", "body": json.dumps({"PK": "CSRF#1", "SK": "X"})}
    missing = client.post(f"/tables/{site.table}/items", body)
    assert missing.status == 403 and "CSRF token does not match this session" in missing.text
    other = Client(site.url)
    foreign = client.post(
        f"/tables/{site.table}/items", {**body, "csrf": other.csrf(f"/tables/{site.table}/new")}
    )
    assert foreign.status == 403
    no_cookie = Client(site.url)
    token = client.csrf(f"/tables/{site.table}/new")
    assert no_cookie.post(f"/tables/{site.table}/items", {**body, "csrf": token}).status == 403
    assert data.get(site.target, site.table, {"PK": {"S": "CSRF#1"}, "SK": {"S": "X"}}) is None


def test_pages_set_a_strict_session_cookie_and_security_headers(site):
    reply = Client(site.url).get("/")
    cookie = reply.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert "default-src 'self'" in reply.headers["content-security-policy"]
    assert reply.headers["x-frame-options"] == "DENY"
    assert reply.headers["referrer-policy"] == "same-origin"  # so the console's own forms carry their Origin


def test_a_read_only_console_shows_no_write_forms_and_refuses_writes(site):
    console = opened_console(site, read_only=True)
    try:
        client = Client(console.url)
        item = client.get(f"/tables/{site.table}/item", key=key_param(PK="USER#42", SK="PROFILE"))
        assert item.status == 200 and "Ada" in item.text
        assert '<form method="post"' not in item.text and "read-only</span>" in item.text
        refused = client.post(
            f"/tables/{site.table}/item/delete",
            {"csrf": "anything", "key": key_param(PK="USER#42", SK="PROFILE")},
        )
        assert refused.status == 403 and "this console is read-only (--read-only)" in refused.text
        assert client.post("/tables/create", {"table": "x"}).status == 403
        assert client.post(f"/tables/{site.table}/delete", {"confirm": site.table}).status == 403
        assert data.get(site.target, site.table, {"PK": {"S": "USER#42"}, "SK": {"S": "PROFILE"}})
    finally:
        console.stop()


def test_item_text_is_escaped_everywhere(site):
    client = Client(site.url)
    escaped = "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &#39; &#34; &amp; &lt;b&gt;bold&lt;/b&gt;"
    pages = [
        client.get(f"/tables/{site.table}/items", partition="USER#7"),
        client.get(f"/tables/{site.table}/item", key=key_param(PK="USER#7", SK="PROFILE")),
        client.get(f"/tables/{site.table}/patterns/run", pattern="account", **{"f.user_id": "7"}),
        client.get(f"/tables/{site.table}/query", operation="Query", partition="USER#7"),
    ]
    for page in pages:
        assert page.status == 200
        assert "<script>alert" not in page.text and "<b>bold" not in page.text
        assert escaped in page.text or escaped.replace("&#34;", "\\&#34;") in page.text
    # text typed into a form comes back escaped too
    partition = client.get(f"/tables/{site.table}/items", partition=EVIL)
    assert 'value="&lt;script&gt;' in partition.text and "<script>alert" not in partition.text


def test_a_large_item_is_collapsed_and_long_values_are_cut(site):
    client = Client(site.url)
    listing = client.get(f"/tables/{site.table}/items", partition="BLOB#1")
    assert "x" * 160 + "…" in listing.text and "x" * 161 not in listing.text
    page = client.get(f"/tables/{site.table}/item", key=key_param(PK="BLOB#1", SK="DATA"))
    assert page.status == 200
    assert '<details class="large"><summary>item:' in page.text and "collapsed." in page.text
    assert "x" * LARGE in page.text  # all of it, inside the closed <details>


def test_a_forged_or_misplaced_cursor_is_a_clear_error(site):
    client = Client(site.url)
    first = client.get(f"/tables/{site.table}/items", partition="USER#42", limit="5")
    cursor = links(first.text, "next")[0].split("page=")[1].split("&")[0]
    forged = client.get(
        f"/tables/{site.table}/items", partition="USER#42", limit="5", page=cursor[:-3] + "AAA"
    )
    assert forged.status == 400 and "this page cursor was altered" in forged.text
    elsewhere = client.get(f"/tables/{site.table}/items", partition="USER#7", page=cursor)
    assert elsewhere.status == 400 and "belongs to another listing" in elsewhere.text
    garbage = client.get(f"/tables/{site.table}/items", page="%%%")
    assert garbage.status == 400


def test_a_malformed_item_key_is_a_clear_error(site):
    client = Client(site.url)
    for key, message in [("{", "not JSON"), ('{"PK": "x"}', "PK: not DynamoDB JSON"), ("", "not JSON")]:
        page = client.get(f"/tables/{site.table}/item", key=key)
        assert page.status == 400 and message in page.text
    wrong = client.get(f"/tables/{site.table}/item", key=key_param(PK="USER#42"))
    assert wrong.status == 400 and "ValidationException" in wrong.text
