"""``db.transaction()``: entity writes, checks and raw requests gathered, then sent as one TransactWriteItems.

Each call is planned at once (:mod:`singletable.model._write_plans`), so a mistake raises where it was made;
the parts are sent together on exit (:mod:`singletable.model._write_runner`), all or nothing.
:class:`TransactionParts` holds the gathering as steps (:mod:`singletable.model._steps`), shared by the
synchronous :class:`Transaction` here and ``AsyncTransaction`` (:mod:`singletable.model._async_db`), which
only drive them.

A number drawn from a :class:`~singletable.model.Sequence` (``seq.draw(tx)``) is a :class:`Draw`: the
counter's update to that number, conditioned on the counter holding what was read, is one of the parts. If
another writer moved the counter first, DynamoDB cancels the whole transaction on that part, and the commit
raises :class:`SequenceContended` -- which ``db.run_transaction`` answers by running its block again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

from singletable.model._entity import Entity
from singletable.model._entity_meta import KeyRef, refuse_unknown
from singletable.model._errors import ModelError, SequenceContended
from singletable.model._expr import Action, Cond
from singletable.model._steps import Call, Steps, run
from singletable.model._write_plans import plan_check, plan_create, plan_delete, plan_put, plan_update
from singletable.model._write_requests import PartLabel, RequestPart
from singletable.model._write_runner import SINGLE, send
from singletable.model._write_target import WriteTarget

E = TypeVar("E", bound=Entity)

# Cancellation codes that mean "another writer got there first": retried when a number was drawn.
LOST_RACE = {"TransactionConflict"}


@dataclass(slots=True)
class Draw:
    """The numbers a transaction drew from one sequence: the counter attribute as read (None: not stored
    yet), the last number drawn, and the parts that move the counter to it (the first is the counter's
    update)."""

    sequence: Any  # the Sequence (this module stays below it)
    stored: dict[str, Any] | None
    number: int
    parts: list[RequestPart]


class TransactionParts:
    """The parts of one transaction, and each call's planning as steps (reads the driver sends)."""

    def __init__(self, dest: WriteTarget) -> None:
        self.dest = dest
        self.parts: list[RequestPart] = []
        # Numbers drawn, by sequence (table, counter key, field): a second draw replaces the first's parts.
        self.draws: dict[tuple[Any, ...], Draw] = {}

    def _create(self, entity: E) -> E:
        parts, result = plan_create(self.dest, entity)
        self.parts += parts
        return result

    def _drive(self, steps: Steps[Any]) -> Any:
        """Run ``steps`` (a sequence's draw) with this transaction's call, or an awaitable of it."""
        raise NotImplementedError

    def _put(self, entity: E, condition: Cond | None) -> Steps[E]:
        parts, result = yield from plan_put(self.dest, entity, condition, read=True)  # no retry in here
        self.parts += parts
        return result

    def _update(
        self, target: Any, actions: tuple[Action, ...], condition: Cond | None, upsert: bool, sets: Any
    ) -> Steps[None]:
        parts, _, _ = yield from plan_update(self.dest, target, actions, condition, sets, upsert)
        self.parts += parts

    def _delete(
        self, target: type[Entity] | KeyRef | Entity, condition: Cond | None, key: dict[str, Any]
    ) -> Steps[None]:
        if isinstance(target, type):
            refuse_unknown(f"tx.delete({target.__name__})", key, target.model_entity().primary_fields)
            target = target.key(**key)
        elif key:
            refuse_unknown("tx.delete(a key or an entity)", key, ())
        parts, _ = yield from plan_delete(self.dest, target, condition)
        self.parts += parts

    def _check(self, target: KeyRef | Entity, condition: Cond) -> None:
        self.parts.append(plan_check(self.dest, target, condition))

    def _raw(self, request: dict[str, Any]) -> None:
        ((kind, params),) = request.items()
        self.parts.append(RequestPart(kind, {"TableName": self.dest.table_name, **params}, PartLabel("raw")))

    def commit_steps(self) -> Steps[None]:
        if self.parts:
            single = not self.draws and len(self.parts) == 1 and self.parts[0].kind in SINGLE
            try:
                yield from send(self.parts, transaction=not single, dest=self.dest)
            except ModelError as error:
                lost = self._lost_race(error)
                if lost is None:
                    raise
                raise lost from None
            self.parts = []
            self.draws = {}

    def _lost_race(self, error: ModelError) -> SequenceContended | None:
        """When the transaction was cancelled because a drawn number was taken first (the counter's
        condition failed) or a concurrent transaction conflicted: the :class:`SequenceContended` to raise."""
        if not self.draws or not error.cancellations:
            return None
        codes = {c.index: c.code for c in error.cancellations}
        conflict = any(code in LOST_RACE for code in codes.values())
        for draw in self.draws.values():
            at = next(i for i, part in enumerate(self.parts) if part is draw.parts[0])
            if conflict or codes.get(at) == "ConditionalCheckFailed":
                sequence = draw.sequence
                lost = SequenceContended(
                    f"Sequence on {sequence.counter.meta.type}.{sequence.field}: another writer took number "
                    f"{draw.number} (or a concurrent transaction conflicted) before this transaction was "
                    "committed; nothing was written -- db.run_transaction(block) runs the block again with "
                    "the next number",
                    sequence,
                    draw.number,
                )
                lost.cancellations = error.cancellations
                return lost
        return None


class Transaction(TransactionParts):
    """Gathers entity writes, checks and raw requests; sent as one TransactWriteItems on exit."""

    def __init__(self, dest: WriteTarget, call: Call) -> None:
        super().__init__(dest)
        self.call = call

    def create(self, entity: E) -> E:
        return self._create(entity)

    def put(self, entity: E, *, condition: Cond | None = None) -> E:
        return run(self._put(entity, condition), self.call)

    def update(
        self,
        target: Any,
        /,
        *actions: Action,
        condition: Cond | None = None,
        upsert: bool = False,
        **sets: Any,
    ) -> None:
        run(self._update(target, actions, condition, upsert, sets), self.call)

    def delete(self, target: Any, /, *, condition: Cond | None = None, **key: Any) -> None:
        run(self._delete(target, condition, key), self.call)

    def check(self, target: KeyRef | Entity, condition: Cond) -> None:
        """Fail the whole transaction unless ``condition`` holds on that item."""
        self._check(target, condition)

    def raw(self, request: dict[str, Any]) -> None:
        """A TransactWriteItems element written by hand: ``{"Put": {"Item": {...}}}`` (TableName optional)."""
        self._raw(request)

    def commit(self) -> None:
        run(self.commit_steps(), self.call)

    def _drive(self, steps: Steps[Any]) -> Any:
        """Run ``steps`` (a sequence's draw) with this transaction's call."""
        return run(steps, self.call)

    def __enter__(self) -> Transaction:
        return self

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        if kind is None:
            self.commit()


def drive(parts: TransactionParts, steps: Steps[Any]) -> Any:
    """Run ``steps`` with the transaction's call (awaitable in an ``AsyncTransaction``): for a
    :class:`~singletable.model.Sequence` drawing a number into it."""
    return parts._drive(steps)
