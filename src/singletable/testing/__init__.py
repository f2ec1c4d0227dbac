"""Test code written for boto3 against an embedded DynamoDB, and control what DynamoDB does to it.

:class:`FaultPlan` injects DynamoDB's faults (throttling, partial batches, cancelled transactions, HTTP
500s, lagging indexes) on every transport; :class:`Clock` moves time for TTL expiry and timestamps. See
docs/testing.md, "Faults and time".
"""

from singletable.testing.clock import Clock
from singletable.testing.faults import Attempt, FaultPlan

__all__ = ["Attempt", "Clock", "FaultPlan"]
