"""The examples' interface for singletable's other packages -- not for users, and not a promise to them.

``singletable docs`` describes a design's access patterns the way ``singletable demo`` prints each request;
it imports that one description from here rather than from the examples' private modules
(``tests/test_private_names.py`` holds that).
"""

from singletable.examples._render import describe

__all__ = ["describe"]
