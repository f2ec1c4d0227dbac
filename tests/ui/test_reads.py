"""The console's reading pages over HTTP, on a database file, ``singletable serve`` and DynamoDB Local:
tables listed and described, item collections browsed, paged, jumped to and filtered, patterns and raw
Query/Scan run with their request and ConsumedCapacity shown."""

from __future__ import annotations

import html
import re

from ui_support import ORDERS, Client, links

from singletable.data import describe


def test_tables_are_listed_with_their_counts(site):
    page = Client(site.url).get("/")
    assert page.status == 200
    assert f'href="/tables/{site.table}"' in page.text
    assert "design</span>" in page.text  # the design's table is marked


def test_a_table_is_described(site):
    page = Client(site.url).get(f"/tables/{site.table}")
    assert page.status == 200
    assert "<td>GSI1</td><td>global</td>" in page.text
    assert "<code>GSI1PK</code> <small>HASH</small>" in page.text
    assert "ALL" in page.text
    assert re.search(r"<dt>TTL</dt><dd>DISABLED", page.text)
    assert "<dt>stream</dt><dd>none</dd>" in page.text
    count = describe(site.target, site.table)["ItemCount"]
    assert f"<dt>items</dt><dd>{count}</dd>" in page.text


def test_a_missing_table_is_a_404_page(site):
    page = Client(site.url).get("/tables/no_such_table_here")
    assert page.status == 404
    assert "ResourceNotFoundException" in page.text


def partition_values(text: str) -> list[str]:
    return [html.unescape(v) for v in re.findall(r"<h3>partition <code>([^<]*)</code>", text)]


def item_keys(text: str) -> list[str]:
    return re.findall(r'<span class="attr">SK</span> <a href="[^"]+">([^<]*)</a>', text)


def test_a_partition_is_browsed_in_sort_key_order_and_paged_both_ways(site):
    client = Client(site.url)
    first = client.get(f"/tables/{site.table}/items", partition="USER#42", limit="12")
    assert first.status == 200
    assert partition_values(first.text) == ["USER#42"]
    expected = ["PROFILE"] + [f"ORDER#{n:05d}" for n in range(ORDERS)]
    expected.sort()
    assert item_keys(first.text) == expected[:12]
    assert '<span class="label">Order</span>' in first.text
    assert '<span class="field">order_id=0</span>' in first.text  # ORDER#00000 decoded by its template
    assert '<span class="field">user_id=42</span>' in first.text
    second = client.get(links(first.text, "next")[0])
    assert item_keys(second.text) == expected[12:24]
    assert "page 2" in second.text
    third = client.get(links(second.text, "next")[0])
    assert item_keys(third.text) == expected[24:]
    assert "last page" in third.text
    back = client.get(links(third.text, "prev")[0])
    assert item_keys(back.text) == expected[12:24]
    assert item_keys(client.get(links(back.text, "prev")[0]).text) == expected[:12]


def test_a_scan_shows_each_partition_together(site):
    page = Client(site.url).get(f"/tables/{site.table}/items", limit="100")
    values = partition_values(page.text)
    assert len(values) == len(set(values))  # one group per partition
    assert {"USER#42", "USER#7", "BLOB#1"} <= set(values)


def test_a_sort_key_prefix_and_an_entity_filter_narrow_the_listing(site):
    client = Client(site.url)
    page = client.get(f"/tables/{site.table}/items", partition="USER#42", sort_prefix="ORDER#0000")
    assert item_keys(page.text) == [f"ORDER#{n:05d}" for n in range(10)]
    users = client.get(f"/tables/{site.table}/items", entity="User", limit="100")
    labels = re.findall(r'<span class="label">(\w+)</span>', users.text)
    assert set(labels) == {"User"} and len(labels) == 2
    prefixed = client.get(f"/tables/{site.table}/items", partition_prefix="USER#", limit="100")
    assert set(partition_values(prefixed.text)) == {"USER#42", "USER#7"}


def test_an_index_is_browsed_by_its_partitions(site):
    page = Client(site.url).get(f"/tables/{site.table}/items", index="GSI1", partition="STATUS#done")
    assert partition_values(page.text) == ["STATUS#done"]
    assert len(re.findall(r'<span class="label">Order</span>', page.text)) == len(range(0, ORDERS, 3))
    assert '<span class="field">status=done</span>' in page.text


def test_browse_form_mistakes_are_error_pages(site):
    client = Client(site.url)
    bad_limit = client.get(f"/tables/{site.table}/items", limit="0")
    assert bad_limit.status == 400 and "limit must be a whole number from 1 to 500" in bad_limit.text
    no_index = client.get(f"/tables/{site.table}/items", index="Nope")
    assert no_index.status == 400 and "has no index Nope (its indexes: GSI1)" in no_index.text
    no_entity = client.get(f"/tables/{site.table}/items", entity="Nope")
    assert no_entity.status == 400 and "no entity &#39;Nope&#39; in the design" in no_entity.text


