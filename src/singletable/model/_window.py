"""The dual-write window of a re-keying: ``connect(table, target, migrating={User: OldUser})``.

While an entity's items move to new keys (``rekey(OldUser, to=User, keep_old=True)``), code that still reads
the old shape must keep finding them, and new code must find every item in the new shape. A DB told that
``User`` is migrating from ``OldUser`` writes every ``User`` to both shapes: each create, put, update and
delete is planned once for the entity and once for its old declaration (the same values, the same clock
reading) and the parts of both are sent as one TransactWriteItems, so the two shapes never differ; a part
both plans write (a uniqueness guard whose key did not change) is sent once, the new plan's. Before a write
that depends on the stored item, the DB makes sure both shapes exist or neither does: an item found in only
one shape is copied to the other first, conditioned on its image and on the other key being free. Batch
writes (not atomic anyway) put and delete both shapes. ``db.get`` reads the new shape and falls back on the
old one. ``migrate finish`` (:mod:`singletable.migrate`) closes the window.

Nothing here runs for a DB without ``migrating``: :func:`install` replaces the handle's write and get steps
with these only when a window is open, so other DBs keep their paths as they were.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from singletable.model._batches import batch_write as plain_batch_write
from singletable.model._entity import Entity
from singletable.model._entity_meta import EntityMeta, KeyRef
from singletable.model._errors import ConditionFailed, DeclarationError, MissingKeyFields, ModelError
from singletable.model._expr import Action, Cond, Path
from singletable.model._field_values import AV
from singletable.model._steps import Request, Steps
from singletable.model._write_plans import derived_ops, plan_create, plan_delete, plan_put, plan_update
from singletable.model._write_requests import RequestPart, changed_since_read
from singletable.model._write_runner import TableKeys, part_key, send
from singletable.model._write_target import WriteTarget

if TYPE_CHECKING:
    from singletable.model._transaction import TransactionParts

# What a copy between the shapes meets when another writer got there first: it looks again.
LOST_COPY = ("TransactionCanceledException", "TransactionConflictException")
# How often a window write plans again when another writer changed what it read in between.
WINDOW_ATTEMPTS = 8


class Window:
    """The entities a DB writes in two shapes: each migrating entity's compiled declaration -> its old one."""

    def __init__(self, migrating: Mapping[Any, Any]) -> None:
        self._old: dict[int, tuple[EntityMeta, EntityMeta]] = {}
        for new_cls, old_cls in migrating.items():
            new, old = _entity(new_cls), _entity(old_cls)
            _check_pair(new, old)
            self._old[id(new)] = (new, old)

    def old_of(self, meta: EntityMeta) -> EntityMeta | None:
        """The old declaration of ``meta``'s entity while it migrates; None for every other entity."""
        pair = self._old.get(id(meta))
        return pair[1] if pair is not None else None


def _entity(cls: Any) -> EntityMeta:
    if not (isinstance(cls, type) and issubclass(cls, Entity)):
        raise DeclarationError(f"migrating= takes {{NewEntity: OldEntity}} (Entity classes), not {cls!r}")
    return cls.model_entity()


def _check_pair(new: EntityMeta, old: EntityMeta) -> None:
    """What mirroring writes needs: the same table keys and the same fields stored under the same attributes
    (a window moves items to new keys; a field renamed at the same time is a later migration). Each shape
    keeps its own derived items."""
    name = f"migrating={{{new.cls.__name__}: {old.cls.__name__}}}"
    if (new.table.pk_name, new.table.sk_name) != (old.table.pk_name, old.table.sk_name):
        raise DeclarationError(f"{name}: the two declarations' tables have different key attributes")
    differ = sorted(
        set(new.attribute_of.items()).symmetric_difference(old.attribute_of.items()), key=lambda p: p[0]
    )
    if differ:
        fields = ", ".join(dict.fromkeys(f for f, _ in differ))
        raise DeclarationError(
            f"{name}: both shapes must declare the same fields under the same attributes; they differ in "
            f"{fields} (re-key first, change fields in a later migration)"
        )


