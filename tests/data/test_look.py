"""The look commands (tables, describe, get, query, scan, put, delete, count) on every kind of TARGET.

Each test runs the real command line (click's runner, in process; a subprocess where the script itself
matters) against a database file, a real ``singletable serve`` and DynamoDB Local, on a table written
through :func:`singletable.data.open_target`, and parses what the command prints.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from look_support import TARGETS, Place, header, lines, ok, place_for, run

from backends import unique_table_name
from singletable.data import item_to_json, open_target

ORDERS = [
    {
        "PK": {"S": "U#1"},
        "SK": {"S": f"ORDER#{i}"},
        "kind": {"S": "order"},
        "n": {"N": str(i)},
        "total": {"N": f"{i}.5"},
    }
    for i in range(1, 5)
]
EVERY_TYPE = {
    "PK": {"S": "U#1"},
    "SK": {"S": "PROFILE"},
    "kind": {"S": "profile"},
    "n": {"N": "0"},
    "name": {"S": "Ada"},
    "photo": {"B": b"\x00\xff"},
    "active": {"BOOL": True},
    "gone": {"NULL": True},
    "tags": {"SS": ["a", "x"]},
    "scores": {"NS": ["1.5", "2"]},
    "blobs": {"BS": [b"\x01"]},
    "address": {"M": {"lines": {"L": [{"S": "1 Road"}, {"N": "7"}, {"B": b"\x02"}]}}},
}
OTHER = {"PK": {"S": "U#2"}, "SK": {"S": "ORDER#9"}, "kind": {"S": "order"}, "n": {"N": "9"}}
ITEMS = [*ORDERS, EVERY_TYPE, OTHER]


def _table_definition(name: str) -> dict:
    return {
        "TableName": name,
        "KeySchema": [
            {"AttributeName": "PK", "KeyType": "HASH"},
            {"AttributeName": "SK", "KeyType": "RANGE"},
        ],
        "AttributeDefinitions": [
            {"AttributeName": a, "AttributeType": t}
            for a, t in (("PK", "S"), ("SK", "S"), ("kind", "S"), ("n", "N"))
        ],
        "GlobalSecondaryIndexes": [
            {
                "IndexName": "byKind",
                "KeySchema": [
                    {"AttributeName": "kind", "KeyType": "HASH"},
                    {"AttributeName": "n", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        "BillingMode": "PAY_PER_REQUEST",
    }


def _place_holding_items(request: pytest.FixtureRequest, factory: pytest.TempPathFactory) -> Iterator[Place]:
    where = place_for(request.param, request, factory.mktemp("look"), unique_table_name())
    with open_target(where.url) as target:
        target.call("CreateTable", **_table_definition(where.table))
        target.call(
            "BatchWriteItem", RequestItems={where.table: [{"PutRequest": {"Item": item}} for item in ITEMS]}
        )
    yield where
    with open_target(where.url) as target:
        target.call("DeleteTable", TableName=where.table)


@pytest.fixture(scope="module", params=TARGETS)
def place(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Place]:
    """A TARGET holding a table with ITEMS in it, shared by the module's tests that only read it (each
    test's commands open the target afresh; removed again from the shared servers)."""
    yield from _place_holding_items(request, tmp_path_factory)


@pytest.fixture(scope="module", params=TARGETS)
def writable(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Place]:
    """A TARGET holding a table with ITEMS in it, shared by the module's tests that write: each writes and
    reads back its own partition (U#3 .. U#9), which no other test reads."""
    yield from _place_holding_items(request, tmp_path_factory)


def as_json(item: dict) -> dict:
    return json.loads(json.dumps(item_to_json(item)))


# -- tables and describe --------------------------------------------------------------------------------


def test_tables_lists_the_table(place):
    assert place.table in ok("tables", place.url).splitlines()
    assert place.table in json.loads(ok("tables", place.url, "--json"))
    assert place.table in [json.loads(line) for line in ok("tables", place.url, "--jsonl").splitlines()]


def test_describe_shows_keys_and_indexes(place):
    text = ok("describe", place.url, place.table)
    assert "PK (S, HASH), SK (S, RANGE)" in text
    assert "GSI byKind" in text and "kind (S, HASH), n (N, RANGE); projects ALL" in text
    description = json.loads(ok("describe", place.url, place.table, "--json"))
    assert description["TableName"] == place.table
    assert description["KeySchema"][0] == {"AttributeName": "PK", "KeyType": "HASH"}


# -- get -------------------------------------------------------------------------------------------------


