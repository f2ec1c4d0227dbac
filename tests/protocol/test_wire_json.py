"""The wire codec: base64 blobs decoded wherever the JSON spells them, whatever the spacing or escapes.

``decode_request`` skips walking a body that cannot hold a B or BS value; these tests hold it to the walk's
answer for bodies that do, written the ways a client may write JSON.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from draws import examples
from singletable._protocol import wire_json as wire

names = st.text(alphabet="abcBS#", min_size=1, max_size=4)
strings = st.text(max_size=6)  # non-ASCII too: json.dumps escapes it as \u....
blobs = st.binary(max_size=8)


def _attribute_values() -> st.SearchStrategy[tuple[dict[str, Any], dict[str, Any]]]:
    """(wire form, decoded form) pairs of AttributeValues, blobs nested anywhere."""
    leaves = st.one_of(
        strings.map(lambda s: ({"S": s}, {"S": s})),
        st.booleans().map(lambda b: ({"BOOL": b}, {"BOOL": b})),
        blobs.map(lambda b: ({"B": base64.b64encode(b).decode()}, {"B": b})),
        st.lists(blobs, min_size=1, max_size=3, unique=True).map(
            lambda bs: ({"BS": [base64.b64encode(b).decode() for b in bs]}, {"BS": bs})
        ),
    )

    def extend(children: st.SearchStrategy) -> st.SearchStrategy:
        maps = st.dictionaries(names, children, max_size=3).map(
            lambda d: ({"M": {k: v[0] for k, v in d.items()}}, {"M": {k: v[1] for k, v in d.items()}})
        )
        lists = st.lists(children, max_size=3).map(
            lambda xs: ({"L": [x[0] for x in xs]}, {"L": [x[1] for x in xs]})
        )
        return maps | lists

    return st.recursive(leaves, extend, max_leaves=8)


items = st.dictionaries(names, _attribute_values(), min_size=1, max_size=4)
writers = st.sampled_from(
    [
        lambda doc: json.dumps(doc, separators=(",", ":")).encode(),
        lambda doc: json.dumps(doc, separators=(" , ", " : ")).encode(),
        lambda doc: json.dumps(doc, ensure_ascii=False).encode(),
        # Every key and string escaped character by character, as no sane client but a legal one might.
        lambda doc: json.dumps(doc).replace('"B"', '"\\u0042"').replace('"BS"', '"\\u0042S"').encode(),
    ]
)


@settings(max_examples=examples(300), deadline=None)
@given(items, writers)
def test_put_item_blobs_decode_however_the_json_is_written(item: dict, write: Any):
    wire_item = {name: pair[0] for name, pair in item.items()}
    expected = {name: pair[1] for name, pair in item.items()}
    body = write({"TableName": "t", "Item": wire_item})
    assert wire.decode_request("PutItem", body) == {"TableName": "t", "Item": expected}


@settings(max_examples=examples(100), deadline=None)
@given(items, writers)
def test_query_values_and_start_key_decode(item: dict, write: Any):
    values = {f":{name}": pair for name, pair in item.items()}
    body = write(
        {
            "TableName": "t",
            "ExpressionAttributeValues": {k: v[0] for k, v in values.items()},
            "ExclusiveStartKey": {k: v[0] for k, v in item.items()},
        }
    )
    assert wire.decode_request("Query", body) == {
        "TableName": "t",
        "ExpressionAttributeValues": {k: v[1] for k, v in values.items()},
        "ExclusiveStartKey": {k: v[1] for k, v in item.items()},
    }


def test_a_body_without_blobs_is_left_as_parsed():
    body = b'{"TableName":"t","Item":{"BOOL_flag":{"BOOL":true},"name":{"S":"Bob \\"B\\": 1"}}}'
    assert wire.decode_request("PutItem", body) == json.loads(body)


def test_timestamps_still_decode_where_an_operation_has_them():
    body = b'{"ExportArn":"x"}'
    assert wire.decode_request("DescribeExport", body) == {"ExportArn": "x"}
    params = wire.decode_request("ListBackups", b'{"TimeRangeLowerBound": 1700000000}')
    assert params["TimeRangeLowerBound"].timestamp() == 1700000000


def test_request_ids_are_52_upper_case_alphanumerics_and_distinct():
    import re

    from singletable._protocol import request_id

    ids = [request_id() for _ in range(2000)]
    assert all(re.fullmatch("[0-9A-Z]{52}", rid) for rid in ids)
    assert len(set(ids)) == len(ids)


def test_the_service_model_is_botocores_own():
    """Read by path with orjson, it is the very model botocore's loader gives (its latest version, extras
    merged): where blobs and timestamps live is decided by botocore's model, never by a copy of it."""
    from botocore.loaders import Loader

    from singletable._protocol.wire_json import service_model

    assert service_model() == Loader().load_service_model("dynamodb", "service-2")
