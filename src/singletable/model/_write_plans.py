"""Planning writes: each entity write becomes a list of request parts, in the pipeline's order.

Each planner runs the stages once, in order: the table and, when the write depends on it, the stored item
(:mod:`singletable.model._write_target`), the values written (:mod:`singletable.model._write_values`),
the keys built from them (:mod:`singletable.model._write_keys`), the request parts with their compiled
expressions and labels (:mod:`singletable.model._write_requests`); :mod:`singletable.model._write_runner`
sends them. One part runs as a plain PutItem/UpdateItem/DeleteItem; several (an entity with its uniqueness
guards and derived items) run as one TransactWriteItems, and inside ``db.transaction()`` parts from many calls
are gathered into one. Planning is where the model's promises are kept: sparse index keys are computed from
the values being written, a partial update rebuilds every key that depends on a field it changes (from a
read of the fields it does not give, conditioned on them, or refuses naming the field), ``createdAt`` survives
upserts -- and so do the index keys built from it --,
versions are checked and bumped. What planning needs of the table (its name, the clock, a read of the stored
item) comes first, in a :class:`~singletable.model._write_target.WriteTarget`. A planner that may read the
stored item is steps (:mod:`singletable.model._steps`): it yields the GetItem and the DB's driver --
synchronous or async -- sends it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from singletable.model._derived_items import derived_by_key, derived_item
from singletable.model._entity import Entity
from singletable.model._entity_meta import EntityMeta, KeyRef
from singletable.model._errors import KeyTemplateError, NotFound
from singletable.model._expr import Action, Compiler, Cond
from singletable.model._field_checks import check_entity, fields_not_set, has_entity_rules, updated_entity
from singletable.model._field_values import AV
from singletable.model._steps import Steps
from singletable.model._write_echo import written_entity
from singletable.model._write_keys import (
    guard_key_of,
    rebuilt_keys,
    stored_fields_needed,
    untouched_keys,
    upsert_reads,
)
from singletable.model._write_requests import (
    PartLabel,
    RequestPart,
    Stored,
    conjoin,
    finish,
    item_label,
    not_exists,
    unchanged,
    update_keeping_created,
    update_request,
)
from singletable.model._write_target import WriteTarget
from singletable.model._write_values import (
    UpdateValues,
    address,
    stamp,
    update_values,
    upsert_fill,
)

# -- uniqueness guards and derived items -----------------------------------------------------------------

E = TypeVar("E", bound=Entity)


def _guard_ops(
    dest: WriteTarget,
    meta: EntityMeta,
    old: Mapping[str, Any] | None,
    new: Mapping[str, Any] | None,
    owner_key: dict[str, AV],
) -> list[RequestPart]:
    """Release the guards ``old`` held and claim those ``new`` holds, where their keys differ: a changed
    unique value, or a changed field scoping it (a customer moving to another store moves its email's
    guard)."""
    ops = []
    for name, fields in meta.guard_fields.items():
        before = guard_key_of(meta, name, _as_read(meta, old, fields)) if old else None
        after = guard_key_of(meta, name, _as_read(meta, new, fields)) if new else None
        if before == after:
            continue
        if before is not None:
            ops.append(
                RequestPart(
                    "Delete",
                    {"TableName": dest.table_name, "Key": before},
                    _guard_label("release", meta, name, old or {}),
                )
            )
        if after is not None:
            c = Compiler()
            item = {**after, "owner": {"M": owner_key}}
            for carried in meta.guard_carry.get(name, ()):
                av = meta.fields[carried].codec.dump(new[carried]) if new else None
                if av is not None:
                    item[meta.attribute_of[carried]] = av
            ops.append(
                RequestPart(
                    "Put",
                    finish({"TableName": dest.table_name, "Item": item}, c, not_exists(meta, c)),
                    _guard_label("claim", meta, name, new or {}),
                )
            )
    return ops


def _as_read(meta: EntityMeta, old: Mapping[str, Any], fields: tuple[str, ...]) -> Mapping[str, Any]:
    """The values a guard is built from, as a read of the item gives them: a field the item lacks (stored
    before the field was declared) takes its default."""
    missing = [n for n in fields if old.get(n) is None and not meta.fields[n].required]
    if not missing:
        return old
    model_fields = meta.cls.model_fields
    return {**old, **{n: model_fields[n].get_default(call_default_factory=True) for n in missing}}


def _guard_label(role: Any, meta: EntityMeta, name: str, values: Mapping[str, Any]) -> PartLabel:
    """A guard part's label: the unique field, its value and the fields scoping it (for messages)."""
    scope = tuple((field, values.get(field)) for field in meta.guard_fields[name] if field != name)
    return PartLabel(role, meta.type, field=name, value=values.get(name), scope=scope)


