"""The parts a planned write is made of, and the conditions they share.

An :class:`Op` is one request part; a :class:`Stored` is what an upsert assumes about the stored item's
createdAt (see :func:`singletable.model._writes.plan_put`). Kept apart from the planners so that running
writes (:mod:`batch <singletable.model._batch>`) and planning them depend on one small vocabulary.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from singletable.model._entity import EntityMeta
from singletable.model._expr import Compiler, Cond
from singletable.model._values import AV

if TYPE_CHECKING:
    from singletable.model._db import DB


@dataclass
class Op:
    """One part of a write. ``label`` says what a failed condition means (create, version, unique...)."""

    kind: str  # Put, Update, Delete, ConditionCheck
    params: dict[str, Any]
    label: tuple[Any, ...] = ("condition",)
    meta: EntityMeta | None = field(default=None, repr=False)
    # An upsert of an entity with createdAt-derived keys: what it assumed about the stored createdAt.
    assumed: Stored | None = None


@dataclass(frozen=True)
class Stored:
    """What a put assumes about the stored item's createdAt, as its raw AttributeValue.

    ``exists=None`` is the optimistic guess ("absent, or present with ``created``"): one request for a new
    entity and for one read back from the table. Anything else is an exact state, learnt from a read or from
    the stored item a failed guess returns (``ReturnValuesOnConditionCheckFailure``).
    """

    exists: bool | None
    created: AV | None = None

    @classmethod
    def of(cls, meta: EntityMeta, item: Mapping[str, AV] | None) -> Stored:
        if item is None:
            return cls(False)
        return cls(True, item.get(meta.attribute_of[meta.created])) if meta.created else cls(True)

    def admits(self, actual: Stored) -> bool:
        if self.exists is None:
            return not actual.exists or actual.created == self.created
        return self == actual

    def condition(self, meta: EntityMeta, c: Compiler) -> str:
        """The condition that makes the write valid only while this assumption holds."""
        if self.exists is False:
            return _not_exists(meta, c)
        created = c.name(meta.attribute_of[meta.created])  # type: ignore[index]
        if self.exists is None:
            return f"{_not_exists(meta, c)} OR {created} = {c.value(self.created)}"
        if self.created is None:
            return f"{_exists(meta, c)} AND attribute_not_exists({created})"
        return f"{created} = {c.value(self.created)}"


def stored_after_failure(op: Op, item: Mapping[str, AV] | None) -> Stored | None:
    """After a failed upsert: the stored createdAt state to retry with, or None if the guess was right (so
    the failure is the caller's condition or version, and is reported as such)."""
    if op.assumed is None or op.meta is None:
        return None
    actual = Stored.of(op.meta, item)
    return None if op.assumed.admits(actual) else actual


def _condition(c: Compiler, conds: Iterable[str | Cond | None]) -> str | None:
    parts = [x.compile(c) if isinstance(x, Cond) else x for x in conds if x is not None]
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else " AND ".join(f"({p})" for p in parts)


def _finish(params: dict[str, Any], c: Compiler, condition: str | None) -> dict[str, Any]:
    if condition:
        params["ConditionExpression"] = condition
    return c.into(params)


def _not_exists(meta: EntityMeta, c: Compiler) -> str:
    return f"attribute_not_exists({c.name(meta.table.pk_name)})"


def _exists(meta: EntityMeta, c: Compiler) -> str:
    return f"attribute_exists({c.name(meta.table.pk_name)})"


def _stamp(db: DB, meta: EntityMeta, values: dict[str, Any], creating: bool) -> Any:
    now = db.clock()
    if meta.created and (creating and values.get(meta.created) is None):
        values[meta.created] = now
    if meta.updated:
        values[meta.updated] = now
    return now
