"""singletable.data: look at, export, import and copy DynamoDB tables -- a database file or any endpoint.

The ``singletable`` commands ``tables``, ``describe``, ``get``, ``query``, ``scan``, ``put``, ``delete``,
``count``, ``export``, ``import`` and ``copy`` are thin layers over the functions here (docs/data.md).
"""

from singletable.data._checkpoint import TransferError, TransferInterrupted, TransferSummary
from singletable.data._formats import FormatError
from singletable.data._plain import from_plain, to_plain
from singletable.data._targets import Target, TargetError, open_target
from singletable.data._transfer import copy_table, export_table, import_table

__all__ = [
    "FormatError",
    "Target",
    "TargetError",
    "TransferError",
    "TransferInterrupted",
    "TransferSummary",
    "copy_table",
    "export_table",
    "from_plain",
    "import_table",
    "open_target",
    "to_plain",
]