def test_get_prints_every_type_in_dynamodb_json_and_plain_json(place):
    key = ("PK=U#1", "SK=PROFILE")
    assert json.loads(ok("get", place.url, place.table, *key, "--json")) == as_json(EVERY_TYPE)
    got = json.loads(ok("get", place.url, place.table, *key, "--json", "--plain"))
    assert (
        got["scores"] == [1.5, 2]
        and got["photo"] == "AP8="
        and got["address"] == {"lines": ["1 Road", 7, "Ag=="]}
    )
    assert lines(ok("get", place.url, place.table, *key, "--jsonl")) == [as_json(EVERY_TYPE)]
    by_json = ok(
        "get", place.url, place.table, "--key-json", '{"PK": {"S": "U#1"}, "SK": {"S": "PROFILE"}}', "--json"
    )
    assert json.loads(by_json) == as_json(EVERY_TYPE)


def test_get_shows_a_person_the_keys_first(place):
    text = ok("get", place.url, place.table, "PK=U#1", "SK=PROFILE")
    assert header(text)[:2] == ["PK", "SK"]
    assert "Ada" in text and '{"lines":["1 Road",7,"Ag=="]}' in text and "1 item" in text


def test_text_that_looks_like_rich_markup_is_shown_as_is(writable):
    item = {
        "PK": {"S": "U#9"},
        "SK": {"S": "[/]"},
        "[bold]": {"S": "[red]x[/red] [/]"},
        "e": {"S": "\x1b[2J"},
    }
    ok("put", writable.url, writable.table, json.dumps(item))
    text = ok("get", writable.url, writable.table, "PK=U#9", "SK=[/]")
    assert "[red]x[/red] [/]" in text and "[bold]" in header(text)
    assert "\\x1b[2J" in text and "\x1b" not in text  # a terminal escape is shown, not sent


def test_get_of_an_absent_item_exits_1(place):
    result = run("get", place.url, place.table, "PK=U#1", "SK=NOPE")
    assert (result.exit_code, result.stderr) == (
        1,
        f'Error: no item in {place.table} with key {{"PK":"U#1","SK":"NOPE"}}\n',
    )


@pytest.mark.parametrize(
    ("key", "message"),
    [
        (("PK=U#1",), "the key needs SK (the key is PK SK)"),
        (("PK=U#1", "SK=a", "X=1"), "X is not a key attribute: the key is PK SK"),
        (("PK=U#1", "SK>a"), "a key is NAME=VALUE, not 'SK>a'"),
        (("PK=U#1", "PK=U#2", "SK=a"), "PK is given twice"),
        (("nonsense",), "'nonsense' is not NAME=VALUE (or NAME<VALUE, <=, >, >=, ^= for begins_with)"),
    ],
)
def test_a_bad_key_is_a_usage_error(place, key, message):
    result = run("get", place.url, place.table, *key)
    assert result.exit_code == 2
    assert result.stderr.endswith(f"Error: {message}\n")


def test_a_missing_table_exits_1_with_dynamodbs_code_and_message(place):
    result = run("get", place.url, "NoSuchTable", "PK=a", "SK=b")
    assert result.exit_code == 1
    if place.kind == "reference":  # DynamoDB Local words it its own way
        assert result.stderr.startswith("Error: ResourceNotFoundException: ")
    else:
        assert (
            result.stderr
            == "Error: ResourceNotFoundException: Requested resource not found: Table: NoSuchTable not found"
            "\n"
        )


# -- query -----------------------------------------------------------------------------------------------


def _sks(output: str) -> list[str]:
    return [item["SK"]["S"] for item in lines(output)]


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ((), ["ORDER#1", "ORDER#2", "ORDER#3", "ORDER#4", "PROFILE"]),
        (("SK=ORDER#2",), ["ORDER#2"]),
        (("SK^=ORDER#",), ["ORDER#1", "ORDER#2", "ORDER#3", "ORDER#4"]),
        (("SK<ORDER#2",), ["ORDER#1"]),
        (("SK<=ORDER#2",), ["ORDER#1", "ORDER#2"]),
        (("SK>ORDER#4",), ["PROFILE"]),
        (("SK>=ORDER#4",), ["ORDER#4", "PROFILE"]),
        (("SK>=ORDER#2", "SK<=ORDER#3"), ["ORDER#2", "ORDER#3"]),
    ],
)
def test_query_by_key_condition(place, condition, expected):
    assert _sks(ok("query", place.url, place.table, "PK=U#1", *condition, "--jsonl")) == expected


