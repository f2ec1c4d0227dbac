"""The verbs a migration is written in, each a step that turns one stored item into the writes it needs.

An item step (backfill, rekey, rename, each) reads items of its entity types from a Scan and answers, for one
item, the writes that bring it to the new shape -- or none when it already has it. Every write is
conditioned on the image it was computed from (or, for a put under a new key, on that key being free), so a
write sent twice, or after another writer changed the item, is refused rather than applied twice; the runner
then reads the item again and asks the step anew. That is what makes a page safe to redo after a crash.

An index step (add_index, drop_index) is one UpdateTable, skipped when the table already has (or lacks) the
index, then a wait until the table and its indexes are ACTIVE.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from singletable.migrate._items import Item, absent, key_text, primary_key, same_item, unchanged
from singletable.migrate._owned import DerivedMove, derived_move
from singletable.model import Entity, EntityMeta, Index, ModelError, Path, Table, guard_key, upgraded_item
from singletable.model.shared import MAX_ACTIONS

if TYPE_CHECKING:
    from singletable.migrate._runner import Caller


class MigrationError(Exception):
    """A migration cannot go on: a stored item it cannot convert, a key collision, a changed migration."""


@dataclass(slots=True)
class Write:
    """One request of a migration, without its TableName: ``operation`` is PutItem, UpdateItem, DeleteItem
    or TransactWriteItems. ``old`` is the image it was computed from, ``new`` the items it leaves (for the
    plan's unit estimate and index-key checks: the item first, then its derived items), ``owned`` the
    transaction's parts that move its derived items."""

    operation: str
    params: dict[str, Any]
    old: Item | None = None
    new: list[Item] = field(default_factory=list)
    deletes: list[Item] = field(default_factory=list)
    owned: list[dict[str, Any]] = field(default_factory=list)


@dataclass(slots=True)
class Delete:
    """What ``each``'s function returns to delete an item: its primary key, or an entity to delete."""

    key: Item | Entity


class Step:
    """One step of a migration; see the module docstring."""

    kind = "step"
    scans = True  # an item step; an index step is run by ``apply``

    def types(self) -> frozenset[str] | None:
        """The entity types whose items this step reads (None: every item)."""
        return None

    def writes(self, item: Item, table: Table) -> list[Write]:
        raise NotImplementedError

    def apply(self, call: Caller) -> None:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


def _meta(entity: type[Entity]) -> EntityMeta:
    if not (isinstance(entity, type) and issubclass(entity, Entity)):
        raise TypeError(f"a migration step takes an Entity class, not {entity!r}")
    return entity.model_entity()


def _carried(old: Item, new: Item, meta: EntityMeta) -> Item:
    """``new`` with the attributes of ``old`` the model does not know (not a field, not a key, not the type):
    a migration changes what it is told to and keeps the rest."""
    known = set(meta.field_of) | set(meta.table.key_types) | {meta.table.type_attribute}
    return {**{n: av for n, av in old.items() if n not in known}, **new}


def _convert(meta: EntityMeta, values: Mapping[str, Any], item: Item, verb: str) -> Item:
    """The item ``meta`` stores for ``values`` (validated as the entity would be), or MigrationError naming
    the item it came from."""
    try:
        entity = meta.cls.model_validate(dict(values))
        return meta.to_item(meta.values(entity))
    except (ValidationError, ModelError, ValueError, TypeError) as error:
        reason = str(error).splitlines()[0] if not isinstance(error, ValidationError) else _first(error)
        raise MigrationError(
            f"{verb} {meta.type} {key_text(primary_key(item, meta.table))}: {reason}"
        ) from None


def _first(error: ValidationError) -> str:
    one = error.errors()[0]
    where = ".".join(str(p) for p in one.get("loc", ())) or "value"
    return f"{where}: {one.get('msg', 'invalid')}"


def declared(*metas: EntityMeta) -> set[str]:
    """The attributes ``metas`` know (fields, every key attribute of their tables, the type attribute): those
    a writer through one of these declarations may add to an item after a migration read it."""
    names: set[str] = set()
    for meta in metas:
        names |= {*meta.attribute_of.values(), *meta.table.key_types, meta.table.type_attribute}
    return names


def _put_if_unchanged(
    verb: str, old: Item, new: Item, meta: EntityMeta, derived: DerivedMove | None = None
) -> list[Write]:
    """``new`` put over ``old`` while it is the image read, with the derived items ``derived`` swaps in the
    same transaction when it swaps any. An item already as ``new`` whose declaration derives other items
    than its old one (a re-key that keeps the key) gets only those, on condition it is still as read."""
    key, owned = primary_key(old, meta.table), derived or DerivedMove()
    as_read = unchanged(old, declared(meta))  # and no field set meanwhile that was unset when read
    if same_item(old, new):
        if not owned.parts:
            return []
        check = {"ConditionCheck": {"Key": key, **as_read}}
        parts = one_transaction(verb, meta.type, key, [check, *owned.parts])
        return [Write("TransactWriteItems", {"TransactItems": parts}, old, [old, *owned.items])]
    put = {"Item": _bumped(old, new, meta), **as_read}
    if not owned.parts:
        return [Write("PutItem", put, old, [new])]
    parts = one_transaction(verb, meta.type, key, [{"Put": put}, *owned.parts])
    return [Write("TransactWriteItems", {"TransactItems": parts}, old, [new, *owned.items])]


def one_transaction(verb: str, kind: str, owner: Item, parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``parts``, when DynamoDB takes them as one TransactWriteItems; else MigrationError naming the verb,
    the owner's entity type and key, and the count -- raised before anything of it is sent."""
    if len(parts) > MAX_ACTIONS:
        raise MigrationError(
            f"{verb} {kind} {key_text(owner)}: it takes {len(parts)} writes in one transaction (the item, "
            f"its uniqueness guards and derived items), more than the {MAX_ACTIONS} DynamoDB allows; nothing "
            "of it was written"
        )
    return parts


def _bumped(old: Item, new: Item, meta: EntityMeta) -> Item:
    """``new`` with the entity's version one past ``old``'s, when it has a version field: a writer holding
    the item as it was before the migration then fails its version check instead of undoing the change."""
    if meta.version is None:
        return new
    attribute = meta.attribute_of[meta.version]
    stored = old.get(attribute, {}).get("N")
    return {**new, attribute: {"N": str(int(stored) + 1 if stored is not None else 1)}}


@dataclass(slots=True)
class Backfill(Step):
    """Compute attributes of each stored ``entity`` item; see :func:`backfill`."""

    entity: type[Entity]
    set: Callable[[dict[str, Any]], Mapping[str, Any]] | Mapping[str, Any]
    where: Callable[[dict[str, Any]], bool] | None = None
    kind = "backfill"

    def types(self) -> frozenset[str]:
        return frozenset({_meta(self.entity).type})

    def writes(self, item: Item, table: Table) -> list[Write]:
        meta = _meta(self.entity)
        values = meta.decode(item)
        if self.where is not None and not self.where(dict(values)):
            return []
        if callable(self.set):
            computed = dict(self.set(dict(values)))
        else:
            computed = {name: (v(dict(values)) if callable(v) else v) for name, v in self.set.items()}
        unknown = [name for name in computed if name not in meta.fields]
        if unknown:
            raise MigrationError(f"backfill({meta.type}) sets {unknown}, which are not fields of {meta.type}")
        current = upgraded_item(meta, item)  # an older schema version, through its @upgrade chain
        new = _carried(current, _convert(meta, {**values, **computed}, item, "backfill"), meta)
        if primary_key(new, table) != primary_key(item, table):
            raise MigrationError(
                f"backfill({meta.type}) would change the primary key of {key_text(primary_key(item, table))} "
                f"to {key_text(primary_key(new, table))}: use rekey to move items"
            )
        derived = derived_move(meta, values, meta, meta.decode(new))
        return _put_if_unchanged("backfill", item, new, meta, derived)

    def describe(self) -> str:
        return f"backfill {_meta(self.entity).type}"


@dataclass(slots=True)
class Moved:
    """One stored item of a re-keyed entity: its declarations before (``of``) and after (``to``), its values,
    its new image, its old and new primary keys, and what happens to its derived items."""

    of: EntityMeta
    to: EntityMeta
    values: dict[str, Any]
    new: Item
    old_key: Item
    new_key: Item
    derived: DerivedMove


@dataclass(slots=True)
class Rekey(Step):
    """Move each stored ``entity`` item to the key ``to`` computes; see :func:`rekey`."""

    entity: type[Entity]
    to: type[Entity] | None = None
    kind = "rekey"

    def types(self) -> frozenset[str]:
        return frozenset({_meta(self.entity).type})

    def writes(self, item: Item, table: Table) -> list[Write]:
        move = self.moved(item, table)
        if move.old_key == move.new_key:
            return _put_if_unchanged("rekey", item, move.new, move.to, move.derived)
        parts: list[dict[str, Any]] = [
            {"Put": {"Item": move.new, **absent(move.new_key)}},
            {"Delete": {"Key": move.old_key, **unchanged(item, declared(move.of, move.to))}},
            *self.guard_parts(move.of, move.to, item, move.values, move.new_key),
            *move.derived.parts,
        ]
        parts = one_transaction("rekey", move.of.type, move.old_key, parts)
        new = [move.new, *move.derived.items]
        transaction = {"TransactItems": parts}
        return [Write("TransactWriteItems", transaction, item, new, [move.old_key], move.derived.parts)]

    def moved(self, item: Item, table: Table) -> Moved:
        """Where ``item`` goes and what goes with it (see :class:`Moved`)."""
        old_meta, new_meta = _meta(self.entity), _meta(self.to or self.entity)
        values = old_meta.decode(item)
        new = _carried(upgraded_item(old_meta, item), _convert(new_meta, values, item, "rekey"), new_meta)
        old_key = primary_key(item, table)
        if _under(old_meta, values, old_key):
            derived = derived_move(old_meta, values, new_meta, new_meta.decode(new))
        else:  # an item already under its new key (moved, or written by the new design): its own are there
            derived = DerivedMove()
        return Moved(old_meta, new_meta, values, new, old_key, primary_key(new, table), derived)

    def guard_parts(
        self, old: EntityMeta, new: EntityMeta, item: Item, values: Mapping[str, Any], owner: Item
    ) -> list[dict[str, Any]]:
        """The guard items follow their owner: each is rewritten naming the new key (moved, when its own
        key's template changed), conditioned on the old guard being there."""
        parts: list[dict[str, Any]] = []
        for name, fields in new.guard_fields.items():
            if values.get(name) is None:
                continue
            scope = {f: values.get(f) for f in fields if f != name}
            after = guard_key(new, name, values[name], **scope)
            before = guard_key(old, name, values[name], **scope) if name in old.unique else after
            guard: Item = {**after, "owner": {"M": owner}}
            for carried in new.guard_carry.get(name, ()):
                av = new.fields[carried].codec.dump(values[carried])
                if av is not None:
                    guard[new.attribute_of[carried]] = av
            first = next(iter(before))
            exists = {
                "ConditionExpression": "attribute_exists(#g)",
                "ExpressionAttributeNames": {"#g": first},
            }
            if before == after:
                parts.append({"Put": {"Item": guard, **exists}})
            else:
                parts.append({"Delete": {"Key": before, **exists}})
                parts.append({"Put": {"Item": guard, **absent(after)}})
        return parts

    def describe(self) -> str:
        target = f" to {_meta(self.to).cls.__name__}" if self.to else ""
        return f"rekey {_meta(self.entity).type}{target}"


def _under(meta: EntityMeta, values: Mapping[str, Any], key: Item) -> bool:
    """Whether ``key`` is the primary key ``meta``'s templates give ``values``."""
    try:
        return meta.primary_key(values) == key
    except (ModelError, ValueError, TypeError):
        return False


@dataclass(slots=True)
class Rename(Step):
    """Rename one stored attribute of an entity's items; see :func:`rename`."""

    path: Path
    new: str
    kind = "rename"

    def __post_init__(self) -> None:
        if not isinstance(self.path, Path) or not self.path.top_level:
            raise TypeError(f"rename() takes a top-level field as Entity.f.name, not {self.path!r}")
        if not self.new or not isinstance(self.new, str):
            raise ValueError("rename() needs the new attribute name, a non-empty string")

    def types(self) -> frozenset[str]:
        return frozenset({self.path.entity})

    def writes(self, item: Item, table: Table) -> list[Write]:
        old_name = str(self.path.steps[0])
        for name in (old_name, self.new):
            if name in table.key_types or name == table.type_attribute:
                raise MigrationError(
                    f"rename {self.path!r}: {name} is a key attribute; use rekey or backfill"
                )
        if old_name not in item:
            return []
        if self.new in item:
            raise MigrationError(
                f"rename {self.path!r} to {self.new}: item {key_text(primary_key(item, table))} "
                "has both attributes"
            )
        value = item[old_name]
        params = {
            "Key": primary_key(item, table),
            "UpdateExpression": "SET #n = :v REMOVE #o",
            "ConditionExpression": "#o = :v AND attribute_not_exists(#n)",
            "ExpressionAttributeNames": {"#n": self.new, "#o": old_name},
            "ExpressionAttributeValues": {":v": value},
        }
        new = {**{n: av for n, av in item.items() if n != old_name}, self.new: value}
        return [Write("UpdateItem", params, item, [new])]

    def describe(self) -> str:
        return f"rename {self.path!r} to {self.new}"


@dataclass(slots=True)
class Each(Step):
    """Run a function on every item (of one entity type); see :func:`each`."""

    fn: Callable[[Item], Iterable[Entity | Delete]]
    entity: type[Entity] | None = None
    kind = "each"

    def types(self) -> frozenset[str] | None:
        return None if self.entity is None else frozenset({_meta(self.entity).type})

    def writes(self, item: Item, table: Table) -> list[Write]:
        out: list[Write] = []
        for result in self.fn(item) or ():
            if isinstance(result, Delete):
                key = result.key
                if isinstance(key, Entity):
                    meta = key.model_entity()
                    key = meta.primary_key(meta.values(key))
                out.append(Write("DeleteItem", {"Key": dict(key)}, item, [], [dict(key)]))
            elif isinstance(result, Entity):
                meta = result.model_entity()
                new = meta.to_item(meta.values(result))
                out.append(Write("PutItem", {"Item": new}, item, [new]))
            else:
                raise MigrationError(
                    f"each({_name(self.fn)}) returned {result!r}: return entities or Delete(key)"
                )
        return out

    def describe(self) -> str:
        what = f" {_meta(self.entity).type}" if self.entity else ""
        return f"each{what}: {_name(self.fn)}"


def _name(fn: Any) -> str:
    return getattr(fn, "__qualname__", repr(fn))


@dataclass(slots=True)
class AddIndex(Step):
    """Create a global secondary index; see :func:`add_index`."""

    index: Index
    kind = "add_index"
    scans = False

    def __post_init__(self) -> None:
        if not isinstance(self.index, Index) or self.index.local:
            raise TypeError("add_index() takes a GSI(...); a local index can only be declared at CreateTable")

    def apply(self, call: Caller) -> None:
        table = call("DescribeTable", {})["Table"]
        names = [g["IndexName"] for g in table.get("GlobalSecondaryIndexes", [])]
        if self.index.name not in names:
            call("UpdateTable", self.update(table))
        call.wait_active(self.index.name, present=True)

    def update(self, described: dict[str, Any]) -> dict[str, Any]:
        index = self.index
        schema = [{"AttributeName": index.pk, "KeyType": "HASH"}]
        types = {index.pk: index.pk_type}
        if index.sk:
            schema.append({"AttributeName": index.sk, "KeyType": "RANGE"})
            types[index.sk] = index.sk_type
        projection: dict[str, Any] = {"ProjectionType": index.projection_type}
        if not isinstance(index.projection, str):
            projection["NonKeyAttributes"] = list(index.projection)
        create: dict[str, Any] = {"IndexName": index.name, "KeySchema": schema, "Projection": projection}
        if described.get("BillingModeSummary", {}).get("BillingMode", "PROVISIONED") == "PROVISIONED":
            throughput = described.get("ProvisionedThroughput", {})
            create["ProvisionedThroughput"] = {
                "ReadCapacityUnits": max(1, throughput.get("ReadCapacityUnits", 5)),
                "WriteCapacityUnits": max(1, throughput.get("WriteCapacityUnits", 5)),
            }
        return {
            "AttributeDefinitions": [{"AttributeName": a, "AttributeType": t} for a, t in types.items()],
            "GlobalSecondaryIndexUpdates": [{"Create": create}],
        }

    def describe(self) -> str:
        return f"add index {self.index.name}"


@dataclass(slots=True)
class DropIndex(Step):
    """Delete a global secondary index; see :func:`drop_index`."""

    name: str
    kind = "drop_index"
    scans = False

    def apply(self, call: Caller) -> None:
        table = call("DescribeTable", {})["Table"]
        names = [g["IndexName"] for g in table.get("GlobalSecondaryIndexes", [])]
        if self.name in names:
            call("UpdateTable", {"GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": self.name}}]})
        call.wait_active(self.name, present=False)

    def describe(self) -> str:
        return f"drop index {self.name}"