def _guard_inputs(meta: EntityMeta, touched: set[str] | None = None) -> list[str]:
    """The fields the guards are built from (of the guards reading a ``touched`` field, if given): a write
    that swaps guards is conditioned on them being stored as read."""
    out: dict[str, None] = {}
    for fields in meta.guard_fields.values():
        if touched is None or touched.intersection(fields):
            out.update(dict.fromkeys(fields))
    # Primary-key fields never change, and a field stored only inside a key has no attribute to condition.
    return [n for n in out if n not in meta.primary_names and meta.fields[n].stored]


def derived_ops(
    dest: WriteTarget, meta: EntityMeta, old: Mapping[str, Any] | None, new: Mapping[str, Any] | None
) -> list[RequestPart]:
    ops = []
    for derived in meta.derived:
        before, after = derived_by_key(derived, old), derived_by_key(derived, new)
        for key, entity in before.items():
            if key not in after:
                ops.append(
                    RequestPart(
                        "Delete",
                        {"TableName": dest.table_name, "Key": entity.key().item_key()},
                        PartLabel("derived", meta.type, field=derived.name),
                    )
                )
        for key, entity in after.items():
            if key not in before or before[key] != entity:
                ops.append(
                    RequestPart(
                        "Put",
                        {"TableName": dest.table_name, "Item": derived_item(entity, dest.clock())},
                        PartLabel("derived", meta.type, field=derived.name),
                    )
                )
    return ops


def _sources_unchanged(meta: EntityMeta, touched: set[str] | None = None) -> list[str]:
    """The derived items' source fields a write must find stored as it read them. Derived items are planned
    from the item as read; if a concurrent writer changes their source fields in between, this write must
    fail (ConditionFailed, retry), or both writers' derived items would survive (seed 000: two admins
    re-tagging a site at once would leave a stale TAG# item in byTag)."""
    out: list[str] = []
    seen: set[str] = set(_guard_inputs(meta))  # guard fields are already conditioned
    for derived in meta.derived:
        sources = derived.on or ()
        if touched is not None and not touched.intersection(sources):
            continue
        for name in sources:
            spec = meta.fields.get(name)
            if spec is None or not spec.stored or name in seen:
                continue  # key-only fields never change
            seen.add(name)
            out.append(name)
    return out


# -- create / put ---------------------------------------------------------------------------------------


def plan_create(dest: WriteTarget, entity: E) -> tuple[list[RequestPart], E]:
    meta = type(entity).model_entity()
    values = meta.values(entity)
    stamp(meta, values, dest.clock(), creating=True)
    if meta.version:
        values[meta.version] = 1
    item = meta.to_item(values)
    result = written_entity(meta, values, item)  # what a read of it returns (timestamps as stored...)
    c = Compiler()
    ops = [
        RequestPart(
            "Put",
            finish({"TableName": dest.table_name, "Item": item}, c, not_exists(meta, c)),
            item_label("create", meta.type),
            meta,
        )
    ]
    if meta.unique or meta.derived:
        key = meta.primary_key(values)
        ops += _guard_ops(dest, meta, None, values, key)
        ops += derived_ops(dest, meta, None, values)
    return ops, result


