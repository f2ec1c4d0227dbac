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

The same :class:`Sequence` serves ``DB`` and ``AsyncDB``: its reads, transaction and backoff are steps
(:mod:`singletable.model._steps`) that the given handle drives, so ``seq.create(db, ...)`` returns the entity
and ``await seq.create(adb, ...)`` does on an ``AsyncDB``.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from singletable.model._entity import Entity
from singletable.model._entity_meta import KeyRef
from singletable.model._errors import ConditionFailed, DeclarationError, ModelError, TransactionFailed
from singletable.model._expr import Path
from singletable.model._steps import Request, Sleep, Steps
from singletable.model._transaction import TransactionParts
from singletable.model._write_requests import WriteTarget

E = TypeVar("E", bound=Entity)

DEFAULT_ATTEMPTS = 50
RETRIED_REASONS = {"TransactionConflict"}


class SequenceTarget(Protocol):
    """What a sequence needs of ``DB`` or ``AsyncDB`` (this module stays below them): the table a write goes
    to, and the handle's driver (``AsyncDB``'s returns an awaitable)."""

    def _write_target(self) -> WriteTarget: ...

    def _drive(self, steps: Steps[Any]) -> Any: ...


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

    def current(self, db: SequenceTarget) -> Any:
        """The last number given (0 before the first), read consistently (awaitable on an ``AsyncDB``)."""
        return db._drive(self._current(db._write_target()))

    def _current(self, dest: WriteTarget) -> Steps[int]:
        stored = yield from self._stored(dest)
        return 0 if stored is None else stored

    def _stored(self, dest: WriteTarget) -> Steps[int | None]:
        """The counter as stored, or None when the item or the attribute is missing (then the first number's
        condition is that it is still missing: a default of the field is never stored by a read)."""
        params = {"TableName": dest.table_name, "Key": self.counter.item_key(), "ConsistentRead": True}
        item = (yield Request("GetItem", params)).get("Item") or {}
        value = item.get(self.counter.meta.attribute_of[self.field])
        if value is None or "N" not in value:
            return None  # missing, or NULL: the first number follows 0
        return int(value["N"])

    def create(self, db: SequenceTarget, build: Callable[[int], E]) -> Any:
        """Write ``build(n)`` with ``n`` the next number, counter and item in one transaction; retried when
        another writer took the number first. Errors of the create itself (``AlreadyExists``,
        ``UniqueViolation``...) are raised as they are, and no number is consumed. Returns the entity as
        stored (awaitable on an ``AsyncDB``)."""
        return db._drive(self._create(db._write_target(), build))

    def _create(self, dest: WriteTarget, build: Callable[[int], E]) -> Steps[E]:
        for attempt in range(self.attempts):
            stored = yield from self._stored(dest)
            last = 0 if stored is None else stored
            entity = build(last + 1)
            if not isinstance(entity, Entity):
                raise TypeError(
                    f"Sequence.create: build(n) must return an entity, not {type(entity).__name__}"
                )
            unchanged = self.path.not_exists() if stored is None else self.path == last
            tx = TransactionParts(dest)
            try:
                yield from tx._update(self.counter, (), unchanged, True, {self.field: last + 1})
                created = tx._create(entity)
                yield from tx._commit()
                return created
            except ConditionFailed as error:
                if type(error) is not ConditionFailed or (yield from self._stored(dest)) == stored:
                    raise  # the create's own failure, or a condition other than the counter's
            except TransactionFailed as error:
                if not {r.get("Code") for r in error.reasons} & RETRIED_REASONS:
                    raise
            yield self._retried(attempt)
        raise SequenceContended(
            f"Sequence on {self.counter.meta.type}.{self.field}: another writer took the next number under "
            f"each of {self.attempts} attempts; nothing was written -- try again, or raise attempts=..."
        )

    def _retried(self, attempt: int) -> Sleep:
        """Count a retry; the jittered backoff before it."""
        with self._lock:
            self.retries += 1
        return Sleep(random.uniform(0, min(0.05, 0.001 * 2 ** min(attempt, 6))))

    def __repr__(self) -> str:
        return f"Sequence({self.counter.meta.type}.{self.field} at {dict(self.counter.values)!r})"