def test_the_patterns_are_listed_with_forms(site):
    page = Client(site.url).get(f"/tables/{site.table}/patterns")
    assert page.status == 200
    for name in ("Order.of_user", "Order.by_status", "account"):
        assert f'id="pattern-{name}"' in page.text
    assert '<input name="f.user_id" required>' in page.text
    assert "order_id <small>int, optional</small>" in page.text


def test_a_pattern_runs_with_typed_results_request_cursor_and_capacity(site):
    client = Client(site.url)
    page = client.get(
        f"/tables/{site.table}/patterns/run", pattern="Order.of_user", **{"f.user_id": "42"}, limit="4"
    )
    assert page.status == 200
    assert page.text.count('<span class="label">Order</span>') == 4
    assert "&#34;order_id&#34;: 3," in page.text  # typed: an int, not "00003"
    assert "&#34;KeyConditionExpression&#34;: &#34;PK = :v0 AND begins_with(SK, :v1)&#34;" in page.text
    assert "&#34;ReturnConsumedCapacity&#34;: &#34;INDEXES&#34;" in page.text
    assert "<dt>ConsumedCapacity</dt><dd>0.5 units" in page.text
    assert 'class="cursor"' in page.text
    following = client.get(links(page.text, "next")[0])
    assert "&#34;order_id&#34;: 4," in following.text


def test_a_collection_runs_with_every_member_entity(site):
    page = Client(site.url).get(
        f"/tables/{site.table}/patterns/run", pattern="account", **{"f.user_id": "42"}, limit="100"
    )
    assert '<span class="label">User</span>' in page.text
    assert page.text.count('<span class="label">Order</span>') == ORDERS


def test_an_index_pattern_reports_its_index_capacity(site):
    page = Client(site.url).get(
        f"/tables/{site.table}/patterns/run", pattern="Order.by_status", **{"f.status": "done"}
    )
    assert "&#34;IndexName&#34;: &#34;GSI1&#34;" in page.text
    assert re.search(r"<dt>GSI1</dt><dd>[0-9.]+</dd>", page.text)


def test_pattern_mistakes_are_shown(site):
    client = Client(site.url)
    typed = client.get(
        f"/tables/{site.table}/patterns/run",
        pattern="Order.by_status",
        **{"f.status": "done", "f.order_id": "abc"},
    )
    assert typed.status == 400
    assert "order_id=&#39;abc&#39;: Input should be a valid integer" in typed.text
    unknown = client.get(f"/tables/{site.table}/patterns/run", pattern="Order.nope")
    assert unknown.status == 400 and "Order has no pattern nope" in unknown.text
    missing = client.get(f"/tables/{site.table}/patterns/run", pattern="Order.of_user")
    assert missing.status == 400 and "user_id" in missing.text


def test_raw_query_with_sort_condition_and_direction(site):
    page = Client(site.url).get(
        f"/tables/{site.table}/query",
        operation="Query",
        partition="USER#42",
        sort_operator="between",
        sort_value="ORDER#00010",
        sort_high="ORDER#00012",
        direction="backward",
    )
    assert page.status == 200
    assert item_keys(page.text) == ["ORDER#00012", "ORDER#00011", "ORDER#00010"]
    assert "#k1 BETWEEN :k1 AND :k2" in page.text
    assert "&#34;ScanIndexForward&#34;: false" in page.text


def test_raw_scan_with_a_filter(site):
    page = Client(site.url).get(
        f"/tables/{site.table}/query",
        operation="Scan",
        index="GSI1",
        filter="#s = :s AND #u = :u",
        names='{"#s": "status", "#u": "userId"}',
        values='{":s": "done", ":u": "42"}',
        limit="100",
    )
    assert page.status == 200
    assert page.text.count('<span class="label">Order</span>') == len(range(0, ORDERS, 3))


def test_raw_query_mistakes_are_shown(site):
    client = Client(site.url)
    no_key = client.get(f"/tables/{site.table}/query", operation="Query")
    assert no_key.status == 400 and "a Query needs the partition key PK" in no_key.text
    refused = client.get(
        f"/tables/{site.table}/query", operation="Scan", filter="#nope = :x", values='{":x": 1}'
    )
    assert refused.status == 400 and "ValidationException" in refused.text
    not_json = client.get(f"/tables/{site.table}/query", operation="Scan", filter="a = :x", values="{")
    assert not_json.status == 400 and "values: not JSON" in not_json.text
    clash = client.get(
        f"/tables/{site.table}/query", operation="Query", partition="X", filter="n = :k0", values='{":k0": 1}'
    )
    assert clash.status == 400 and "the filter reuses the key condition&#39;s placeholder :k0" in clash.text