def plan_put(
    dest: WriteTarget,
    entity: E,
    condition: Cond | None = None,
    *,
    stored: Stored | None = None,
    read: bool = False,
) -> Steps[tuple[list[RequestPart], E]]:
    """An upsert. Keeps the stored createdAt; checks and bumps the version; swaps guards and derived items.

    Index keys built from createdAt are built from the *stored* createdAt, or the entry would sit where the
    item's createdAt says it is not. UpdateItem cannot build a key from a stored attribute, so such a put is a
    PutItem conditioned on what it assumes createdAt to be (``stored``; by default the entity's own, or
    absent): a wrong guess fails, returns the stored item, and :meth:`DB.put` retries with it. ``read=True``
    reads it first instead (inside a transaction, which cannot be retried piecemeal). Either way the write is
    conditioned, so no concurrent writer can slip in between.
    """
    meta = type(entity).model_entity()
    values = meta.values(entity)
    stamp(meta, values, dest.clock(), creating=values.get(meta.created) is None if meta.created else False)
    c = Compiler()
    conds: list[str | Cond | None] = [condition]
    label = item_label("put", meta.type, meta.version is not None)
    expected_version = values.get(meta.version) if meta.version else None
    if meta.version:
        conds.append(_next_version(meta, meta.version, values, c))
    extra: list[RequestPart] = []
    assumed: Stored | None = None
    if meta.unique or meta.derived or meta.created_keys:
        meta.to_item(values)  # every value checked before the read below, not only after it
    if meta.unique or meta.derived:
        swap_conds, extra = yield from _put_over_stored(dest, meta, values, c)
        conds += swap_conds
    elif meta.created_keys:
        assumed = yield from _assume_created(dest, meta, values, stored, read)
    if assumed is not None:
        conds.append(assumed.condition(meta, c))
    item = meta.to_item(values)
    result = written_entity(meta, values, item)  # values are final (createdAt the stored one), as read back
    if meta.created is None or meta.unique or meta.derived or meta.created_keys:
        params = finish({"TableName": dest.table_name, "Item": item}, c, conjoin(c, conds))
        guess = None if read else assumed  # a guess the runner asks the stored item back for, to retry
        part = RequestPart("Put", params, label, meta, guess, expected_version=expected_version)
        return [part, *extra], result
    params = finish(
        update_keeping_created(dest.table_name, meta, meta.created, item, c), c, conjoin(c, conds)
    )
    return [RequestPart("Update", params, label, meta, expected_version=expected_version)], result


def _next_version(meta: EntityMeta, version: str, values: dict[str, Any], c: Compiler) -> str:
    """The condition that the stored ``version`` field is the entity's (or that there is no item), with the
    version bumped in ``values``."""
    expected = values.get(version)
    if expected is None:
        values[version] = 1
        return not_exists(meta, c)
    values[version] = expected + 1
    return f"{c.name(meta.attribute_of[version])} = {c.value({'N': str(expected)})}"


def _put_over_stored(
    dest: WriteTarget, meta: EntityMeta, values: dict[str, Any], c: Compiler
) -> Steps[tuple[list[str | Cond | None], list[RequestPart]]]:
    """A put of an entity with guards or derived items: read the stored item, keep its createdAt, and
    swap the guards and derived items it had for the new ones -- conditioned on the item as read."""
    conds: list[str | Cond | None] = []
    key = meta.primary_key(values)
    raw = yield from dest.read_item(key)
    old = None if raw is None else meta.decode(raw)
    if old is None:
        conds.append(not_exists(meta, c))
    else:
        conds += [unchanged(c, meta, name, old) for name in _guard_inputs(meta)]
        if meta.created and old.get(meta.created) is not None:
            values[meta.created] = old[meta.created]
        if meta.created_keys:  # the keys below are built from the createdAt just read: keep it so
            conds.append(Stored.of(meta, raw).condition(meta, c))
        conds += [unchanged(c, meta, name, old) for name in _sources_unchanged(meta)]
    return conds, _guard_ops(dest, meta, old, values, key) + derived_ops(dest, meta, old, values)


