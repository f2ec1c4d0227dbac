"""Numbers an update computes on the server (``add``, ``subtract``) kept inside their declared bounds.

The result of ``add(-5)`` is only known on the server, so each numeric bound of the field (``ge``, ``gt``,
``le``, ``lt``) becomes a condition on the stored value (:class:`BoundCheck`): DynamoDB refuses a result out
of bounds and nothing is written. When that condition is what failed -- alone or inside a transaction --
:func:`bound_refusal` recomputes the result from the stored item the failure returned and words it as the
field's refusal (:class:`OutOfBounds`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import annotated_types

from singletable.model._errors import OutOfBounds
from singletable.model._expr import Cond, Path


@dataclass(slots=True, eq=False)
class BoundCheck:
    """A number the update computes on the server (``add``/``subtract``) and the field's declared bounds:
    the update is conditioned on the stored value leaving the result inside them."""

    entity: str
    field: str
    path: Path
    kind: str
    delta: Any
    bounds: tuple[Any, ...]

    def _change(self) -> Any:
        return -self.delta if self.kind == "subtract" else self.delta

    def condition(self) -> Cond | None:
        """The stored value that keeps ``stored + change`` in bounds; a missing attribute counts as 0 for
        ``add`` (DynamoDB's ADD starts there) and fails ``subtract``."""
        change = self._change()
        conds: list[Cond] = []
        fresh_ok = self.kind == "add" and _inside(change, self.bounds)
        for bound in self.bounds:
            conds.append(_stored_bound(self.path, bound, change))
        cond = conds[0]
        for more in conds[1:]:
            cond = cond & more
        return self.path.not_exists() | cond if fresh_ok else cond

    def violated(self, stored: Any) -> str | None:
        """Why the result of this update on ``stored`` (None: absent) breaks a bound, or None."""
        change = self._change()
        if stored is None:
            if self.kind == "subtract":
                return None
            result = change
        else:
            result = _plus(stored, change)
        for bound in self.bounds:
            if not _inside(result, (bound,)):
                return f"{self.kind}({self.delta!r}) would make it {result!r}, {_bound_text(bound)}"
        return None


def _stored_bound(path: Path, bound: Any, change: Any) -> Cond:
    if isinstance(bound, annotated_types.Ge):
        return path >= _plus(bound.ge, -change)
    if isinstance(bound, annotated_types.Gt):
        return path > _plus(bound.gt, -change)
    if isinstance(bound, annotated_types.Le):
        return path <= _plus(bound.le, -change)
    return path < _plus(bound.lt, -change)


def _plus(a: Any, b: Any) -> Any:
    """``a + b`` for numbers of any two kinds (a Decimal and a float are added as decimals, as DynamoDB
    adds them)."""
    if isinstance(a, Decimal) != isinstance(b, Decimal):
        return Decimal(str(a)) + Decimal(str(b))
    return a + b


def _inside(value: Any, bounds: Iterable[Any]) -> bool:
    for bound in bounds:
        if isinstance(bound, annotated_types.Ge) and not value >= bound.ge:
            return False
        if isinstance(bound, annotated_types.Gt) and not value > bound.gt:
            return False
        if isinstance(bound, annotated_types.Le) and not value <= bound.le:
            return False
        if isinstance(bound, annotated_types.Lt) and not value < bound.lt:
            return False
    return True


def _bound_text(bound: Any) -> str:
    for attr, words in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<")):
        if hasattr(bound, attr):
            return f"which must be {words} {getattr(bound, attr)!r}"
    return str(bound)


def bound_refusal(bounds: list[BoundCheck] | None, item: Any, plain: bool) -> OutOfBounds | None:
    """After an update's condition failed (``plain``: not a version conflict), with the stored item it
    returned: the :class:`OutOfBounds` of the first number whose result would break its bounds, or None
    when the failure is something else (the caller's condition, a concurrent change). Alone or inside a
    transaction, the same error."""
    if not bounds or not plain:
        return None
    for bound in bounds:
        stored = _stored_number(item, bound.path)
        why = bound.violated(stored)
        if why is not None:
            expected = bound.path.codec.expected
            return OutOfBounds(bound.entity, bound.field, expected, bound.delta, why, item=item)
    return None


def _stored_number(item: Any, path: Path) -> Any:
    """The number stored at ``path`` in a raw item (AttributeValues), or None if absent."""
    av: Any = {"M": item} if item else None
    for step in path.steps:
        if av is None:
            return None
        if "M" in av:
            av = av["M"].get(step) if isinstance(step, str) else None
        elif "L" in av and isinstance(step, int):
            av = av["L"][step] if 0 <= step < len(av["L"]) else None
        else:
            return None
    if av is None or "N" not in av:
        return None
    return path.codec.load(av) if path.codec.kind == "N" else Decimal(av["N"])
