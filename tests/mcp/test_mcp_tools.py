"""singletable.mcp in-process: the tools a design offers, their schemas, their calls and their refusals, on
the embedded engine and on DynamoDB Local (the MCP transports are tested in test_mcp_protocol.py)."""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_schemas import check_schema, validate
from mcp_seeds import design_table

from draws import examples
from singletable.examples.wavyblog.design import Category, Post, User
from singletable.mcp import DesignTools, Policy, ToolError

FIVE_SEEDS = ["fus_main", "hustlehub", "places", "wavyblog", "blog_api"]
WRITE_PREFIXES = ("put_", "update_", "delete_")


def tool_names(tools: DesignTools) -> set[str]:
    return set(tools.tools)


@pytest.mark.parametrize("seed", FIVE_SEEDS)
def test_every_seed_offers_its_patterns_and_valid_schemas_read_only_by_default(seed: str) -> None:
    from singletable._designs import load_design
    from singletable.model import connect

    table = load_design(f"singletable.examples.{seed}.design").table
    tools = DesignTools(connect(table, ":memory:"))
    names = tool_names(tools)
    assert not [n for n in names if n.startswith(WRITE_PREFIXES)]
    assert {"describe_design", "count"} <= names
    for meta in table.entities.values():
        assert any(n.startswith("get_") and tools.tools[n].entity is meta for n in names)
        for pattern in meta.patterns.values():
            assert any(t.source is pattern for t in tools.tools.values()), pattern.name
    for collection in table.collections.values():
        assert f"collection_{collection.name}" in names
    for spec in tools.tools.values():
        assert re.fullmatch(r"[A-Za-z0-9_.-]{1,128}", spec.name)
        check_schema(spec.input_schema)
        assert spec.input_schema["type"] == "object" and spec.input_schema["additionalProperties"] is False
        assert spec.description


def test_pattern_schema_has_typed_keys_enums_and_paging() -> None:
    from singletable.model import connect

    tools = DesignTools(connect(design_table("wavyblog"), ":memory:"), Policy(allow_writes=True))
    by_user = tools.tools["post_by_user"].input_schema
    assert by_user["required"] == ["author_id"]
    assert by_user["properties"]["created_at"]["format"] == "date-time"
    assert by_user["properties"]["limit"]["maximum"] == 100
    assert by_user["properties"]["where"]["properties"]["is_published"] == {"type": "boolean"}
    put_user = tools.tools["put_user"].input_schema
    assert put_user["properties"]["role"]["enum"] == ["user", "admin"]
    assert "created_at" not in put_user["properties"]  # kept by the model
    assert "WRITES" in tools.tools["put_user"].description
    assert "USEREMAIL#{email}" in tools.tools["put_user"].description  # says it keeps the guard


def test_writes_only_when_asked_and_deletes_need_their_own_flag() -> None:
    from singletable.model import connect

    db = connect(design_table("wavyblog"), ":memory:")
    assert not [n for n in DesignTools(db).tools if n.startswith(WRITE_PREFIXES)]
    one = tool_names(DesignTools(db, Policy(write_entities=frozenset({"Post"}))))
    assert {n for n in one if n.startswith(WRITE_PREFIXES)} == {"put_post", "update_post"}
    by_type = tool_names(DesignTools(db, Policy(write_entities=frozenset({"USER"}), allow_deletes=True)))
    assert {n for n in by_type if n.startswith(WRITE_PREFIXES)} == {"put_user", "update_user", "delete_user"}
    every = tool_names(DesignTools(db, Policy(allow_writes=True)))
    assert {"put_user", "put_post", "put_category", "update_category"} <= every
    assert not [n for n in every if n.startswith("delete_")]


