"""Gapless sequences: numbers for new items with no gaps and no duplicates.

A :class:`Sequence` keeps its last number in an ``int`` field of a counter item (``next_issue_number`` of a
project). Each :meth:`Sequence.create` reads the counter, then sends ONE TransactWriteItems holding the
counter's update to ``read + 1`` -- conditioned on the counter still holding what was read -- and the new
item's create (with its guards and derived items). Both are written or neither: a create that fails (a taken
key, a taken unique value) consumes no number, and two writers never take the same number. A writer that loses
the race (the counter moved: ConditionalCheckFailed on the counter, or a TransactionConflict) reads again and
retries after a short jittered backoff, a bounded number of times; then :class:`SequenceContended` is raised
and nothing was written.

A plain atomic counter (``db.update(key, Counter.f.value.add(1), upsert=True)``) needs no read and no retry,
but takes the number before the item is written: a failed create leaves a gap. docs/modeling.md compares them.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from singletable.model._entity import Entity
from singletable.model._entity_meta import KeyRef
from singletable.model._errors import ConditionFailed, DeclarationError, ModelError, TransactionFailed
from singletable.model._expr import Path
from singletable.model._transaction import Transaction

E = TypeVar("E", bound=Entity)

DEFAULT_ATTEMPTS = 50
RETRIED_REASONS = {"TransactionConflict"}


class SequenceTarget(Protocol):
    """What a sequence needs of :class:`~singletable.model.DB` (this module stays below it)."""

    table_name: str

    def call(self, operation: str, params: dict[str, Any]) -> dict[str, Any]: ...

    def transaction(self) -> Transaction: ...


class SequenceContended(ModelError):
    """Every attempt of a :meth:`Sequence.create` lost the race for the counter; nothing was written."""


class Sequence:
    """``Sequence(Project.key(id="p1"), Project.f.next_issue_number)``: gapless numbers on a counter item.

    ``seq.create(db, lambda n: Issue(project="p1", number=n, ...))`` writes the item numbered next and
    returns it as stored. The counter item is created (from 0) by the first number if it does not exist.
    """

    def __init__(self, counter: KeyRef, field: Path | str, *, attempts: int = DEFAULT_ATTEMPTS) -> None:
        if not isinstance(counter, KeyRef):
            raise DeclarationError(
                f"Sequence(counter=...) takes an entity key such as Project.key(...), not {counter!r}"
            )
        meta = counter.meta
        name = field.field if isinstance(field, Path) else field
        if isinstance(field, Path) and (field.entity != meta.type or len(field.steps) != 1):
            raise DeclarationError(f"Sequence: {field!r} is not a top-level field of {meta.type}")
        spec = meta.fields.get(name)
        if spec is None:
            raise DeclarationError(
                f"Sequence: {meta.type} has no field {name!r}; its fields: {sorted(meta.fields)}"
            )
        if spec.codec.kind != "N" or name in meta.primary_fields:
            raise DeclarationError(
                f"Sequence: {meta.type}.{name} must be an int field outside the primary key"
            )
        if not isinstance(attempts, int) or attempts < 1:
            raise DeclarationError(f"Sequence(attempts=...) must be a positive int, not {attempts!r}")
        self.counter = counter
        self.field = name
        self.path: Path = getattr(meta.cls.f, name)
        self.attempts = attempts
        self._lock = threading.Lock()
        self.retries = 0  # conflicts retried by this Sequence's creates, for measurements

    def current(self, db: SequenceTarget) -> int:
        """The last number given (0 before the first), read consistently."""
        stored = self._stored(db)
        return 0 if stored is None else stored

    def _stored(self, db: SequenceTarget) -> int | None:
        """The counter as stored, or None when the item or the attribute is missing (then the first number's
        condition is that it is still missing: a default of the field is never stored by a read)."""
        params = {"TableName": db.table_name, "Key": self.counter.item_key(), "ConsistentRead": True}
        item = db.call("GetItem", params).get("Item") or {}
        value = item.get(self.counter.meta.attribute_of[self.field])
        if value is None or "N" not in value:
            return None  # missing, or NULL: the first number follows 0
        return int(value["N"])

    def create(self, db: SequenceTarget, build: Callable[[int], E]) -> E:
        """Write ``build(n)`` with ``n`` the next number, counter and item in one transaction; retried when
        another writer took the number first. Errors of the create itself (``AlreadyExists``,
        ``UniqueViolation``...) are raised as they are, and no number is consumed."""
        for attempt in range(self.attempts):
            stored = self._stored(db)
            last = 0 if stored is None else stored
            entity = build(last + 1)
            if not isinstance(entity, Entity):
                raise TypeError(
                    f"Sequence.create: build(n) must return an entity, not {type(entity).__name__}"
                )
            unchanged = self.path.not_exists() if stored is None else self.path == last
            try:
                with db.transaction() as tx:
                    tx.update(self.counter, condition=unchanged, upsert=True, **{self.field: last + 1})
                    created = tx.create(entity)
                return created
            except ConditionFailed as error:
                if type(error) is not ConditionFailed or self._stored(db) == stored:
                    raise  # the create's own failure, or a condition other than the counter's
            except TransactionFailed as error:
                if not {r.get("Code") for r in error.reasons} & RETRIED_REASONS:
                    raise
            self._retried(attempt)
        raise SequenceContended(
            f"Sequence on {self.counter.meta.type}.{self.field}: another writer took the next number under "
            f"each of {self.attempts} attempts; nothing was written -- try again, or raise attempts=..."
        )

    def _retried(self, attempt: int) -> None:
        with self._lock:
            self.retries += 1
        time.sleep(random.uniform(0, min(0.05, 0.001 * 2 ** min(attempt, 6))))

    def __repr__(self) -> str:
        return f"Sequence({self.counter.meta.type}.{self.field} at {dict(self.counter.values)!r})"
