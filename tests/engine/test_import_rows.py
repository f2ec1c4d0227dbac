"""An import's one-pass staged rows (``ImportPlan``) against PutItem's exact path, on generated items.

For every item, valid or hostile: when the one pass answers, the exact path (``prepare_put``, the stored
bytes, the index entries) accepts the item and gives the very same rows; when the exact path refuses an
item, the one pass does not answer (so the refusal is PutItem's, word for word); and an item the one pass
does not answer for is left exactly as it was given.
"""

from __future__ import annotations

import copy
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from draws import examples
from singletable.engine import DynamoDBError, Engine
from singletable.engine._import_rows import ImportPlan
from singletable.engine.shared import ImportCatalog, staged_rows

HASH_LIMIT, RANGE_LIMIT = 2048, 1024


def _description(range_type: str, index_types: tuple[str, str]) -> dict[str, Any]:
    types = {"PK": "S", "SK": range_type, "G1": index_types[0], "G1S": index_types[1], "G2": "S"}
    engine = Engine(":memory:")
    engine.create_table(
        TableName="things",
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": t} for a, t in types.items()],
        BillingMode="PAY_PER_REQUEST",
        GlobalSecondaryIndexes=[
            {
                "IndexName": "all",
                "KeySchema": [
                    {"AttributeName": "G1", "KeyType": "HASH"},
                    {"AttributeName": "G1S", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            },
            {
                "IndexName": "keys",
                "KeySchema": [{"AttributeName": "G2", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            },
            {
                "IndexName": "include",
                "KeySchema": [{"AttributeName": "G1", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["m", "n"]},
            },
        ],
    )
    return engine.table("things").description


CATALOGS = {shape: ImportCatalog(_description(*shape)) for shape in (("S", ("S", "N")), ("N", ("N", "S")))}

# Texts: short ASCII (the usual), any Unicode, empty, and lengths about the key limits.
texts = st.one_of(
    st.text("abcXYZ09#-", max_size=12),
    st.text(max_size=6),
    st.just(""),
    st.sampled_from([HASH_LIMIT, RANGE_LIMIT]).flatmap(
        lambda n: st.integers(n - 1, n + 1).map(lambda k: "k" * k)
    ),
    st.just("é" * 600),
)
# Numbers: canonical, not canonical (trailing zeros, exponents, signs), and not numbers at all.
numbers = st.one_of(
    st.integers(-(10**12), 10**12).map(str),
    st.decimals(allow_nan=False, allow_infinity=False, places=3).map(str),
    st.sampled_from(["1.50", "-0", "0.0", "+5", "1e3", "1E-2", "007", ".5", "5.", "-8.67110", "0.000"]),
    st.sampled_from(["abc", "", "1e500", "1" * 39, "NaN", "1 ", "--1", "Infinity"]),
)
names = st.one_of(st.sampled_from(["PK", "SK", "G1", "G1S", "G2", "m", "n", "a"]), texts)


def _value(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.builds(lambda v: {"M": v}, st.dictionaries(names, children, max_size=4)),
        st.builds(lambda v: {"L": v}, st.lists(children, max_size=4)),
    )


valid_scalars = st.one_of(
    st.builds(lambda v: {"S": v}, texts),
    st.builds(lambda v: {"N": v}, numbers),
    st.builds(lambda v: {"BOOL": v}, st.booleans()),
    st.builds(lambda v: {"NULL": v}, st.booleans()),
    st.builds(lambda v: {"SS": v}, st.lists(texts, max_size=4)),
    st.builds(lambda v: {"NS": v}, st.lists(numbers, max_size=4)),
    st.builds(lambda v: {"B": v}, texts),
)
# Hostile shapes: wrong Python types, two types at once, no type, unknown types, nulls.
hostile = st.sampled_from(
    [
        {"S": 1},
        {"N": 5},
        {"N": 1.5},
        {"BOOL": "true"},
        {"NULL": "x"},
        {"S": "a", "N": "1"},
        {},
        {"X": "1"},
        {"S": None},
        {"M": []},
        {"L": {}},
        {"SS": "a"},
        {"SS": [1]},
        {"SS": [None]},
        {"NS": [1]},
        None,
        "plain",
        ["list"],
    ]
)
# Mostly well-formed values (so that many items are accepted), now and then a hostile one anywhere.
scalars = st.integers(0, 19).flatmap(lambda n: hostile if n == 0 else valid_scalars)
values = st.recursive(scalars, _value, max_leaves=12)
valid_texts = st.text("abcXYZ09#-é", min_size=1, max_size=12)
valid_numbers = st.one_of(st.integers(-(10**9), 10**9).map(str), st.sampled_from(["1.50", "007", "-8.67110"]))
# Key attributes: mostly of their types and within their limits.
key_values = st.one_of(st.builds(lambda v: {"S": v}, texts), st.builds(lambda v: {"N": v}, numbers), values)


KEY_TYPES = {("S", ("S", "N")): "SSSNS", ("N", ("N", "S")): "SNNSS"}  # PK, SK, G1, G1S, G2
valid_keys = {
    "S": st.builds(lambda v: {"S": v}, valid_texts),
    "N": st.builds(lambda v: {"N": v}, valid_numbers),
}


@st.composite
def items(draw: st.DrawFn, shape: Any) -> Any:
    item: dict[Any, Any] = {}
    for name, key_type in zip(("PK", "SK", "G1", "G1S", "G2"), KEY_TYPES[shape], strict=True):
        present = draw(st.integers(0, 19))
        if present > 1:  # mostly of the key's type and within its limits; now and then anything
            item[name] = draw(valid_keys[key_type] if present > 3 else key_values)
    item.update(draw(st.dictionaries(names, values, max_size=5)))
    if draw(st.integers(0, 19)) == 0:
        item[draw(st.sampled_from([1, None, ""]))] = {"S": "x"}
    if draw(st.integers(0, 19)) == 0:
        item["deep"] = _nested(draw(st.integers(29, 33)))
    if draw(st.integers(0, 29)) == 0:
        return draw(st.sampled_from([None, [], "item", 3]))
    return item


def _nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {"S": "x"}
    for level in range(levels):
        value = {"M": {"m": value}} if level % 2 else {"L": [value]}
    return value


def _exact(catalog: ImportCatalog, seq: int, item: Any) -> Any:
    """What PutItem's own path gives: the rows, or its refusal (code and message)."""
    plan, catalog.plan = catalog.plan, ImportPlan(catalog.schema)
    catalog.plan.usable = False
    try:
        return staged_rows(catalog, seq, item)
    except DynamoDBError as error:
        return (error.code, error.message)
    except Exception as error:  # a value no request could carry (a JSON parser never gives one)
        return type(error).__name__
    finally:
        catalog.plan = plan


def _check(catalog: ImportCatalog, item: Any) -> Any:
    given_item = copy.deepcopy(item)
    fast = catalog.plan.rows(7, item)
    exact = _exact(catalog, 7, copy.deepcopy(given_item))
    if fast is None:
        assert item == given_item  # left as it was: the exact path sees what the source said
        return exact
    assert fast == exact  # the same rows, byte for byte; and the exact path accepted the item
    return fast


@settings(max_examples=examples(1500), deadline=None)
@given(st.data())
def test_the_one_pass_gives_the_exact_rows_or_leaves_the_item_to_the_exact_path(data: st.DataObject) -> None:
    shape = data.draw(st.sampled_from(sorted(CATALOGS)))
    _check(CATALOGS[shape], data.draw(items(shape)))


@settings(max_examples=examples(300), deadline=None)
@given(st.data())
def test_parsed_json_items_take_the_one_pass_exactly_as_the_exact_path(data: st.DataObject) -> None:
    """The same through JSON text, as an import parses it (orjson: lists, not tuples; str keys only)."""
    shape = data.draw(st.sampled_from(sorted(CATALOGS)))
    item = data.draw(items(shape))
    try:
        parsed = orjson.loads(orjson.dumps(item))
    except TypeError:  # not JSON (a non-string key)
        return
    _check(CATALOGS[shape], parsed)


@pytest.mark.parametrize(
    ("item", "answers"),
    [
        ({"PK": {"S": "a"}, "SK": {"S": "b"}, "G1": {"S": "g"}, "G1S": {"N": "1.50"}}, True),
        ({"PK": {"S": "a"}, "SK": {"S": "b"}, "n": {"NS": ["2", "10"]}, "s": {"SS": ["a", "b"]}}, True),
        ({"PK": {"S": "a"}, "SK": {"S": "b"}, "s": {"SS": ["b", "a"]}}, False),  # stored re-ordered
        ({"PK": {"S": "a"}, "SK": {"S": "b"}, "b": {"B": "AA=="}}, False),  # binary: the exact path
        ({"PK": {"S": "a"}, "SK": {"S": "b"}, "G1": {"N": "1"}}, False),  # refused: index key type
        ({"PK": {"S": "a"}}, False),  # refused: no range key
    ],
)
def test_which_items_the_one_pass_answers_for(item: dict[str, Any], answers: bool) -> None:
    catalog = CATALOGS[("S", ("S", "N"))]
    assert (catalog.plan.rows(0, copy.deepcopy(item)) is not None) is answers
    rows = _check(catalog, item)
    if answers:
        assert rows[0][5] == orjson.dumps(item).replace(b'"1.50"', b'"1.5"')
