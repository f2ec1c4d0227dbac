"""``db.transaction()``: entity writes, checks and raw requests gathered, then sent as one TransactWriteItems.

Each call is planned at once (:mod:`singletable.model._write_plans`), so a mistake raises where it was made;
the parts are sent together on exit (:mod:`singletable.model._write_runner`), all or nothing.
:class:`TransactionParts` holds the gathering as steps (:mod:`singletable.model._steps`), shared by the
synchronous :class:`Transaction` here and ``AsyncTransaction`` (:mod:`singletable.model._async_db`), which
only drive them.
"""

from __future__ import annotations

from typing import Any, TypeVar

from singletable.model._entity import Entity
from singletable.model._entity_meta import KeyRef, refuse_unknown
from singletable.model._expr import Action, Cond
from singletable.model._steps import Call, Steps, run
from singletable.model._write_plans import plan_check, plan_create, plan_delete, plan_put, plan_update
from singletable.model._write_requests import PartLabel, RequestPart, WriteTarget
from singletable.model._write_runner import SINGLE, send

E = TypeVar("E", bound=Entity)


class TransactionParts:
    """The parts of one transaction, and each call's planning as steps (reads the driver sends)."""

    def __init__(self, dest: WriteTarget) -> None:
        self.dest = dest
        self.parts: list[RequestPart] = []

    def _create(self, entity: E) -> E:
        parts, result = plan_create(self.dest, entity)
        self.parts += parts
        return result

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

    def _commit(self) -> Steps[None]:
        if self.parts:
            single = len(self.parts) == 1 and self.parts[0].kind in SINGLE
            yield from send(self.parts, transaction=not single)
            self.parts = []


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
        run(self._commit(), self.call)

    def __enter__(self) -> Transaction:
        return self

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        if kind is None:
            self.commit()
