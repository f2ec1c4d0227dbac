"""The second stage of a write: key attributes planned from the key templates and the values written.

A whole item gets its keys from :meth:`EntityMeta.to_item <singletable.model._entity_meta.EntityMeta.to_item>`
(every applicable key, sparse ones only while their condition holds). This module holds what the other writes
need: the guard item's key for a unique value, and -- for a partial update -- the new value of every index
key that reads a field the update changes (set in the same request), or None when it no longer applies
(removed). A key the update's own values decide needs nothing more (closing a task removes its sparse key
without the template's fields); one that needs fields the update does not give names them
(:func:`stored_fields_needed`), the planner reads them and conditions the update on them; one that needs a
field the update computes on the server is refused, naming it, rather than left stale.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from singletable.model._entity import Entity
from singletable.model._entity_meta import EntityMeta, refuse_unknown
from singletable.model._errors import MissingKeyFields, UnknownArgument
from singletable.model._field_values import AV
from singletable.model._templates import BoundKey


def guard_key(entity: type[Entity] | EntityMeta, name: str, value: Any, **scope: Any) -> dict[str, AV]:
    """The primary key of the guard item that holds ``value`` of the unique field ``name``:
    ``guard_key(User, "email", "a@x.com")`` (an entity class or its :class:`EntityMeta`). A guard scoped by
    other fields (``STORE#{store_id}#EMAIL#{email}``) takes them too:
    ``guard_key(Customer, "email", "a@x.com", store_id="s1")``."""
    meta = entity if isinstance(entity, EntityMeta) else entity.model_entity()
    if name not in meta.unique:
        raise UnknownArgument(f"guard_key({meta.type})", [name], list(meta.unique), "a unique field:")
    needs = meta.guard_fields[name]
    refuse_unknown(f"guard_key({meta.type}, {name!r})", scope, [n for n in needs if n != name])
    key = guard_key_of(meta, name, {**scope, name: value})
    if key is None:
        bound = meta.unique[name]
        raise MissingKeyFields(
            meta.type, bound.attribute, bound.template.text, [name], "a guard needs a value"
        )
    return key


def guard_key_of(meta: EntityMeta, name: str, values: Mapping[str, Any]) -> dict[str, AV] | None:
    """The key of the guard item an entity with these field ``values`` holds for unique field ``name``;
    None when the value is None (no guard). A scoping field missing from ``values`` is
    :class:`MissingKeyFields`, naming it."""
    if values.get(name) is None:
        return None
    bound = meta.unique[name]
    missing = bound.missing(values)
    if missing:
        raise MissingKeyFields(
            meta.type,
            bound.attribute,
            bound.template.text,
            missing,
            f"the guard item of {name} is keyed by it",
        )
    text = bound.render(values)
    key = {meta.table.pk_name: {"S": text}}
    if meta.table.sk_name:
        key[meta.table.sk_name] = {"S": text}
    return key


def frozen_key(key: dict[str, AV]) -> tuple[Any, ...]:
    """A key as a hashable value, whatever the order of its attributes."""
    return tuple(sorted((k, next(iter(v.values()))) for k, v in key.items()))


def _applies(bound: BoundKey, values: Mapping[str, Any]) -> bool | None:
    """Whether ``bound`` (or its alternative) is written for ``values``, or None when that depends on a
    field ``values`` does not hold. A template field that is None, or a condition whose fields are all
    known and that is false, decides it without the other fields."""
    undecided = False
    for name in bound.template.fields:
        if name not in values:
            undecided = True
        elif values[name] is None:
            return _otherwise(bound, values)
    if bound.when is not None:
        if all(name in values for name in bound.when_fields):
            if not bound.when(**{name: values[name] for name in bound.when_fields}):
                return _otherwise(bound, values)
        else:
            undecided = True
    return None if undecided else True


def _otherwise(bound: BoundKey, values: Mapping[str, Any]) -> bool | None:
    return False if bound.otherwise is None else _applies(bound.otherwise, values)


def stored_fields_needed(
    meta: EntityMeta, known: Mapping[str, Any], touched: set[str], unknown: set[str]
) -> list[str]:
    """The fields a partial update must read from the stored item to rebuild the index keys it changes:
    those of every key that reads a touched field and that the update's own values do not decide. A key
    that needs a field the update changes arithmetically (its new value is only known on the server) is
    refused, naming the field."""
    needed: dict[str, None] = {}
    for bound in meta.secondary_keys:
        needs = bound.needs
        if not touched.intersection(needs) or _applies(bound, known) is not None:
            continue
        blocked = [name for name in needs if name in unknown]
        if blocked:
            raise MissingKeyFields(
                meta.type,
                bound.attribute,
                bound.template.text,
                blocked,
                f"the update computes {' and '.join(blocked)} from the stored value (add, subtract, "
                "append...), so the new value is not known to rebuild the key; "
                "set it to its new value instead",
            )
        for name in needs:
            if name not in known:
                needed[name] = None
    return list(needed)


def rebuilt_keys(
    meta: EntityMeta, values: Mapping[str, Any], touched: set[str]
) -> list[tuple[str, AV | None]]:
    """The index keys a partial update changes: every key that reads a touched field, with its new value,
    or None when it no longer applies (it is removed). ``values`` are the update's known values, completed
    with the stored ones :func:`stored_fields_needed` asked for."""
    out: list[tuple[str, AV | None]] = []
    for bound in meta.secondary_keys:
        if not touched.intersection(bound.needs):
            continue
        applies = _applies(bound, values)
        if applies is None:  # stored_fields_needed read every field that decides it
            raise MissingKeyFields(
                meta.type, bound.attribute, bound.template.text, [n for n in bound.needs if n not in values]
            )
        out.append((bound.attribute, bound.value(values) if applies else None))
    return out


def untouched_keys(
    meta: EntityMeta, values: Mapping[str, Any], touched: set[str]
) -> list[tuple[str, AV | None]]:
    """The index keys that read no field an upsert touches, as an item created from ``values`` has them
    (None: not written). For an item that exists they are what is stored already: an upsert that cannot
    tell which (:func:`upsert_reads`) reads the item first."""
    out: list[tuple[str, AV | None]] = []
    for bound in meta.secondary_keys:
        if touched.intersection(bound.needs):
            continue
        applies = _applies(bound, values)
        if applies is None:
            raise MissingKeyFields(
                meta.type, bound.attribute, bound.template.text, [n for n in bound.needs if n not in values]
            )
        out.append((bound.attribute, bound.value(values) if applies else None))
    return out


def upsert_reads(meta: EntityMeta, touched: set[str]) -> bool:
    """Whether an upsert must read the item to write it right: if it creates the item, keys built from fields
    it does not set, guards and derived items must be written too, and if the item exists they must be left
    as they are. Keys built only from primary-key fields (or none) are the same either way; a counter
    (``db.update(key, Counter.f.value.add(1), upsert=True)``) stays one request."""
    if meta.unique or meta.derived:
        return True
    primary = meta.primary_names
    return any(
        not touched.intersection(bound.needs) and any(name not in primary for name in bound.needs)
        for bound in meta.secondary_keys
    )


def declared_attributes(meta: EntityMeta) -> list[str]:
    """Every attribute an item of this entity may hold: its stored fields and its keys."""
    cached = meta.__dict__.get("_declared")
    if cached is None:
        cached = [f.attribute for f in meta.fields.values() if f.stored] + list(meta.keys)
        meta.__dict__["_declared"] = cached
    return cached
