"""singletable.model: single-table designs declared in Python, run on any DynamoDB.

Declare a :class:`Table`, entities (pydantic models with key templates), access patterns and collections;
``connect(table, target)`` runs them on the embedded engine or any boto3 DynamoDB client, and
``await connect_async(table, target)`` does the same for asyncio code (``AsyncDB``).

Everything exported here is documented in docs/modeling-reference.md (its "Public names" table lists each
one); the modules with a leading underscore are the implementation and may change without notice.
``cursor`` is the one public submodule: signed pagination cursors for pages an application assembles itself.
"""

from importlib import import_module as _import_module
from typing import TYPE_CHECKING as _TYPE_CHECKING

from singletable import _extras

if _extras.missing(("pydantic",)):
    raise _extras.MissingExtra("model", "singletable.model")

from singletable.model import cursor
from singletable.model._adapter import Adapter, adapt
from singletable.model._db import DB, Page, connect
from singletable.model._derived import Derived
from singletable.model._entity import Entity
from singletable.model._entity_meta import EntityMeta, KeyRef
from singletable.model._errors import (
    AlreadyExists,
    Cancellation,
    ConditionFailed,
    DBClosed,
    DeclarationError,
    FieldNotLoaded,
    FieldTypeError,
    FieldValueError,
    InvalidCursor,
    KeyTemplateError,
    MissingFields,
    MissingKeyFields,
    ModelError,
    NotFound,
    OutOfBounds,
    PartialEntity,
    RequestError,
    RequestRefused,
    StoredItemError,
    TransactionFailed,
    UniqueViolation,
    UnknownArgument,
    UpgradeError,
    VersionConflict,
)
from singletable.model._expr import Action, Cond, Path
from singletable.model._page_sizing import CostlyPage
from singletable.model._patterns import Collection, Grouped, Pattern, Query
from singletable.model._sequence import Sequence, SequenceContended
from singletable.model._similar import Scored, Similar
from singletable.model._table import GSI, LSI, Index, Table, env
from singletable.model._templates import Key, Keys
from singletable.model._trace import Trace, TracedRequest
from singletable.model._upgrades import upgrade, upgraded_item
from singletable.model._vector_index import VectorIndex
from singletable.model._vectors import Vector
from singletable.model._write_keys import guard_key

__all__ = [
    "DB",
    "GSI",
    "LSI",
    "Action",
    "Adapter",
    "AlreadyExists",
    "AsyncAdapter",
    "AsyncDB",
    "Cancellation",
    "Collection",
    "Cond",
    "ConditionFailed",
    "CostlyPage",
    "DBClosed",
    "DeclarationError",
    "Derived",
    "Entity",
    "EntityMeta",
    "FieldNotLoaded",
    "FieldTypeError",
    "FieldValueError",
    "Grouped",
    "Index",
    "InvalidCursor",
    "Key",
    "KeyRef",
    "KeyTemplateError",
    "Keys",
    "MissingFields",
    "MissingKeyFields",
    "ModelError",
    "NotFound",
    "OutOfBounds",
    "Page",
    "PartialEntity",
    "Path",
    "Pattern",
    "Query",
    "RequestError",
    "RequestRefused",
    "Scored",
    "Sequence",
    "SequenceContended",
    "Similar",
    "StoredItemError",
    "Table",
    "Trace",
    "TracedRequest",
    "TransactionFailed",
    "UniqueViolation",
    "UnknownArgument",
    "UpgradeError",
    "Vector",
    "VectorIndex",
    "VersionConflict",
    "adapt",
    "connect",
    "connect_async",
    "cursor",
    "env",
    "guard_key",
    "upgrade",
    "upgraded_item",
]

if _TYPE_CHECKING:  # for type checkers; at run time they load on first use (below)
    from singletable.model._async_adapter import AsyncAdapter
    from singletable.model._async_db import AsyncDB, connect_async

# The async names load on first use: they import asyncio, which synchronous applications need not pay for.
_ASYNC_NAMES = {
    "AsyncDB": "singletable.model._async_db",
    "connect_async": "singletable.model._async_db",
    "AsyncAdapter": "singletable.model._async_adapter",
}


def __getattr__(name: str) -> object:
    module = _ASYNC_NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'singletable.model' has no attribute {name!r}")
    return getattr(_import_module(module), name)
