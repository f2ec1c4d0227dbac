"""singletable: DynamoDB single-table design with an embedded, DynamoDB-compatible engine.

The public face, and all of it: what the README documents. The work lives in the packages and in private
modules (``_client``, ``_cli``, ``_protocol``, ``_server``), which may change without notice.
"""

__version__ = "0.1.0"

from singletable._client import client, resource, streams_client
from singletable.engine import DynamoDBError, Engine

# The modeling layer needs pydantic (the ``model`` extra), so its names load on first use, not on import.
_MODEL_NAMES = frozenset(
    {
        "connect",
        "Table",
        "GSI",
        "LSI",
        "env",
        "Entity",
        "Keys",
        "Key",
        "Pattern",
        "Collection",
        "Derived",
        "Sequence",
        "connect_async",
    }
)

__all__ = [
    "GSI",
    "LSI",
    "Collection",
    "Derived",
    "DynamoDBError",
    "Engine",
    "Entity",
    "Key",
    "Keys",
    "Pattern",
    "Sequence",
    "Table",
    "__version__",
    "client",
    "connect",
    "connect_async",
    "env",
    "resource",
    "streams_client",
]


def __getattr__(name: str) -> object:
    if name in _MODEL_NAMES:
        from singletable import model

        return getattr(model, name)
    raise AttributeError(f"module 'singletable' has no attribute {name!r}")
