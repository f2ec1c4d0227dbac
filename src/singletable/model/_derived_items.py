"""An owner's derived items as the model stores them, computed in one place.

The model's writes swap an owner's derived items when it changes (:mod:`singletable.model._write_plans`), and
a migration moves them when the owner changes key or type (:mod:`singletable.migrate`); both ask here which
items a declaration calls for -- by primary key, so two sets compare by key -- and what each is as stored, so
a migrated table holds exactly the derived items a fresh write would.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from singletable.model._derived import Derived
from singletable.model._entity_meta import EntityMeta
from singletable.model._field_values import AV
from singletable.model._write_keys import frozen_key
from singletable.model._write_values import stamp

FrozenKey = tuple[Any, ...]


def derived_by_key(derived: Derived, owner: Mapping[str, Any] | None) -> dict[FrozenKey, Any]:
    """The entities ``derived`` calls for an owner's field values, by their primary key (frozen, hashable);
    empty for no owner."""
    if not owner:
        return {}
    return {frozen_key(entity.key().item_key()): entity for entity in derived.items(owner)}


def owned_by_key(meta: EntityMeta, owner: Mapping[str, Any] | None) -> dict[FrozenKey, Any]:
    """Every derived entity ``meta``'s declarations call for an owner's values, by primary key."""
    out: dict[FrozenKey, Any] = {}
    for derived in meta.derived:
        out.update(derived_by_key(derived, owner))
    return out


def derived_item(entity: Any, now: datetime) -> dict[str, AV]:
    """A derived entity as the model stores it: its timestamps stamped at ``now``, as on a create."""
    target = entity.model_entity()
    values = target.values(entity)
    stamp(target, values, now, creating=True)
    return target.to_item(values)
