"""Hand-written request shapes that :mod:`generated` lacks (tagging, limits, endpoints and DynamoDB Streams),
and the listed overrides of generated shapes where DynamoDB's answers differ from its published model.

Constraints are AWS's published service models (``dynamodb`` and ``dynamodbstreams``), written as the
same records as :mod:`generated` (:mod:`shapes`). The :mod:`validation` package merges :data:`SHAPES` (new
names only) and :data:`OVERRIDES` (generated names only, each replaced whole) into one table at import; the
registry names each operation's input shape.
"""

from __future__ import annotations

from singletable.engine._validation import generated
from singletable.engine._validation.shapes import ListShape, Shapes, StringShape, StructureShape
from singletable.engine._validation.walker import REQUIRED, UNECHOED

SHAPES: Shapes = {
    "ResourceArnString": StringShape(low=1, high=1283),
    "NextTokenString": StringShape(),
    "TagKeyList": ListShape(member="TagKeyString"),
    "TagResourceInput": StructureShape(
        members={"ResourceArn": "ResourceArnString", "Tags": "TagList"},
        required=("ResourceArn", "Tags"),
    ),
    "UntagResourceInput": StructureShape(
        members={"ResourceArn": "ResourceArnString", "TagKeys": "TagKeyList"},
        required=("ResourceArn", "TagKeys"),
    ),
    "ListTagsOfResourceInput": StructureShape(
        members={"ResourceArn": "ResourceArnString", "NextToken": "NextTokenString"},
        required=("ResourceArn",),
    ),
    "DescribeLimitsInput": StructureShape(members={}),
    "DescribeEndpointsRequest": StructureShape(members={}),
    "StreamArn": StringShape(low=37, high=1024),
    "ShardId": StringShape(low=28, high=65),
    "SequenceNumber": StringShape(low=21, high=40),
    "ShardIterator": StringShape(low=1, high=2048),
    "ShardIteratorType": StringShape(
        enum=("TRIM_HORIZON", "LATEST", "AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"),
    ),
    "ListStreamsInput": StructureShape(
        members={
            "TableName": "TableName",
            "Limit": "PositiveIntegerObject",
            "ExclusiveStartStreamArn": "StreamArn",
        },
    ),
    "DescribeStreamInput": StructureShape(
        members={
            "StreamArn": "StreamArn",
            "Limit": "PositiveIntegerObject",
            "ExclusiveStartShardId": "ShardId",
        },
        required=("StreamArn",),
    ),
    "GetShardIteratorInput": StructureShape(
        members={
            "StreamArn": "StreamArn",
            "ShardId": "ShardId",
            "ShardIteratorType": "ShardIteratorType",
            "SequenceNumber": "SequenceNumber",
        },
        required=("StreamArn", "ShardId", "ShardIteratorType"),
    ),
    "GetRecordsInput": StructureShape(
        members={"ShardIterator": "ShardIterator", "Limit": "PositiveIntegerObject"},
        required=("ShardIterator",),
    ),
}


def _with_rules(name: str, rules: dict[str, object]) -> StructureShape:
    """A generated structure with member rules for the walker."""
    shape = generated.SHAPES[name]
    assert type(shape) is StructureShape
    return shape._replace(rules=rules)


# AWS's tag character set (letters, digits, white space, ``_ . : / = + - @``), as other AWS services show
# it; the Java classes \p{L}, \p{Z}, \p{N} written for Python's re.
_TAG_CHARACTERS = (
    r"[\p{L}\p{Z}\p{N}_.:/=+\-@]*",
    r"(?:[^\W_]|[ \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000_.:/=+\-@])*",
)

# Each differs from the service model for a measured reason, named beside it.
OVERRIDES: Shapes = {
    # DynamoDB lists these enum sets in its own order, not the model's.
    "Select": StringShape(
        enum=("SPECIFIC_ATTRIBUTES", "COUNT", "ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES"),
    ),
    "ScalarAttributeType": StringShape(enum=("B", "N", "S")),
    # DynamoDB refuses tag characters outside the documented set; the model states no pattern.
    "TagKeyString": StringShape(low=1, high=128, pattern=_TAG_CHARACTERS),
    "TagValueString": StringShape(low=0, high=256, pattern=_TAG_CHARACTERS),
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
