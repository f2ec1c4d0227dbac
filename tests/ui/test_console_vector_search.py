"""The console's vector search, on a database file and on ``singletable serve``: the table page lists its
vector indexes, the search form takes a pasted vector (CSRF-checked, served by a read-only console too), a
form that cannot become a request is shown again with what to change and nothing sent, and in a real
Chromium the pasted vector's nearest documents come back nearest first. DynamoDB Local has no vector indexes,
so it is not a target here.

The table is the docsearch example's (two tenants' help articles, 64-number vectors from hashed words).
"""

from __future__ import annotations

import html
import json
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from ui_support import Client, ConsoleServer

from singletable.data import Target, open_target
from singletable.examples.docsearch.design import help_centre
from singletable.examples.docsearch.embedding import embed
from singletable.examples.docsearch.sample import load, open_service
from singletable.model import connect
from singletable.ui import console_app


@dataclass
class Search:
    target: Target
    table: str
    url: str
    read_only_url: str

    @property
    def path(self) -> str:
        return f"/tables/{self.table}/search"


@pytest.fixture(scope="module", params=["file", "serve"])
def site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Search]:
    if request.param == "file":
        endpoint = str(tmp_path_factory.mktemp("vector-ui") / "console.sqlite3")
    else:
        endpoint = request.getfixturevalue("http_server").endpoint
    table = f"docsearch_ui_{os.getpid()}_{uuid.uuid4().hex[:8]}"  # unique per setup of the fixture
    with open_target(endpoint, create=True) as target:
        db = connect(help_centre, target.engine or endpoint, name=table)
        db.create_table()
        try:
            load(open_service(db))
            server = ConsoleServer(console_app(target))
            read_only = ConsoleServer(console_app(target, read_only=True))
            yield Search(target, table, server.url, read_only.url)
            server.stop()
            read_only.stop()
        finally:
            db.delete_table()
            db.close()


def _vector(text: str) -> str:
    return json.dumps(embed(text))


def test_the_table_page_lists_its_vector_index_and_links_to_its_search(site) -> None:
    page = Client(site.url).get(f"/tables/{site.table}")
    assert page.status == 200
    start = page.text.index('id="vector-indexes"')
    row = page.text[start : page.text.index("</table>", start)]
    assert "DocsByMeaning" in row and "<code>embedding</code>" in row and "<td>64</td><td>COSINE</td>" in row
    assert (
        "<code>tenantId</code> <small>HASH</small>" in row
        and "<code>lang</code> <small>INLINE_FILTER</small>" in row
    )
    assert f'href="/tables/{site.table}/search?index=DocsByMeaning"' in row


def test_a_search_returns_the_nearest_items_first_with_their_scores_and_the_request(site) -> None:
    client = Client(site.url)
    form = client.form(site.path, "search")
    assert set(form) == {"csrf", "index", "vector", "f.tenantId", "f.lang", "f.entityType", "top_k"}
    reply = client.post(
        site.path, {**form, "vector": _vector("refund annual plan"), "f.tenantId": "acme", "top_k": "3"}
    )
    assert reply.status == 200, reply.text[:2000]
    results = reply.text[reply.text.index('id="results"') :]
    rows = results.split("<tr>")[1:4]
    scores = [float(row.split('class="score">')[1].split("<")[0]) for row in rows]
    assert scores == sorted(scores) and len(scores) == 3
    assert "DOC#a1" in rows[0]  # the refunds article is the nearest
    assert "TENANT#globex" not in results.split("<h2>Request</h2>")[0]
    assert '"SearchConditionExpression": "#f0 = :f0"' in html.unescape(reply.text)
    assert "VectorSearchRequestBytes" in reply.text or "ConsumedCapacity" in reply.text