# -- moving values between the shapes ----------------------------------------------------------------------


def _old_entity(old: EntityMeta, entity: Any) -> Any:
    """``entity``'s values as an entity of the old declaration (the same fields)."""
    return old.cls.model_construct(**dict(entity.__dict__))


def _old_target(old: EntityMeta, meta: EntityMeta, target: Any, values: Mapping[str, Any]) -> Any:
    """The old shape of a write's target: an entity (its version is checked too) or a key."""
    if isinstance(target, Entity):
        return _old_entity(old, target)
    return KeyRef(old, dict(values))


def _old_actions(old: EntityMeta, actions: Iterable[Action]) -> tuple[Action, ...]:
    """The same update actions on the old declaration's fields (the same attributes)."""
    out = []
    for action in actions:
        path = action.path
        rebound = Path(old.type, path.field, path.steps, old.fields[path.field].codec)
        out.append(Action(action.kind, rebound, action.value))
    return tuple(out)


def _merged(parts: list[RequestPart], mirror: list[RequestPart], keys: TableKeys) -> list[RequestPart]:
    """Both plans' parts; a part on an item the first plan already writes (a guard both shapes share) is left
    to it."""
    seen = {_frozen(part_key(p, keys)) for p in parts}
    return parts + [p for p in mirror if _frozen(part_key(p, keys)) not in seen]


def _frozen(key: Mapping[str, AV]) -> tuple[Any, ...]:
    return tuple(sorted((name, repr(av)) for name, av in key.items()))


def _same_clock(dest: WriteTarget) -> WriteTarget:
    """``dest`` with its clock read once: both shapes of one write get the same timestamps."""
    now = dest.clock()
    return WriteTarget(dest.table_name, lambda: now, dest.key_names)


def _key_values(meta: EntityMeta, target: Any, key: Mapping[str, Any] | None = None) -> dict[str, Any]:
    if isinstance(target, KeyRef):
        return dict(target.values)
    if isinstance(target, Entity):
        return dict(target.__dict__)
    return dict(key or {})


# -- making sure both shapes exist, or neither ---------------------------------------------------------------


def _get(dest: WriteTarget, key: dict[str, AV]) -> Steps[dict[str, AV] | None]:
    return (yield from dest.read_item(key))


def _copy(
    dest: WriteTarget,
    source: dict[str, AV],
    item: dict[str, AV],
    target_key: dict[str, AV],
    derived: list[RequestPart],
) -> Request:
    """A TransactWriteItems that writes ``item`` under ``target_key`` if it is free, with the derived items
    of its shape (``derived``'s puts), while ``source`` is stored exactly as read."""
    names = {f"#s{i}": name for i, name in enumerate(sorted(source))}
    values = {f":s{i}": source[name] for i, name in enumerate(sorted(source))}
    unchanged = " AND ".join(f"#s{i} = :s{i}" for i in range(len(names)))
    first = next(iter(target_key))
    source_key = {n: source[n] for n in dest.key_names if n in source}
    return Request(
        "TransactWriteItems",
        {
            "TransactItems": [
                {
                    "ConditionCheck": {
                        "TableName": dest.table_name,
                        "Key": source_key,
                        "ConditionExpression": unchanged,
                        "ExpressionAttributeNames": names,
                        "ExpressionAttributeValues": values,
                    }
                },
                {
                    "Put": {
                        "TableName": dest.table_name,
                        "Item": item,
                        "ConditionExpression": "attribute_not_exists(#k)",
                        "ExpressionAttributeNames": {"#k": first},
                    }
                },
                *({part.kind: part.params} for part in derived),
            ]
        },
    )


def twin(source_meta: EntityMeta, target_meta: EntityMeta, item: Mapping[str, AV]) -> dict[str, AV]:
    """The item ``target_meta`` stores for a stored ``item`` of ``source_meta`` (the same values, the other
    shape's keys), with the attributes neither declaration knows kept as they are."""
    values = source_meta.decode(item)
    entity = target_meta.cls.model_validate(values)
    known = set(target_meta.field_of) | set(target_meta.table.key_types) | {target_meta.table.type_attribute}
    kept = {n: av for n, av in item.items() if n not in known}
    return {**kept, **target_meta.to_item(target_meta.values(entity))}