def test_reads_page_filter_get_count(read_only_seeded) -> None:
    db = read_only_seeded("wavyblog")
    tools = DesignTools(db)
    everything = [p.model_dump(mode="json") for p in db.query(Post.all_posts())]
    first = tools.call("post_all_posts", {"limit": 3})
    assert first["count"] == 3 and first["cursor"]
    second = tools.call("post_all_posts", {"limit": 100, "cursor": first["cursor"]})
    assert second["cursor"] is None
    assert first["items"] + second["items"] == everything
    author = everything[0]["author_id"]
    mine = tools.call("post_by_user", {"author_id": author})["items"]
    assert mine and all(p["author_id"] == author for p in mine)
    assert [p["created_at"] for p in mine] == sorted((p["created_at"] for p in mine), reverse=True)
    published = tools.call("post_by_user", {"author_id": author, "where": {"is_published": False}})["items"]
    assert published == [p for p in mine if not p["is_published"]]
    username = db.query(User.all_users()).__next__().username
    got = tools.call("get_user", {"username": username})["item"]
    assert got == db.get(User, username=username).model_dump(mode="json")
    assert tools.call("get_user", {"username": "nobody"}) == {"item": None}
    counted = tools.call("count", {"pattern": "post_all_posts"})
    assert (counted["count"], counted["complete"], counted["cursor"]) == (len(everything), True, None)
    design = tools.call("describe_design", {})
    assert design["table"]["name"] == db.table_name
    assert {e["entity"] for e in design["entities"]} == {"User", "Post", "Category"}
    post = next(e for e in design["entities"] if e["entity"] == "Post")
    assert post["keys"]["GSI1PK"] == "POSTS_BY_USER#{author_id}"
    pattern = next(p for p in design["access_patterns"] if p["tool"] == "post_by_user")
    assert pattern["index"] == "GSI1" and pattern["required_arguments"] == ["author_id"]
    json.dumps(design)  # plain JSON


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("post_by_user", {"author_id": 3}, "post_by_user: argument author_id: 3 is not of type 'string'"),
        ("post_by_user", {}, "post_by_user: 'author_id' is a required property"),
        ("post_by_user", {"author_id": "a", "limit": 101}, "argument limit: 101 is greater than the maximum"),
        ("post_by_user", {"author_id": "a", "where": {"nope": 1}}, "argument where: Additional properties"),
        ("post_by_user", {"author_id": "a", "where": {"is_published": "yes"}}, "argument where.is_published"),
        ("post_by_user", {"author_id": "a", "created_at": "yesterday"}, "argument created_at: "),
        ("get_user", {"username": "x", "PK": "USER#x"}, "('PK' was unexpected); it takes username"),
        ("post_all_posts", {"cursor": "forged"}, "post_all_posts: InvalidCursor"),
        ("count", {"pattern": "scan_everything"}, "argument pattern: 'scan_everything' is not one of"),
        ("count", {"pattern": "post_by_user", "arguments": {"author_id": 1}}, "argument author_id: 1 is not"),
        ("put_user", {"username": "x"}, "no tool 'put_user' (writes need --allow-writes"),
        ("delete_post", {"slug": "x"}, "no tool 'delete_post'"),
    ],
)
def test_bad_calls_are_tool_errors_naming_the_field(
    read_only_seeded, name: str, arguments: dict, message: str
) -> None:
    tools = DesignTools(read_only_seeded("wavyblog"))
    with pytest.raises(ToolError) as caught:
        tools.call(name, arguments)
    assert message in str(caught.value)


