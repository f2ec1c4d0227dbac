"""An owner's derived items follow it when a migration changes its key or its type.

A derived item is computed from its owner's field values by a declaration on the owner's entity (model:
``Derived``). When a re-key, split or merge rewrites an owner, the items the *old* declaration called for are
replaced by those the *new* one calls for, in the owner's own TransactWriteItems, so no reader ever sees an
owner without its derived items or with stale ones. Which items and what each holds come from the model
(:mod:`singletable.model.shared`), so the migrated table holds exactly what a fresh write of the owner
would: an item both declarations call for, equal in both, is left alone; one only the old calls for is
deleted; any other is put.

Each part is conditioned so that it can only touch a derived item: the key is free or holds an item of a
type one of the two declarations derives there. Sent twice, the transaction fails on its owner's condition
(the owner is no longer the image read) and the step reads the owner again, so a page redone after a crash
converges.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from singletable.migrate._items import Item, primary_key, same_item
from singletable.model import EntityMeta
from singletable.model.shared import derived_item, owned_by_key

Part = dict[str, Any]


@dataclass(slots=True)
class DerivedMove:
    """The transaction parts taking an owner's derived items from its old declaration's to its new one's."""

    deletes: list[Part] = field(default_factory=list)  # items only the old declaration called for
    puts: list[Part] = field(default_factory=list)  # the new declaration's items, where not already so
    wanted: list[Item] = field(default_factory=list)  # every item the new declaration calls for

    @property
    def parts(self) -> list[Part]:
        return self.deletes + self.puts

    @property
    def items(self) -> list[Item]:
        """What the puts write (the plan counts and checks them)."""
        return [part["Put"]["Item"] for part in self.puts]


def derived_move(
    old: EntityMeta,
    old_values: Mapping[str, Any] | None,
    new: EntityMeta,
    new_values: Mapping[str, Any] | None,
) -> DerivedMove:
    """What moving one owner from ``old`` (its values as stored) to ``new`` does to its derived items; see
    the module docstring. ``None`` values: the owner is not there on that side."""
    move = DerivedMove()
    if not (old.derived or new.derived):
        return move
    now = datetime.datetime.now(datetime.UTC)
    before = {key: derived_item(e, now) for key, e in owned_by_key(old, old_values).items()}
    after = {key: derived_item(e, now) for key, e in owned_by_key(new, new_values).items()}
    for key, item in before.items():
        if key not in after:
            condition = _derived_here(old, [item])
            move.deletes.append({"Delete": {"Key": primary_key(item, old.table), **condition}})
    for key, item in after.items():
        move.wanted.append(item)
        was = before.get(key)
        if was is not None and same_item(was, item):
            continue
        condition = _derived_here(new, [item] if was is None else [item, was])
        move.puts.append({"Put": {"Item": item, **condition}})
    return move


def _derived_here(meta: EntityMeta, derived: list[Item]) -> dict[str, Any]:
    """The condition that the key of ``derived[0]`` is free or holds an item of one of ``derived``'s types
    (a derived item, never an owner or another entity's item that happens to share the key)."""
    table = meta.table
    types = list(dict.fromkeys(item[table.type_attribute]["S"] for item in derived))
    values = {f":d{n}": {"S": kind} for n, kind in enumerate(types)}
    return {
        "ConditionExpression": f"attribute_not_exists(#dk) OR #dt IN ({', '.join(values)})",
        "ExpressionAttributeNames": {"#dk": table.pk_name, "#dt": table.type_attribute},
        "ExpressionAttributeValues": values,
    }
