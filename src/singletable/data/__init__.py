"""singletable.data: look at, export, import and copy DynamoDB tables -- a database file or any endpoint.

The ``singletable`` commands ``tables``, ``describe``, ``get``, ``query``, ``scan``, ``put``, ``delete``,
``count``, ``export``, ``import`` and ``copy`` are thin layers over the functions here (docs/data.md).
"""

from singletable.data._checkpoint import TransferError, TransferInterrupted, TransferSummary
from singletable.data._design import Design, DesignError, load_design, run_pattern
from singletable.data._formats import FormatError
from singletable.data._json_items import (
    from_plain,
    item_from_json,
    item_to_json,
    parse_item,
    read_json,
    render_item,
    to_plain,
)
from singletable.data._keys import (
    Expression,
    KeySchema,
    describe_keys,
    key_condition,
    key_from_arguments,
    key_schema,
)
from singletable.data._look import count, delete, describe, get, put, query, scan, tables
from singletable.data._settings import IndexSettings, TableSettings, Throughput
from singletable.data._targets import DatabaseFileError, Target, TargetError, open_target
from singletable.data._transfer import copy_table, export_table, import_table

__all__ = [
    "DatabaseFileError",
    "Design",
    "DesignError",
    "Expression",
    "FormatError",
    "IndexSettings",
    "KeySchema",
    "TableSettings",
    "Target",
    "TargetError",
    "Throughput",
    "TransferError",
    "TransferInterrupted",
    "TransferSummary",
    "copy_table",
    "count",
    "delete",
    "describe",
    "describe_keys",
    "export_table",
    "from_plain",
    "get",
    "import_table",
    "item_from_json",
    "item_to_json",
    "key_condition",
    "key_from_arguments",
    "key_schema",
    "load_design",
    "open_target",
    "parse_item",
    "put",
    "query",
    "read_json",
    "render_item",
    "run_pattern",
    "scan",
    "tables",
    "to_plain",
]
