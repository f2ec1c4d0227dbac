"""Hand-written request shapes that :mod:`generated` lacks (tagging, limits, endpoints and DynamoDB Streams),
and the listed overrides of generated shapes where DynamoDB's answers differ from its published model.

Constraints are AWS's published service models (``dynamodb`` and ``dynamodbstreams``), written in the same
encoding as :mod:`generated`. The :mod:`validation` package merges :data:`SHAPES` (new names only) and
:data:`OVERRIDES` (generated names only, each replaced whole) into one table at import; the registry names
each operation's input shape.
"""

from __future__ import annotations

from singletable.engine._validation import generated
from singletable.engine._validation.walker import REQUIRED, UNECHOED

SHAPES: dict[str, tuple] = {
    "ResourceArnString": ("s", 1, 1283, None, None),
    "NextTokenString": ("s", None, None, None, None),
    "TagKeyList": ("l", "TagKeyString", None, None),
    "TagResourceInput": (
        "S",
        {"ResourceArn": "ResourceArnString", "Tags": "TagList"},
        ("ResourceArn", "Tags"),
    ),
    "UntagResourceInput": (
        "S",
        {"ResourceArn": "ResourceArnString", "TagKeys": "TagKeyList"},
        ("ResourceArn", "TagKeys"),
    ),
    "ListTagsOfResourceInput": (
        "S",
        {"ResourceArn": "ResourceArnString", "NextToken": "NextTokenString"},
        ("ResourceArn",),
    ),
    "DescribeLimitsInput": ("S", {}, ()),
    "DescribeEndpointsRequest": ("S", {}, ()),
    "StreamArn": ("s", 37, 1024, None, None),
    "ShardId": ("s", 28, 65, None, None),
    "SequenceNumber": ("s", 21, 40, None, None),
    "ShardIterator": ("s", 1, 2048, None, None),
    "ShardIteratorType": (
        "s",
        None,
        None,
        None,
        ("TRIM_HORIZON", "LATEST", "AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"),
    ),
    "ListStreamsInput": (
        "S",
        {"TableName": "TableName", "Limit": "PositiveIntegerObject", "ExclusiveStartStreamArn": "StreamArn"},
        (),
    ),
    "DescribeStreamInput": (
        "S",
        {"StreamArn": "StreamArn", "Limit": "PositiveIntegerObject", "ExclusiveStartShardId": "ShardId"},
        ("StreamArn",),
    ),
    "GetShardIteratorInput": (
        "S",
        {
            "StreamArn": "StreamArn",
            "ShardId": "ShardId",
            "ShardIteratorType": "ShardIteratorType",
            "SequenceNumber": "SequenceNumber",
        },
        ("StreamArn", "ShardId", "ShardIteratorType"),
    ),
    "GetRecordsInput": (
        "S",
        {"ShardIterator": "ShardIterator", "Limit": "PositiveIntegerObject"},
        ("ShardIterator",),
    ),
}


def _with_rules(name: str, rules: dict[str, object]) -> tuple:
    """A generated structure with member rules (its fourth entry) for the walker."""
    kind, members, required = generated.SHAPES[name]
    return (kind, members, required, rules)


# AWS's tag character set (letters, digits, white space, ``_ . : / = + - @``), as other AWS services show
# it; the Java classes \p{L}, \p{Z}, \p{N} written for Python's re.
_TAG_CHARACTERS = (
    r"[\p{L}\p{Z}\p{N}_.:/=+\-@]*",
    r"(?:[^\W_]|[ \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000_.:/=+\-@])*",
)

# Each differs from the service model for a measured reason, named beside it.
OVERRIDES: dict[str, tuple] = {
    # DynamoDB lists these enum sets in its own order, not the model's.
    "Select": (
        "s",
        None,
        None,
        None,
        ("SPECIFIC_ATTRIBUTES", "COUNT", "ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES"),
    ),
    "ScalarAttributeType": ("s", None, None, None, ("B", "N", "S")),
    # DynamoDB refuses tag characters outside the documented set; the model states no pattern.
    "TagKeyString": ("s", 1, 128, _TAG_CHARACTERS, None),
    "TagValueString": ("s", 0, 256, _TAG_CHARACTERS, None),
    # "Value at 'Limit' failed to satisfy constraint: ..." (Scan keeps "Value '0' at 'limit'").
    "QueryInput": _with_rules("QueryInput", {"Limit": UNECHOED}),
    # "Value at 'RequestItems.<table>.member.Keys' failed to satisfy constraint: ..."
    "KeysAndAttributes": _with_rules("KeysAndAttributes", {"Keys": UNECHOED}),
    "CreateTableInput": _with_rules(
        "CreateTableInput",
        {"TableName": (REQUIRED, "The parameter 'TableName' is required but was not present in the request")},
    ),
    "BatchGetItemInput": _with_rules(
        "BatchGetItemInput",
        {"RequestItems": (REQUIRED, "The requestItems parameter is required for BatchGetItem")},
    ),
    "BatchWriteItemInput": _with_rules(
        "BatchWriteItemInput",
        {"RequestItems": (REQUIRED, "The requestItems parameter is required for BatchWriteItem")},
    ),
}
