"""The five seed designs served by the SDK's MCP server over stdio and over streamable HTTP, on an engine file
and on DynamoDB Local, as ``singletable mcp`` serves them (an AsyncDB on the target), driven by the SDK's own
client: the tool list and its schemas (checked as JSON Schema and equal to the library's), sample arguments
from the seed's own data (checked against the listed input schemas), every read tool's and ``count``'s
answers (equal to the library's in-process answers), ``get_<entity>``, wrong types, write refusals and
hostile arguments (huge text, deep nesting, unknown names, negative limits, tampered cursors).

The server runs in the test's process, on the wire all the same (mcp_in_process.py): the seeds differ in
what crosses the wire, not in how. test_mcp_protocol.py runs ``singletable mcp`` as a real process over
each transport."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import anyio
import pytest
from mcp_in_process import over_loopback, over_pipes
from mcp_schemas import validate
from mcp_seeds import FIVE_SEEDS, SEEDS, design_table
from mcp_wire import DDB_LOCAL_CREDENTIALS, check_listing, seed_file

from singletable.examples import DEMO_CLOCK
from singletable.mcp import DesignTools, ToolError, mcp_server
from singletable.model import DB, connect, connect_async

SECRET = "mcp-wire-tests"  # the server's and the test's cursors alike


class Served(NamedTuple):
    """A seeded table: the server's target (a file or an endpoint) and table name, and a DB on the same
    data for the test's own answers."""

    table: Any
    target: str
    name: str | None
    db: DB


@pytest.fixture(scope="module")
def seeded_once() -> Iterator[dict[tuple[str, str], Served]]:
    """Each seed's table, loaded once per module and target: the server and the test only read it."""
    made: dict[tuple[str, str], Served] = {}
    yield made
    for (target, _), served in made.items():
        if target == "reference":
            served.db.delete_table()
        served.db.close()


def seed_table(target: str, seed: str, request: pytest.FixtureRequest) -> Served:
    """``seed``'s sample in an engine file of its own or a table of its own on DynamoDB Local."""
    table = design_table(seed)
    if target == "engine":
        path = seed_file(seed, request.getfixturevalue("tmp_path_factory").mktemp(seed) / f"{seed}.db")
        return Served(table, str(path), None, connect(table, str(path), cursor_secret=SECRET))
    reference = request.getfixturevalue("reference_server")
    name = f"{request.getfixturevalue('table_name')}_{seed}"
    db = connect(table, reference.client(), name=name, clock=lambda: DEMO_CLOCK, cursor_secret=SECRET)
    db.create_table()
    SEEDS[seed][1](db)
    return Served(table, reference.endpoint, name, db)


# On DynamoDB Local the five seeds by two transports cost more CPU than the rest of this file (DynamoDB Local
# answers each call): they run with the slow tests (.ci/run); the default run keeps DynamoDB Local's MCP
# answers in test_mcp_protocol, test_mcp_tools and test_mcp_raw.
@pytest.fixture(params=["engine", pytest.param("reference", marks=pytest.mark.slow)])
def served(
    request: pytest.FixtureRequest,
    seeded_once: dict[tuple[str, str], Served],
    monkeypatch: pytest.MonkeyPatch,
) -> Callable[[str], Served]:
    """``served(seed)``: the seed's shared table on this test's target."""
    if request.param == "reference":  # what the server's aiobotocore client signs with
        for variable, value in DDB_LOCAL_CREDENTIALS.items():
            monkeypatch.setenv(variable, value)

    def serve(seed: str) -> Served:
        key = (request.param, seed)
        if key not in seeded_once:
            seeded_once[key] = seed_table(request.param, seed, request)
        return seeded_once[key]

    return serve


async def served_over(transport: str, target: Served, calls: list[tuple[str, dict[str, Any]]]) -> Any:
    """What ``singletable mcp`` serves (an AsyncDB on the target, the default policy) over ``transport``;
    the tool list and the calls' results."""
    db = await connect_async(target.table, target.target, name=target.name, cursor_secret=SECRET)
    tools = DesignTools(db)
    try:
        over = over_pipes if transport == "stdio" else over_loopback
        return await over(mcp_server(tools), calls)
    finally:
        tools.close()
        await db.close()