def _assume_created(
    dest: WriteTarget, meta: EntityMeta, values: dict[str, Any], stored: Stored | None, read: bool
) -> Steps[Stored]:
    """What the put assumes is stored (read first when ``read``, else ``stored`` or the entity's own
    createdAt); its createdAt goes into ``values`` so the keys built from it agree with the item."""
    assert meta.created is not None  # keys are built from createdAt: the entity has one
    created = meta.fields[meta.created].codec
    if stored is None and read:
        key = meta.primary_key(values)
        item = yield from dest.read_item(key, [*key, meta.attribute_of[meta.created]])
        stored = Stored.of(meta, item)
    assumed = stored or Stored(None, created.dump(values[meta.created]))
    if assumed.exists and assumed.created is not None:
        values[meta.created] = created.load(assumed.created)
    return assumed


# -- update ---------------------------------------------------------------------------------------------


def plan_update(
    dest: WriteTarget,
    target: KeyRef | Entity,
    actions: Iterable[Action],
    condition: Cond | None,
    sets: Mapping[str, Any],
    upsert: bool = False,
    stored: Mapping[str, AV] | None = None,
) -> Steps[tuple[list[RequestPart], EntityMeta, dict[str, AV]]]:
    """A partial update: the actions (and ``field=value`` sets), updatedAt, every key that reads a changed
    field rebuilt in the same request, guards and derived items swapped, the version checked and bumped.

    The stages in order: the values (the target, its actions, updatedAt; an upsert's defaults), the stored
    item when a guard, derived item or key depends on a field the update does not give, the keys those
    values change, the request -- conditioned on every stored value it relied on being stored as read, so a
    concurrent change fails it rather than leaving an index entry built from a stale value (``DB.update``
    then plans again, with ``stored``: the item the failed attempt returned). An upsert that finds no item
    writes what a create of its values would (:func:`_plan_creating_upsert`).
    """
    change = update_values(target, actions, sets, dest.clock())
    meta = change.meta
    fill = upsert_fill(meta, change) if upsert else None
    needed = stored_fields_needed(meta, change.known, change.touched, change.unknown)
    whole = has_entity_rules(meta)
    if whole:  # a model validator reads the whole entity: the update plans from (and relies on) all of it
        needed += [n for n in fields_not_set(meta, change.known) if n not in needed]
    if not (change.watched or needed or (upsert and upsert_reads(meta, change.touched))):
        rebuilt = rebuilt_keys(meta, change.known, change.touched)
        if upsert:  # keys of primary-key fields only: the same whether the item exists or not
            rebuilt += untouched_keys(meta, change.known, change.touched)
        existence = None if upsert else True
        part = update_request(
            dest.table_name, change, rebuilt, condition, existence=existence, fill=fill, upsert=upsert
        )
        return [part], meta, change.key
    old = yield from _stored_values(dest, change, stored, upsert)
    if old is None:
        return _plan_creating_upsert(dest, change, condition, fill or {}), meta, change.key
    checked: list[str] = []
    extra: list[RequestPart] = []
    if change.watched:
        checked, extra = _update_over_stored(dest, change, old)
    checked += [name for name in needed if name not in checked]
    values = {**{name: old.get(name) for name in needed}, **change.known}
    if whole:
        check_entity(meta, updated_entity(meta, old, change.actions))
    rebuilt = rebuilt_keys(meta, values, change.touched)
    part = update_request(
        dest.table_name, change, rebuilt, condition, checked=checked, old=old, upsert=upsert
    )
    if checked:
        part.relied = {name: old.get(name) for name in checked}
    return [part, *extra], meta, change.key