def writes_for(step: Step, item: Item, table: Table) -> list[Write]:
    """``step.writes(item)``, with an error of the migration's own code (a ``set`` or ``each`` function that
    raises) as MigrationError naming the step and the item, so a run stops with one clear line."""
    try:
        return step.writes(item, table)
    except MigrationError:
        raise
    except Exception as error:
        where = key_text(primary_key(item, table))
        raise MigrationError(f"{step.describe()}: item {where}: {type(error).__name__}: {error}") from error


# -- the verbs ---------------------------------------------------------------------------------------------


def backfill(
    entity: type[Entity],
    set: Callable[[dict[str, Any]], Mapping[str, Any]] | Mapping[str, Any],
    where: Callable[[dict[str, Any]], bool] | None = None,
) -> Backfill:
    """Compute fields of every stored ``entity`` item from its stored values (a dict by field name).

    ``set`` is a function returning ``{field: value}``, or a dict of field to a value or a function of the
    values. ``where`` picks the items to touch. The item is rewritten whole with every key the entity's
    templates compute (a new GSI key appears here), conditioned on the stored item being unchanged; an item
    that already has the computed values is not written."""
    return Backfill(entity, set, where)


def rekey(entity: type[Entity], to: type[Entity] | None = None, *, keep_old: bool = False) -> Rekey:
    """Move every stored ``entity`` item to the primary key that ``to`` (default: ``entity`` as declared
    now) computes from its fields: one transaction puts the item under its new key (if that key is free),
    deletes the old item (if unchanged), rewrites its uniqueness guards to name the new key and replaces the
    derived items the old declaration called for with those the new one calls for.

    ``keep_old=True`` (a dual-write window: ``connect(..., migrating={to: entity})``) copies instead: the old
    items (and their derived items) stay until ``migrate finish`` verifies the new ones and removes them."""
    if keep_old:
        from singletable.migrate._finish import RekeyKeepingOld  # it builds on Rekey, defined above

        return RekeyKeepingOld(entity, to)
    return Rekey(entity, to)


def rename(path: Path, new: str) -> Rename:
    """Rename the stored attribute of ``Entity.f.old`` to ``new`` in every item of that entity."""
    return Rename(path, new)


def each(fn: Callable[[Item], Iterable[Entity | Delete]], entity: type[Entity] | None = None) -> Each:
    """Call ``fn(item)`` on every stored item (of ``entity``'s type, when given) and write what it returns:
    entities are put whole, ``Delete(key)`` deletes. Make ``fn`` depend only on the item it is given, so a
    redone page writes the same."""
    return Each(fn, entity)


def add_index(index: Index) -> AddIndex:
    """Create the global secondary index ``index`` (``GSI("byX", pk=..., sk=...)``), then wait until DynamoDB
    has built it (ACTIVE). Skipped when the table has an index of that name."""
    return AddIndex(index)


def drop_index(name: str) -> DropIndex:
    """Delete the global secondary index ``name``, then wait until it is gone. Skipped when absent."""
    return DropIndex(name)
