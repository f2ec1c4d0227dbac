"""DynamoDB's API on SQLite: ``Engine(path)`` answers like a boto3 DynamoDB client."""

from singletable.engine._errors import DynamoDBError

__all__ = ["DynamoDBError", "Engine"]


def __getattr__(name: str):
    # Engine is imported lazily so codec/expression modules can be used (and tested) on their own.
    if name == "Engine":
        from singletable.engine._engine import Engine

        return Engine
    raise AttributeError(name)
