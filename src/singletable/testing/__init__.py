"""Test code written for boto3 against an embedded DynamoDB -- no network, no credentials, no Java -- and
control over what DynamoDB does to it.

``mock_dynamodb()`` answers every botocore ``dynamodb`` / ``dynamodbstreams`` request in the process --
boto3 clients and resources made before or after it starts, in any thread, aiobotocore / aioboto3,
PynamoDB -- from an in-process :class:`~singletable.engine.Engine`::

    from singletable.testing import mock_dynamodb

    @mock_dynamodb()
    def test_orders():
        ddb = boto3.client("dynamodb")
        ...

``mock_aws`` is the same thing spelled as moto spells it (``from moto import mock_aws`` becomes ``from
singletable.testing import mock_aws``); it mocks DynamoDB and DynamoDB Streams only. :class:`FaultPlan`
injects DynamoDB's faults (throttling, partial batches, cancelled transactions, HTTP 500s, lagging
indexes) on every transport; :class:`Clock` moves time for TTL expiry and timestamps. The pytest plugin
(the ``singletable_pytest`` package, which pytest loads through its ``pytest11`` entry point) gives
fixtures on top: ``dynamodb``, ``dynamodb_client``, ``dynamodb_resource``, ``dynamodb_engine``,
``singletable_db``, ``dynamodb_server``. See docs/testing.md.
"""

from singletable.testing._calls import Call
from singletable.testing._mock import MockDynamoDB, MockRequest, mock_aws, mock_dynamodb
from singletable.testing.clock import Clock
from singletable.testing.faults import Attempt, FaultPlan

__all__ = [
    "Attempt",
    "Call",
    "Clock",
    "FaultPlan",
    "MockDynamoDB",
    "MockRequest",
    "mock_aws",
    "mock_dynamodb",
]
