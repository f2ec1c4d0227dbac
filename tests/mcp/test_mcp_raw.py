"""query_raw and scan_raw (typed conditions on allowlisted tables) and count by Select=COUNT, in-process on
the embedded engine and on DynamoDB Local."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_schemas import check_schema
from mcp_seeds import SEEDS, design_table

from draws import examples
from singletable.examples.wavyblog.design import Category, Post
from singletable.mcp import DesignTools, Policy, ToolError, output_schema


def raw_tools(db, **policy) -> DesignTools:
    return DesignTools(db, Policy(raw_tables=frozenset({db.table_name}), **policy))


def test_raw_tools_only_for_allowlisted_tables(read_only_seeded) -> None:
    db = read_only_seeded("wavyblog")
    assert not {"query_raw", "scan_raw"} & set(DesignTools(db).tools)
    with pytest.raises(ToolError, match="no tool 'scan_raw'; describe_design lists"):
        DesignTools(db).call("scan_raw", {"table": db.table_name})
    tools = raw_tools(db)
    for name in ("query_raw", "scan_raw"):
        spec = tools.tools[name]
        check_schema(spec.input_schema)
        check_schema(output_schema(spec, tools.policy))
        assert spec.input_schema["properties"]["table"]["enum"] == [db.table_name]
        assert spec.read_only and "no expression text" in spec.description
    with pytest.raises(ToolError, match=r"query_raw: argument table: 'Other' is not one of \["):
        tools.call("query_raw", {"table": "Other", "key": {"partition": {"attribute": "PK", "value": "x"}}})


def test_query_raw_key_conditions_filters_and_projection(read_only_seeded) -> None:
    db = read_only_seeded("wavyblog")
    tools = raw_tools(db)
    table = db.table_name
    by_author = {"attribute": "GSI1PK", "value": "POSTS_BY_USER#john_doe"}
    every = tools.call("query_raw", {"table": table, "index": "GSI1", "key": {"partition": by_author}})
    assert every["count"] == 4 and every["cursor"] is None and every["note"] is None
    assert {p["AuthorID"] for p in every["items"]} == {"john_doe"}
    assert every["items"][0]["IsPublished"] in (True, False)  # plain JSON: BOOL as a boolean
    newest = tools.call(
        "query_raw", {"table": table, "index": "GSI1", "key": {"partition": by_author}, "descending": True}
    )
    assert [p["GSI1SK"] for p in newest["items"]] == sorted(
        (p["GSI1SK"] for p in every["items"]), reverse=True
    )
    january = {
        "attribute": "GSI1SK",
        "operator": "between",
        "value": "POST#2026-01-06",
        "to": "POST#2026-01-12",
    }
    ranged = tools.call(
        "query_raw", {"table": table, "index": "GSI1", "key": {"partition": by_author, "sort": january}}
    )
    assert [p["Slug"] for p in ranged["items"]] == ["rust-for-pythonistas", "kyoto-on-foot"]
    filtered = tools.call(
        "query_raw",
        {
            "table": table,
            "index": "GSI1",
            "key": {
                "partition": by_author,
                "sort": {"attribute": "GSI1SK", "operator": "begins_with", "value": "POST#"},
            },
            "filter": [
                {"attribute": "IsPublished", "operator": "=", "value": True},
                {"attribute": "Category", "operator": "in", "values": ["technology", "food"]},
                {"attribute": "ThumbnailURL", "operator": "exists"},
                {"attribute": "Title", "operator": "contains", "value": "First"},
            ],
            "projection": ["Slug", "Title"],
        },
    )
    assert filtered["items"] == [{"Slug": "my-first-post", "Title": "My First Post"}]
    assert filtered["scanned_count"] == 4
    one = tools.call(
        "query_raw",
        {
            "table": table,
            "key": {"partition": {"attribute": "PK", "value": "USER#jane_smith"}},
            "projection": ["Email"],
        },
    )
    assert one["items"] == [{"Email": "jane@example.com"}]


def test_agent_text_is_never_an_expression(read_only_seeded) -> None:
    """Names and values go in as placeholders: text that reads like an expression matches nothing."""
    db = read_only_seeded("wavyblog")
    tools = raw_tools(db)
    table = db.table_name
    injected = tools.call(
        "scan_raw",
        {
            "table": table,
            "filter": [{"attribute": "PK = PK OR attribute_exists(PK)", "operator": "exists"}],
            "limit": 100,
        },
    )
    assert injected["count"] == 0 and injected["scanned_count"] > 0
    quoted = tools.call(
        "query_raw",
        {"table": table, "key": {"partition": {"attribute": "PK", "value": "USER#jane_smith' OR '1'='1"}}},
    )
    assert quoted["count"] == 0


def test_raw_pages_follow_signed_cursors(read_only_seeded) -> None:
    db = read_only_seeded("wavyblog")
    tools = raw_tools(db)
    arguments = {
        "table": db.table_name,
        "filter": [{"attribute": "EntityType", "operator": "=", "value": "POST"}],
    }
    seen: list[str] = []
    page = tools.call("scan_raw", {**arguments, "limit": 3})
    assert page["count"] == 3 and page["cursor"]
    first_cursor = page["cursor"]
    while True:
        seen += [p["Slug"] for p in page["items"]]
        if page["cursor"] is None:
            break
        page = tools.call("scan_raw", {**arguments, "limit": 3, "cursor": page["cursor"]})
    assert sorted(seen) == sorted(p.slug for p in db.query(Post.all_posts()))
    other = {
        "table": db.table_name,
        "filter": [{"attribute": "EntityType", "operator": "=", "value": "USER"}],
    }
    with pytest.raises(
        ToolError, match="scan_raw: InvalidCursor: the cursor was altered, or belongs to another"
    ):
        tools.call("scan_raw", {**other, "cursor": first_cursor})
    forged = first_cursor[:-2] + ("AA" if not first_cursor.endswith("AA") else "BB")
    with pytest.raises(ToolError, match="scan_raw: InvalidCursor"):
        tools.call("scan_raw", {**arguments, "cursor": forged})
    with pytest.raises(ToolError, match="scan_raw: InvalidCursor"):
        tools.call("scan_raw", {**arguments, "cursor": "%%%not base64%%%"})


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("query_raw", {}, "query_raw: 'table' is a required property"),
        (
            "query_raw",
            {"key": {"partition": {"attribute": "PK"}}},
            "argument key.partition: 'value' is a required",
        ),
        (
            "query_raw",
            {
                "key": {
                    "partition": {"attribute": "PK", "value": "x"},
                    "sort": {"attribute": "SK", "operator": "like", "value": "a"},
                }
            },
            "argument key.sort.operator: 'like' is not one of ['=', '<', '<=', '>', '>=', 'between', 'begin",
        ),
        (
            "query_raw",
            {
                "key": {
                    "partition": {"attribute": "PK", "value": "x"},
                    "sort": {"attribute": "SK", "operator": "between", "value": "a"},
                }
            },
            "query_raw: argument key.sort.to: between needs it",
        ),
        (
            "query_raw",
            {"key": {"partition": {"attribute": "PK", "value": True}}},
            "argument key.partition.value: True is not valid",
        ),
        (
            "query_raw",
            {"key": {"partition": {"attribute": "PK", "value": {"B": "***"}}}},
            "argument key.partition.value.B: not base64",
        ),
        (
            "scan_raw",
            {"filter": [{"attribute": "a", "operator": "exists", "value": 1}]},
            "argument filter[0].value: exists takes no value",
        ),
        (
            "scan_raw",
            {"filter": [{"attribute": "a", "operator": "="}]},
            "argument filter[0].value: = needs it",
        ),
        (
            "scan_raw",
            {"filter": [{"attribute": "a", "operator": "in", "value": 1}]},
            "argument filter[0].values: in needs it",
        ),
        (
            "scan_raw",
            {"filter": [{"attribute": "a", "operator": "=", "value": [1, 2]}]},
            "argument filter[0].value: [1, 2] is not valid",
        ),
        (
            "scan_raw",
            {"filter": [{"attribute": "", "operator": "exists"}]},
            "argument filter[0].attribute: '' should be non-empty",
        ),
        (
            "scan_raw",
            {"filter": [{"attribute": "a", "operator": "=", "value": {"N": "12abc"}}]},
            "argument filter[0].value:",
        ),
        ("scan_raw", {"projection": []}, "argument projection: [] should be non-empty"),
        ("scan_raw", {"limit": 0}, "argument limit: 0 is less than the minimum of 1"),
        (
            "scan_raw",
            {"expression": "PK = :x"},
            "('expression' was unexpected); it takes cursor, filter, index",
        ),
        ("scan_raw", {"index": "No Such Index!"}, "argument index: 'No Such Index!' does not match"),
        ("scan_raw", {"index": "NoSuchIndex"}, "scan_raw: RequestError: ValidationException"),
    ],
)
def test_raw_refusals_name_the_argument(read_only_seeded, name: str, arguments: dict, message: str) -> None:
    db = read_only_seeded("wavyblog")
    with pytest.raises(ToolError) as caught:
        raw_tools(db).call(name, {"table": db.table_name, **arguments} if arguments else {})
    assert message in str(caught.value)


def test_raw_values_are_typed_and_results_plain(seeded) -> None:
    db = seeded("wavyblog")
    item = {
        "PK": {"S": "RAW#1"},
        "SK": {"S": "RAW#1"},
        "n": {"N": "1.5"},
        "big": {"N": "123456789012345678901234567890"},
        "bin": {"B": b"\x00\xff"},
        "tags": {"SS": ["b", "a"]},
        "nested": {"M": {"l": {"L": [{"N": "2"}, {"NULL": True}]}}},
    }
    db.call("PutItem", {"TableName": db.table_name, "Item": item})
    tools = raw_tools(db)
    key = {"partition": {"attribute": "PK", "value": "RAW#1"}}
    (got,) = tools.call("query_raw", {"table": db.table_name, "key": key})["items"]
    assert got == {
        "PK": "RAW#1",
        "SK": "RAW#1",
        "n": 1.5,
        "big": "123456789012345678901234567890",  # past a double's precision: its text
        "bin": base64.b64encode(b"\x00\xff").decode(),
        "tags": ["a", "b"],
        "nested": {"l": [2, None]},
    }
    json.dumps(got)
    by_value = [
        {"attribute": "n", "operator": "between", "value": 1, "to": {"N": "1.5"}},
        {"attribute": "bin", "operator": "=", "value": {"B": base64.b64encode(b"\x00\xff").decode()}},
        {"attribute": "big", "operator": ">", "value": {"N": "1E+29"}},
        {"attribute": "tags", "operator": "contains", "value": "a"},
        {"attribute": "missing", "operator": "not_exists"},
        {"attribute": "n", "operator": "<>", "value": 2.5},
    ]
    found = tools.call("query_raw", {"table": db.table_name, "key": key, "filter": by_value})
    assert found["count"] == 1


def test_raw_reads_stop_at_the_read_budget_with_a_cursor(seeded) -> None:
    db = seeded("wavyblog")
    bulk = [Category(category_id=f"c{i}", slug=f"bulk-{i:03d}", name="x" * 5000) for i in range(300)]
    db.batch_write(put=bulk)
    tools = raw_tools(db, max_rcu_per_call=0.5)
    nothing = {
        "table": db.table_name,
        "filter": [{"attribute": "Name", "operator": "=", "value": "none"}],
        "limit": 10,
    }
    first = tools.call("scan_raw", nothing)
    assert first["count"] == 0 and first["cursor"] and "read budget (0.5 RCU) was spent" in first["note"]
    everything = raw_tools(db).call("scan_raw", {**nothing, "cursor": first["cursor"]})
    assert everything["count"] == 0 and everything["scanned_count"] > 0


def test_count_asks_for_counts_not_items(read_only_seeded, tmp_path) -> None:
    db = read_only_seeded("wavyblog")
    record = tmp_path / "calls.jsonl"
    tools = DesignTools(db, record=str(record))
    counted = tools.call("count", {"pattern": "post_by_user", "arguments": {"author_id": "john_doe"}})
    assert (counted["count"], counted["complete"], counted["note"]) == (4, True, None)
    published = tools.call(
        "count",
        {"pattern": "post_by_user", "arguments": {"author_id": "john_doe", "where": {"is_published": True}}},
    )
    assert published["count"] == 3 and published["scanned_count"] == 4
    tools.close()
    (line, _) = [json.loads(text) for text in record.read_text().splitlines()]
    (request,) = line["requests"]
    assert request["operation"] == "Query" and request["params"]["Select"] == "COUNT"
    assert request["count"] == 4


def test_count_filters_by_type_and_says_when_it_cannot(seeded) -> None:
    blog = seeded("wavyblog")
    stranger = {
        "PK": {"S": "NOTE#1"},
        "SK": {"S": "NOTE#1"},
        "GSI1PK": {"S": "POSTS_BY_USER#john_doe"},
        "GSI1SK": {"S": "POST#2026-02-01"},
        "EntityType": {"S": "NOTE"},
    }
    blog.call("PutItem", {"TableName": blog.table_name, "Item": stranger})  # in the pattern's key range
    tools = DesignTools(blog)
    counted = tools.call("count", {"pattern": "post_by_user", "arguments": {"author_id": "john_doe"}})
    listed = tools.call("post_by_user", {"author_id": "john_doe", "limit": 100})["items"]
    assert counted["count"] == len(listed) == 4 and counted["scanned_count"] == 5
    hub = seeded("hustlehub")
    tools = DesignTools(hub)
    (name,) = [
        n for n, spec in tools.tools.items() if spec.kind == "pattern" and spec.source.name == "by_email"
    ]
    by_email = tools.call("count", {"pattern": name, "arguments": {"email": "nobody@example.com"}})
    assert by_email["count"] == 0 and "type attribute cannot be filtered on here" in by_email["note"]


@pytest.fixture(scope="module")
def raw_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    from singletable.examples import DEMO_CLOCK
    from singletable.model import connect

    db = connect(
        design_table("wavyblog"), str(tmp_path_factory.mktemp("raw") / "blog.db"), clock=lambda: DEMO_CLOCK
    )
    db.create_table()
    SEEDS["wavyblog"][1](db)
    yield db
    db.close()


SCALARS = (
    st.text(max_size=8)
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.booleans()
    | st.none()
    | st.fixed_dictionaries({"N": st.text(max_size=6)})
    | st.fixed_dictionaries({"B": st.text(max_size=6)})
    | st.lists(st.integers(), max_size=2)
)
CONDITIONS = st.fixed_dictionaries(
    {
        "attribute": st.sampled_from(["PK", "SK", "Title", "x", "", "#a0", ":r0"]),
        "operator": st.sampled_from(
            ["=", "<>", "<", "between", "begins_with", "contains", "in", "exists", "not_exists", "like"]
        ),
    },
    optional={"value": SCALARS, "to": SCALARS, "values": st.lists(SCALARS, max_size=3)},
)


@settings(
    max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    tool=st.sampled_from(["query_raw", "scan_raw"]),
    partition=SCALARS,
    sort=st.none() | CONDITIONS,
    conditions=st.lists(CONDITIONS, max_size=3),
    limit=st.integers(min_value=-3, max_value=200),
)
def test_hostile_raw_arguments_are_answered_or_refused(
    raw_db, tool, partition, sort, conditions, limit
) -> None:
    tools = DesignTools(raw_db, Policy(raw_tables=frozenset({raw_db.table_name}), max_page_size=50))
    arguments: dict = {"table": raw_db.table_name, "filter": conditions, "limit": limit}
    if tool == "query_raw":
        arguments["key"] = {"partition": {"attribute": "PK", "value": partition}}
        if sort is not None:
            arguments["key"]["sort"] = sort
    try:
        result = tools.call(tool, arguments)
    except ToolError as error:
        assert str(error).startswith(f"{tool}: ") and "internal error" not in str(error), str(error)
    else:
        json.dumps(result)
        assert result["count"] <= limit


def test_an_allowlisted_table_that_does_not_exist_is_named(read_only_seeded) -> None:
    db = read_only_seeded("wavyblog")
    tools = DesignTools(db, Policy(raw_tables=frozenset({db.table_name, "NoSuchTable"})))
    with pytest.raises(
        ToolError, match="scan_raw: the table NoSuchTable does not exist on this server's target"
    ):
        tools.call("scan_raw", {"table": "NoSuchTable"})
