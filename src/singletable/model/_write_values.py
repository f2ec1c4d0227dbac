"""The first stage of a write: the field values it stores, checked against the entity.

A whole-entity write (create, put, a batch put) takes the entity's field values and stamps them -- createdAt
on a new item, updatedAt always. A partial update's actions are checked (each names a field of this entity,
none changes the primary key), and sorted into what the update knows: the values it sets or removes, the
fields it touches, and those whose new value depends on the stored one. Keys are planned from these values
next (:mod:`singletable.model._write_keys`); the values become AttributeValues through each field's codec
(:mod:`singletable.model._field_values`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from singletable.model._bounds import BoundCheck
from singletable.model._entity import Entity
from singletable.model._entity_meta import EntityMeta, KeyRef, refuse_empty_key
from singletable.model._errors import KeyTemplateError, MissingFields
from singletable.model._expr import Action
from singletable.model._field_checks import checked_actions
from singletable.model._field_values import AV


def utc_now() -> datetime:
    """The default clock: the current time, timezone-aware UTC."""
    return datetime.now(UTC)


def stamp(meta: EntityMeta, values: dict[str, Any], now: datetime, creating: bool) -> None:
    """Keep the entity's timestamps: createdAt when ``creating`` and not given, updatedAt always."""
    if meta.created and (creating and values.get(meta.created) is None):
        values[meta.created] = now
    if meta.updated:
        values[meta.updated] = now


def check_actions(meta: EntityMeta, actions: list[Action]) -> None:
    """Every action is on a field of this entity, and none changes the primary key (a new item)."""
    for action in actions:
        if action.path.entity != meta.type:
            raise KeyTemplateError(f"{action!r} is a field of {action.path.entity}, not {meta.type}")
        if action.path.field in meta.primary_fields:
            raise KeyTemplateError(
                f"{meta.type}.{action.path.field} is part of the primary key; a changed key is a new item: "
                "create the new entity and delete the old one (in one transaction)"
            )


@dataclass(slots=True)
class UpdateValues:
    """What a partial update writes, as the first stage sees it: the entity type, the primary key, the
    version the caller holds (None for a key), the actions (updatedAt included), the field values known
    after the update, the fields it touches, those whose new value depends on the stored one, and the
    touched fields that feed uniqueness guards or derived items (the stored item is read for those)."""

    meta: EntityMeta
    key: dict[str, AV]
    expected_version: int | None
    actions: list[Action]
    known: dict[str, Any]
    touched: set[str]
    unknown: set[str]
    watched: frozenset[str]
    now: datetime
    # Numbers the update computes on the server, kept inside their declared bounds by conditions.
    bounds: list[BoundCheck] = field(default_factory=list)


def update_values(
    target: Any, actions: Iterable[Action], sets: Mapping[str, Any], now: datetime
) -> UpdateValues:
    """The update's values: its target addressed, its actions (and ``field=value`` sets) checked -- each
    value against the field's declared validation (:mod:`singletable.model._field_checks`) -- and
    updatedAt set to ``now`` unless the caller sets it."""
    meta, given, expected_version = address(target)
    key = meta.primary_key(given)
    actions = list(actions) + [getattr(meta.cls.f, name).set(value) for name, value in sets.items()]
    check_actions(meta, actions)
    actions, bounds = checked_actions(meta, actions)  # each value as the field's validation accepts it
    known: dict[str, Any] = {n: given[n] for n in meta.primary_fields}
    touched: set[str] = set()
    unknown: set[str] = set()
    for action in actions:
        touched.add(action.path.field)
        if action.path.field in meta.field_keys and action.path.top_level:
            refuse_empty_key(meta, action.path.field, action.value)
        if action.known:
            known[action.path.field] = None if action.kind == "remove" else action.value
        else:
            unknown.add(action.path.field)
    if meta.updated and meta.updated not in touched:
        known[meta.updated] = now
        touched.add(meta.updated)
        actions.append(getattr(meta.cls.f, meta.updated).set(now))
    watched = watched_fields(meta) & touched
    return UpdateValues(meta, key, expected_version, actions, known, touched, unknown, watched, now, bounds)


# Actions that leave a top-level field with a value even when the item did not exist.
_GIVES_VALUE = ("add", "append", "prepend", "if_not_exists")


def upsert_fill(meta: EntityMeta, change: UpdateValues) -> dict[str, Any]:
    """What an upsert stores besides its actions if it creates the item: the primary-key fields and every
    field it does not set that has a default (``if_not_exists``, so an existing item keeps its own). A
    required field it does not set would be missing from a created item, which every read refuses:
    :class:`MissingFields`, nothing sent."""
    given = {n for n, v in change.known.items() if v is not None}
    given.update(a.path.field for a in change.actions if a.path.top_level and a.kind in _GIVES_VALUE)
    missing = [
        name
        for name, spec in meta.fields.items()
        if spec.required and name not in given and name not in meta.primary_fields
    ]
    if missing:
        raise MissingFields(meta.type, missing)
    fill: dict[str, Any] = {}
    for name, spec in meta.fields.items():
        if name in change.touched or not spec.stored or spec.attribute in meta.keys:
            continue  # (a field stored in a key attribute of its own name is written with the keys)
        if name in meta.primary_fields:  # stored as attributes too, as a create writes them
            fill[name] = change.known[name]
            continue
        default = meta.cls.model_fields[name].get_default(call_default_factory=True)
        if default is not None and spec.codec.dump(default) is not None:  # an empty set is not stored
            fill[name] = default
    return fill


def address(target: KeyRef | Entity) -> tuple[EntityMeta, dict[str, Any], int | None]:
    """What a write addresses: the entity type, the given field values, and the version an entity holds
    (None for a key, which checks no version)."""
    if isinstance(target, Entity):
        meta = type(target).model_entity()
        version = target.__dict__.get(meta.version) if meta.version else None
        return meta, dict(target.__dict__), version
    return target.meta, dict(target.values), None


def watched_fields(meta: EntityMeta) -> frozenset[str]:
    """Fields whose change needs the stored item first: unique fields and the fields scoping their guards,
    and derived items' sources (worked out once per entity: every update asks)."""
    watched = meta.__dict__.get("_watched")
    if watched is None:
        found = {name for fields in meta.guard_fields.values() for name in fields}
        for derived in meta.derived:
            found.update(derived.on or ())
        watched = meta.__dict__["_watched"] = frozenset(found)
    return watched