def _plan_creating_upsert(
    dest: WriteTarget, change: UpdateValues, condition: Cond | None, fill: Mapping[str, Any]
) -> list[RequestPart]:
    """An upsert that found no item: it writes what a create of its values would -- the defaults of the
    fields it does not set, every index key that applies, the guards and derived items -- conditioned on
    the item still being absent (if it was created in between, ``DB.update`` plans again from it)."""
    meta = change.meta
    if change.watched & change.unknown:
        _update_over_stored(dest, change, {})  # refuses arithmetic on guard and derived-item sources
    values: dict[str, Any] = {n: None for n in meta.fields if n not in change.unknown}
    values.update(fill)
    if meta.created and meta.created not in change.touched:
        values[meta.created] = change.now
    values.update(change.known)
    if has_entity_rules(meta):
        check_entity(
            meta, updated_entity(meta, {**values, **{n: None for n in change.unknown}}, change.actions)
        )
    rebuilt = rebuilt_keys(meta, values, change.touched) + untouched_keys(meta, values, change.touched)
    part = update_request(
        dest.table_name, change, rebuilt, condition, existence=False, fill=fill, upsert=True
    )
    return [
        part,
        *_guard_ops(dest, meta, None, values, change.key),
        *derived_ops(dest, meta, None, values),
    ]


def _stored_values(
    dest: WriteTarget, change: UpdateValues, stored: Mapping[str, AV] | None, upsert: bool
) -> Steps[dict[str, Any] | None]:
    """The stored entity's field values the update plans from (``stored``, or read now); None for an upsert
    of an item that is not there yet, NotFound for anything else."""
    meta = change.meta
    old = meta.decode(stored) if stored is not None else (yield from dest.read_values(meta, change.key))
    if old is None and not upsert:
        raise NotFound(f"{meta.type} {change.key} does not exist")
    return old


def _update_over_stored(
    dest: WriteTarget, change: UpdateValues, old: dict[str, Any]
) -> tuple[list[str], list[RequestPart]]:
    """An update of fields that feed guards or derived items: swap those for the new values. Returns the
    fields whose stored value the update must be conditioned on (as read in ``old``), and the guard and
    derived-item parts."""
    meta, watched, known = change.meta, change.watched, change.known
    if watched & change.unknown:
        raise KeyTemplateError(
            f"{meta.type}: {sorted(watched & change.unknown)} feed uniqueness guards or derived "
            "items, so they can only be set or removed, not changed arithmetically"
        )
    new = {**old, **{n: known[n] for n in change.touched if n in known}}
    checked = _guard_inputs(meta, change.touched) + _sources_unchanged(meta, change.touched)
    parts = _guard_ops(dest, meta, old, new, change.key) + derived_ops(dest, meta, old, new)
    return checked, parts


# -- delete and checks ----------------------------------------------------------------------------------


def plan_delete(
    dest: WriteTarget, target: KeyRef | Entity, condition: Cond | None
) -> Steps[tuple[list[RequestPart], EntityMeta]]:
    meta, given, expected_version = address(target)
    key = meta.primary_key(given)
    c = Compiler()
    conds: list[str | Cond | None] = [condition]
    label = item_label("delete", meta.type, expected_version is not None)
    if expected_version is not None:
        # a field's == builds a Cond (mypy takes it for a bool)
        conds.append(getattr(meta.cls.f, meta.version) == expected_version)  # type: ignore[arg-type]
    extra: list[RequestPart] = []
    if meta.unique or meta.derived:
        old = yield from dest.read_values(meta, key)
        if old is None:
            return [], meta
        conds += [unchanged(c, meta, name, old) for name in _guard_inputs(meta)]
        conds += [unchanged(c, meta, name, old) for name in _sources_unchanged(meta)]
        extra = _guard_ops(dest, meta, old, None, key) + derived_ops(dest, meta, old, None)
    params = finish({"TableName": dest.table_name, "Key": key}, c, conjoin(c, conds))
    part = RequestPart("Delete", params, label, meta, expected_version=expected_version)
    return [part, *extra], meta


def plan_check(dest: WriteTarget, target: KeyRef | Entity, condition: Cond) -> RequestPart:
    meta, given, _ = address(target)
    c = Compiler()
    params = finish({"TableName": dest.table_name, "Key": meta.primary_key(given)}, c, condition.compile(c))
    return RequestPart("ConditionCheck", params, item_label("check", meta.type), meta)
