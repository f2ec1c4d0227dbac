"""Request shapes the generated :mod:`shape_data` lacks: tagging, limits, endpoints and DynamoDB Streams.

Constraints are AWS's published service models (``dynamodb`` and ``dynamodbstreams``); importing this module
registers them with :func:`shapes.check_shape`, so these operations validate exactly like the others.
"""

from __future__ import annotations

from singletable.engine.operations.shape_data import OPERATION_INPUTS, SHAPES

_SHAPES: dict[str, tuple] = {
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
_INPUTS = {
    "TagResource": "TagResourceInput",
    "UntagResource": "UntagResourceInput",
    "ListTagsOfResource": "ListTagsOfResourceInput",
    "DescribeLimits": "DescribeLimitsInput",
    "DescribeEndpoints": "DescribeEndpointsRequest",
    "ListStreams": "ListStreamsInput",
    "DescribeStream": "DescribeStreamInput",
    "GetShardIterator": "GetShardIteratorInput",
    "GetRecords": "GetRecordsInput",
}
for _name, _shape in _SHAPES.items():
    SHAPES.setdefault(_name, _shape)
for _operation, _input in _INPUTS.items():
    OPERATION_INPUTS.setdefault(_operation, _input)
