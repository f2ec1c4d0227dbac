"""The console's interface for singletable's other packages -- not for users, and not a promise to them.

``singletable serve --ui`` mounts the console and must read the same secret (the environment variable
named here) that signs its CSRF tokens and paging trails; it imports the name from here rather than from
the console's private modules (``tests/test_private_names.py`` holds that).
"""

from singletable.ui._security import SECRET_ENV

__all__ = ["SECRET_ENV"]
