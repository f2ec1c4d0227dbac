"""DynamoDB's API on SQLite: ``Engine(path)`` answers like a boto3 DynamoDB client."""

from singletable.engine._engine import Engine
from singletable.engine._errors import DynamoDBError

__all__ = ["DynamoDBError", "Engine"]
