"""``connect(table, target)``: the application's handle on one table, on any DynamoDB.

The same code runs on the embedded engine (called natively, no botocore) and on any endpoint through boto3;
only the :mod:`adapter <singletable.model._adapter>` differs. Every operation is written once, as steps, in
:mod:`singletable.model._handle` (reads, writes planned by :mod:`singletable.model._write_plans` and sent by
:mod:`singletable.model._write_runner`, pages by :mod:`singletable.model._pager`); :class:`DB` drives them
with the adapter's synchronous call, as :class:`~singletable.model.AsyncDB` does with an awaited one.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any, TypeVar, overload

from singletable.model._adapter import adapt
from singletable.model._entity import Entity
from singletable.model._entity_meta import KeyRef
from singletable.model._errors import DBClosed, SequenceContended
from singletable.model._expr import Action, Cond
from singletable.model._handle import DB_CLOSED, TableHandle, checked_table_name
from singletable.model._pager import Page
from singletable.model._patterns import Grouped, Query
from singletable.model._sequence import Retries
from singletable.model._similar import Scored
from singletable.model._steps import Steps, T, run
from singletable.model._table import Table
from singletable.model._trace import Trace
from singletable.model._transaction import Transaction
from singletable.model._upgrades import writing_back

__all__ = ["DB", "Page", "checked_table_name", "connect"]

E = TypeVar("E", bound=Entity)


def _closed(operation: str, params: dict[str, Any]) -> dict[str, Any]:
    raise DBClosed(DB_CLOSED)


class DB(TableHandle):
    """A table's data, as entities. Create with :func:`connect`."""

    _closed_call = staticmethod(_closed)

    def _drive(self, steps: Steps[Any]) -> Any:
        return run(steps, self.call)

    def _tracing(self, recording: Trace, call: Any) -> Any:
        return recording.traced(call)

    def _writing_back(self, call: Any) -> Any:
        return writing_back(self.table, self.table_name, call)

    def close(self) -> None:
        """Release the adapter (an engine ``connect`` opened from a path); every later call raises
        :class:`DBClosed`."""
        self.adapter.close()
        self.call = _closed

    def __enter__(self) -> DB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- control plane ----------------------------------------------------------------------------------

    def create_table(self) -> None:
        run(self._create_table(), self.call)

    def ensure_table(self) -> bool:
        """Create the table if it is missing; True if it was created."""
        return run(self._ensure_table(), self.call)

    def delete_table(self) -> None:
        run(self._delete_table(), self.call)

    # -- single reads -----------------------------------------------------------------------------------

    @overload
    def get(self, target: type[E], /, *, consistent: bool = False, **key: Any) -> E | None: ...
    @overload
    def get(self, target: KeyRef, /, *, consistent: bool = False) -> Any: ...

    def get(self, target: Any, /, *, consistent: bool = False, **key: Any) -> Any:
        """The entity at a primary key, or None: ``db.get(User, username="john")``."""
        meta, params = self._get_request(target, consistent, key)
        return self._got(meta, self.call("GetItem", params))

    def must_get(self, target: Any, /, *, consistent: bool = False, **key: Any) -> Any:
        """The entity at a primary key; :class:`NotFound` if there is none."""
        return run(self._must_get(target, consistent, key), self.call)

    def find(self, cls: type[E], /, **unique: Any) -> E | None:
        """The entity holding a unique value, through its guard item: ``db.find(User, email="a@x")``."""
        return run(self._find(cls, unique), self.call)

    # -- writes -----------------------------------------------------------------------------------------

    def create(self, entity: E) -> E:
        """Write a new entity; :class:`AlreadyExists` if its key is taken, :class:`UniqueViolation` if a
        unique value is. Returns the entity as stored (timestamps, version)."""
        return run(self._create(entity), self.call)

    def put(self, entity: E, *, condition: Cond | None = None) -> E:
        """Create or replace; the stored createdAt is kept, the version checked and bumped.

        Index keys built from createdAt follow the stored value. Their put guesses it (one request for a new
        entity or one read from the table); a wrong guess returns the stored item and is retried with it.
        """
        return run(self._put(entity, condition), self.call)

    def update(
        self,
        target: KeyRef | E,
        /,
        *actions: Action,
        condition: Cond | None = None,
        upsert: bool = False,
        **sets: Any,
    ) -> Any:
        """Change some fields: ``db.update(Post.key(slug="x"), Post.f.views.add(1), title="New")``.

        Keys derived from changed fields are rebuilt in the same request. Passing an entity instead of a key
        checks its version. Returns the updated entity; :class:`NotFound` if there is none, unless
        ``upsert=True`` (counters: ``db.update(Sequence.key(), Sequence.f.value.add(1), upsert=True)``).
        """
        return run(self._update(target, actions, condition, upsert, sets), self.call)

    def delete(self, target: Any, /, *, condition: Cond | None = None, **key: Any) -> None:
        """Delete an entity (its guards and derived items go with it): ``db.delete(User, username="x")``."""
        run(self._delete(target, condition, key), self.call)

    def transaction(self) -> Transaction:
        """``with db.transaction() as tx: tx.create(...); tx.check(...)`` -- all or nothing."""
        return Transaction(self._write_target(), self.call)

    def run_transaction(self, block: Callable[[Transaction], T]) -> T:
        """``db.run_transaction(place_order)``: ``block(tx)`` committed as one transaction, all or nothing;
        returns what ``block`` returned.

        When a number ``block`` drew from a :class:`~singletable.model.Sequence` (``seq.draw(tx)``) was
        taken by another writer first, nothing was written, and ``block`` runs again on a fresh transaction
        -- drawing the next number -- after a short jittered backoff, up to the sequence's ``attempts``
        (then :class:`SequenceContended`). So ``block`` may run more than once: let it read and plan writes
        on ``tx``, and act on the world only after ``run_transaction`` returns. Any other error is raised
        at once."""
        retries = Retries()
        while True:
            tx = self.transaction()
            result = block(tx)
            try:
                tx.commit()
            except SequenceContended as lost:
                time.sleep(retries.after(lost).seconds)
                continue
            return result

    def batch_get(self, targets: list[Any], *, consistent: bool = False, raw: bool = False) -> list[Any]:
        """Entities for many keys (100 per request, unprocessed keys retried), in the order asked.

        ``raw=True`` takes plain primary keys (``{"PK": {"S": ...}, ...}``, such as :func:`guard_key` gives)
        and returns the stored items as AttributeValue dicts, for items that are not entities.
        """
        return run(self._batch_get(targets, consistent, raw), self.call)

    def batch_write(self, put: Iterable[Entity] = (), delete: Iterable[Any] = ()) -> None:
        """Bulk put/delete (25 per request, unprocessed items retried with backoff); not atomic."""
        run(self._batch_write(put, delete), self.call)

    # -- queries ----------------------------------------------------------------------------------------

    def query(
        self,
        query: Query,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        page_size: int | None = None,
        on_bad_item: str = "raise",
    ) -> Iterator[Any]:
        """Entities from a pattern, fetched page by page as you iterate; ``limit`` caps entities returned.

        A stored item that does not fit its entity raises :class:`StoredItemError`; ``on_bad_item="skip"``
        leaves such items out, ``"raw"`` yields them as stored (AttributeValue dicts)."""
        pager = self._pager(query, limit, cursor, page_size, on_bad_item)
        while (got := run(pager.next(), self.call)) is not None:
            yield from got[0]  # a page is decoded at once: no per-entity generator hop on the hot path

    def page(
        self, query: Query, *, size: int = 25, cursor: str | None = None, on_bad_item: str = "raise"
    ) -> Page:
        """One page of ``size`` entities and a signed cursor to the next (None when there is no more).

        Requests are sized by what they keep (``model/_page_sizing.py``); a page that still takes many
        round trips warns with :class:`CostlyPage`. ``on_bad_item`` as for :meth:`query`."""
        return run(self._page(query, size, cursor, on_bad_item), self.call)

    def collect(self, query: Query, *, on_bad_item: str = "raise") -> Grouped:
        """Every entity of a collection (all pages), grouped by type; ``on_bad_item`` as for :meth:`query`
        (raw items are grouped under ``dict``)."""
        return run(self._collect(query, on_bad_item), self.call)

    def similar(
        self,
        search: Any,
        vector: Any,
        /,
        *,
        top_k: int = 10,
        where: Cond | None = None,
        with_vector: bool = False,
    ) -> list[Scored[Any]]:
        """The ``top_k`` entities nearest ``vector`` in a vector index, nearest first, each with its score:
        ``db.similar(Doc.by_meaning, vector, top_k=10, where=Doc.f.tenant == t)``.

        ``search`` is a ``Similar`` declared in the entity; ``vector`` a list (or array) of the index's
        dimensions; ``where`` a condition on the fields in the index's search schema (its partition field
        by equality, which an index with one requires). Results hold the entity without its vector unless
        ``with_vector=True``. One SearchVectors (and one BatchGetItem for a narrow projection)."""
        return run(self._similar(search, vector, top_k, where, with_vector), self.call)


def connect(
    table: Table,
    target: Any = ":memory:",
    *,
    name: str | None = None,
    cursor_secret: bytes | str | None = None,
    clock: Callable[[], datetime] | None = None,
    write_back_upgrades: bool = False,
    migrating: Mapping[Any, Any] | None = None,
) -> DB:
    """A :class:`DB` for ``table`` on an Engine, a boto3 client, a SQLite path / ":memory:", or a URL.

    ``name`` overrides the declared table name (tests, per-tenant tables); ``cursor_secret`` signs cursors
    (default: ``SINGLETABLE_CURSOR_SECRET``, else a per-process key). ``write_back_upgrades=True`` stores
    each item of an older ``schema_version`` a read returns, upgraded, conditioned on the image read.
    """
    return DB(
        table,
        adapt(target),
        name=name,
        cursor_secret=cursor_secret,
        clock=clock,
        write_back_upgrades=write_back_upgrades,
        migrating=migrating,
    )
