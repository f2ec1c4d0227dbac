"""Planning writes: each entity write becomes a list of request parts (:class:`Op`).

One part runs as a plain PutItem/UpdateItem/DeleteItem; several (an entity with its uniqueness guards and
derived items) run as one TransactWriteItems, and inside ``db.transaction()`` parts from many calls are
gathered into one. Planning is where the model's promises are kept: sparse index keys are computed from the
values being written, a partial update rebuilds every key that depends on a field it changes (or refuses,
naming the missing fields), ``createdAt`` survives upserts -- and so do the index keys built from it --,
versions are checked and bumped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from singletable.model._entity import Entity, EntityMeta, KeyRef
from singletable.model._errors import KeyTemplateError, MissingKeyFields, NotFound
from singletable.model._expr import Action, Compiler, Cond, compile_update
from singletable.model._ops import Op, Stored, _condition, _exists, _finish, _not_exists, _stamp
from singletable.model._values import AV

if TYPE_CHECKING:
    from singletable.model._db import DB


# -- uniqueness guards and derived items -----------------------------------------------------------------


def guard_key(entity: type[Entity] | EntityMeta, name: str, value: Any) -> dict[str, AV]:
    """The primary key of the guard item that holds ``value`` of the unique field ``name``:
    ``guard_key(User, "email", "a@x.com")`` (an entity class or its :class:`EntityMeta`)."""
    meta = entity if isinstance(entity, EntityMeta) else entity.model_entity()
    text = meta.unique[name].render({name: value})
    key = {meta.table.pk_name: {"S": text}}
    if meta.table.sk_name:
        key[meta.table.sk_name] = {"S": text}
    return key


def _guard_ops(
    db: DB,
    meta: EntityMeta,
    old: Mapping[str, Any] | None,
    new: Mapping[str, Any] | None,
    owner_key: dict[str, AV],
) -> list[Op]:
    ops = []
    for name in meta.unique:
        before = old.get(name) if old else None
        after = new.get(name) if new else None
        if before == after:
            continue
        if before is not None:
            ops.append(
                Op(
                    "Delete",
                    {"TableName": db.table_name, "Key": guard_key(meta, name, before)},
                    ("guard", meta.type, name, before),
                )
            )
        if after is not None:
            c = Compiler()
            item = {**guard_key(meta, name, after), "owner": {"M": owner_key}}
            for carried in meta.guard_carry.get(name, ()):
                av = meta.fields[carried].codec.dump(new[carried]) if new else None
                if av is not None:
                    item[meta.attribute_of[carried]] = av
            ops.append(
                Op(
                    "Put",
                    _finish({"TableName": db.table_name, "Item": item}, c, _not_exists(meta, c)),
                    ("unique", meta.type, name, after),
                )
            )
    return ops


def _derived_ops(
    db: DB, meta: EntityMeta, old: Mapping[str, Any] | None, new: Mapping[str, Any] | None
) -> list[Op]:
    ops = []
    for derived in meta.derived:
        before = {_frozen(e.key().item_key()): e for e in derived.items(old)} if old else {}
        after = {_frozen(e.key().item_key()): e for e in derived.items(new)} if new else {}
        for key, entity in before.items():
            if key not in after:
                ops.append(
                    Op(
                        "Delete",
                        {"TableName": db.table_name, "Key": entity.key().item_key()},
                        ("derived", meta.type, derived.name),
                    )
                )
        for key, entity in after.items():
            if key not in before or before[key] != entity:
                target = entity.model_entity()
                values = target.values(entity)
                _stamp(db, target, values, creating=True)
                ops.append(
                    Op(
                        "Put",
                        {"TableName": db.table_name, "Item": target.to_item(values)},
                        ("derived", meta.type, derived.name),
                    )
                )
    return ops


def _frozen(key: dict[str, AV]) -> tuple[Any, ...]:
    return tuple(sorted((k, next(iter(v.values()))) for k, v in key.items()))


def _watch(meta: EntityMeta) -> set[str]:
    """Fields whose change needs the stored item first: unique fields and derived items' sources."""
    watched = set(meta.unique)
    for derived in meta.derived:
        watched.update(derived.on or ())
    return watched


