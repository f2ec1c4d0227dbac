"""singletable.data's two foundations: a TARGET (file or URL) and plain JSON <-> DynamoDB JSON."""

from __future__ import annotations

from decimal import Decimal

import pytest
from botocore.config import Config
from hypothesis import given
from hypothesis import strategies as st

from singletable.data import TargetError, from_plain, open_target, to_plain

plain_scalars = st.one_of(
    st.text(),
    st.booleans(),
    st.none(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.decimals(allow_nan=False, allow_infinity=False, places=6, min_value=-(10**20), max_value=10**20),
)
plain_values = st.recursive(
    plain_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=12,
)


def _same_number(value):
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else value.normalize()
    if isinstance(value, list):
        return [_same_number(v) for v in value]
    if isinstance(value, dict):
        return {k: _same_number(v) for k, v in value.items()}
    return value


@given(st.dictionaries(st.text(min_size=1, max_size=8), plain_values, max_size=6))
def test_plain_round_trip(item):
    assert _same_number(to_plain(from_plain(item))) == _same_number(item)


def test_to_plain_says_every_type():
    item = {
        "s": {"S": "x"},
        "n": {"N": "10"},
        "d": {"N": "1.50"},
        "b": {"B": b"hi"},
        "t": {"BOOL": True},
        "z": {"NULL": True},
        "l": {"L": [{"S": "a"}]},
        "m": {"M": {"k": {"N": "2"}}},
        "ss": {"SS": ["z", "a"]},
        "ns": {"NS": ["10", "9.5"]},
        "bs": {"BS": [b"b", b"a"]},
    }
    assert to_plain(item) == {
        "s": "x",
        "n": 10,
        "d": Decimal("1.50"),
        "b": "aGk=",
        "t": True,
        "z": None,
        "l": ["a"],
        "m": {"k": 2},
        "ss": ["a", "z"],
        "ns": [Decimal("9.5"), 10],
        "bs": ["YQ==", "Yg=="],
    }


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([1], "an item must be a JSON object, not list"),
        ({"a": object()}, "no DynamoDB type for a plain value of type object"),
    ],
)
def test_from_plain_refuses_what_it_cannot_type(value, message):
    with pytest.raises(ValueError, match=message):
        from_plain(value)


def test_file_target_runs_the_engine_and_reports_dynamodb_errors(tmp_path):
    with open_target(str(tmp_path / "app.db")) as target:
        assert target.engine is not None
        assert target.call("ListTables") == {"TableNames": []}
        with pytest.raises(TargetError) as caught:
            target.call("DescribeTable", TableName="missing")
    assert caught.value.code == "ResourceNotFoundException"
    assert caught.value.message == "Requested resource not found: Table: missing not found"


def test_url_target_speaks_http(http_server):
    with open_target(http_server.endpoint) as target:
        assert target.engine is None
        assert "TableNames" in target.call("ListTables")
        with pytest.raises(TargetError) as caught:
            target.call("DescribeTable", TableName="missing")
    assert caught.value.code == "ResourceNotFoundException"


def test_unreachable_url_is_a_target_error():
    no_retries = Config(retries={"total_max_attempts": 1})  # botocore's default retries take ~25 s here
    with open_target("http://127.0.0.1:9", config=no_retries) as target, pytest.raises(TargetError) as caught:
        target.call("ListTables")
    assert caught.value.code == "EndpointConnectionError"