def _derived_of(dest: WriteTarget, meta: EntityMeta, item: dict[str, AV]) -> list[RequestPart]:
    """The puts of the derived items ``meta`` calls for a stored ``item`` (none when it declares none)."""
    return derived_ops(dest, meta, None, meta.decode(item)) if meta.derived else []


def ensure_both(
    dest: WriteTarget, meta: EntityMeta, old: EntityMeta, values: Mapping[str, Any]
) -> Steps[dict[str, Any]]:
    """Both shapes of the item at ``values``' key stored, or neither: one found alone is copied to the other
    shape first. Returns the values that address both (the stored item's, when there is one)."""
    for _attempt in range(WINDOW_ATTEMPTS):
        new_key = meta.primary_key(values)
        new_item = yield from _get(dest, new_key)
        if new_item is not None:
            stored = meta.decode(new_item)
            old_key = old.primary_key(stored)
            if old_key == new_key or (yield from _get(dest, old_key)) is not None:
                return stored
            copied = twin(meta, old, new_item)
            request = _copy(dest, new_item, copied, old_key, _derived_of(dest, old, copied))
        else:
            try:
                old_key = old.primary_key(values)
            except MissingKeyFields:
                return dict(values)  # the old key needs fields the new key does not give: nothing to find
            old_item = yield from _get(dest, old_key)
            if old_item is None or old_key == new_key:
                return dict(values)
            copied = twin(old, meta, old_item)
            request = _copy(dest, old_item, copied, new_key, _derived_of(dest, meta, copied))
        try:
            yield request
        except Exception as error:
            if getattr(error, "code", None) not in (
                "TransactionCanceledException",
                "TransactionConflictException",
            ):
                raise
    raise ConditionFailed(
        "ConditionalCheckFailedException",
        f"{meta.type}: another writer kept changing the item while its two shapes were being made equal; "
        "nothing was written, try again",
    )


# -- the writes, in both shapes ------------------------------------------------------------------------------


def dual_create(window: Window, dest: WriteTarget, entity: Any) -> tuple[list[RequestPart], Any]:
    meta = type(entity).model_entity()
    old = window.old_of(meta)
    if old is None:
        return plan_create(dest, entity)
    dest = _same_clock(dest)
    parts, result = plan_create(dest, entity)
    mirror, _ = plan_create(dest, _old_entity(old, entity))
    return _merged(parts, mirror, TableKeys(dest.table_name, dest.key_names)), result


def dual_put(
    window: Window, dest: WriteTarget, entity: Any, condition: Cond | None
) -> Steps[tuple[list[RequestPart], Any]]:
    meta = type(entity).model_entity()
    old = window.old_of(meta)
    if old is None:
        return (yield from plan_put(dest, entity, condition, read=True))
    yield from ensure_both(dest, meta, old, entity.__dict__)
    dest = _same_clock(dest)
    parts, result = yield from plan_put(dest, entity, condition, read=True)
    mirror, _ = yield from plan_put(dest, _old_entity(old, entity), None, read=True)
    return _merged(parts, mirror, TableKeys(dest.table_name, dest.key_names)), result


def dual_update(
    window: Window,
    dest: WriteTarget,
    target: Any,
    actions: tuple[Action, ...],
    condition: Cond | None,
    upsert: bool,
    sets: Any,
) -> Steps[tuple[list[RequestPart], EntityMeta]]:
    meta = target.meta if isinstance(target, KeyRef) else type(target).model_entity()
    old = window.old_of(meta)
    if old is None:
        parts, meta, _ = yield from plan_update(dest, target, actions, condition, sets, upsert)
        return parts, meta
    values = yield from ensure_both(dest, meta, old, _key_values(meta, target))
    dest = _same_clock(dest)
    parts, meta, _ = yield from plan_update(dest, target, actions, condition, sets, upsert)
    known = {k: v for k, v in sets.items() if k in meta.fields}
    old_target = _old_target(old, meta, target, {**known, **values})
    mirror, _, _ = yield from plan_update(dest, old_target, _old_actions(old, actions), None, sets, upsert)
    return _merged(parts, mirror, TableKeys(dest.table_name, dest.key_names)), meta


