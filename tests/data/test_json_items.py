"""The one module of item conversions (data/_json_items.py), as every data command uses it: DynamoDB JSON and
plain JSON both ways, the exact-number dumper, import's wording of a line or cell that is not an item, and
the depth bounds: DynamoDB's 32 levels where JSON becomes AttributeValues, and read_json's bound on the raw
text (what the console reads from forms), both in one wording and never a RecursionError."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from draws import examples
from singletable.data import import_table, item_from_json, item_to_json, open_target, read_json, render_item
from singletable.data._json_items import MAX_JSON_DEPTH, NotJSON, dumps, loads, value_text
from value_draws import attribute_values

SPEC = {
    "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
    "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
    "BillingModeSummary": {"BillingMode": "PAY_PER_REQUEST"},
}

names = st.text(min_size=1, max_size=5)
numbers = st.decimals(allow_nan=False, allow_infinity=False, places=3).map(lambda d: str(d.normalize()))
values = attribute_values(numbers)
items = st.dictionaries(names, values, max_size=4)
plain_json = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5), st.floats(allow_nan=False)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)


@given(items)
def test_any_item_survives_dynamodb_json_text(item):
    assert item_from_json(json.loads(render_item(item))) == item
    assert item_from_json(json.loads(render_item(item, spaced=True))) == item
    assert item_from_json(item_to_json(item)) == item


@given(plain_json, st.booleans())
def test_dumps_writes_what_json_writes_when_no_decimal_is_inside(value, spaced):
    separators = (", ", ": ") if spaced else (",", ":")
    assert dumps(value, spaced=spaced) == json.dumps(value, ensure_ascii=False, separators=separators)


@given(st.decimals(allow_nan=False, allow_infinity=False), st.text(max_size=5), st.booleans())
def test_dumps_writes_a_decimal_digit_for_digit_anywhere(number, text, spaced):
    value = {text: [number, {"n": number, "t": text}], f"{text}+": None}  # two keys, never the same
    assert loads(dumps(value, spaced=spaced)) == value
    assert str(number) in dumps(value, spaced=spaced)


def test_text_is_never_escaped_and_keys_are_written_like_values():
    assert dumps({"é": "é"}) == '{"é":"é"}'
    assert dumps({"é": Decimal("1.5")}, spaced=True) == '{"é": 1.5}'


def test_a_table_or_plain_csv_cell_is_text_as_is_and_the_rest_plain_json():
    assert value_text({"S": 'a "b"'}) == 'a "b"'
    assert value_text({"B": b"hi"}) == "aGk="
    assert value_text({"M": {"n": {"N": "1.50"}, "l": {"L": [{"S": "x"}]}}}) == '{"n":1.50,"l":["x"]}'
    assert value_text({"NS": ["10", "9.5"]}, spaced=True) == "[9.5, 10]"


def import_rejecting(tmp_path, fmt, text, spec=SPEC):
    """Import ``text`` as a ``fmt`` file into a new table (described by ``spec``) of a new database, rejecting
    what is not an item: how many items were stored, and the reject file's records."""
    source = tmp_path / f"in.{fmt}"
    source.write_text(text)
    rejects = tmp_path / "rejects.jsonl"
    summary = import_table(
        str(tmp_path / "a.db"),
        "Items",
        source,
        format=fmt,
        schema={"Table": spec},
        on_error="reject",
        reject_file=rejects,
    )
    records = [json.loads(line) for line in rejects.read_text().splitlines()]
    assert summary.rejected == len(records)
    return summary.items, records


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ('{"PK": {"S": 1}}', "PK: 'S' holding a number is not a DynamoDB JSON value"),
        ('{"PK": {"S": "a"}, "n": {"N": 5}}', "n: 'N' holding a number is not a DynamoDB JSON value"),
        (
            '{"PK": "a"}',
            'PK: not DynamoDB JSON (a value is one type and its content, like {"S": "x"}); '
            "for plain JSON use --plain",
        ),
        (
            '{"PK": {"S": "a"}, "m": {"M": {"b": {"B": "!!"}}}}',
            "m.b: binary values are base64 text, not '!!'",
        ),
        ('"a"', "not an item: a JSON str, not an object"),
    ],
)
def test_an_import_line_that_is_not_an_item_is_refused_with_its_path(tmp_path, line, error):
    items, [rejected] = import_rejecting(tmp_path, "jsonl", '{"PK": {"S": "ok"}}\n' + line + "\n")
    assert (items, rejected["error"]) == (1, error)


