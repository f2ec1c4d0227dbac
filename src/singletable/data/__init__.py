"""singletable.data: look at, export, import and copy DynamoDB tables -- a database file or any endpoint.

The ``singletable`` commands ``tables``, ``describe``, ``get``, ``query``, ``scan``, ``put``, ``delete``,
``count``, ``export``, ``import`` and ``copy`` are thin layers over the functions here (docs/data.md).
"""

from singletable.data._plain import from_plain, to_plain
from singletable.data._targets import Target, TargetError, open_target

__all__ = ["Target", "TargetError", "from_plain", "open_target", "to_plain"]