def test_query_newest_first_limit_and_filter(place):
    assert _sks(ok("query", place.url, place.table, "PK=U#1", "SK^=ORDER#", "-r", "-n", "2", "--jsonl")) == [
        "ORDER#4",
        "ORDER#3",
    ]
    filtered = ok(
        "query", place.url, place.table, "PK=U#1", "--filter", "#t > :t", "--names", '{"#t": "total"}',
        "--values", '{":t": 2.5}', "--plain", "--json",
    )  # fmt: skip
    assert [item["SK"] for item in json.loads(filtered)] == ["ORDER#3", "ORDER#4"]


def test_query_an_index_with_a_number_sort_key(place):
    found = ok("query", place.url, place.table, "-i", "byKind", "kind=order", "n>=2", "n<=4", "--jsonl")
    assert _sks(found) == ["ORDER#2", "ORDER#3", "ORDER#4"]
    text = ok("query", place.url, place.table, "-i", "byKind", "kind=order", "n>3")
    assert header(text)[:4] == ["PK", "SK", "kind", "n"]
    assert "ORDER#9" in text and "ORDER#4" in text and "2 items" in text


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (("SK=x",), "a query needs the partition key: PK=VALUE"),
        (("PK=U#1", "PK=U#2"), "the partition key PK takes one NAME=VALUE, not 'PK=U#2'"),
        (("PK<U#1",), "the partition key PK takes one NAME=VALUE, not 'PK<U#1'"),
        (("PK=U#1", "total=1"), "total is not a key attribute here: the key is PK SK"),
        (
            ("PK=U#1", "SK>a", "SK<b"),
            "the sort key SK takes one condition, or two inclusive bounds SK>=LOW SK<=HIGH (BETWEEN)",
        ),
        (("PK=U#1", "-i", "nope"), "no index nope"),
    ],
)
def test_a_bad_key_condition_is_a_usage_error(place, arguments, message):
    result = run("query", place.url, place.table, *arguments)
    assert result.exit_code == 2, result.output
    assert message in result.stderr


def test_a_number_key_refuses_text(place):
    result = run("query", place.url, place.table, "-i", "byKind", "kind=order", "n=abc")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: ValidationException: ")


# -- scan, count -----------------------------------------------------------------------------------------


def test_scan_every_item_in_segments_and_filtered(place):
    everything = sorted(
        json.dumps(i, sort_keys=True) for i in lines(ok("scan", place.url, place.table, "--jsonl"))
    )
    assert everything == sorted(json.dumps(as_json(i), sort_keys=True) for i in ITEMS)
    in_three = lines(ok("scan", place.url, place.table, "--segments", "3", "--jsonl"))
    assert sorted(json.dumps(i, sort_keys=True) for i in in_three) == everything
    halves = [
        lines(ok("scan", place.url, place.table, "--segments", "2", "--segment", s, "--jsonl")) for s in "01"
    ]
    assert sorted(json.dumps(i, sort_keys=True) for i in halves[0] + halves[1]) == everything
    assert len(lines(ok("scan", place.url, place.table, "-n", "2", "--jsonl"))) == 2
    assert len(lines(ok("scan", place.url, place.table, "--segments", "3", "-n", "2", "--jsonl"))) == 2
    kinds = ok(
        "scan",
        place.url,
        place.table,
        "--filter",
        "kind = :k",
        "--values",
        '{":k": {"S": "profile"}}',
        "--json",
    )
    assert json.loads(kinds) == [as_json(EVERY_TYPE)]


def test_scan_shows_a_person_the_keys_first(place):
    text = ok("scan", place.url, place.table)
    assert header(text)[:2] == ["PK", "SK"] and "6 items" in text


def test_a_segment_outside_the_segments_is_a_usage_error(place):
    result = run("scan", place.url, place.table, "--segments", "2", "--segment", "2")
    assert (result.exit_code, result.stderr.splitlines()[-1]) == (2, "Error: segment 2 is not one of 0..1")


def test_count(place):
    assert ok("count", place.url, place.table) == "6\n"
    assert ok("count", place.url, place.table, "PK=U#1", "SK^=ORDER#") == "4\n"
    assert ok("count", place.url, place.table, "-i", "byKind", "kind=order") == "5\n"
    assert (
        ok("count", place.url, place.table, "--filter", "n > :n", "--values", '{":n": 3}', "--plain") == "2\n"
    )


# -- put and delete --------------------------------------------------------------------------------------