def test_a_read_only_console_searches_but_still_checks_the_token(site) -> None:
    client = Client(site.read_only_url)
    form = client.form(site.path, "search")
    reply = client.post(site.path, {**form, "vector": _vector("router reset"), "f.tenantId": "globex"})
    assert reply.status == 200 and "DOC#g2" in reply.text
    forged = client.post(site.path, {**form, "csrf": "x", "vector": _vector("router")})
    assert forged.status == 403 and "CSRF token does not match this session" in forged.text
    other = Client(site.url)
    assert other.post(site.path, {**form, "vector": _vector("router")}).status == 403  # no session


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"vector": ""}, "paste a vector of 64 numbers"),
        ({"vector": "[1, 2, 3]"}, "the vector has 3 numbers; this index&#39;s vectors have 64"),
        (
            {"vector": " ".join(["1"] * 63 + ["nan"])},
            "number 64 of the vector, &#39;nan&#39;, is not a finite number",
        ),
        (
            {"vector": json.dumps([1] * 63 + ["x"])},
            "the vector&#39;s JSON array holds something other than numbers",
        ),
        ({"vector": "[1, 2"}, "the vector is not a JSON array of numbers"),
        ({"f.tenantId": ""}, "give tenantId: the index is partitioned by it, so every search names one"),
        ({"top_k": "101"}, "top_k must be a whole number from 1 to 100"),
        ({"top_k": "0x10"}, "top_k must be a whole number from 1 to 100"),
        ({"index": "Nope"}, "choose one of the table&#39;s vector indexes: DocsByMeaning"),
    ],
)
def test_a_form_that_cannot_become_a_request_is_shown_again_with_what_to_change(
    site, change, message
) -> None:
    client = Client(site.url)
    form = client.form(site.path, "search")
    fields = {**form, "vector": _vector("refund"), "f.tenantId": "acme", **change}
    reply = client.post(site.path, fields)
    assert reply.status == 400
    assert message in reply.text
    assert '<p class="error" role="alert">' in reply.text and "<h2>Request</h2>" not in reply.text


def test_what_dynamodb_refuses_is_shown_with_its_code(site) -> None:
    client = Client(site.url)
    form = client.form(site.path, "search")
    fields = {**form, "vector": " ".join(["1e200"] * 64), "f.tenantId": "acme"}  # finite, beyond float32
    reply = client.post(site.path, fields)
    assert reply.status == 400
    assert (
        "ValidationException: Search vector contains invalid values. All values in the search vector must be "
        "a 32-bit floating-point number attribute"
    ) in html.unescape(reply.text)
    assert "<h2>Request</h2>" in reply.text  # what was sent is shown beside DynamoDB's answer


def test_hostile_text_in_the_form_is_escaped_and_never_reaches_an_expression(site) -> None:
    client = Client(site.url)
    form = client.form(site.path, "search")
    evil = "<script>alert(1)</script> OR attribute_exists(PK)"
    reply = client.post(site.path, {**form, "vector": _vector("refund"), "f.tenantId": evil})
    assert reply.status == 200
    assert "<script>alert(1)</script>" not in reply.text
    assert '"#f0 = :f0"' in html.unescape(reply.text) and "No items in this index match." in reply.text


# -- in a real browser --------------------------------------------------------------------------------------


def test_a_pasted_vector_is_searched_in_chromium(site, browser) -> None:
    context = browser.new_context()
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    try:
        page.goto(f"{site.url}/tables/{site.table}")
        page.click("#vector-indexes a:text-is('DocsByMeaning')")
        page.fill("textarea[name=vector]", ", ".join(str(x) for x in embed("exporting invoices as pdf")))
        page.fill("input[name='f.tenantId']", "acme")
        page.fill("input[name='f.lang']", "en")
        page.fill("input[name=top_k]", "2")
        page.click("#search button[type=submit]")
        rows = page.locator("#results tr")
        assert rows.count() == 2
        assert "DOC#a3" in rows.first.inner_text()
        assert page.locator("textarea[name=vector]").input_value().count(",") == 63  # kept for the next try
        page.click("#results tr >> nth=0 >> td.keys a >> nth=1")
        assert "Exporting invoices as PDF" in page.content()
    finally:
        context.close()
    assert problems == []