def _sources_unchanged(
    c: Compiler, meta: EntityMeta, old: Mapping[str, Any], touched: set[str] | None = None
) -> list[str]:
    """Derived items are planned from the item as read; if a concurrent writer changes their source fields
    in between, this write must fail (ConditionFailed, retry), or both writers' derived items would survive
    (seed 000: two admins re-tagging a site at once would leave a stale TAG# item in byTag)."""
    out: list[str] = []
    seen: set[str] = set(meta.unique)  # unique fields are already conditioned
    for derived in meta.derived:
        sources = derived.on or ()
        if touched is not None and not touched.intersection(sources):
            continue
        for name in sources:
            spec = meta.fields.get(name)
            if spec is None or not spec.stored or name in seen:
                continue  # key-only fields never change
            seen.add(name)
            out.append(_unchanged(c, meta, name, old))
    return out


def _unchanged(c: Compiler, meta: EntityMeta, name: str, old: Mapping[str, Any]) -> str:
    """The condition that field ``name`` is stored as it was read in ``old`` (or is still absent: a value
    whose stored form is nothing, like an empty set, is not stored)."""
    attr = c.name(meta.attribute_of[name])
    value = old.get(name)
    av = None if value is None else meta.fields[name].codec.dump(value)
    return f"attribute_not_exists({attr})" if av is None else f"{attr} = {c.value(av)}"


# -- create / put ---------------------------------------------------------------------------------------


def plan_create(db: DB, entity: Entity) -> tuple[list[Op], Entity]:
    meta = type(entity).model_entity()
    values = meta.values(entity)
    _stamp(db, meta, values, creating=True)
    if meta.version:
        values[meta.version] = 1
    item = meta.to_item(values)
    c = Compiler()
    ops = [
        Op(
            "Put",
            _finish({"TableName": db.table_name, "Item": item}, c, _not_exists(meta, c)),
            ("create", meta.type),
            meta,
        )
    ]
    if meta.unique or meta.derived:
        key = meta.primary_key(values)
        ops += _guard_ops(db, meta, None, values, key)
        ops += _derived_ops(db, meta, None, values)
    return ops, _result(entity, meta, values)


def _result(entity: Entity, meta: EntityMeta, values: dict[str, Any]) -> Entity:
    changed = {k: v for k, v in values.items() if entity.__dict__.get(k) is not v}
    return entity.model_copy(update=changed) if changed else entity