def dual_delete(
    window: Window, dest: WriteTarget, target: Any, condition: Cond | None
) -> Steps[list[RequestPart]]:
    meta = target.meta if isinstance(target, KeyRef) else type(target).model_entity()
    old = window.old_of(meta)
    if old is None:
        parts, _ = yield from plan_delete(dest, target, condition)
        return parts
    values = yield from ensure_both(dest, meta, old, _key_values(meta, target))
    parts, _ = yield from plan_delete(dest, target, condition)
    try:
        old_target = _old_target(old, meta, target, values)
        mirror, _ = yield from plan_delete(dest, old_target, None)
    except MissingKeyFields:
        mirror = []  # nothing stored under the new key, and the old key cannot be told: no old shape
    if not parts:
        return mirror
    return _merged(parts, mirror, TableKeys(dest.table_name, dest.key_names))


# -- what the handle and its transactions run while the window is open ---------------------------------------


class HandleSteps(NamedTuple):
    """What the window uses of the handle it is installed on: its driver, its write target and its decoding
    of a read item (the handle passes them, so this module does not import it)."""

    drive: Callable[[Steps[Any]], Any]
    write_target: Callable[[], WriteTarget]
    decoded: Callable[[EntityMeta, dict[str, AV]], Any]


def install(handle: Any, window: Window, steps: HandleSteps) -> None:
    """Make ``handle`` write every migrating entity in both shapes and fall back on the old shape in
    ``get``; its transactions mirror their writes too."""
    drive, write_target, decoded = steps

    plain_get = handle._get
    plain_transaction = handle.transaction

    def create(entity: Any) -> Steps[Any]:
        parts, result = dual_create(window, write_target(), entity)
        yield from send(parts, returning=True)
        return result

    def put(entity: Any, condition: Cond | None) -> Steps[Any]:
        for attempt in range(WINDOW_ATTEMPTS):
            parts, result = yield from dual_put(window, write_target(), entity, condition)
            try:
                yield from send(parts, returning=False)
            except ModelError as error:
                if attempt == WINDOW_ATTEMPTS - 1 or not _raced(parts, error):
                    raise
                continue
            return result
        raise AssertionError("unreachable")

    def update(target: Any, actions: Any, condition: Cond | None, upsert: bool, sets: Any) -> Steps[Any]:
        for attempt in range(WINDOW_ATTEMPTS):
            parts, meta = yield from dual_update(
                window, write_target(), target, actions, condition, upsert, sets
            )
            try:
                response = yield from send(parts, returning=True)
            except ModelError as error:
                if attempt == WINDOW_ATTEMPTS - 1 or not _raced(parts, error):
                    raise
                continue
            item = response.get("Attributes")
            if item is not None:
                return decoded(meta, item)
            values = _key_values(meta, target)
            key = {n: values[n] for n in meta.primary_fields}
            return (yield from plain_get(KeyRef(meta, key), True, {}))
        raise AssertionError("unreachable")

    def delete(target: Any, condition: Cond | None, key: dict[str, Any]) -> Steps[None]:
        target = _addressed(target, key)
        parts = yield from dual_delete(window, write_target(), target, condition)
        if parts:
            yield from send(parts)

    def batch_write(puts: Any, deletes: Any) -> Steps[None]:
        puts, deletes = list(puts), list(deletes)
        mirrored_puts = [_old_entity(o, e) for e in puts if (o := window.old_of(type(e).model_entity()))]
        mirrored_deletes = []
        for target in deletes:
            meta = target.meta if isinstance(target, KeyRef) else type(target).model_entity()
            old = window.old_of(meta)
            if old is not None:
                try:
                    mirrored_deletes.append(_old_target(old, meta, target, _key_values(meta, target)))
                except MissingKeyFields:
                    pass
        return (
            yield from plain_batch_write(write_target(), puts + mirrored_puts, deletes + mirrored_deletes)
        )

    def get(target: Any, consistent: bool, key: dict[str, Any]) -> Steps[Any]:
        found = yield from plain_get(target, consistent, key)
        if found is not None:
            return found
        meta, values = _addressed_meta(target, key)
        old = window.old_of(meta)
        if old is None:
            return None
        try:
            old_key = old.primary_key(values)
        except MissingKeyFields:
            return None
        params: dict[str, Any] = {"TableName": handle.table_name, "Key": old_key}
        if consistent:
            params["ConsistentRead"] = True
        item = (yield Request("GetItem", params)).get("Item")
        return None if item is None else decoded(meta, item)

    def transaction() -> Any:
        tx = plain_transaction()
        mirror_transaction(tx, window)
        return tx

    def get_entity(target: Any, /, *, consistent: bool = False, **key: Any) -> Any:
        return drive(get(target, consistent, key))

    handle.window = window
    handle.get = get_entity
    handle._create = create
    handle._put = put
    handle._update = update
    handle._delete = delete
    handle._batch_write = batch_write
    handle._get = get
    handle.transaction = transaction


