"""``db.transaction()``: entity writes, checks and raw requests gathered, then sent as one TransactWriteItems.

Each call is planned at once (:mod:`singletable.model._write_plans`), so a mistake raises where it was made;
the parts are sent together on exit (:mod:`singletable.model._write_runner`), all or nothing.
"""

from __future__ import annotations

from typing import Any

from singletable.model._entity import Entity
from singletable.model._entity_meta import KeyRef, refuse_unknown
from singletable.model._expr import Action, Cond
from singletable.model._write_plans import plan_check, plan_create, plan_delete, plan_put, plan_update
from singletable.model._write_requests import PartLabel, RequestPart, WriteTarget
from singletable.model._write_runner import SINGLE, send


class Transaction:
    """Gathers entity writes, checks and raw requests; sent as one TransactWriteItems on exit."""

    def __init__(self, dest: WriteTarget) -> None:
        self.dest = dest
        self.parts: list[RequestPart] = []

    def create(self, entity: Entity) -> Entity:
        parts, result = plan_create(self.dest, entity)
        self.parts += parts
        return result

    def put(self, entity: Entity, *, condition: Cond | None = None) -> Entity:
        parts, result = plan_put(self.dest, entity, condition, read=True)  # no retry inside a transaction
        self.parts += parts
        return result

    def update(
        self,
        target: Any,
        /,
        *actions: Action,
        condition: Cond | None = None,
        upsert: bool = False,
        **sets: Any,
    ) -> None:
        parts, _, _ = plan_update(self.dest, target, actions, condition, sets, upsert)
        self.parts += parts

    def delete(self, target: Any, /, *, condition: Cond | None = None, **key: Any) -> None:
        if isinstance(target, type):
            refuse_unknown(f"tx.delete({target.__name__})", key, target.model_entity().primary_fields)
            target = target.key(**key)
        elif key:
            refuse_unknown("tx.delete(a key or an entity)", key, ())
        self.parts += plan_delete(self.dest, target, condition)[0]

    def check(self, target: KeyRef | Entity, condition: Cond) -> None:
        """Fail the whole transaction unless ``condition`` holds on that item."""
        self.parts.append(plan_check(self.dest, target, condition))

    def raw(self, request: dict[str, Any]) -> None:
        """A TransactWriteItems element written by hand: ``{"Put": {"Item": {...}}}`` (TableName optional)."""
        ((kind, params),) = request.items()
        self.parts.append(RequestPart(kind, {"TableName": self.dest.table_name, **params}, PartLabel("raw")))

    def commit(self) -> None:
        if self.parts:
            single = len(self.parts) == 1 and self.parts[0].kind in SINGLE
            send(self.dest.call, self.parts, transaction=not single)
            self.parts = []

    def __enter__(self) -> Transaction:
        return self

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        if kind is None:
            self.commit()
