"""``split`` and ``merge``: one stored entity type becomes several, or several become one.

Both are one kind of step, a *retype*: each stored item of a source type is read as that type's entity,
handed to the target type chosen for it (``split``: per item, by a field's value or a function; ``merge``:
the one target), and written as the target declares it -- its type attribute, every key its templates compute,
its uniqueness guards -- with the attributes neither declaration knows kept as they were. Fields the source
declares and the target does not are dropped: that is the change the two declarations describe.

An item keeps its primary key or moves, exactly as :func:`~singletable.migrate.rekey` moves it: one
TransactWriteItems puts the new item if its key is free and deletes the old one if unchanged; an item that
stays is put on condition that it is still the image read -- every attribute as read, and no attribute
either declaration knows added since (an application on either design setting a field that was unset).
Guards follow in the same transaction: a guard both types keep is rewritten to name the new key (on
condition it is there), a guard only the source had is deleted, a guard only the target has is claimed (on
condition it is free). So do derived items (:mod:`singletable.migrate._owned`): those the source's
declarations called for are replaced by those the target's call for. A converted item carries the target's
type, which the step's scan no longer selects, so a redone page finds it done.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from singletable.migrate._items import Item, absent, key_text, primary_key, same_item, unchanged
from singletable.migrate._owned import DerivedMove, derived_move
from singletable.migrate._steps import (
    MigrationError,
    Step,
    Write,
    _bumped,
    _convert,
    _meta,
    declared,
    one_transaction,
)
from singletable.model import Entity, EntityMeta, Table, guard_key

Values = dict[str, Any]
SetValues = Callable[[Values], Mapping[str, Any]] | Mapping[str, Any] | None


@dataclass(slots=True)
class Target:
    """Where one item goes: the target entity and the field values to set on the way."""

    entity: type[Entity]
    set: SetValues = None


class Retype(Step):
    """Convert each stored item of the source types into the target chosen for it (module docstring)."""

    kind = "retype"
    verb = "retype"

    def sources(self) -> list[type[Entity]]:
        raise NotImplementedError

    def target(self, source: EntityMeta, values: Values, item: Item) -> Target:
        raise NotImplementedError

    def types(self) -> frozenset[str]:
        return frozenset(_meta(s).type for s in self.sources())

    def writes(self, item: Item, table: Table) -> list[Write]:
        kind = item.get(table.type_attribute, {}).get("S")
        source = next((m for m in map(_meta, self.sources()) if m.type == kind), None)
        if source is None:  # the scan's filter asks for these types only; a raw item of another is left alone
            return []
        values = source.decode(item)
        chosen = self.target(source, values, item)
        target = _meta(chosen.entity)
        computed = _computed(chosen.set, values)
        unknown = [name for name in computed if name not in target.fields]
        if unknown:
            raise MigrationError(f"{self.describe()} sets {unknown}, which are not fields of {target.type}")
        new_values = {n: v for n, v in {**values, **computed}.items() if n in target.fields}
        new = _kept(item, _convert(target, new_values, item, self.verb), source, target)
        derived = derived_move(source, values, target, target.decode(new))
        return _moves(item, new, source, target, values, new_values, table, derived, self.verb)


def _computed(set_values: SetValues, values: Values) -> dict[str, Any]:
    if set_values is None:
        return {}
    if callable(set_values):
        return dict(set_values(dict(values)))
    return {name: (v(dict(values)) if callable(v) else v) for name, v in set_values.items()}


def _kept(old: Item, new: Item, source: EntityMeta, target: EntityMeta) -> Item:
    """``new`` with the attributes of ``old`` that neither declaration knows (not a field, a key or the
    type attribute of either)."""
    known = set(source.field_of) | set(target.field_of)
    for table in (source.table, target.table):
        known |= {*table.key_types, table.type_attribute}
    return {**{n: av for n, av in old.items() if n not in known}, **new}


def _moves(
    item: Item,
    new: Item,
    source: EntityMeta,
    target: EntityMeta,
    values: Values,
    new_values: Values,
    table: Table,
    derived: DerivedMove,
    verb: str,
) -> list[Write]:
    """The writes taking ``item`` to ``new``: nothing when they are the same; else the item (put in place or
    moved), its guards and its derived items, in one transaction when there is more than the item to
    write."""
    old_key, new_key = primary_key(item, table), primary_key(new, table)
    if same_item(item, new):
        return []
    new = _bumped(item, new, target) if old_key == new_key else new
    guards = _guards(source, target, values, new_values, new_key) + derived.parts
    as_read = unchanged(item, declared(source, target))  # a field either design's writer set meanwhile too
    if old_key == new_key and not guards:
        return [Write("PutItem", {"Item": new, **as_read}, item, [new])]
    parts: list[dict[str, Any]]
    if old_key == new_key:
        parts = [{"Put": {"Item": new, **as_read}}]
        deletes: list[Item] = []
    else:
        parts = [{"Put": {"Item": new, **absent(new_key)}}, {"Delete": {"Key": old_key, **as_read}}]
        deletes = [old_key]
    parts = one_transaction(verb, source.type, old_key, parts + guards)
    transaction = {"TransactItems": parts}
    return [Write("TransactWriteItems", transaction, item, [new, *derived.items], deletes, derived.parts)]


def _guard_of(meta: EntityMeta, name: str, values: Values) -> Item | None:
    if name not in meta.unique or values.get(name) is None:
        return None
    scope = {f: values.get(f) for f in meta.guard_fields[name] if f != name}
    return guard_key(meta, name, values[name], **scope)


def _guards(
    source: EntityMeta, target: EntityMeta, values: Values, new_values: Values, owner: Item
) -> list[dict[str, Any]]:
    """Transaction parts moving the source's guards to the target's: kept guards rewritten to name
    ``owner`` (moved when their key changes), the source's other guards released, the target's new ones
    claimed."""
    parts: list[dict[str, Any]] = []
    names = list(dict.fromkeys([*source.unique, *target.unique]))
    for name in names:
        before = _guard_of(source, name, values)
        after = _guard_of(target, name, new_values)
        if before is not None and before != after:
            parts.append({"Delete": {"Key": before, **_exists(before)}})
        if after is None:
            continue
        guard: Item = {**after, "owner": {"M": owner}}
        for carried in target.guard_carry.get(name, ()):
            av = target.fields[carried].codec.dump(new_values.get(carried))
            if av is not None:
                guard[target.attribute_of[carried]] = av
        if before == after:
            parts.append({"Put": {"Item": guard, **_exists(after)}})
        else:
            parts.append({"Put": {"Item": guard, **absent(after)}})
    return parts


def _exists(key: Item) -> dict[str, Any]:
    return {
        "ConditionExpression": "attribute_exists(#g)",
        "ExpressionAttributeNames": {"#g": next(iter(key))},
    }


class Split(Retype):
    """One entity type becomes several; see :func:`split`."""

    kind = "split"
    verb = "split"

    def __init__(
        self,
        entity: type[Entity],
        into: Mapping[Any, type[Entity]] | Iterable[type[Entity]],
        by: str | Callable[[Values], type[Entity]],
        set: Mapping[type[Entity], SetValues] | None = None,
    ) -> None:
        self.entity = entity
        _meta(entity)
        self.by = by
        if isinstance(by, str):
            if not isinstance(into, Mapping):
                raise TypeError(f"split(by={by!r}) takes into={{value of {by}: Entity, ...}}")
            if by not in _meta(entity).fields:
                raise ValueError(f"split({_meta(entity).type}, by={by!r}): {by!r} is not a field")
            self.into: dict[Any, type[Entity]] = dict(into)
        elif callable(by):
            classes = list(into.values()) if isinstance(into, Mapping) else list(into)
            self.into = {cls: cls for cls in classes}
        else:
            raise TypeError(f"split(by=...) takes a field name or a function of the values, not {by!r}")
        if len({id(c) for c in self.into.values()}) < 2:
            raise ValueError("split(into=...) names two or more distinct entity types")
        for cls in self.into.values():
            if _meta(cls).table.name != _meta(entity).table.name:
                raise ValueError(
                    f"split: {cls.__name__} is declared for another table than {entity.__name__}"
                )
        self.set = dict(set or {})
        for cls in self.set:
            if cls not in self.into.values():
                raise ValueError(f"split(set=...) names {cls!r}, which is not one of into")

    def sources(self) -> list[type[Entity]]:
        return [self.entity]

    def target(self, source: EntityMeta, values: Values, item: Item) -> Target:
        shown = key_text(primary_key(item, source.table))
        if isinstance(self.by, str):
            value = values.get(self.by)
            chosen = self.into.get(value)
            if chosen is None:
                raise MigrationError(
                    f"split {source.type} {shown}: {self.by} is {value!r}, "
                    f"which into does not name (it names {sorted(map(repr, self.into))})"
                )
        else:
            chosen = self.by(dict(values))
            if chosen not in self.into.values():
                raise MigrationError(
                    f"split {source.type} {shown}: by returned {chosen!r}, which is not one of into"
                )
        return Target(chosen, self.set.get(chosen))

    def describe(self) -> str:
        names = ", ".join(_meta(c).type for c in self.into.values())
        return f"split {_meta(self.entity).type} into {names}"


class Merge(Retype):
    """Several entity types become one; see :func:`merge`."""

    kind = "merge"
    verb = "merge"

    def __init__(
        self,
        entities: Iterable[type[Entity]],
        into: type[Entity],
        set: Mapping[type[Entity], SetValues] | None = None,
    ) -> None:
        self.entities = list(entities)
        self.to = into
        target = _meta(into)
        types = [_meta(e).type for e in self.entities]
        if not types:
            raise ValueError("merge() takes the entity types to merge, one or more")
        if len(dict.fromkeys(types)) != len(types):
            raise ValueError(f"merge(): entity types named twice: {types}")
        for cls in self.entities:
            if _meta(cls).table.name != target.table.name:
                raise ValueError(f"merge: {cls.__name__} is declared for another table than {into.__name__}")
        self.set = dict(set or {})
        for cls in self.set:
            if cls not in self.entities:
                raise ValueError(f"merge(set=...) names {cls!r}, which is not one of the merged types")

    def sources(self) -> list[type[Entity]]:
        return self.entities

    def target(self, source: EntityMeta, values: Values, item: Item) -> Target:
        return Target(self.to, self.set.get(source.cls))

    def describe(self) -> str:
        names = ", ".join(_meta(c).type for c in self.entities)
        return f"merge {names} into {_meta(self.to).type}"


def split(
    entity: type[Entity],
    into: Mapping[Any, type[Entity]] | Iterable[type[Entity]],
    by: str | Callable[[Values], type[Entity]],
    set: Mapping[type[Entity], SetValues] | None = None,
) -> Split:
    """Turn every stored ``entity`` item into one of several entity types.

    ``by="kind"`` with ``into={"person": Person, "company": Company}`` picks the target by a field's value;
    ``by=function`` with ``into=[Person, Company]`` picks it by ``function(values) -> Person``. ``set`` gives,
    per target, field values to compute on the way (as ``backfill``'s ``set``). An item whose value no target
    takes stops the run with a message naming it."""
    return Split(entity, into, by, set)


def merge(
    entities: Iterable[type[Entity]],
    into: type[Entity],
    set: Mapping[type[Entity], SetValues] | None = None,
) -> Merge:
    """Turn every stored item of ``entities`` into ``into``; ``set`` gives, per source type, field values to
    compute on the way (``{Person: {"kind": "person"}}``), as ``backfill``'s ``set``."""
    return Merge(entities, into, set)