def _raced(parts: list[RequestPart], error: ModelError) -> bool:
    """Whether a refused window write met another writer (plan again) rather than its own condition: a
    conflicting transaction, or a part whose stored image changed since it was planned."""
    if any(c.code == "TransactionConflict" for c in error.cancellations):
        return True
    for cancellation in error.cancellations:
        if cancellation.code != "ConditionalCheckFailed" or not 0 <= cancellation.index < len(parts):
            continue
        part = parts[cancellation.index]
        if part.relied and cancellation.item is not None and changed_since_read(part, cancellation.item):
            return True
    item = getattr(error, "item", None)
    return bool(parts) and item is not None and changed_since_read(parts[0], item)


def _addressed(target: Any, key: dict[str, Any]) -> Any:
    """A delete's target as a key or an entity (``db.delete(User, id=...)`` names the class)."""
    if isinstance(target, type) and issubclass(target, Entity):
        return target.key(**key)
    return target


def _addressed_meta(target: Any, key: dict[str, Any]) -> tuple[EntityMeta, dict[str, Any]]:
    if isinstance(target, KeyRef):
        return target.meta, dict(target.values)
    if isinstance(target, Entity):
        return type(target).model_entity(), dict(target.__dict__)
    return target.model_entity(), dict(key)


def mirror_transaction(tx: TransactionParts, window: Window) -> None:
    """Make ``tx`` gather both shapes of every migrating entity's write."""

    def create(entity: Any) -> Any:
        parts, result = dual_create(window, tx.dest, entity)
        tx.parts += parts
        return result

    def put(entity: Any, condition: Cond | None) -> Steps[Any]:
        parts, result = yield from dual_put(window, tx.dest, entity, condition)
        tx.parts += parts
        return result

    def update(target: Any, actions: Any, condition: Cond | None, upsert: bool, sets: Any) -> Steps[None]:
        parts, _ = yield from dual_update(window, tx.dest, target, actions, condition, upsert, sets)
        tx.parts += parts

    def delete(target: Any, condition: Cond | None, key: dict[str, Any]) -> Steps[None]:
        tx.parts += yield from dual_delete(window, tx.dest, _addressed(target, key), condition)

    # this transaction's own planners, mirroring each write (other transactions keep the plain methods)
    tx._create = create  # type: ignore[method-assign]
    tx._put = put  # type: ignore[method-assign]
    tx._update = update  # type: ignore[method-assign]
    tx._delete = delete  # type: ignore[method-assign]


def checked_window(migrating: Mapping[Any, Any] | None) -> Window | None:
    """The DB's window, or None; a mapping that is not ``{NewEntity: OldEntity}`` is refused."""
    if migrating is None:
        return None
    if not isinstance(migrating, Mapping) or not migrating:
        raise DeclarationError(f"migrating= takes {{NewEntity: OldEntity}}, not {migrating!r}")
    return Window(migrating)
