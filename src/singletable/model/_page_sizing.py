"""How ``db.page`` sizes the requests of one page, and when it warns that a page is costly.

A page of ``size`` entities asks for ``size + 1`` items first (one more tells whether there is a next page).
When the items a response read were not all kept -- other entity types share the key prefix, or a filter
discards most of them -- the next request asks for what is still needed scaled by what was read per item
kept so far: ``ceil(needed * read / kept)`` (``kept`` counted as 1 while none was), at least ``needed``, at
most 8 times the previous request's Limit and never more than :data:`MAX_LIMIT`. So a page whose partition
keeps one item in ten takes two requests instead of ten, and a page whose items are all kept asks for
exactly ``size + 1``. Reading a little past the page costs nothing in correctness: the cursor is the last
returned entity's key, so the next page starts right after it.

A page that still took more than :data:`WARN_REQUESTS` requests and kept less than a quarter of what it
read raises :class:`CostlyPage` (a ``UserWarning``) with the numbers, once per page.
"""

from __future__ import annotations

import math
import warnings

# DynamoDB reads at most 1 MB per request anyway; a larger Limit only makes a request longer.
MAX_LIMIT = 1000
# A page taking more requests than this, while keeping less than a quarter of what it read, is warned about.
WARN_REQUESTS = 3


class CostlyPage(UserWarning):
    """A page took many round trips because most items its requests read were not kept."""


class PageSizer:
    """The Limit of each request of one page of ``size`` entities, and what the page read and kept."""

    __slots__ = ("kept", "limit", "read", "requests", "wanted")

    def __init__(self, size: int) -> None:
        self.wanted = size + 1  # one more than the page, to know whether another follows
        self.limit = self.wanted
        self.requests = 0
        self.read = 0
        self.kept = 0

    def record(self, read: int, kept: int) -> None:
        """After a response: ``read`` items the request evaluated, ``kept`` of them became entities."""
        self.requests += 1
        self.read += read
        self.kept += kept
        needed = self.wanted - self.kept
        if needed <= 0:
            return
        estimate = math.ceil(needed * self.read / max(self.kept, 1))
        self.limit = max(needed, min(estimate, 8 * self.limit, MAX_LIMIT))

    @property
    def costly(self) -> bool:
        """More than :data:`WARN_REQUESTS` requests, keeping less than a quarter of what they read."""
        return self.requests > WARN_REQUESTS and self.kept * 4 < self.read

    def warn(self, name: str, size: int, stacklevel: int = 3) -> None:
        """Raise :class:`CostlyPage` with the numbers (for a page that is :attr:`costly`), pointed
        ``stacklevel`` frames up (at the application's line)."""
        warnings.warn(
            CostlyPage(
                f"{name}: a page of {size} took {self.requests} requests, read {self.read} "
                f"items and kept {self.kept}; other entity types share its key prefix or its filter "
                "discards most items -- give the pattern a key prefix or an index of its own"
            ),
            stacklevel=stacklevel,
        )