def test_writes_go_through_the_model(seeded) -> None:
    db = seeded("wavyblog")
    tools = DesignTools(db, Policy(allow_writes=True, allow_deletes=True))
    user = {"user_id": "u9", "username": "zed", "email": "zed@example.com", "password_hash": "h"}
    stored = tools.call("put_user", user)["item"]
    assert stored["role"] == "user" and stored["created_at"]
    assert db.find(User, email="zed@example.com").username == "zed"  # the guard item was written
    with pytest.raises(ToolError, match=r"UniqueViolation: USER\.email must be unique"):
        tools.call("put_user", {**user, "user_id": "u10", "username": "zed2"})
    with pytest.raises(ToolError, match="put_user: argument role: 'king' is not one of"):
        tools.call("put_user", {**user, "role": "king"})
    updated = tools.call("update_user", {"key": {"username": "zed"}, "set": {"role": "admin"}})["item"]
    assert updated["role"] == "admin" and db.get(User, username="zed").role == "admin"
    with pytest.raises(ToolError, match="update_post: NotFound"):
        tools.call("update_post", {"key": {"slug": "nope"}, "set": {"title": "x"}})
    with pytest.raises(ToolError, match=r"update_user: argument set: \{\} should be non-empty"):
        tools.call("update_user", {"key": {"username": "zed"}, "set": {}})
    post = {"post_id": "p1", "slug": "s1", "title": "T", "author_id": "zed", "category": "news"}
    tools.call("put_post", post)
    assert [p.slug for p in db.query(Post.by_user(author_id="zed"))] == ["s1"]  # GSI keys from templates
    assert tools.call("delete_user", {"username": "zed"}) == {"deleted": {"username": "zed"}}
    assert db.get(User, username="zed") is None and db.find(User, email="zed@example.com") is None


def test_confirm_returns_the_planned_requests_and_writes_nothing(seeded) -> None:
    db = seeded("wavyblog")
    tools = DesignTools(db, Policy(allow_writes=True, allow_deletes=True, confirm=True))
    user = {"user_id": "u9", "username": "zed", "email": "zed@example.com", "password_hash": "h"}
    planned = tools.call("put_user", user)
    assert planned["confirm"] is True and planned["written"] is False
    (request,) = planned["planned_requests"]
    assert request["operation"] == "TransactWriteItems"
    keys = [a["Put"]["Item"]["PK"]["S"] for a in request["params"]["TransactItems"]]
    assert keys == ["USER#zed", "USEREMAIL#zed@example.com"]
    assert db.get(User, username="zed") is None
    slug = next(db.query(Category.all_categories())).slug
    deleting = tools.call("delete_category", {"slug": slug})["planned_requests"]
    assert [r["operation"] for r in deleting] == ["DeleteItem"]
    assert db.get(Category, slug=slug) is not None


def test_the_read_budget_stops_paging(seeded) -> None:
    db = seeded("wavyblog")
    # 1.5 MB of categories: a count (Select=COUNT) reads 1 MB per request, so it needs two
    bulk = [Category(category_id=f"c{i}", slug=f"bulk-{i:03d}", name="x" * 5000) for i in range(300)]
    db.batch_write(put=bulk)
    total = len(list(db.query(Category.all_categories())))
    tools = DesignTools(db, Policy(max_rcu_per_call=0.5))
    first = tools.call("count", {"pattern": "category_all_categories"})
    assert first["complete"] is False and first["cursor"] and 0 < first["count"] < total
    assert "read budget (0.5 RCU) was spent" in first["note"] and first["capacity_units"] >= 0.5
    forged = first["cursor"][:-3] + ("AAA" if not first["cursor"].endswith("AAA") else "BBB")
    with pytest.raises(ToolError, match="count: InvalidCursor"):
        tools.call("count", {"pattern": "category_all_categories", "cursor": forged})
    with pytest.raises(
        ToolError, match="count: InvalidCursor"
    ):  # a count cursor continues its own count only
        tools.call("count", {"pattern": "post_all_posts", "cursor": first["cursor"]})
    rest = DesignTools(db).call("count", {"pattern": "category_all_categories", "cursor": first["cursor"]})
    assert rest["complete"] is True and first["count"] + rest["count"] == total
    with pytest.raises(ToolError, match=r"read budget \(0.5 RCU\) was spent after"):
        tools.call("category_all_categories", {"where": {"name": "none of them"}, "limit": 5})


def test_every_call_is_recorded_in_a_private_file(read_only_seeded, tmp_path) -> None:
    path = tmp_path / "calls.jsonl"
    tools = DesignTools(read_only_seeded("wavyblog"), record=str(path))
    tools.call("post_all_posts", {"limit": 2})
    with pytest.raises(ToolError):
        tools.call("get_user", {"username": 5})
    tools.close()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(r["tool"], r["ok"]) for r in lines] == [("post_all_posts", True), ("get_user", False)]
    assert lines[0]["requests"][0]["operation"] == "Query" and lines[0]["capacity_units"] > 0
    assert lines[0]["requests"][0]["params"]["IndexName"] == "GSI3"
    assert "argument username" in lines[1]["error"] and lines[1]["requests"] == []