def test_put_then_get_then_delete(writable):
    item = {"PK": {"S": "U#3"}, "SK": {"S": "NEW"}, "b": {"B": "AAE="}, "m": {"M": {"n": {"N": "1.25"}}}}
    result = run("put", writable.url, writable.table, json.dumps(item))
    assert (result.exit_code, result.stderr) == (0, f"1 item written to {writable.table}\n")
    assert json.loads(ok("get", writable.url, writable.table, "PK=U#3", "SK=NEW", "--json")) == item
    deleted = run("delete", writable.url, writable.table, "PK=U#3", "SK=NEW", "--json")
    assert (deleted.exit_code, json.loads(deleted.stdout), deleted.stderr) == (0, item, "deleted 1 item\n")
    again = run("delete", writable.url, writable.table, "PK=U#3", "SK=NEW")
    assert (again.exit_code, again.stderr) == (0, "no item had that key\n")
    assert run("get", writable.url, writable.table, "PK=U#3", "SK=NEW").exit_code == 1


def test_put_json_lines_from_stdin_plain(writable):
    stdin = '{"PK": "U#4", "SK": "A", "n": 12345678901234567890.5}\n\n{"PK": "U#4", "SK": "B", "ok": true}\n'
    result = run("put", writable.url, writable.table, "--plain", input=stdin)
    assert (result.exit_code, result.stderr) == (0, f"2 items written to {writable.table}\n")
    got = lines(ok("query", writable.url, writable.table, "PK=U#4", "--jsonl"))
    assert got[0]["n"] == {"N": "12345678901234567890.5"} and got[1]["ok"] == {"BOOL": True}


def test_a_bad_line_writes_nothing(writable):
    stdin = '{"PK": {"S": "U#5"}, "SK": {"S": "A"}}\n{"PK": "U#5", "SK": "B"}\n'
    result = run("put", writable.url, writable.table, input=stdin)
    assert result.exit_code == 2
    assert result.stderr.endswith(
        "Error: line 2: PK: not DynamoDB JSON (a value is one type and its content, like "
        '{"S": "x"}) (nothing was written)\n'
    )
    assert ok("count", writable.url, writable.table, "PK=U#5") == "0\n"
    broken = run("put", writable.url, writable.table, "{not json")
    assert (
        broken.exit_code == 2
        and "ITEM: not JSON: Expecting property name enclosed in double quotes" in broken.stderr
    )


def test_a_refused_put_says_how_many_were_written(writable):
    stdin = '{"PK": {"S": "U#6"}, "SK": {"S": "A"}}\n{"PK": {"S": "U#6"}}\n'
    result = run("put", writable.url, writable.table, input=stdin)
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: line 2: ValidationException: ")
    assert result.stderr.endswith("(1 item written before it)\n")


# -- targets ---------------------------------------------------------------------------------------------


def test_a_missing_file_is_not_created(tmp_path):
    result = run("tables", str(tmp_path / "typo.db"))
    assert result.exit_code == 1
    assert (
        result.stderr
        == f"Error: no such database file: {tmp_path / 'typo.db'} (a TARGET is a file or an http(s):// URL)\n"
    )
    assert not (tmp_path / "typo.db").exists()


def test_a_file_that_is_not_a_database_exits_1(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("not a database at all, just text long enough to fill SQLite's header" * 2)
    result = run("tables", str(path))
    assert (result.exit_code, result.stderr) == (
        1,
        f"Error: cannot open database {path}: file is not a database\n",
    )


@pytest.mark.slow  # waits out botocore's retries of a refused connection
def test_an_unreachable_url_exits_1_with_one_line():
    from serving import free_port, run_cli

    url = f"http://127.0.0.1:{free_port()}"
    finished = run_cli("scan", url, "Anything")
    assert finished.returncode == 1
    assert (
        finished.stderr
        == f'Error: EndpointConnectionError: Could not connect to the endpoint URL: "{url}/"\n'
    )


def test_a_closed_pipe_ends_quietly(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "big.db"
    with open_target(str(path)) as target:
        target.call("CreateTable", **_table_definition("Big"))
        for first in range(0, 300, 25):  # 150 kB: more than a pipe's buffer holds
            puts = [
                {"PutRequest": {"Item": {"PK": {"S": f"P{i}"}, "SK": {"S": "x" * 500}}}}
                for i in range(first, first + 25)
            ]
            target.call("BatchWriteItem", RequestItems={"Big": puts})
    script = f"{sys.executable} -m singletable scan {path} Big --jsonl | head -n 1"
    finished = subprocess.run(script, shell=True, capture_output=True, text=True, timeout=60)
    assert finished.returncode == 0 and finished.stdout.startswith('{"PK"')
    assert "Traceback" not in finished.stderr