def plan_put(
    db: DB, entity: Entity, condition: Cond | None = None, *, stored: Stored | None = None, read: bool = False
) -> tuple[list[Op], Entity]:
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
    _stamp(db, meta, values, creating=values.get(meta.created) is None if meta.created else False)
    c = Compiler()
    conds: list[str | Cond | None] = [condition]
    label: tuple[Any, ...] = ("condition", meta.type)
    if meta.version:
        conds.append(_next_version(meta, meta.version, values, c))
        label = ("version", meta.type)
    extra: list[Op] = []
    assumed: Stored | None = None
    if meta.unique or meta.derived:
        swap_conds, extra = _put_over_stored(db, meta, values, c)
        conds += swap_conds
    elif meta._created_keys:
        assumed = _assume_created(db, meta, values, stored, read)
        conds.append(assumed.condition(meta, c))
    item = meta.to_item(values)
    if meta.created is None or meta.unique or meta.derived or meta._created_keys:
        params: dict[str, Any] = {"TableName": db.table_name, "Item": item}
        if assumed is not None and not read:  # a wrong guess must say what is stored, for the retry
            params["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
        params = _finish(params, c, _condition(c, conds))
        return [Op("Put", params, label, meta, assumed), *extra], _result(entity, meta, values)
    params = _finish(_update_keeping_created(db, meta, meta.created, item, c), c, _condition(c, conds))
    return [Op("Update", params, label, meta)], _result(entity, meta, values)


def _next_version(meta: EntityMeta, version: str, values: dict[str, Any], c: Compiler) -> str:
    """The condition that the stored ``version`` field is the entity's (or that there is no item), with the
    version bumped in ``values``."""
    expected = values.get(version)
    if expected is None:
        values[version] = 1
        return _not_exists(meta, c)
    values[version] = expected + 1
    return f"{c.name(meta.attribute_of[version])} = {c.value({'N': str(expected)})}"


def _put_over_stored(
    db: DB, meta: EntityMeta, values: dict[str, Any], c: Compiler
) -> tuple[list[str | Cond | None], list[Op]]:
    """A put of an entity with guards or derived items: read the stored item, keep its createdAt, and
    swap the guards and derived items it had for the new ones -- conditioned on the item as read."""
    conds: list[str | Cond | None] = []
    key = meta.primary_key(values)
    raw = db._read_item(key)
    old = None if raw is None else meta.decode(raw)
    if old is None:
        conds.append(_not_exists(meta, c))
    else:
        conds += [_unchanged(c, meta, name, old) for name in meta.unique]
        if meta.created and old.get(meta.created) is not None:
            values[meta.created] = old[meta.created]
        if meta._created_keys:  # the keys below are built from the createdAt just read: keep it so
            conds.append(Stored.of(meta, raw).condition(meta, c))
        conds += _sources_unchanged(c, meta, old)
    return conds, _guard_ops(db, meta, old, values, key) + _derived_ops(db, meta, old, values)


def _assume_created(
    db: DB, meta: EntityMeta, values: dict[str, Any], stored: Stored | None, read: bool
) -> Stored:
    """What the put assumes is stored (read first when ``read``, else ``stored`` or the entity's own
    createdAt); its createdAt goes into ``values`` so the keys built from it agree with the item."""
    created = meta.fields[meta.created].codec  # type: ignore[index]
    if stored is None and read:
        key = meta.primary_key(values)
        stored = Stored.of(meta, db._read_item(key, [*key, meta.attribute_of[meta.created]]))  # type: ignore[index]
    assumed = stored or Stored(None, created.dump(values[meta.created]))
    if assumed.exists and assumed.created is not None:
        values[meta.created] = created.load(assumed.created)
    return assumed


def _update_keeping_created(
    db: DB, meta: EntityMeta, created: str, item: dict[str, AV], c: Compiler
) -> dict[str, Any]:
    """The put as an UpdateItem: the ``created`` field must survive an upsert, which PutItem cannot do.
    Every attribute is written (createdAt only if absent), and the declared attributes (sparse keys
    included) that this version of the entity lacks are removed."""
    keys = {meta.table.pk_name, meta.table.sk_name}
    created_attr = meta.attribute_of[created]
    sets, removes = [], []
    for attr, av in item.items():
        if attr in keys:
            continue
        name, value = c.name(attr), c.value(av)
        sets.append(
            f"{name} = if_not_exists({name}, {value})" if attr == created_attr else f"{name} = {value}"
        )
    for attr in _declared_attributes(meta):
        if attr not in item and attr not in keys:
            removes.append(c.name(attr))
    expression = "SET " + ", ".join(sets) + (" REMOVE " + ", ".join(removes) if removes else "")
    key = {k: item[k] for k in keys if k}
    return {"TableName": db.table_name, "Key": key, "UpdateExpression": expression}


def _declared_attributes(meta: EntityMeta) -> list[str]:
    cached = meta.__dict__.get("_declared")
    if cached is None:
        cached = [f.attribute for f in meta.fields.values() if f.stored] + list(meta.keys)
        meta.__dict__["_declared"] = cached
    return cached


# -- update ---------------------------------------------------------------------------------------------


def _target(target: KeyRef | Entity) -> tuple[EntityMeta, dict[str, Any], int | None]:
    if isinstance(target, Entity):
        meta = type(target).model_entity()
        version = target.__dict__.get(meta.version) if meta.version else None
        return meta, dict(target.__dict__), version
    return target.meta, dict(target.values), None


def plan_update(
    db: DB,
    target: KeyRef | Entity,
    actions: Iterable[Action],
    condition: Cond | None,
    sets: Mapping[str, Any],
    upsert: bool = False,
) -> tuple[list[Op], EntityMeta, dict[str, AV]]:
    """A partial update: the actions (and ``field=value`` sets), updatedAt, every key that reads a changed
    field rebuilt in the same request, guards and derived items swapped, the version checked and bumped."""
    meta, given, expected_version = _target(target)
    key = meta.primary_key(given)
    actions = list(actions) + [getattr(meta.cls.f, name).set(value) for name, value in sets.items()]
    _check_actions(meta, actions)
    known, touched, unknown = _what_changes(meta, given, actions)
    c = Compiler()
    now = db.clock()
    if meta.updated and meta.updated not in touched:
        known[meta.updated] = now
        touched.add(meta.updated)
        actions.append(getattr(meta.cls.f, meta.updated).set(now))
    ops_extra: list[Op] = []
    conds: list[str | Cond | None] = [None if upsert else _exists(meta, c), condition]
    extra_set = _upsert_sets(meta, c, touched, now) if upsert else []
    label: tuple[Any, ...] = ("update", meta.type)
    watched = _watch(meta) & touched
    if watched:
        swap_conds, ops_extra = _update_over_stored(db, meta, key, c, known, touched, unknown, watched)
        conds += swap_conds
    key_sets, removes = _rebuilt_keys(meta, c, known, touched, unknown)
    extra_set += key_sets
    actions = [a for a in actions if meta.fields[a.path.field].stored]
    if meta.version:
        version = getattr(meta.cls.f, meta.version)
        if expected_version is not None:
            conds.append(version == expected_version)
            label = ("version", meta.type)
        actions.append(version.add(1))
    expression = compile_update(actions, c, extra_set, removes)
    params = _finish(
        {"TableName": db.table_name, "Key": key, "UpdateExpression": expression}, c, _condition(c, conds)
    )
    return [Op("Update", params, label, meta), *ops_extra], meta, key


def _check_actions(meta: EntityMeta, actions: list[Action]) -> None:
    """Every action is on a field of this entity, and none changes the primary key (a new item)."""
    for action in actions:
        if action.path.entity != meta.type:
            raise KeyTemplateError(f"{action!r} is a field of {action.path.entity}, not {meta.type}")
        if action.path.field in meta.primary_fields:
            raise KeyTemplateError(
                f"{meta.type}.{action.path.field} is part of the primary key; a changed key is a new item: "
                "create the new entity and delete the old one (in one transaction)"
            )


def _what_changes(
    meta: EntityMeta, given: Mapping[str, Any], actions: list[Action]
) -> tuple[dict[str, Any], set[str], set[str]]:
    """The field values known after the update (the key's, and those set or removed), the fields it
    touches, and those whose new value depends on the stored one (``add``, ``append``, nested changes)."""
    known: dict[str, Any] = {n: given[n] for n in meta.primary_fields}
    touched: set[str] = set()
    unknown: set[str] = set()
    for action in actions:
        touched.add(action.path.field)
        if action.known:
            known[action.path.field] = None if action.kind == "remove" else action.value
        else:
            unknown.add(action.path.field)
    return known, touched, unknown


def _upsert_sets(meta: EntityMeta, c: Compiler, touched: set[str], now: Any) -> list[str]:
    """Counters and the like: the item may not exist yet, so give it its type (and createdAt)."""
    out = [f"{c.name(meta.table.type_attribute)} = {c.value(meta._type_av)}"]
    if meta.created and meta.created not in touched:
        created = c.name(meta.attribute_of[meta.created])
        out.append(
            f"{created} = if_not_exists({created}, {c.value(meta.fields[meta.created].codec.dump(now))})"
        )
    return out


def _update_over_stored(
    db: DB,
    meta: EntityMeta,
    key: dict[str, AV],
    c: Compiler,
    known: dict[str, Any],
    touched: set[str],
    unknown: set[str],
    watched: set[str],
) -> tuple[list[str | Cond | None], list[Op]]:
    """An update of fields that feed guards or derived items: read the stored item, swap those for the new
    values -- conditioned on the item as read -- and fill ``known`` with the stored values."""
    if watched & unknown:
        raise KeyTemplateError(
            f"{meta.type}: {sorted(watched & unknown)} feed uniqueness guards or derived "
            "items, so they can only be set or removed, not changed arithmetically"
        )
    old = db._read_values(meta, key)
    if old is None:
        raise NotFound(f"{meta.type} {key} does not exist")
    new = {**old, **{n: known[n] for n in touched if n in known}}
    conds: list[str | Cond | None] = [_unchanged(c, meta, n, old) for n in meta.unique if n in watched]
    conds += _sources_unchanged(c, meta, old, touched)
    ops = _guard_ops(db, meta, old, new, key) + _derived_ops(db, meta, old, new)
    for name, value in new.items():
        known.setdefault(name, value)
    return conds, ops


def _rebuilt_keys(
    meta: EntityMeta, c: Compiler, known: dict[str, Any], touched: set[str], unknown: set[str]
) -> tuple[list[str], list[str]]:
    """Derived keys: every key that reads a touched field is rebuilt in this same request (SET), or removed
    when it no longer applies (REMOVE); if its other fields are unknown we refuse rather than leave an index
    stale."""
    sets: list[str] = []
    removes: list[str] = []
    for bound in meta._secondary:
        needs = bound.needs
        if not touched.intersection(needs):
            continue
        missing = [n for n in needs if n not in known or n in unknown]
        if missing and bound.otherwise is None and any(n in known and known[n] is None for n in needs):
            removes.append(c.name(bound.attribute))  # a needed field is gone: the key cannot apply
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
        if bound.applies(known):
            sets.append(f"{c.name(bound.attribute)} = {c.value(bound.value(known))}")
        else:
            removes.append(c.name(bound.attribute))
    return sets, removes


# -- delete and checks ----------------------------------------------------------------------------------


def plan_delete(db: DB, target: KeyRef | Entity, condition: Cond | None) -> tuple[list[Op], EntityMeta]:
    meta, given, expected_version = _target(target)
    key = meta.primary_key(given)
    c = Compiler()
    conds: list[str | Cond | None] = [condition]
    label: tuple[Any, ...] = ("delete", meta.type)
    if expected_version is not None:
        conds.append(getattr(meta.cls.f, meta.version) == expected_version)  # type: ignore[arg-type]
        label = ("version", meta.type)
    extra: list[Op] = []
    if meta.unique or meta.derived:
        old = db._read_values(meta, key)
        if old is None:
            return [], meta
        conds += [_unchanged(c, meta, name, old) for name in meta.unique]
        conds += _sources_unchanged(c, meta, old)
        extra = _guard_ops(db, meta, old, None, key) + _derived_ops(db, meta, old, None)
    params = _finish({"TableName": db.table_name, "Key": key}, c, _condition(c, conds))
    return [Op("Delete", params, label, meta), *extra], meta


def plan_check(db: DB, target: KeyRef | Entity, condition: Cond) -> Op:
    meta, given, _ = _target(target)
    c = Compiler()
    params = _finish({"TableName": db.table_name, "Key": meta.primary_key(given)}, c, condition.compile(c))
    return Op("ConditionCheck", params, ("check", meta.type), meta)
