"""singletable.model: single-table designs declared in Python, run on any DynamoDB.

Declare a :class:`Table`, entities (pydantic models with key templates), access patterns and collections;
``connect(table, target)`` runs them on the embedded engine or any boto3 DynamoDB client.
"""

from singletable._extras import MissingExtra, missing

if missing(("pydantic",)):
    raise MissingExtra("model", "singletable.model")

from singletable.model.db import DB, Page, connect
from singletable.model.derived import Derived
from singletable.model.entity import Entity, EntityMeta, KeyRef
from singletable.model.errors import (
    AlreadyExists,
    ConditionFailed,
    DeclarationError,
    InvalidCursor,
    KeyTemplateError,
    MissingKeyFields,
    ModelError,
    NotFound,
    RequestError,
    TransactionFailed,
    UniqueViolation,
    VersionConflict,
)
from singletable.model.expr import Action, Cond, Path
from singletable.model.patterns import Collection, Grouped, Pattern, Query
from singletable.model.table import GSI, LSI, Index, Table, env
from singletable.model.templates import Key, Keys

__all__ = [
    "DB",
    "GSI",
    "LSI",
    "Action",
    "AlreadyExists",
    "Collection",
    "Cond",
    "ConditionFailed",
    "DeclarationError",
    "Derived",
    "Entity",
    "EntityMeta",
    "Grouped",
    "Index",
    "InvalidCursor",
    "Key",
    "KeyRef",
    "KeyTemplateError",
    "Keys",
    "MissingKeyFields",
    "ModelError",
    "NotFound",
    "Page",
    "Path",
    "Pattern",
    "Query",
    "RequestError",
    "Table",
    "TransactionFailed",
    "UniqueViolation",
    "VersionConflict",
    "connect",
    "env",
]
