"""singletable: DynamoDB single-table design with an embedded, DynamoDB-compatible engine."""

from __future__ import annotations

__version__ = "0.1.0"

# Imported eagerly on purpose: the module ``singletable.client`` and the function ``singletable.client``
# share a name, and binding the function after the submodule loads keeps ``singletable.client(...)``
# callable however the submodule is imported later. boto3 itself still loads lazily, on first use.
from singletable.client import client, resource, streams_client

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
    }
)

__all__ = [
    "GSI",
    "LSI",
    "Collection",
    "Derived",
    "Entity",
    "Key",
    "Keys",
    "Pattern",
    "Table",
    "__version__",
    "client",
    "connect",
    "env",
    "resource",
    "streams_client",
]


def __getattr__(name: str) -> object:
    if name in _MODEL_NAMES:
        from singletable import model

        return getattr(model, name)
    raise AttributeError(f"module 'singletable' has no attribute {name!r}")