def samples(db: DB) -> dict[str, dict[str, Any]]:
    """One stored entity of each type, as plain JSON (the seeds are small: one Scan page holds them)."""
    table = db.table
    found: dict[str, dict[str, Any]] = {}
    for item in db.call("Scan", {"TableName": db.table_name})["Items"]:
        for meta in table.entities.values():
            if meta.type not in found and item.get(table.type_attribute) == {"S": meta.type}:
                found[meta.type] = meta.from_item(item).model_dump(mode="json")
    return found


def sample_arguments(tools: DesignTools, found: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """For each pattern and collection tool: its required arguments, from an entity that has them."""
    out: dict[str, dict[str, Any]] = {}
    for name, spec in tools.tools.items():
        if spec.kind not in ("pattern", "collection"):
            continue
        required = spec.input_schema.get("required", [])
        metas = [spec.entity] if spec.kind == "pattern" else spec.source.metas
        for meta in metas:
            entity = found.get(meta.type)
            if entity is not None and all(entity.get(r) is not None for r in required):
                out[name] = {r: entity[r] for r in required} | {"limit": 5}
                break
    return out


def wrong_type(schema: dict[str, Any], good: dict[str, Any]) -> dict[str, Any]:
    """``good`` with its first required argument of the wrong JSON type."""
    name = schema["required"][0]
    declared = schema["properties"][name]
    return {**good, name: 7 if declared.get("type") == "string" or "enum" in declared else ["x"]}


def every_entity(tools: DesignTools, name: str, arguments: dict[str, Any]) -> list[Any]:
    """All pages of a read tool, in-process."""
    page = tools.call(name, {**arguments, "limit": 100})
    items = page["items"]
    while page["cursor"]:
        page = tools.call(name, {**arguments, "limit": 100, "cursor": page["cursor"]})
        items += page["items"]
    return items


def nested(depth: int) -> Any:
    value: Any = 1
    for level in range(depth):
        value = [value] if level % 2 else {"x": value}
    return value


def without_limit(arguments: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in arguments.items() if k != "limit"}


def tampered(cursor: str) -> str:
    middle = len(cursor) // 2
    return cursor[:middle] + ("A" if cursor[middle] != "A" else "B") + cursor[middle + 1 :]


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("seed", FIVE_SEEDS)
def test_each_seed_over_the_wire(
    seed: str, transport: str, served: Callable[[str], Served], caplog: pytest.LogCaptureFixture
) -> None:
    target = served(seed)
    local = DesignTools(target.db, cursor_secret=SECRET)
    found = samples(target.db)
    sampled = sample_arguments(local, found)
    assert sampled, f"{seed}: no access pattern could be called with sample data"
    gets = {
        name: {f: found[spec.entity.type][f] for f in spec.input_schema.get("required", [])}
        for name, spec in local.tools.items()
        if spec.kind == "get" and spec.entity.type in found
    }
    wrong = {
        name: wrong_type(local.tools[name].input_schema, good)
        for name, good in (sampled | gets).items()
        if local.tools[name].input_schema.get("required")
    }
    first_page = next(name for name in sampled)
    keyed = next((name for name, arguments in sampled.items() if without_limit(arguments)), first_page)
    page = local.call(first_page, {**sampled[first_page], "limit": 1})
    writer = next(f"put_{name[4:]}" for name in gets)
    hostile: list[tuple[str, dict[str, Any]]] = [
        (first_page, {**sampled[first_page], "limit": -1}),
        (first_page, {**sampled[first_page], "bogus": True}),
        (first_page, {**sampled[first_page], "where": nested(40)}),
        (
            "count",
            {
                "pattern": keyed,
                "arguments": {k: "é" * 300_000 for k in without_limit(sampled[keyed])},
            },
        ),
        (writer, {"anything": 1}),
    ]
    if page["cursor"]:
        hostile.append((first_page, {**sampled[first_page], "cursor": tampered(page["cursor"])}))
    calls: list[tuple[str, dict[str, Any]]] = [
        ("describe_design", {}),
        *sampled.items(),
        *gets.items(),
        *(("count", {"pattern": n, "arguments": without_limit(a)}) for n, a in sampled.items()),
        *wrong.items(),
        *hostile,
    ]
    with caplog.at_level(logging.WARNING):
        listed, results = anyio.run(served_over, transport, target, calls)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info], caplog.text

    tools = check_listing(listed)
    assert list(tools) == list(local.tools)
    assert {name: tool.input_schema for name, tool in tools.items()} == {
        name: spec.input_schema for name, spec in local.tools.items()
    }
    described = results[0].structured_content
    assert {e["entity"] for e in described["entities"]} == {
        spec.entity.cls.__name__ for spec in local.tools.values() if spec.kind == "get"
    }
    assert not [n for n in tools if n.startswith(("put_", "update_", "delete_", "query_raw", "scan_raw"))]
    assert results[0].structured_content == local.call("describe_design", {})
    for number, ((name, arguments), result) in enumerate(zip(calls, results, strict=True)):
        text = result.content[0].text if result.content else ""
        assert "internal error" not in text and "Traceback" not in text, (name, text)
        if number == 0 or number > len(sampled) * 2 + len(gets):
            continue
        assert result.is_error is False, (name, text)
        validate(result.structured_content, tools[name].output_schema)
        if name == "count":
            counted = result.structured_content
            assert counted["complete"] is True and counted["cursor"] is None
            everything = every_entity(local, arguments["pattern"], arguments.get("arguments", {}))
            if counted["note"] is None:  # the count filtered by type: exactly the entities
                assert counted["count"] == len(everything), arguments
            else:
                assert counted["count"] >= len(everything), arguments
            continue
        validate(arguments, tools[name].input_schema)  # the samples fit the listed schema
        expected = local.call(name, arguments)
        if "items" in expected:
            assert result.structured_content["items"] == expected["items"], name
        else:
            assert result.structured_content == expected, name
    refusals = results[len(calls) - len(hostile) - len(wrong) : len(calls) - len(hostile)]
    for name, refused in zip(wrong, refusals, strict=True):
        field = local.tools[name].input_schema["required"][0]
        assert refused.is_error is True
        assert f"{name}: argument {field}: " in refused.content[0].text, refused.content[0].text
    negative, unknown, deep, huge, write, *forged = results[len(calls) - len(hostile) :]
    assert "argument limit: -1 is less than the minimum of 1" in negative.content[0].text
    assert "('bogus' was unexpected)" in unknown.content[0].text
    assert deep.is_error and "nested deeper than 32 levels" in deep.content[0].text
    assert huge.is_error is True or huge.structured_content["count"] == 0, huge.content[0].text
    assert write.is_error and f"no tool {writer!r} (writes need --allow-writes" in write.content[0].text
    for refused in forged:
        assert refused.is_error and "InvalidCursor" in refused.content[0].text


def test_the_wire_samples_cover_every_seed() -> None:
    """Every seed has sample data for a pattern tool, so the test above calls something on each; on an empty
    table each read tool that needs no argument answers an empty first and last page."""
    for seed in FIVE_SEEDS:
        db = connect(design_table(seed), ":memory:", clock=lambda: DEMO_CLOCK)
        db.create_table()
        empty = DesignTools(db)
        free = [
            name
            for name, spec in empty.tools.items()
            if spec.kind in ("pattern", "collection") and not spec.input_schema.get("required")
        ]
        assert free, seed
        for name in free:
            assert empty.call(name, {}) == {"items": [], "count": 0, "cursor": None}, (seed, name)
        SEEDS[seed][1](db)
        tools = DesignTools(db)
        assert len(sample_arguments(tools, samples(db))) >= 2, seed
        with pytest.raises(ToolError):
            tools.call("count", {"pattern": "nope"})
