"""singletable: DynamoDB single-table design with an embedded, DynamoDB-compatible engine."""

from __future__ import annotations

__version__ = "0.1.0"

# Imported eagerly on purpose: the module ``singletable.client`` and the function ``singletable.client``
# share a name, and binding the function after the submodule loads keeps ``singletable.client(...)``
# callable however the submodule is imported later. boto3 itself still loads lazily, on first use.
from singletable.client import client, resource

__all__ = ["__version__", "client", "resource"]