def test_a_csv_cell_that_is_not_dynamodb_json_names_its_column(tmp_path):
    text = 'PK,n,m\n"{""S"": ""a""}",x,\n"{""S"": ""b""}",,"{""X"": 1}"\n"{""S"": ""c""}",,\n'
    items, rejected = import_rejecting(tmp_path, "csv", text)
    assert (items, [record["error"] for record in rejected]) == (
        1,
        [
            "cell 'x' is not DynamoDB JSON; for plain values use --plain",
            "m: 'X' holding a number is not a DynamoDB JSON value",
        ],
    )
    with open_target(str(tmp_path / "a.db")) as target:
        assert target.call("GetItem", TableName="Items", Key={"PK": {"S": "c"}})["Item"] == {"PK": {"S": "c"}}


def test_a_refused_items_number_key_is_named_with_its_digits(tmp_path):
    spec = {
        "KeySchema": [{"AttributeName": "K", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "K", "AttributeType": "N"}],
        "BillingModeSummary": {"BillingMode": "PAY_PER_REQUEST"},
    }
    text = '{"K": {"N": "1.50"}, "big": {"S": "' + "x" * 400 * 1024 + '"}}\n'
    _, [rejected] = import_rejecting(tmp_path, "jsonl", text, spec)
    assert rejected["key"] == "(key K=1.50)"  # digits as given, unquoted


@given(depth=st.integers(0, 20_000), kinds=st.lists(st.sampled_from("LM"), min_size=1, max_size=3))
def test_nesting_is_refused_past_dynamodbs_32_levels_never_with_a_recursion_error(depth, kinds):
    from singletable.data import from_plain, parse_item

    dynamo: object = {"S": "leaf"}
    plain: object = "leaf"
    for level in range(min(depth, 200)):  # built values: past 200 the answer cannot change
        kind = kinds[level % len(kinds)]
        dynamo = {"L": [dynamo]} if kind == "L" else {"M": {"k": dynamo}}
        plain = [plain] if kind == "L" else {"k": plain}
    too_deep = "nested deeper than DynamoDB's 32 levels of lists and maps"
    for convert in (lambda: item_from_json({"a": dynamo}), lambda: from_plain({"a": plain})):
        if depth <= 32:
            convert()
        else:
            with pytest.raises(ValueError, match=too_deep):
                convert()
    text = '{"a": ' + "[" * depth + "1" + "]" * depth + "}"  # as text, as deep as drawn
    for plain_text in (True, False):
        try:
            parse_item(text, plain=plain_text)
        except ValueError as error:
            assert too_deep in str(error) or "not DynamoDB JSON" in str(error)
            assert depth > 32 or not plain_text
        else:
            assert depth <= 32 and plain_text


levels = st.sampled_from([("[", "]"), ('{"a":', "}"), ('{"M":{"a":', "}}")])


@settings(max_examples=examples(60))
@given(depth=st.integers(1, 200_000), level=levels)
def test_read_json_refuses_text_past_its_depth_bound_and_never_by_a_recursion_error(depth, level):
    opening, closing = level
    nested = opening * depth + "1" + closing * depth
    deepest = depth * (2 if opening.count("{") == 2 else 1)
    if deepest <= MAX_JSON_DEPTH:
        assert read_json(nested) is not None
    else:
        with pytest.raises(
            NotJSON, match=r"^JSON nested deeper than DynamoDB's 32 levels of lists and maps$"
        ):
            read_json(nested)


def test_read_json_bounds_the_deepest_text_an_item_can_be():
    """An item holding 32 levels of maps as DynamoDB JSON is read; one level more is not."""
    value: object = {"S": "leaf"}
    for _ in range(32):
        value = {"M": {"k": value}}
    assert item_from_json(read_json(json.dumps({"a": value})))["a"] == value
    assert MAX_JSON_DEPTH == 2 * 32 + 2
    with pytest.raises(NotJSON) as refused:
        read_json(json.dumps({"a": {"M": {"k": value}}}))
    assert refused.value.too_deep


def test_read_json_says_where_text_breaks_and_reads_numbers_exactly():
    with pytest.raises(ValueError, match=r"^not JSON: Expecting value: line 1 column 1 \(char 0\)$"):
        read_json("")
    assert read_json('{"n": 1.50}') == {"n": Decimal("1.50")}
