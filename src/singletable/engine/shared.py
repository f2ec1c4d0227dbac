"""The engine's interface for singletable's other packages -- not for users, and not a promise to them.

The modeling layer, the data and design tools, the HTTP server and the examples need a few of the engine's
tables and functions that a boto3 client has no word for: which operations exist, which take
``ReturnConsumedCapacity``, how big an item is, the expression parser's tree. They import them from here, by
these names, and never from the engine's private modules (``tests/test_private_names.py`` holds that), so
the engine can rearrange its modules without breaking them. Users import :mod:`singletable.engine`.

The bulk loader, an import's table building and the expression parser load on first use (importing the
modeling layer, which needs only the tables, does not load them), as they did when their users imported
them inside a function.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

from singletable.engine._expressions.reserved import DOCUMENTED_RESERVED_WORDS
from singletable.engine._registry import OPERATIONS, STREAMS_OPERATIONS
from singletable.engine._sizes import item_size
from singletable.engine._validation import REPORTS_CAPACITY

if TYPE_CHECKING:
    from singletable.engine._bulk_load import BulkResult, bulk_put
    from singletable.engine._expressions.ast import And, Comparison, NamePlaceholder, Path, ValuePlaceholder
    from singletable.engine._expressions.parser import parse_condition
    from singletable.engine._imports import (
        ImportCatalog,
        ImportUnverified,
        abandon_import,
        begin_import,
        finish_import,
        staged_rows,
    )

_LAZY = {
    "BulkResult": "singletable.engine._bulk_load",
    "bulk_put": "singletable.engine._bulk_load",
    "And": "singletable.engine._expressions.ast",
    "Comparison": "singletable.engine._expressions.ast",
    "NamePlaceholder": "singletable.engine._expressions.ast",
    "Path": "singletable.engine._expressions.ast",
    "ValuePlaceholder": "singletable.engine._expressions.ast",
    "parse_condition": "singletable.engine._expressions.parser",
    "ImportCatalog": "singletable.engine._imports",
    "ImportUnverified": "singletable.engine._imports",
    "abandon_import": "singletable.engine._imports",
    "begin_import": "singletable.engine._imports",
    "finish_import": "singletable.engine._imports",
    "staged_rows": "singletable.engine._imports",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DOCUMENTED_RESERVED_WORDS",
    "OPERATIONS",
    "REPORTS_CAPACITY",
    "STREAMS_OPERATIONS",
    "And",
    "BulkResult",
    "Comparison",
    "ImportCatalog",
    "ImportUnverified",
    "NamePlaceholder",
    "Path",
    "ValuePlaceholder",
    "abandon_import",
    "begin_import",
    "bulk_put",
    "finish_import",
    "item_size",
    "parse_condition",
    "staged_rows",
]
