"""The data tools' interface for singletable's other packages -- not for users, and not a promise to them.

The command line and the web console show items the way the data commands do (the same JSON text, the
same one-line value), read a key the same way and merge pages the same way; the MCP server's raw reads
answer items as the same plain JSON (``to_plain``). They import those helpers from
here, by these names, and never from the data package's private modules (``tests/test_private_names.py``
holds that). What users call is exported by :mod:`singletable.data` itself.
"""

from singletable.data._json_items import dumps, loads, scalar_value, to_plain, value_text
from singletable.data._keys import split_argument
from singletable.data._look import merge_into
from singletable.data._targets import is_url

__all__ = [
    "dumps",
    "is_url",
    "loads",
    "merge_into",
    "scalar_value",
    "split_argument",
    "to_plain",
    "value_text",
]
