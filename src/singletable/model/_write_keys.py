"""The second stage of a write: key attributes planned from the key templates and the values written.

A whole item gets its keys from :meth:`EntityMeta.to_item <singletable.model._entity_meta.EntityMeta.to_item>`
(every applicable key, sparse ones only while their condition holds). This module holds what the other writes
need: the guard item's key for a unique value, and -- for a partial update -- the new value of every index
key that reads a field the update changes (set in the same request), or None when it no longer applies
(removed), or a refusal naming the missing fields rather than a stale index.
"""

from __future__ import annotations

from typing import Any

from singletable.model._codecs import AV
from singletable.model._entity import Entity
from singletable.model._entity_meta import EntityMeta
from singletable.model._errors import MissingKeyFields


def guard_key(entity: type[Entity] | EntityMeta, name: str, value: Any) -> dict[str, AV]:
    """The primary key of the guard item that holds ``value`` of the unique field ``name``:
    ``guard_key(User, "email", "a@x.com")`` (an entity class or its :class:`EntityMeta`)."""
    meta = entity if isinstance(entity, EntityMeta) else entity.model_entity()
    text = meta.unique[name].render({name: value})
    key = {meta.table.pk_name: {"S": text}}
    if meta.table.sk_name:
        key[meta.table.sk_name] = {"S": text}
    return key


def frozen_key(key: dict[str, AV]) -> tuple[Any, ...]:
    """A key as a hashable value, whatever the order of its attributes."""
    return tuple(sorted((k, next(iter(v.values()))) for k, v in key.items()))


def rebuilt_keys(
    meta: EntityMeta, known: dict[str, Any], touched: set[str], unknown: set[str]
) -> list[tuple[str, AV | None]]:
    """The index keys a partial update changes: every key that reads a touched field, with its new value,
    or None when it no longer applies (it is removed); if its other fields are unknown we refuse rather
    than leave an index stale."""
    out: list[tuple[str, AV | None]] = []
    for bound in meta._secondary:
        needs = bound.needs
        if not touched.intersection(needs):
            continue
        missing = [n for n in needs if n not in known or n in unknown]
        if missing and bound.otherwise is None and any(n in known and known[n] is None for n in needs):
            out.append((bound.attribute, None))  # a needed field is gone: the key cannot apply
            continue
        if missing:
            changed = sorted(touched.intersection(needs))
            raise MissingKeyFields(
                meta.type,
                bound.attribute,
                bound.template.text,
                missing,
                f"updating {', '.join(changed)} changes it; pass "
                f"{', '.join(missing)} in the same update so the key can be rebuilt",
            )
        out.append((bound.attribute, bound.value(known) if bound.applies(known) else None))
    return out


def declared_attributes(meta: EntityMeta) -> list[str]:
    """Every attribute an item of this entity may hold: its stored fields and its keys."""
    cached = meta.__dict__.get("_declared")
    if cached is None:
        cached = [f.attribute for f in meta.fields.values() if f.stored] + list(meta.keys)
        meta.__dict__["_declared"] = cached
    return cached