def test_places_patterns_list_and_follow_links(read_only_seeded) -> None:
    db = read_only_seeded("places")
    tools = DesignTools(db)
    categories = tools.call("category_by_name", {})["items"]
    assert categories and all(set(c) >= {"id", "name"} for c in categories)
    collection = tools.call("collection_by_name", {"limit": 1})["items"][0]
    links = tools.call("collection_category_of_collection", {"collection_id": collection["id"]})["items"]
    assert links and all(link["collection_id"] == collection["id"] for link in links)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


def fitting(schema: dict) -> st.SearchStrategy:
    """Values of a property's declared type (odd ones: empty, '#', unicode), or anything JSON."""
    strings = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12) | st.sampled_from(
        ["", "#", "USER#x", "a" * 300]
    )
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if schema.get("format") == "date-time":
        return st.datetimes().map(lambda d: d.isoformat()) | strings
    if kind == "string":
        return strings
    if kind == "boolean":
        return st.booleans()
    if kind == "integer":
        return st.integers(min_value=-2, max_value=8)
    if kind == "object":
        return st.fixed_dictionaries(
            {}, optional={k: fitting(v) for k, v in schema.get("properties", {}).items()}
        )
    return JSON_VALUES


def well_typed(schema: dict) -> st.SearchStrategy:
    properties = schema.get("properties", {})
    required = set(schema.get("required", ()))
    return st.fixed_dictionaries(
        {k: fitting(v) for k, v in properties.items() if k in required},
        optional={k: fitting(v) for k, v in properties.items() if k not in required},
    )


@pytest.fixture(scope="module")
def hostile_tools(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DesignTools]:
    from mcp_seeds import SEEDS

    from singletable.examples import DEMO_CLOCK
    from singletable.model import connect

    path = tmp_path_factory.mktemp("hostile") / "places.db"
    db = connect(design_table("places"), str(path), clock=lambda: DEMO_CLOCK)
    db.create_table()
    SEEDS["places"][1](db)
    tools = DesignTools(db, Policy(allow_writes=True, allow_deletes=True, confirm=True, max_page_size=5))
    yield tools
    db.close()


@settings(
    max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_hostile_arguments_are_answered_or_refused_never_crash(hostile_tools: DesignTools, data) -> None:
    """Any JSON an agent may send -- right names with wrong or odd values, unknown names -- is a result or a
    ToolError; confirm mode keeps every write unsent."""
    name = data.draw(st.sampled_from(sorted(hostile_tools.tools)))
    properties = sorted(hostile_tools.tools[name].input_schema.get("properties", {}))
    keys = st.sampled_from(properties) | st.text(max_size=6) if properties else st.text(max_size=6)
    strings = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)
    value = JSON_VALUES | strings
    anything = st.dictionaries(keys, value, max_size=4)
    arguments = data.draw(well_typed(hostile_tools.tools[name].input_schema) | anything)
    before = hostile_tools.db.call("Scan", {"TableName": hostile_tools.db.table_name})["Count"]
    try:
        result = hostile_tools.call(name, arguments)
    except ToolError as error:
        assert "internal error" not in str(error), str(error)
        assert str(error).startswith((name, "count"))
    else:
        json.dumps(result)
    assert hostile_tools.db.call("Scan", {"TableName": hostile_tools.db.table_name})["Count"] == before


