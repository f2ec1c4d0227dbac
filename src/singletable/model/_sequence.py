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
but takes the number before the item is written: a failed create leaves a gap. docs/modeling.md, "Sequences",
compares them.

A number can also be drawn inside a larger transaction -- an order numbered next, with its lines and a stock
decrement per line: ``seq.draw(tx)`` reads the counter and adds the same conditioned update to ``tx``, so the
number is taken if and only if the whole transaction commits. A ``with db.transaction()`` block cannot run
itself again, so a lost race there raises :class:`SequenceContended` (nothing written); ``db.run_transaction
(block)`` runs ``block(tx)`` again with the next number, with the same bounded, jittered retries
(:class:`Retries`). ``Sequence.create`` is a draw and a create in one such transaction.

The same :class:`Sequence` serves ``DB`` and ``AsyncDB``: its reads, transaction and backoff are steps
(:mod:`singletable.model._steps`) that the given handle drives, so ``seq.create(db, ...)`` returns the entity
and ``await seq.create(adb, ...)`` does on an ``AsyncDB`` (``seq.draw(tx)`` likewise, on either
transaction).
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from singletable.model import _handle, _transaction
from singletable.model._entity import Entity
from singletable.model._entity_meta import KeyRef
from singletable.model._errors import DeclarationError, SequenceContended, StoredItemError
from singletable.model._expr import Cond, Path
from singletable.model._field_values import AV
from singletable.model._handle import TableHandle
from singletable.model._steps import Request, Sleep, Steps
from singletable.model._transaction import Draw, TransactionParts
from singletable.model._write_keys import frozen_key
from singletable.model._write_plans import plan_create, plan_update
from singletable.model._write_requests import PartLabel
from singletable.model._write_runner import plain_key
from singletable.model._write_target import WriteTarget

__all__ = ["Retries", "Sequence", "SequenceContended"]

E = TypeVar("E", bound=Entity)

DEFAULT_ATTEMPTS = 50


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

    def current(self, db: TableHandle) -> Any:
        """The last number given (0 before the first), read consistently (awaitable on an ``AsyncDB``)."""
        return _handle.drive(db, self._current(_handle.write_target(db)))

    def _current(self, dest: WriteTarget) -> Steps[int]:
        stored = yield from self._stored(dest)
        return self._last(dest, stored)

    def _stored(self, dest: WriteTarget) -> Steps[AV | None]:
        """The counter attribute as stored, or None when the item or the attribute is missing (a default of
        the field is never stored by a read)."""
        params = {"TableName": dest.table_name, "Key": self.counter.item_key(), "ConsistentRead": True}
        item = (yield Request("GetItem", params)).get("Item") or {}
        return item.get(self.counter.meta.attribute_of[self.field])

    def _last(self, dest: WriteTarget, stored: AV | None) -> int:
        """The last number given: 0 while the counter is missing or NULL; a counter holding anything but a
        number is a :class:`StoredItemError` (no number can follow it)."""
        if stored is None or "NULL" in stored:
            return 0
        if "N" in stored:
            return int(stored["N"])
        raise StoredItemError(
            dest.table_name,
            plain_key(self.counter.item_key()) or {},
            self.counter.meta.type,
            self.counter.meta.attribute_of[self.field],
            "int",
            repr(stored),
        )

    def _unchanged(self, stored: AV | None) -> Cond:
        """The condition that the counter still holds what was read: the race a drawn number is taken in."""
        if stored is None:
            return self.path.not_exists()
        if "NULL" in stored:
            return self.path.type_is("NULL")
        return self.path == int(stored["N"])

    def create(self, db: TableHandle, build: Callable[[int], E]) -> Any:
        """Write ``build(n)`` with ``n`` the next number, counter and item in one transaction; retried when
        another writer took the number first. Errors of the create itself (``AlreadyExists``,
        ``UniqueViolation``...) are raised as they are, and no number is consumed. Returns the entity as
        stored (awaitable on an ``AsyncDB``)."""
        return _handle.drive(db, self._create(_handle.write_target(db), build))

    def _create(self, dest: WriteTarget, build: Callable[[int], E]) -> Steps[E]:
        retries = Retries()
        while True:
            tx = TransactionParts(dest)
            number = yield from self._draw(tx)
            entity = build(number)
            if not isinstance(entity, Entity):
                raise TypeError(
                    f"Sequence.create: build(n) must return an entity, not {type(entity).__name__}"
                )
            parts, created = plan_create(dest, entity)
            tx.parts += parts
            try:
                yield from tx.commit_steps()
                return created
            except SequenceContended as lost:
                yield retries.after(lost)

    def draw(self, tx: TransactionParts) -> Any:
        """The next number, taken if and only if ``tx`` commits: the counter's update to it, conditioned on
        the counter holding what was read now, joins the transaction. A second draw in the same transaction
        gives the number after. If another writer takes the number first, the commit raises
        :class:`SequenceContended` and nothing is written; ``db.run_transaction(block)`` then runs the block
        again. Awaitable in an ``AsyncTransaction``."""
        return _transaction.drive(tx, self._draw(tx))

    def _draw(self, tx: TransactionParts) -> Steps[int]:
        dest = tx.dest
        slot = (dest.table_name, frozen_key(self.counter.item_key()), self.field)
        before = tx.draws.get(slot)
        if before is None:
            stored = yield from self._stored(dest)
            number = self._last(dest, stored) + 1
        else:
            stored, number = before.stored, before.number + 1
        parts, _, _ = yield from plan_update(
            dest, self.counter, (), self._unchanged(stored), {self.field: number}, upsert=True
        )
        parts[0].label = PartLabel("sequence", self.counter.meta.type, field=self.field)
        _record_draw(tx, slot, Draw(self, stored, number, parts))
        return number

    def _contended(self) -> SequenceContended:
        return SequenceContended(
            f"Sequence on {self.counter.meta.type}.{self.field}: another writer took the next number under "
            f"each of {self.attempts} attempts; nothing was written -- try again, or raise attempts=...",
            self,
        )

    def _retried(self, attempt: int) -> Sleep:
        """Count a retry; the jittered backoff before it."""
        with self._lock:
            self.retries += 1
        return Sleep(random.uniform(0, min(0.05, 0.001 * 2 ** min(attempt, 6))))

    def __repr__(self) -> str:
        return f"Sequence({self.counter.meta.type}.{self.field} at {dict(self.counter.values)!r})"


class Retries:
    """The retries of a block that drew numbers (``Sequence.create``, ``db.run_transaction``): after each
    lost race, the backoff before the next attempt -- until the sequence's ``attempts`` are spent, then the
    final :class:`SequenceContended` (with the last attempt's cancellations)."""

    def __init__(self) -> None:
        self.attempt = 0

    def after(self, lost: SequenceContended) -> Sleep:
        sequence: Sequence = lost.sequence
        self.attempt += 1
        if self.attempt >= sequence.attempts:
            final = sequence._contended()
            final.cancellations = lost.cancellations
            raise final from None
        return sequence._retried(self.attempt - 1)


def _record_draw(tx: TransactionParts, slot: tuple[Any, ...], draw: Draw) -> None:
    """Record a number drawn: its counter's parts join the transaction, in place of an earlier draw's from
    the same sequence (whose number this one follows)."""
    before = tx.draws.get(slot)
    if before is None:
        tx.parts += draw.parts
    else:
        at = next(i for i, part in enumerate(tx.parts) if part is before.parts[0])
        tx.parts[at : at + len(before.parts)] = draw.parts
    tx.draws[slot] = draw
