"""A seed's sample data, loaded through its service once per target, then copied into each later test's table.

Every test of a seed starts from the same sample data. Loading it through the service takes dozens of requests
(transactions with condition checks, counters, notifications), which on the shared targets (``singletable
serve``, DynamoDB Local) cost more than most of the tests themselves. So the first test on a target (in each
test process) loads through the service -- the load path still runs on every target -- and keeps the items
the table then holds; each later test on that target gets those items written into its own fresh table with
BatchWriteItem: the very table the service would have left, for the test's own reads and writes.

What a service keeps outside the table (an id counter, a clock that moves on by itself) is not in the items:
the caller saves it with ``state`` after the first load and puts it back with ``restore`` on each copy, so a
later test sees the same ids and times the service would have given it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from every_item import every_item_of

BATCH = 25  # BatchWriteItem's most requests per call


@dataclass(slots=True)
class Sample:
    """A loaded table's items (DynamoDB JSON) and the service's state beside them."""

    items: list[dict[str, Any]]
    state: Any


def _nothing() -> None:
    return None


def _ignore(state: Any) -> None:
    del state


class SampleTables:
    """The samples loaded so far in this process, by key (the seed's module, target, API and a variant)."""

    def __init__(self) -> None:
        self._samples: dict[Hashable, Sample] = {}

    def load(
        self,
        key: Hashable,
        db: Any,
        through_service: Callable[[], object],
        *,
        state: Callable[[], Any] = _nothing,
        restore: Callable[[Any], None] = _ignore,
    ) -> None:
        """Fill ``db``'s (new, empty) table with the sample: through the service the first time for ``key``,
        as a copy of what that left every later time."""
        sample = self._samples.get(key)
        if sample is None:
            through_service()
            self._samples[key] = Sample(every_item_of(db), state())
            return
        write(db, sample.items)
        restore(sample.state)


class ReplayedIds:
    """An id maker that notes the arguments of every id it makes, so that a copy can move a fresh counter to
    where the load left the first one (``state``/``restore`` for :meth:`SampleTables.load`)."""

    def __init__(self, make: Callable[..., str]) -> None:
        self.make = make
        self.made: list[tuple[Any, ...]] = []

    def __call__(self, *args: Any) -> str:
        self.made.append(args)
        return self.make(*args)

    def state(self) -> list[tuple[Any, ...]]:
        return list(self.made)

    def restore(self, made: list[tuple[Any, ...]]) -> None:
        for args in made:
            self(*args)


def write(db: Any, items: list[dict[str, Any]]) -> None:
    """``items`` put into ``db``'s table, ``BATCH`` at a time, until none is left unprocessed."""
    for start in range(0, len(items), BATCH):
        requests = {db.table_name: [{"PutRequest": {"Item": item}} for item in items[start : start + BATCH]]}
        while requests:
            requests = db.call("BatchWriteItem", {"RequestItems": requests}).get("UnprocessedItems") or {}
