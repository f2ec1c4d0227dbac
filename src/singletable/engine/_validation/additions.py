"""Hand-written request shapes that :mod:`generated` lacks: tagging, limits, endpoints and DynamoDB Streams.

Constraints are AWS's published service models (``dynamodb`` and ``dynamodbstreams``), written in the same
encoding as :mod:`generated`. The :mod:`validation` package merges both into one table at import; the
registry names each operation's input shape.
"""

from __future__ import annotations

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