def test_a_sort_key_range_is_a_key_condition(read_only_seeded) -> None:
    db = read_only_seeded("wavyblog")
    tools = DesignTools(db)
    schema = tools.tools["post_by_user"].input_schema["properties"]["range"]
    assert schema["properties"]["created_at"]["properties"]["from"]["format"] == "date-time"
    author = next(db.query(Post.all_posts())).author_id
    mine = tools.call("post_by_user", {"author_id": author})["items"]
    times = sorted(p["created_at"] for p in mine)
    low, high = times[0], times[-2] if len(times) > 1 else times[0]
    between = {"author_id": author, "range": {"created_at": {"from": low, "to": high}}}
    found = tools.call("post_by_user", between)["items"]
    assert [p["created_at"] for p in found] == [t for t in reversed(times) if low <= t <= high]
    until = tools.call("post_by_user", {"author_id": author, "range": {"created_at": {"to": low}}})["items"]
    assert [p["created_at"] for p in until] == [low]
    with db.trace() as trace:
        tools.call("post_by_user", between)
    (request,) = trace.requests
    assert "BETWEEN" in request.params["KeyConditionExpression"] and "FilterExpression" not in request.params
    for bad, message in [
        ({"created_at": {}}, "argument range.created_at: {} should be non-empty"),
        (
            {"created_at": {"from": "soon"}},
            "argument range.created_at.from: Input should be a valid datetime",
        ),
        (
            {"slug": {"from": "a"}},
            "argument range: Additional properties are not allowed ('slug' was unexpected)",
        ),
    ]:
        with pytest.raises(ToolError) as caught:
            tools.call("post_by_user", {"author_id": author, "range": bad})
        assert message in str(caught.value)


def test_a_missing_table_is_a_tool_error_naming_it() -> None:
    from singletable.model import connect

    tools = DesignTools(connect(design_table("wavyblog"), ":memory:", name="NotCreated"))
    with pytest.raises(ToolError) as caught:
        tools.call("post_all_posts", {})
    assert str(caught.value) == "post_all_posts: the table NotCreated does not exist on this server's target"


def test_a_collection_tool_pages_its_members_with_their_types(read_only_seeded) -> None:
    from singletable.examples.blog_api.design import thread
    from singletable.examples.blog_api.sample import HOT_POST

    db = read_only_seeded("blog_api")
    tools = DesignTools(db)
    assert tools.tools["collection_thread"].input_schema["required"] == ["post_id"]
    expected = [
        {"entity": type(e).__name__, "item": e.model_dump(mode="json")}
        for e in db.collect(thread(post_id=HOT_POST))
    ]
    assert {e["entity"] for e in expected} == {"Comment", "Reply"}
    first = tools.call("collection_thread", {"post_id": HOT_POST, "limit": 3})
    rest = tools.call("collection_thread", {"post_id": HOT_POST, "cursor": first["cursor"]})
    assert first["items"] + rest["items"] == expected and rest["cursor"] is None
    counted = tools.call("count", {"pattern": "collection_thread", "arguments": {"post_id": HOT_POST}})
    assert (counted["count"], counted["complete"], counted["cursor"]) == (len(expected), True, None)
    assert tools.call("collection_thread", {"post_id": "nothing-here"})["items"] == []


def test_an_unknown_tool_says_where_to_look() -> None:
    from singletable.model import connect

    tools = DesignTools(connect(design_table("wavyblog"), ":memory:"))
    with pytest.raises(ToolError) as caught:
        tools.call("scan_table", {})
    assert (
        str(caught.value) == "no tool 'scan_table'; describe_design lists the access patterns and their tools"
    )


@pytest.mark.parametrize("seed", ["wavyblog", "places", "blog_api"])
def test_results_fit_their_declared_output_schemas(seeded, seed: str) -> None:
    from singletable.mcp import output_schema

    db = seeded(seed)
    for policy in (Policy(), Policy(allow_writes=True, allow_deletes=True, confirm=True)):
        tools = DesignTools(db, policy)
        checked = 0
        for name, spec in tools.tools.items():
            schema = output_schema(spec, policy)
            if schema is not None:
                check_schema(schema)
            if spec.kind in ("pattern", "collection") and not spec.input_schema.get("required"):
                page = tools.call(name, {"limit": 5})
                validate(page, schema)
                validate(tools.call("count", {"pattern": name}), output_schema(tools.tools["count"], policy))
                for item in page["items"][:1]:
                    meta = spec.entity
                    assert meta is not None
                    get = next(t for t in tools.tools.values() if t.kind == "get" and t.entity is meta)
                    key = {f: item[f] for f in meta.primary_fields}
                    got = tools.call(get.name, key)
                    assert got["item"] == item
                    validate(got, output_schema(get, policy))
                    if policy.confirm:
                        delete = f"delete_{get.name[4:]}"
                        validate(tools.call(delete, key), output_schema(tools.tools[delete], policy))
                checked += 1
        assert checked


@pytest.fixture(scope="module")
def writing_tools(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DesignTools]:
    from singletable.examples import DEMO_CLOCK
    from singletable.model import connect

    db = connect(
        design_table("wavyblog"), str(tmp_path_factory.mktemp("writes") / "blog.db"), clock=lambda: DEMO_CLOCK
    )
    db.create_table()
    yield DesignTools(db, Policy(allow_writes=True, allow_deletes=True))
    db.close()


@settings(
    max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_hostile_writes_are_done_or_refused_never_crash(writing_tools: DesignTools, data) -> None:
    """Writes with odd but well-typed values (and anything else) run through the model or are refused in
    words; every entity the table then holds reads back."""
    name = data.draw(st.sampled_from(sorted(n for n in writing_tools.tools if n.startswith(WRITE_PREFIXES))))
    arguments = data.draw(well_typed(writing_tools.tools[name].input_schema))
    try:
        writing_tools.call(name, arguments)
    except ToolError as error:
        assert "internal error" not in str(error), str(error)
    for reader in ("user_all_users", "post_all_posts", "category_all_categories"):
        writing_tools.call(reader, {"limit": 100})


def test_write_descriptions_say_what_they_do_and_whether_they_only_plan() -> None:
    from singletable.model import connect

    db = connect(design_table("wavyblog"), ":memory:")
    live = DesignTools(db, Policy(allow_writes=True, allow_deletes=True)).tools
    assert live["put_post"].description.startswith("WRITES: creates or replaces one Post")
    assert "GSI1PK = 'POSTS_BY_USER#{author_id}'" in live["put_post"].description
    assert live["delete_user"].description.startswith("DELETES: removes one User by its primary key")
    assert "guard items" in live["delete_user"].description
    planning = DesignTools(db, Policy(allow_writes=True, allow_deletes=True, confirm=True)).tools
    for name in ("put_post", "update_post", "delete_user"):
        assert planning[name].description.endswith(
            "CONFIRM MODE: answers with the requests it would send and writes nothing."
        )
        assert "CONFIRM" not in live[name].description


def test_an_existing_record_file_open_to_others_is_made_private_and_appended_to(tmp_path) -> None:
    from singletable.model import connect

    path = tmp_path / "calls.jsonl"
    path.write_text('{"earlier": true}\n')
    path.chmod(0o644)
    tools = DesignTools(connect(design_table("wavyblog"), ":memory:"), record=str(path))
    with pytest.raises(ToolError):
        tools.call("get_user", {})
    tools.close()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    earlier, line = path.read_text().splitlines()
    assert (
        earlier == '{"earlier": true}'
        and json.loads(line)["error"] == "get_user: 'username' is a required property"
    )


def test_huge_and_deep_arguments_are_refused_in_few_words(read_only_seeded) -> None:
    """A megabyte-long name over a hundred thousand values, and nesting past DynamoDB's 32 levels, are
    refused naming the argument, in a message of bounded length."""
    tools = DesignTools(read_only_seeded("wavyblog"))
    with pytest.raises(ToolError) as caught:
        tools.call("post_by_user", {"author_id": "a", "x" * 1_000_000: [1] * 100_000})
    assert "Additional properties are not allowed" in str(caught.value)
    assert len(str(caught.value)) <= 2000 and str(caught.value).endswith("characters)")
    deep: object = "v"
    for _ in range(50_000):
        deep = [deep]
    with pytest.raises(ToolError, match=r"argument where\.is_published(\[0\]){31}: nested deeper than 32"):
        tools.call("post_by_user", {"author_id": "a", "where": {"is_published": deep}})
